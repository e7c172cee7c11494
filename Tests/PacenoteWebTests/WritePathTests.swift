import Foundation
import PacenoteCore
import PacenoteStore
import PacenoteTestSupport
import Synchronization
import Testing
@testable import PacenoteWeb

/// Every entry point that changes something — the JSON API, the site's forms, a
/// ListenBrainz client — goes through the same operation, and the caches follow the
/// operation's announcement, not the caller.
@Suite struct WritePathTests {
    final class Recorder: Sendable {
        let changes = Mutex<[DataChange]>([])
    }

    final class Fixture: Sendable {
        let dir: TemporaryDirectory
        let store: Store
        let bus = EventBus()
        let api: API
        let recorder = Recorder()
        let trackID: Int64

        init() throws {
            dir = try TemporaryDirectory()
            let utc = TimeZone(identifier: "UTC")!
            store = try Store.open(path: dir.file("p.sqlite"), timeZone: utc)
            trackID = try store.saveTrack(Track(uri: "a.flac", title: "Pinned Song", artist: "Band", durationSeconds: 200))
            let context = APIContext.forTests(version: "t", store: store, timeZone: utc, apiKey: "key", events: bus)
            api = API(context: context)
            bus.subscribe { [recorder] event in
                if case .changed(let change, _) = event { recorder.changes.withLock { $0.append(change) } }
            }
        }

        func send(_ method: String, _ path: String, query: [String: String] = [:], body: String = "",
                  form: Bool = false) -> HTTPResponse {
            var headers = ["X-API-Key": "key"]
            if form { headers["Content-Type"] = "application/x-www-form-urlencoded" } else if !body.isEmpty {
                headers["Content-Type"] = "application/json"
            }
            return api.handle(HTTPRequest(method: method, path: path, query: query, headers: headers, body: Array(body.utf8),
                                          peerAddress: "127.0.0.1"))
        }

        func taken() -> [DataChange] { recorder.changes.withLock { c in let out = c; c.removeAll(); return out } }

        deinit { try? store.close() }
    }

    @Test func aPinFromTheAPIAndFromTheFormIsTheSameOperation() throws {
        let f = try Fixture()
        let archive = { f.send("GET", "/sotd", query: ["month": "2026-01"]).text }
        #expect(!archive().contains("Pinned Song"), "nothing played or pinned yet (and now cached)")

        let put = f.send("PUT", "/api/v1/sotd/2026-01-05", body: #"{"track_id": \#(f.trackID), "note": "  from the API \n"}"#)
        #expect(put.status == 200, "\(put.text)")
        #expect(try f.store.sotdPin(day: "2026-01-05")?.note == "from the API", "the API trims the note as the form does")
        #expect(archive().contains("Pinned Song"), "the cached archive followed the pin")

        let form = f.send("POST", "/sotd/2026-01-06", body: "action=pin&track_id=\(f.trackID)&note=+from+the+form+", form: true)
        #expect(form.status == 303)
        #expect(try f.store.sotdPin(day: "2026-01-06")?.note == "from the form")
        let tooLong = String(repeating: "n", count: 501)
        #expect(f.send("PUT", "/api/v1/sotd/2026-01-07", body: #"{"track_id": \#(f.trackID), "note": "\#(tooLong)"}"#).status == 400)
        #expect(f.send("POST", "/sotd/2026-01-07", body: "track_id=\(f.trackID)&note=\(tooLong)", form: true).status == 400)

        // Unpinned; with nothing played that day no song is left to answer with.
        #expect(f.send("DELETE", "/api/v1/sotd/2026-01-05").status == 404)
        #expect(f.send("POST", "/sotd/2026-01-06", body: "action=unpin", form: true).status == 303)
        #expect(try f.store.sotdPin(day: "2026-01-05") == nil && f.store.sotdPin(day: "2026-01-06") == nil)
        #expect(!archive().contains("Pinned Song"), "the cached archive followed the unpins")
        #expect(f.taken() == ["2026-01-05", "2026-01-06", "2026-01-05", "2026-01-06"].map { .songOfTheDay(day: $0) })
    }

    @Test func aTempoFromTheAPIAndFromTheFormIsTheSameOperation() throws {
        let f = try Fixture()
        let put = f.send("PUT", "/api/v1/tracks/\(f.trackID)/bpm", body: #"{"bpm": 128}"#)
        #expect(put.status == 200, "\(put.text)")
        #expect(f.send("POST", "/tracks/\(f.trackID)", body: "bpm=131.5", form: true).status == 303)
        #expect(try f.store.track(id: f.trackID)?.bpm == BPM(value: 131.5, source: .manual, confidence: 1))
        // Refused alike, and refused before anything is written or announced.
        #expect(f.send("PUT", "/api/v1/tracks/\(f.trackID)/bpm", body: #"{"bpm": 4000}"#).status == 400)
        #expect(f.send("POST", "/tracks/\(f.trackID)", body: "bpm=4000", form: true).status == 400)
        #expect(f.send("PUT", "/api/v1/tracks/999/bpm", body: #"{"bpm": 120}"#).status == 404)
        #expect(f.taken() == [.trackBPM(trackID: f.trackID), .trackBPM(trackID: f.trackID)])
    }

    @Test func aScrobbledPlayReachesTheCachedChartsThroughItsAnnouncement() throws {
        let f = try Fixture()
        func plays() throws -> Int? {
            let r = f.send("GET", "/api/v1/stats", query: ["range": "all"])
            let json = try JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any]
            return (json?["totals"] as? [String: Any])?["plays"] as? Int
        }
        #expect(try plays() == 0)
        let submit = f.send("POST", "/1/submit-listens", body: """
            {"listen_type": "single", "payload": [{"listened_at": 1767600000,
             "track_metadata": {"artist_name": "Band", "track_name": "Scrobbled"}}]}
            """)
        #expect(submit.status == 200, "\(submit.text)")
        #expect(try plays() == 1, "the cached chart followed the new play")
        guard case .playsAdded(let ids)? = f.taken().first else { Issue.record("no plays_added announcement"); return }
        #expect(ids.count == 1)
    }
}

extension HTTPResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
}
