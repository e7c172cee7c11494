import Foundation
import PacenoteTestSupport
import Testing

/// docs/SECURITY.md's nginx example, run as it is written (only the ports and the
/// certificate's paths changed) in front of the real binary: Debian's nginx on loopback
/// with TLS, curl as the browser from distinct loopback addresses (127.0.0.2 is a trusted
/// client, 127.0.0.3 a stranger).
@Suite struct ReverseProxyTests {
    static let securityDoc = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/SECURITY.md").path

    /// nginx running one site from the document, until deinitialised.
    final class Proxy {
        let dir: TemporaryDirectory
        let process = Process()
        let port: UInt16

        init(upstream: UInt16) throws {
            dir = try TemporaryDirectory("pacenote-nginx")
            let doc = try String(contentsOfFile: ReverseProxyTests.securityDoc, encoding: .utf8)
            guard let start = doc.range(of: "```nginx\n"), let end = doc.range(of: "```", range: start.upperBound..<doc.endIndex) else {
                throw HarnessError("docs/SECURITY.md has no nginx example")
            }
            port = try Ports.free()
            _ = try run(try Tools.require("openssl"), ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                                                       "-subj", "/CN=music.example.org", "-keyout", dir.file("site.key"), "-out", dir.file("site.pem")])
            var site = String(doc[start.upperBound..<end.lowerBound])
            for (from, to) in [("listen 443 ssl;", "listen 127.0.0.1:\(port) ssl;"),
                               ("/etc/ssl/certs/music.example.org.pem", dir.file("site.pem")),
                               ("/etc/ssl/private/music.example.org.key", dir.file("site.key")),
                               ("http://127.0.0.1:6680", "http://127.0.0.1:\(upstream)")] {
                guard site.contains(from) else { throw HarnessError("the nginx example no longer contains '\(from)'") }
                site = site.replacingOccurrences(of: from, with: to)
            }
            let temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map { "\($0)_temp_path \(dir.file($0));" }.joined(separator: " ")
            let conf = """
                daemon off;
                master_process off;
                pid \(dir.file("nginx.pid"));
                error_log \(dir.file("error.log"));
                events { worker_connections 64; }
                http {
                    access_log off;
                    \(temp)
                \(site)
                }
                """
            try conf.write(toFile: dir.file("nginx.conf"), atomically: true, encoding: .utf8)
            process.executableURL = URL(fileURLWithPath: try Tools.require("nginx"))
            process.arguments = ["-p", dir.path, "-c", dir.file("nginx.conf"), "-e", dir.file("error.log")]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let port = self.port
            guard eventually(timeout: 10, { Ports.connect(port).map { close($0); return true } ?? false }) else {
                throw HarnessError("nginx did not start: \((try? String(contentsOfFile: dir.file("error.log"), encoding: .utf8)) ?? "")")
            }
        }

        deinit {
            // A child of the test runner inherits its blocked signals, and nginx without a
            // master process never unblocks them: SIGTERM would wait forever.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// `curl` from `source` (a loopback address), through the proxy (`https://music.example.org`)
    /// or straight to `direct`: the status and the head and body as received.
    static func curl(_ source: String, _ path: String, proxy: Proxy? = nil, direct: UInt16? = nil,
                     headers: [String] = [], form: String? = nil) throws -> (status: Int, text: String) {
        var args = ["-sk", "-i", "--max-time", "5", "--interface", source]
        if let proxy {
            args += ["--resolve", "music.example.org:\(proxy.port):127.0.0.1", "https://music.example.org:\(proxy.port)\(path)"]
        } else if let direct {
            args += ["http://127.0.0.1:\(direct)\(path)"]
        }
        for header in headers { args += ["-H", header] }
        if let form { args += ["--data", form] }
        let r = try run(try Tools.require("curl"), args, allowFailure: true)
        let status = r.stdout.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, r.stdout)
    }

    @Test func theDocumentedNginxSiteForwardsTheRealClient() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: """
            [server]
            public_url = "https://music.example.org"
            trusted_proxies = ["127.0.0.1"]
            trusted_networks = ["127.0.0.2/32"]
            """)
        let proxy = try Proxy(upstream: daemon.port)

        // The forwarded client decides, and the client's own header is not believed.
        #expect(try Self.curl("127.0.0.2", "/api/v1/listens", proxy: proxy).status == 200)
        let stranger = try Self.curl("127.0.0.3", "/api/v1/listens", proxy: proxy)
        #expect(stranger.status == 403, "\(stranger.text)")
        #expect(try Self.curl("127.0.0.3", "/api/v1/listens", proxy: proxy, headers: ["X-Forwarded-For: 127.0.0.2"]).status == 403)
        #expect(try Self.curl("127.0.0.3", "/api/v1/listens", proxy: proxy, headers: ["Forwarded: for=127.0.0.2"]).status == 403)
        let history = try Self.curl("127.0.0.3", "/history", proxy: proxy, headers: ["Accept: text/html"])
        #expect(history.status == 303 && history.text.contains("Location: /login?next=%2Fhistory"))

        // Ten wrong logins lock out the client that made them, not the proxy; the owner logs
        // in over https and gets a Secure cookie.
        var last = 0
        for _ in 0..<11 { last = try Self.curl("127.0.0.3", "/login", proxy: proxy, form: "key=guess").status }
        #expect(last == 429)
        let owner = try Self.curl("127.0.0.2", "/login", proxy: proxy, form: "key=\(daemon.apiKey)")
        #expect(owner.status == 303, "\(owner.text)")
        let cookie = owner.text.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie: pacenote_session=") } ?? ""
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.hasSuffix("; Secure"), "\(cookie)")

        // The live stream passes the proxy.
        let events = try Self.curl("127.0.0.2", "/api/v1/events", proxy: proxy, headers: ["Accept: text/event-stream"])
        #expect(events.status == 200 && events.text.contains("text/event-stream"), "\(events.text.prefix(300))")

        // Straight to Pacenote, no proxy and no forwarding headers: a trusted client by its
        // own address, and the key from anywhere.
        #expect(try Self.curl("127.0.0.2", "/api/v1/listens", direct: daemon.port).status == 200)
        #expect(try Self.curl("127.0.0.3", "/api/v1/listens", direct: daemon.port).status == 403)
        #expect(try Self.curl("127.0.0.1", "/api/v1/listens", direct: daemon.port, headers: ["X-API-Key: \(daemon.apiKey)"]).status == 200)
        #expect(try Self.curl("127.0.0.1", "/healthz", direct: daemon.port).status == 200)
        #expect(!daemon.process.stderr.contains("is not in server.trusted_proxies"), "the proxy is configured: no warning")
    }
}
