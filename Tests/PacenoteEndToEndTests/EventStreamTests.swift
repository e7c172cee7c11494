import Foundation
import PacenoteTestSupport
import Testing

/// `GET /api/v1/events`: live events as Server-Sent Events.
@Suite struct EventStreamTests {
    @Test func eventsArriveLiveAndResumeFromLastEventID() throws {
        let mpd = try MPDInstance(tracks: [TestTrack("a.flac", seconds: 5, title: "Live")])
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)")
        #expect(try eventually { try daemon.mpdConnected() })
        let stream = try RawHTTPConnection(port: daemon.port, request: RawHTTPConnection.get("/api/v1/events"))
        #expect(stream.waitFor(": connected"), "\(stream.received)")
        #expect(stream.received.contains("Content-Type: text/event-stream"))
        try mpd.mpc("add", "/")
        try mpd.mpc("play")
        #expect(stream.waitFor("event: now_playing"), "\(stream.received)")
        #expect(stream.waitFor("\"title\":\"Live\""), "\(stream.received)")
        _ = try daemon.post("/api/v1/hr", body: #"{"bpm": 120}"#)
        #expect(stream.waitFor("event: heart_rate"), "\(stream.received)")
        #expect(stream.waitFor("event: zone_changed"), "\(stream.received)")
        try mpd.mpc("stop")
        #expect(stream.waitFor("event: play_logged"), "\(stream.received)")

        // A client that reconnects with the last id it saw gets what it missed, and only that.
        let ids = stream.received.split(separator: "\n").filter { $0.hasPrefix("id: ") }.compactMap { Int($0.dropFirst(4)) }
        let last = try #require(ids.last)
        _ = try daemon.post("/api/v1/hr", body: #"{"bpm": 122}"#)   // published while no client listens
        let again = try RawHTTPConnection(port: daemon.port, request: RawHTTPConnection.get("/api/v1/events", headers: ["Last-Event-ID": String(last - 1)]))
        #expect(again.waitFor("id: \(last + 1)\n"), "\(again.received)")
        let replayed = again.received.split(separator: "\n").filter { $0.hasPrefix("id: ") }.compactMap { Int($0.dropFirst(4)) }
        #expect(replayed.first == last, "\(replayed)")
    }

    @Test func eventsArePrivate() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", arguments: ["--trusted-networks", "none"])
        let refused = try RawHTTPConnection(port: daemon.port, request: RawHTTPConnection.get("/api/v1/events"))
        #expect(refused.waitFor("403 Forbidden"), "\(refused.received)")
        let allowed = try RawHTTPConnection(port: daemon.port,
                                            request: RawHTTPConnection.get("/api/v1/events", headers: ["X-API-Key": daemon.apiKey]))
        #expect(allowed.waitFor(": connected"), "\(allowed.received)")
    }

    @Test func twoHundredIdleSubscribersPinNoThreadAndSlowNothing() throws {
        // All from 127.0.0.1: the per-client limits are raised (SecurityHTTPTests tests them).
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: """
            [server]
            max_connections_per_client = 256
            max_event_streams_per_client = 256

            """)
        let pid = daemon.process.process.processIdentifier
        let before = try #require(threadCount(pid: pid))
        var streams: [RawHTTPConnection] = []
        for _ in 0..<200 {
            let s = try RawHTTPConnection(port: daemon.port, request: RawHTTPConnection.get("/api/v1/events"))
            streams.append(s)
        }
        #expect(streams.allSatisfy { $0.waitFor(": connected") })
        let during = try #require(threadCount(pid: pid))
        #expect(during <= before + 2, "threads: \(before) before, \(during) with 200 subscribers")
        // Other requests are served while they wait, and every subscriber gets the next event.
        let started = Date()
        for _ in 0..<20 { #expect(try HTTP.get(daemon.statusURL).status == 200) }
        #expect(Date().timeIntervalSince(started) < 2)
        _ = try daemon.post("/api/v1/hr", body: #"{"bpm": 99}"#)
        #expect(streams.allSatisfy { $0.waitFor("\"bpm\":99") })
        streams.removeAll()
        try daemon.stop()   // shuts down cleanly with subscribers having been attached
    }
}
