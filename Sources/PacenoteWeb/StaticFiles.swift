import Foundation

/// The files in `Public/` (CSS, JS, icons), loaded once at start and served as they are:
/// `/static/…`, plus `/favicon.svg`, `/favicon.ico` and `/robots.txt` at the root.
public struct StaticFiles: Sendable {
    struct File: Sendable {
        var body: [UInt8]
        var contentType: String
    }

    private let files: [String: File]
    public let root: String?

    /// Loads every regular file under `root` (symbolic links that leave it are ignored).
    public init(root: String?) {
        self.root = root
        var files: [String: File] = [:]
        if let root, let walker = FileManager.default.enumerator(atPath: root) {
            let base = URL(fileURLWithPath: root).resolvingSymlinksInPath().path
            while let relative = walker.nextObject() as? String {
                let full = URL(fileURLWithPath: root + "/" + relative).resolvingSymlinksInPath().path
                guard full.hasPrefix(base + "/"), !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }),
                      let attributes = try? FileManager.default.attributesOfItem(atPath: full),
                      attributes[.type] as? FileAttributeType == .typeRegular,
                      let data = FileManager.default.contents(atPath: full) else { continue }
                files[relative] = File(body: Array(data), contentType: Self.contentType(relative))
            }
        }
        self.files = files
    }

    /// Where `Public/` is: the configured directory, else beside the executable or in the
    /// source checkout it was built in (`.build/release/pacenote` → `Public/`).
    public static func locate(configured: String?, executable: String = CommandLine.arguments.first ?? "") -> String? {
        if let configured { return configured }
        var dir = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            let candidate = dir.appendingPathComponent("Public").path
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDir), isDir.boolValue { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }

    /// The response for a request path below the static root, or nil if there is no such file.
    /// Paths are matched against the loaded names only, so `..`, encoded or not, never
    /// reaches the file system.
    func response(for relative: String) -> HTTPResponse? {
        guard !relative.isEmpty, !relative.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }),
              let file = files[relative] else { return nil }
        return HTTPResponse(status: 200, headers: [
            ("Content-Type", file.contentType),
            ("Cache-Control", "public, max-age=3600"),
            ("X-Content-Type-Options", "nosniff"),
        ], body: file.body)
    }

    static func contentType(_ name: String) -> String {
        switch (name as NSString).pathExtension.lowercased() {
        case "css": "text/css; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "webp": "image/webp"
        case "ico": "image/x-icon"
        case "woff2": "font/woff2"
        case "json": "application/json; charset=utf-8"
        case "webmanifest": "application/manifest+json"
        case "txt": "text/plain; charset=utf-8"
        case "html": "text/html; charset=utf-8"
        default: "application/octet-stream"
        }
    }
}
