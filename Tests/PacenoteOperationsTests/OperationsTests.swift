import Foundation
import PacenoteCore
import PacenoteOperations
import PacenoteStore
import PacenoteTestSupport
import Synchronization
import Testing

/// The write path: each operation validates, writes in one transaction and announces
/// itself once, after the commit; a refused input writes and announces nothing.
@Suite struct OperationsTests {
    final class Recorder: Sendable {
        let events = Mutex<[PacenoteEvent]>([])
    }

    final class Fixture: Sendable {
        let dir: TemporaryDirectory
        let store: Store
        let bus = EventBus()
        let recorder = Recorder()
        let operations: Operations

        init() throws {
            dir = try TemporaryDirectory()
            store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
            operations = Operations(store: store, events: bus)
            bus.subscribe { [recorder] event in recorder.events.withLock { $0.append(event) } }
        }

        /// The `.changed` announcements so far, and forgets them.
        func changes() -> [DataChange] {
            recorder.events.withLock { events in
                defer { events.removeAll() }
                return events.compactMap { if case .changed(let change, _) = $0 { change } else { nil } }
            }
        }

        func logged() -> [Int64] {
            recorder.events.withLock { $0.compactMap { if case .playLogged(let id, _, _) = $0 { id } else { nil } } }
        }

        deinit { try? store.close() }
    }

    static let day = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00Z

    @Test func pinTrimsItsNoteAndAnnouncesTheDayOnce() throws {
        let f = try Fixture()
        let id = try f.store.saveTrack(Track(uri: "a.flac", title: "A"))
        try f.operations.pin(day: "2026-01-01", trackID: id, note: "  the one \n")
        #expect(try f.store.sotdPin(day: "2026-01-01") == SongOfTheDay.Pin(trackID: id, note: "the one"))
        #expect(f.changes() == [.songOfTheDay(day: "2026-01-01")])
        try f.operations.pin(day: "2026-01-01", trackID: id, note: "   ")
        #expect(try f.store.sotdPin(day: "2026-01-01")?.note == nil, "a blank note is no note")
        #expect(try f.operations.unpin(day: "2026-01-01"))
        #expect(try !f.operations.unpin(day: "2026-01-01"), "nothing left to unpin")
        #expect(f.changes() == [.songOfTheDay(day: "2026-01-01"), .songOfTheDay(day: "2026-01-01")])
    }

