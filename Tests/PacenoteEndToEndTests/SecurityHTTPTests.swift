import Foundation
import PacenoteTestSupport
import Testing

/// Issue 15's HTTP rows against the real binary: nothing is read before it is allowed (row 1),
/// one address cannot take the service from another (row 2), event streams are capped (row 8),
/// uploads go to a private file and are imported one at a time. Loopback only: Linux answers
/// for all of 127/8, so 127.0.0.2 and up stand in for other clients.
@Suite(.serialized) struct SecurityHTTPTests {
    static let mib = 1 << 20

    /// `GET /healthz` from `source`, and how long it took; nil status when nothing came.
    static func health(_ port: UInt16, from source: String) throws -> (status: Int?, seconds: Double) {
        let started = Date()
        let client = try RawClient(port: port, from: source)
        client.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        _ = client.wait(timeout: 3) { $0.status != nil }
        return (client.status, Date().timeIntervalSince(started))
    }

    static func upload(_ length: Int, key: String?, expectContinue: Bool = false) -> String {
        var head = "POST /api/v1/import HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: \(length)\r\n"
        if let key { head += "Authorization: Token \(key)\r\n" }
        if expectContinue { head += "Expect: 100-continue\r\n" }
        return head + "\r\n"
    }

    /// Row 1: 60 connections without a key, each sending a 60 MiB body to the import: each is
    /// answered 401 at once, before its body, and the daemon's memory stays small.
    @Test func unauthenticatedUploadsAreRefusedBeforeTheirBodies() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", arguments: ["--trusted-networks", "none"])
        let pid = daemon.process.process.processIdentifier
        // Twelve addresses, five connections each: the per-address limits are not what answers.
        let clients = try RawClient.connect(60, port: daemon.port) { "127.0.0.\(10 + $0 / 5)" }
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 << 10)
        let started = Date()
        for (i, client) in clients.enumerated() {
            client.send(Self.upload(60 * Self.mib, key: nil, expectContinue: i % 2 == 0))
            client.send(chunk)
        }
        for client in clients {
            #expect(client.wait(timeout: 3) { $0.status != nil }, "\(client.received)")
            #expect(client.status == 401, "\(client.received)")
            #expect(!client.received.contains("100 Continue"))
        }
        #expect(Date().timeIntervalSince(started) < 3, "answered before the bodies")
        // Keep sending the rest, as an attacker would: the server does not read it.
        var sent = 0
        let until = Date().addingTimeInterval(3)
        while Date() < until, clients.contains(where: { !$0.closedByServer }) {
            for client in clients where !client.closedByServer {
                let n = client.send(chunk)
                sent += n
                if n == 0 { client.drain() }
            }
        }
        #expect(sent < 60 * 60 * Self.mib / 4, "\(sent / Self.mib) MiB of 3600 were taken")
        let memory = try #require(residentMemory(pid: pid))
        print("row 1: \(sent / Self.mib) MiB taken by the kernel; daemon resident \(memory.now / Self.mib) MiB, peak \(memory.peak / Self.mib) MiB")
        #expect(memory.peak < 100 * Self.mib, "resident \(memory.now / Self.mib) MiB, peak \(memory.peak / Self.mib) MiB")

        // A 10 GiB Content-Length: 401 without the key, 413 with it; never 100 Continue.
        for (key, status) in [(nil, 401), (daemon.apiKey, 413)] as [(String?, Int)] {
            let client = try RawClient(port: daemon.port)
            client.send(Self.upload(10 << 30, key: key, expectContinue: true))
            #expect(client.wait(timeout: 2) { $0.status != nil }, "\(client.received)")
            #expect(client.status == status && !client.received.contains("100 Continue"), "\(client.received)")
        }
    }

    /// Row 2: 600 connections from one address sending one header line every second leave
    /// `/healthz` answering at once to another address.
    @Test func aSlowHeaderFloodFromOneAddressLeavesOthersServed() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let flood = try RawClient.connect(600, port: daemon.port) { _ in "127.0.0.1" }
        for client in flood { client.send("GET /api/v1/status HTTP/1.1\r\n") }
        for round in 0..<3 {
            sleep(1)  // the flood's pace: a header line a second
            for client in flood where !client.closedByServer {
                client.send("X-Slow-\(round): yes\r\n")
                client.drain()
            }
            let (status, seconds) = try Self.health(daemon.port, from: "127.0.0.2")
            #expect(status == 200 && seconds < 1, "healthz: \(status.map(String.init) ?? "nothing") after \(seconds) s")
        }
        // Connections refused at accept are closed by the server: read the last of those
        // closes before counting what it kept.
        var open = 0
        _ = eventually(timeout: 10) {
            for client in flood where !client.closedByServer { client.drain() }
            open = flood.filter { !$0.closedByServer && $0.isEstablished }.count
            return open <= 32
        }
        #expect(open <= 32, "\(open) of 600 connections from one address were kept")
    }

    /// A request's headers have a deadline, however busy the client looks; kept-alive idle
    /// connections too. Clients from many addresses cannot hold the slots either.
    @Test func headersThatTakeTooLongAreCutOff() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: "[server]\nheader_timeout_s = 2\n")
        let slow = try RawClient.connect(40, port: daemon.port) { "127.0.0.\(20 + $0 % 8)" }
        for client in slow { client.send("GET /healthz HTTP/1.1\r\n") }
        let idle = try RawClient(port: daemon.port, from: "127.0.0.30")
        idle.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(idle.wait(timeout: 2) { $0.status == 200 }, "\(idle.received)")
        let started = Date()
        while Date().timeIntervalSince(started) < 4.5, slow.contains(where: { !$0.closedByServer }) {
            for client in slow where !client.closedByServer {
                client.send("X-Trickle: 1\r\n")
                client.drain()
            }
            usleep(400_000)
        }
        #expect(slow.allSatisfy { $0.closedByServer }, "\(slow.filter { !$0.closedByServer }.count) still open after 4.5 s")
        #expect(idle.wait(timeout: 2) { $0.closedByServer }, "an idle kept-alive connection is closed too")
        let (status, seconds) = try Self.health(daemon.port, from: "127.0.0.2")
        #expect(status == 200 && seconds < 1)
    }

    /// Row 8: 512 event streams from trusted addresses: the extra ones are refused with 429 or
    /// 503 and Retry-After, and `/healthz` answers at once. (Their lifetime is long here, so
    /// no stream ends and frees its place while the 512 are answered.)
    @Test func eventStreamsAreCapped() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: "[server]\nmax_event_streams = 64\nevent_stream_max_s = 120\n")
        let request = "GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n"
        // One client: 16 streams, then 429 with Retry-After.
        var own: [RawClient] = []
        for _ in 0..<20 {
            let client = try RawClient(port: daemon.port, from: "127.0.0.40")
            client.send(request)
            _ = client.wait(timeout: 5) { $0.status != nil }
            own.append(client)
        }
        #expect(own.map { $0.status ?? 0 } == Array(repeating: 200, count: 16) + Array(repeating: 429, count: 4))
        #expect(own.last?.received.contains("Retry-After: ") == true, "\(own.last?.received ?? "")")
        // Then 492 more from 16 other addresses at once: the 48 places left, then 503.
        let streams = try RawClient.connect(492, port: daemon.port) { "127.0.0.\(41 + $0 % 16)" }
        for client in streams { client.send(request) }
        for client in streams { _ = client.wait(timeout: 5) { $0.status != nil || $0.closedByServer } }
        let statuses = streams.map { $0.status ?? 0 }
        let counts = Dictionary(grouping: statuses, by: { $0 }).mapValues(\.count)
        #expect(counts[200] == 48, "\(counts)")
        // 500 connections are as many as the server takes in all (shared among its threads):
        // a connection past that (12 of these 512) is closed at accept, before any answer.
        let unanswered = streams.filter { $0.status == nil }
        #expect(unanswered.allSatisfy { $0.wait(timeout: 10) { $0.closedByServer } }, "\(counts)")
        #expect(statuses.allSatisfy { [0, 200, 429, 503].contains($0) } && counts[503, default: 0] > 0, "\(counts)")
        let refused = try #require(streams.first { $0.status == 503 })
        #expect(refused.received.contains("Retry-After: "), "\(refused.received)")
        let (status, seconds) = try Self.health(daemon.port, from: "127.0.0.2")
        #expect(status == 200 && seconds < 1, "healthz: \(status.map(String.init) ?? "nothing") after \(seconds) s")
    }

    /// Past its lifetime a stream ends (the page reconnects with Last-Event-ID), and its
    /// place is free again.
    @Test func eventStreamsEndAfterTheirLifetime() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: "[server]\nmax_event_streams = 2\nevent_stream_max_s = 2\n")
        let streams = try (0..<2).map { try RawClient(port: daemon.port, from: "127.0.0.\(50 + $0)") }
        for client in streams { client.send("GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") }
        #expect(streams.allSatisfy { $0.wait(timeout: 3) { $0.status == 200 } })
        let full = try RawClient(port: daemon.port, from: "127.0.0.52")
        full.send("GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(full.wait(timeout: 3) { $0.status != nil } && full.status == 503, "\(full.received)")
        #expect(streams.allSatisfy { $0.wait(timeout: 6) { $0.received.contains("\r\n0\r\n\r\n") } }, "streams ended")
        // The places come free once the server has closed the ended streams (its own
        // bookkeeping may lag the client seeing the end by a moment).
        var connected = false
        _ = try eventually(timeout: 6, interval: 0.2) {
            let again = try RawClient(port: daemon.port, from: "127.0.0.3")
            again.send("GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            connected = again.wait(timeout: 2) { $0.received.contains(": connected") || $0.status == 503 }
                && again.received.contains(": connected")
            return connected
        }
        #expect(connected, "a new stream is taken once the old ones ended")
    }

    /// An upload is written to a private file beside the database as it arrives, one import
    /// runs at a time (another gets 429 before its body), and the file is gone afterwards.
    @Test func uploadsGoToAPrivateFileOneAtATime() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/import/lastfm.csv")
        let body = try Array(Data(contentsOf: fixture))
        let first = try RawClient(port: daemon.port)
        first.send(Self.upload(body.count, key: daemon.apiKey))
        first.send(Array(body.prefix(body.count / 2)))
        let tmp = daemon.dir.file("tmp")
        var files: [String] = []
        #expect(eventually(timeout: 3) {
            files = (try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []
            return files.count == 1
        }, "\(files)")
        let folder = try FileManager.default.attributesOfItem(atPath: tmp)
        #expect((folder[.posixPermissions] as? Int) == 0o700)
        if let name = files.first {
            let file = try FileManager.default.attributesOfItem(atPath: tmp + "/" + name)
            #expect((file[.posixPermissions] as? Int) == 0o600)
        }

        let second = try RawClient(port: daemon.port, from: "127.0.0.2")
        second.send(Self.upload(body.count, key: daemon.apiKey, expectContinue: true))
        #expect(second.wait(timeout: 2) { $0.status != nil }, "\(second.received)")
        #expect(second.status == 429 && second.received.contains("Retry-After: ") && second.received.contains("import_in_progress"),
                "\(second.received)")

        first.send(Array(body.dropFirst(body.count / 2)))
        #expect(first.wait(timeout: 10) { $0.received.contains("\"imported\"") }, "\(first.received)")
        #expect(first.status == 200 && first.received.contains("\"imported\":4"), "\(first.received)")
        #expect(eventually(timeout: 3) { ((try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []).isEmpty })
        // The slot is free again.
        let r = try HTTP.request("POST", daemon.base + "/api/v1/import", headers: ["Authorization": "Token \(daemon.apiKey)"],
                                 body: Data(body))
        #expect(r.status == 200 && r.json?["imported"] as? Int == 0 && r.json?["duplicates"] as? Int == 5, "\(r.text)")
    }
}
