// Writes the files of `Public/` into a Swift source (base64 text, decoded once at start),
// so that the pacenote binary carries its site's CSS, JS, icons and OpenAPI document and
// serves them when copied alone. Run by the EmbedPublicPlugin build tool on every build
// where a file of Public/ changed.
//
// Usage: EmbedPublic PUBLIC_DIR OUTPUT.swift
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: EmbedPublic PUBLIC_DIR OUTPUT.swift\n".utf8))
    exit(2)
}
let root = URL(fileURLWithPath: arguments[1]).standardizedFileURL
var entries: [(name: String, data: Data)] = []
if let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey],
                                                options: [.skipsHiddenFiles]) {
    for case let url as URL in walker {
        guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else { continue }
        let name = String(url.standardizedFileURL.path.dropFirst(root.path.count + 1))
        guard let data = FileManager.default.contents(atPath: url.path) else {
            FileHandle.standardError.write(Data("EmbedPublic: cannot read \(url.path)\n".utf8))
            exit(1)
        }
        entries.append((name, data))
    }
}
entries.sort { $0.name < $1.name }
var source = """
    // Generated at build time by EmbedPublic from Public/: do not edit.

    enum EmbeddedPublicFiles {
        /// Each file's path below Public/ and its bytes in base64.
        static let base64: [(path: String, bytes: String)] = [

    """
for entry in entries {
    let name = entry.name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    source += "        (\"\(name)\", \"\(entry.data.base64EncodedString())\"),\n"
}
source += "    ]\n}\n"
do {
    try Data(source.utf8).write(to: URL(fileURLWithPath: arguments[2]), options: .atomic)
} catch {
    FileHandle.standardError.write(Data("EmbedPublic: cannot write \(arguments[2]): \(error)\n".utf8))
    exit(1)
}
