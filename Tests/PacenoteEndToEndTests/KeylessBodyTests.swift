import Foundation
import PacenoteTestSupport
import Testing

/// Issue 51's first row against the real binary: bodies that come before any credential (the
/// login form, Audioscrobbler) are small, never invited with `100 Continue`, held in a pool of
/// their own and cut off when they trickle, so clients without a key cannot starve the owner's
/// writes. Loopback only: 127.0.0.2 and up stand in for other clients.
@Suite(.serialized) struct KeylessBodyTests {
    static func listen(_ n: Int) -> String {
        #"{"listen_type":"single","payload":[{"listened_at":\#(1_700_000_000 + n * 300),"track_metadata":{"artist_name":"Owner","track_name":"Song \#(n)"}}]}"#
    }

    static func head(_ path: String, length: Int, extra: String = "") -> String {
        "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: \(length)\r\n\(extra)\r\n"
    }

    /// 8 addresses × 4 connections each announce a keyless body (the largest the login form
    /// takes) and trickle a byte every 2 s, as the attack did at 1 byte per 20 s: the owner's
    /// ListenBrainz submits answer 200 within a second throughout, and the trickling
    /// connections are closed by their deadline.
    @Test func trickledKeylessBodiesLeaveTheOwnersWritesServed() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", arguments: ["--trusted-networks", "none"])
        // One submit first, not timed: the test's HTTP client sets itself up on its first
        // request (0.7 s and more on a loaded box), which is no answer of the server's.
        #expect(try daemon.post("/1/submit-listens", body: Self.listen(999)).status == 200)
        let slow = try RawClient.connect(32, port: daemon.port) { "127.0.0.\(10 + $0 / 4)" }
        for client in slow { client.send(Self.head("/login", length: 16 << 10) + "key=") }
        let started = Date()
        var submits: [(status: Int, seconds: Double)] = []
        var n = 0
        while Date().timeIntervalSince(started) < 9 {
            for client in slow where !client.closedByServer {
                client.send("a")
                client.drain()
            }
            let sent = Date()
            let result = try daemon.post("/1/submit-listens", body: Self.listen(n))
            submits.append((result.status, Date().timeIntervalSince(sent)))
            n += 1
            usleep(1_000_000)  // the trickle's pace: the keyless deadline is measured in real time
        }
        #expect(submits.count >= 6)
        for (i, submit) in submits.enumerated() {
            #expect(submit.status == 200 && submit.seconds < 1, "submit \(i): \(submit.status) after \(submit.seconds) s")
        }
        // None of the slow bodies got an answer (they are still being received) …
        #expect(slow.allSatisfy { $0.status == nil || $0.closedByServer }, "\(slow.compactMap(\.status))")
        // … and by the keyless deadline (10 s, swept once a second) every one is closed.
        #expect(slow.allSatisfy { client in client.wait(timeout: 6) { $0.closedByServer } },
                "\(slow.filter { !$0.closedByServer }.count) of 32 trickling connections still open after \(Date().timeIntervalSince(started)) s")
        #expect(Int(try daemon.sql("SELECT count(*) FROM plays").trimmingCharacters(in: .whitespacesAndNewlines)) == submits.count + 1)
        let metrics = try HTTP.request("GET", daemon.base + "/metrics", headers: ["Authorization": "Token \(daemon.apiKey)"])
        #expect(metrics.text.contains("pacenote_http_body_timeouts_total"), "the cut-offs are counted")
    }

    /// Keyless routes take at most 16 KiB (64 KiB for scrobble batches), answered before the
    /// body; `Expect: 100-continue` gets 417, never `100 Continue`.
    @Test func keylessBodiesAreSmallAndNeverInvited() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", arguments: ["--trusted-networks", "none"])
        let cases: [(path: String, length: Int, expect: Bool, status: Int)] = [
            ("/login", 1 << 20, false, 413),
            ("/login", (16 << 10) + 1, false, 413),
            ("/login", 200, true, 417),
            ("/apis/audioscrobbler/2.0/", 1 << 20, false, 413),
            ("/apis/audioscrobbler/2.0/", (64 << 10) + 1, false, 413),
            ("/apis/audioscrobbler/2.0/", 2000, true, 417),
            ("/apis/audioscrobbler_legacy/submission", 1 << 20, false, 413),
            ("/apis/audioscrobbler_legacy/nowplaying", (16 << 10) + 1, false, 413),
        ]
        for item in cases {
            let client = try RawClient(port: daemon.port, from: "127.0.0.20")
            client.send(Self.head(item.path, length: item.length, extra: item.expect ? "Expect: 100-continue\r\n" : ""))
            #expect(client.wait(timeout: 2) { $0.status != nil }, "\(item.path): \(client.received)")
            #expect(client.status == item.status, "\(item.path) \(item.length): \(client.received)")
            #expect(!client.received.contains("100 Continue"), "\(client.received)")
            #expect(client.received.contains("\"error\""), "a JSON error body: \(client.received)")
        }
        // A login form of the right size still works, without Expect.
        let form = "key=" + daemon.apiKey
        let login = try HTTP.request("POST", daemon.base + "/login", headers: ["Content-Type": "application/x-www-form-urlencoded",
                                                                              "Origin": daemon.base],
                                     body: Data(form.utf8))
        #expect([200, 303].contains(login.status), "\(login.status) \(login.text)")
        #expect(login.header("Set-Cookie") != nil, "logged in")
    }

    /// Chunked keyless bodies without a length are held to the same limit and deadline.
    @Test func aChunkedKeylessBodyIsHeldToTheLimit() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", arguments: ["--trusted-networks", "none"])
        let client = try RawClient(port: daemon.port, from: "127.0.0.21")
        client.send("POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n")
        let chunk = String(repeating: "k", count: 4096)
        for _ in 0..<5 { client.send(String(4096, radix: 16) + "\r\n" + chunk + "\r\n") }
        client.send("0\r\n\r\n")
        #expect(client.wait(timeout: 3) { $0.status != nil }, "\(client.received)")
        #expect(client.status == 413, "\(client.received)")
    }
}
