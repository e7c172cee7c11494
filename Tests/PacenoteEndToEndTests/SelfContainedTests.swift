import Foundation
import PacenoteTestSupport
import Testing

/// The release binary carries its site: copied alone into an empty folder (no Public/, no
/// checkout beside it), it serves every file of Public/ byte for byte, and
/// `server.public_dir` still replaces them for a restyled site.
@Suite struct SelfContainedTests {
    /// The checkout's Public/ folder (this file is Tests/PacenoteEndToEndTests/…).
    static let publicDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Public").path

    @Test func theReleaseBinaryCopiedAloneServesEveryFileOfPublic() throws {
        let release = try PacenoteProcess.releaseBinary()
        let dir = try TemporaryDirectory("pacenote-alone")
        let alone = dir.file("pacenote")
        try FileManager.default.copyItem(atPath: release, toPath: alone)
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.publicDirectory).filter { !$0.hasPrefix(".") }.sorted()
        #expect(names.contains("site.css") && names.contains("openapi.json") && names.count >= 7, "\(names)")

        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", binary: alone)
        for name in names {
            let expected = try Data(contentsOf: URL(fileURLWithPath: Self.publicDirectory + "/" + name))
            let served = try HTTP.get(daemon.base + "/static/" + name)
            #expect(served.status == 200, "/static/\(name)")
            #expect(served.body == expected, "/static/\(name) differs from Public/\(name)")
        }
        let openAPI = try HTTP.get(daemon.base + "/api/v1/openapi.json")
        let document = try Data(contentsOf: URL(fileURLWithPath: Self.publicDirectory + "/openapi.json"))
        #expect(openAPI.status == 200 && openAPI.body == document)
        for root in ["favicon.ico", "favicon.svg", "robots.txt"] {
            #expect(try HTTP.get(daemon.base + "/" + root).status == 200, "/\(root)")
        }
        // A page links its stylesheet and script, which answer from the binary too.
        let page = try HTTP.get(daemon.base + "/")
        #expect(page.status == 200 && page.text.contains("static/site.css") && page.text.contains("static/live.js"))
        try daemon.stop()
    }

    @Test func aConfiguredPublicDirReplacesTheBuiltInFiles() throws {
        let dir = try TemporaryDirectory("pacenote-restyled")
        try FileManager.default.createDirectory(atPath: dir.file("site"), withIntermediateDirectories: true)
        try "body { color: hotpink }\n".write(toFile: dir.file("site/site.css"), atomically: true, encoding: .utf8)
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: "[server]\npublic_dir = \"\(dir.file("site"))\"\n")
        let css = try HTTP.get(daemon.base + "/static/site.css")
        #expect(css.text == "body { color: hotpink }\n")
        let js = try HTTP.get(daemon.base + "/static/live.js")
        let builtIn = try Data(contentsOf: URL(fileURLWithPath: Self.publicDirectory + "/live.js"))
        #expect(js.status == 200 && js.body == builtIn, "files the folder does not have still come from the binary")
        try daemon.stop()
    }
}