    @Test func refusedInputWritesAndAnnouncesNothing() throws {
        let f = try Fixture()
        let id = try f.store.saveTrack(Track(uri: "a.flac", title: "A"))
        let cases: [(String, () throws -> Void)] = [
            ("invalid_day", { try f.operations.pin(day: "2026-13-01", trackID: id, note: nil) }),
            ("invalid_day", { try f.operations.pin(day: "soon", trackID: id, note: nil) }),
            ("invalid_note", { try f.operations.pin(day: "2026-01-01", trackID: id, note: String(repeating: "n", count: 501)) }),
            ("invalid_track_id", { try f.operations.pin(day: "2026-01-01", trackID: 0, note: nil) }),
            ("not_found", { try f.operations.pin(day: "2026-01-01", trackID: 999, note: nil) }),
            ("invalid_bpm", { try f.operations.setBPM(trackID: id, value: 19.9) }),
            ("invalid_bpm", { try f.operations.setBPM(trackID: id, value: .nan) }),
            ("not_found", { try f.operations.setBPM(trackID: 999, value: 120) }),
            ("not_found", { _ = try f.operations.deletePlay(id: 42) }),
        ]
        for (code, operation) in cases {
            #expect(throws: OperationError.self) { try operation() }
            do { try operation() } catch let error as OperationError { #expect(error.code == code) }
        }
        #expect(try f.store.sotdPin(day: "2026-01-01") == nil)
        #expect(try f.store.track(id: id)?.bpm == nil)
        #expect(f.changes().isEmpty)
    }

    @Test func aHandSetTempoIsAnnouncedAndOutranksAnalysis() throws {
        let f = try Fixture()
        let id = try f.store.saveTrack(Track(uri: "a.flac", title: "A"))
        let track = try f.operations.setBPM(trackID: id, value: 128)
        #expect(track.bpm == BPM(value: 128, source: .manual, confidence: 1))
        try f.operations.setBPM(trackID: id, value: 64, source: .analysis, confidence: 0.9)
        #expect(try f.store.track(id: id)?.bpm?.value == 128, "analysis never replaces a hand-set tempo")
        #expect(f.changes() == [.trackBPM(trackID: id), .trackBPM(trackID: id)])
    }

    @Test func newPlaysAreLoggedOneByOneThenAnnouncedOnce() throws {
        let f = try Fixture()
        let listens = (0..<3).map { i in
            (track: Track(title: "Song \(i)", artist: "Band", durationSeconds: 200),
             startedAt: Self.day.addingTimeInterval(Double(i) * 300), client: "phone" as String?)
        }
        let logged = try f.operations.recordListens(listens, source: "listenbrainz")
        #expect(logged.count == 3)
        #expect(f.logged() == logged.map(\.id))
        #expect(f.changes() == [.playsAdded(ids: logged.map(\.id))])
        // The same listens again: stored once, so nothing new is announced.
        #expect(try f.operations.recordListens(listens, source: "listenbrainz").isEmpty)
        #expect(f.changes().isEmpty)
    }

    @Test func deletingAPlayKeepsTheRollupsExactAndAnnouncesTheCorrection() throws {
        let f = try Fixture()
        let listens = (0..<2).map { i in
            (track: Track(title: "Song", artist: "Band", durationSeconds: 200),
             startedAt: Self.day.addingTimeInterval(Double(i) * 300), client: nil as String?)
        }
        let logged = try f.operations.recordListens(listens, source: "listenbrainz")
        _ = f.changes()
        #expect(try f.store.totals(fromDay: "2026-01-01", toDay: "2026-01-01").plays == 2)
        let gone = try f.operations.deletePlay(id: logged[0].id)
        #expect(gone.play.id == logged[0].id && gone.track.title == "Song")
        #expect(try f.store.totals(fromDay: "2026-01-01", toDay: "2026-01-01").plays == 1)
        #expect(try f.store.topTracks(fromDay: "2026-01-01", toDay: "2026-01-01", limit: 5).first?.plays == 1)
        #expect(f.changes() == [.curated(entryID: 1, undone: false)])
        #expect(try f.store.curationLog().map(\.kind) == [.delete])
    }

    @Test func anImportAnnouncesEachBatchThatAddedPlays() throws {
        let f = try Fixture()
        let track = Track(title: "Old", artist: "Band", durationSeconds: 200)
        let listens = (0..<4).map { i in
            ImportedListen(track: track, startedAtMs: 1_600_000_000_000 + Int64(i) * 600_000, playedSeconds: 200)
        }
        let run = f.operations.importListens(source: "import:listenbrainz")
        #expect(try run.insert(Array(listens[0..<2])).imported == 2)
        #expect(try run.insert(Array(listens[2...])).imported == 2)
        #expect(try run.insert(Array(listens[0..<2])).imported == 0, "duplicates")
        run.finish()
        #expect(f.changes() == [.playsRewritten(.imported), .playsRewritten(.imported)])
        #expect(try f.store.counts().plays == 4)
    }

    /// The rules apply in the reader's batcher, before batching (a rewrite gives a track
    /// another match key, an ignored listen never reaches a batch): the store sees the
    /// tracks as the rules left them. Read as the reader reads (one batcher per import).
    @Test func anImportAppliesItsRulesBeforeBatching() throws {
        let f = try Fixture()
        _ = try f.operations.addRule(CurationRule(action: .rewrite, field: .title, match: .regex, value: #" - Remastered \d{4}$"#, replacement: ""))
        _ = try f.operations.addRule(CurationRule(action: .ignore, field: .artist, match: .equals, value: "The Band"))
        let run = f.operations.importListens(source: "import:listenbrainz")
        var batcher = run.makeBatcher()
        let texts = [("The Band", "Song"), ("Band", "Song"), ("Other", "Tune - Remastered 2009"), ("Other", "Tune"), ("band", "song")]
        for (i, text) in texts.enumerated() {
            batcher.add(ImportedListen(track: Track(title: text.1, artist: text.0), startedAtMs: 1_600_000_000_000 + Int64(i) * 600_000,
                                       playedSeconds: 200))
        }
        #expect(batcher.batch.tracks.map { "\($0.track.artist ?? "-")/\($0.track.title)" } == ["Band/Song", "Other/Tune", "band/song"])
        #expect(batcher.batch.count == 4)
        #expect(try run.insert(batcher.take()).imported == 4)
        run.finish()
        // "The Band" ignored; "Band"/"band" one track, the remaster and the song one.
        #expect(try f.store.counts().tracks == 2)
        let tracks = try f.store.tracks(ids: [1, 2]).values.map { "\($0.artist ?? "-")/\($0.title)" }.sorted()
        #expect(tracks == ["Band/Song", "Other/Tune"])
    }
}
