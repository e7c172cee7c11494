import Foundation
import PacenoteTestSupport
import Testing

/// A forwarder that adds no headers in front of Pacenote (nginx's bare `proxy_pass`, `ssh -L`,
/// socat, haproxy without `option forwardfor`, Docker's userland proxy): every visitor arrives
/// from 127.0.0.1 with the public `Host`. With `server.public_url` set, no network is trusted
/// by default, so such a visitor reads nothing private without the key (issue 51, row 4).
@Suite struct BareProxyTests {
    /// A TCP relay on loopback, in python3: bytes both ways, nothing added, until deinitialised.
    final class Relay {
        let process = Process()
        let port: UInt16

        init(upstream: UInt16) throws {
            port = try Ports.free()
            let script = """
                import socket, sys, threading
                server = socket.socket()
                server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                server.bind(('127.0.0.1', \(port)))
                server.listen(64)
                def pipe(a, b):
                    try:
                        while True:
                            data = a.recv(65536)
                            if not data:
                                break
                            b.sendall(data)
                    except OSError:
                        pass
                    finally:
                        for s in (a, b):
                            try:
                                s.shutdown(socket.SHUT_RDWR)
                            except OSError:
                                pass
                while True:
                    client, _ = server.accept()
                    upstream = socket.create_connection(('127.0.0.1', \(upstream)))
                    threading.Thread(target=pipe, args=(client, upstream), daemon=True).start()
                    threading.Thread(target=pipe, args=(upstream, client), daemon=True).start()
                """
            process.executableURL = URL(fileURLWithPath: try Tools.require("python3"))
            process.arguments = ["-c", script]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let port = self.port
            guard eventually(timeout: 10, { Ports.connect(port).map { close($0); return true } ?? false }) else {
                throw HarnessError("the relay did not start")
            }
        }

        deinit {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// curl to 127.0.0.1:`port`, with the public host in `Host` unless told otherwise (nil:
    /// the address): the status and what came back.
    static func curl(_ port: UInt16, _ path: String, host: String? = "music.example.org", headers: [String] = [],
                     maxTime: String = "5") throws -> (status: Int, text: String) {
        var args = ["-s", "-i", "--max-time", maxTime, "http://127.0.0.1:\(port)\(path)"]
        if let host { args += ["-H", "Host: \(host)"] }
        for header in headers { args += ["-H", header] }
        let r = try run(try Tools.require("curl"), args, allowFailure: true)
        let status = r.stdout.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, r.stdout)
    }

    /// Three plays of the Spotify fixture, imported with the key.
    static func seed(_ daemon: PacenoteDaemon) throws {
        let spotify = try Data(contentsOf: URL(fileURLWithPath: ListenImportTests.fixture("Streaming_History_Audio_2024.json")))
        let r = try HTTP.request("POST", daemon.base + "/api/v1/import", headers: ["Authorization": "Token \(daemon.apiKey)"], body: spotify)
        #expect(r.status == 200 && r.json?["imported"] as? Int == 3, "\(r.text)")
    }

    @Test func aBareForwarderWithAPublicURLGivesStrangersNothing() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: "[server]\npublic_url = \"https://music.example.org\"\n")
        try Self.seed(daemon)
        let relay = try Relay(upstream: daemon.port)
        let key = "X-API-Key: \(daemon.apiKey)"

        // Through the relay: a loopback client with the public Host, and no key.
        let listens = try Self.curl(relay.port, "/api/v1/listens")
        #expect(listens.status == 403 && !listens.text.contains("Vantablack"), "\(listens.text)")
        let page = try Self.curl(relay.port, "/", headers: ["Accept: text/html"])
        #expect(page.status == 303 && page.text.contains("Location: /login"), "\(page.text.prefix(400))")
        #expect(!page.text.contains("Vantablack"))
        let events = try Self.curl(relay.port, "/api/v1/events", headers: ["Accept: text/event-stream"], maxTime: "2")
        #expect(events.status == 403 && !events.text.contains("text/event-stream"), "\(events.text.prefix(400))")
        // The same straight to Pacenote from this machine: the public URL trusts no network.
        #expect(try Self.curl(daemon.port, "/api/v1/listens").status == 403)

        // With the key, through the relay, all of it.
        let owner = try Self.curl(relay.port, "/api/v1/listens", headers: [key])
        #expect(owner.status == 200 && owner.text.contains("Vantablack"), "\(owner.text.prefix(400))")
        let ownerPage = try Self.curl(relay.port, "/", headers: ["Accept: text/html", key])
        #expect(ownerPage.status == 200, "\(ownerPage.text.prefix(400))")
        let ownerEvents = try Self.curl(relay.port, "/api/v1/events", headers: ["Accept: text/event-stream", key], maxTime: "2")
        #expect(ownerEvents.status == 200 && ownerEvents.text.lowercased().contains("content-type: text/event-stream"),
                "\(ownerEvents.text.prefix(400))")
        // The public parts stay public.
        #expect(try Self.curl(relay.port, "/healthz").status == 200)

        // `pacenote doctor` says why.
        let doctor = try PacenoteProcess.run(["doctor", "--config", daemon.dir.file("config.toml"), "--db", daemon.db],
                                             environment: ["HOME": daemon.dir.path])
        #expect(doctor.stdout.contains("trusted: none, the default with server.public_url set"), "\(doctor.stdout)")
    }

    /// Loopback trusted on purpose, with a public URL: it works as configured, and doctor warns.
    @Test func trustedNetworksChosenWithAPublicURLAreKeptAndWarnedAbout() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: """
            [server]
            public_url = "https://music.example.org"
            trusted_networks = ["127.0.0.0/8"]
            """)
        try Self.seed(daemon)
        let relay = try Relay(upstream: daemon.port)
        #expect(try Self.curl(relay.port, "/api/v1/listens").status == 200)
        let doctor = try PacenoteProcess.run(["doctor", "--config", daemon.dir.file("config.toml"), "--db", daemon.db],
                                             environment: ["HOME": daemon.dir.path])
        #expect(doctor.stdout.contains("makes every visitor trusted"), "\(doctor.stdout)")
    }

    /// Without a public URL the loopback default still trusts this machine (and so a relay on it).
    @Test func withoutAPublicURLLoopbackIsStillTrusted() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        try Self.seed(daemon)
        let relay = try Relay(upstream: daemon.port)
        let listens = try Self.curl(relay.port, "/api/v1/listens", host: nil)
        #expect(listens.status == 200 && listens.text.contains("Vantablack"), "\(listens.text.prefix(400))")
        #expect(try Self.curl(daemon.port, "/api/v1/listens", host: nil).status == 200)
    }
}
