import Foundation

/// The site's files (CSS, JS, icons, the OpenAPI document), served as they are:
/// `/static/…`, plus `/favicon.svg`, `/favicon.ico` and `/robots.txt` at the root. Those of
/// `Public/` are built into the binary (EmbedPublicPlugin), so a copied binary serves the
/// whole site; `server.public_dir` names a folder whose files take their place (a restyled
/// site), loaded once at start.
public struct StaticFiles: Sendable {
    struct File: Sendable {
        var body: [UInt8]
        var contentType: String
    }

    private let files: [String: File]
    /// The override folder, if one is configured.
    public let root: String?

    /// The built-in files, then every regular file under `root` in their place (symbolic
    /// links that leave it and hidden files are ignored).
    public init(root: String?) {
        self.root = root
        var files = Self.builtIn
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

    /// Public/ as built into the binary, decoded once.
    static let builtIn: [String: File] = Dictionary(uniqueKeysWithValues: EmbeddedPublicFiles.base64.map { entry in
        // The generator wrote valid base64 of each file; an empty body would show at once in tests.
        (entry.path, File(body: Array(Data(base64Encoded: entry.bytes) ?? Data()), contentType: contentType(entry.path)))
    })

    /// The paths of the built-in files (below Public/).
    public static var builtInPaths: [String] { builtIn.keys.sorted() }

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
