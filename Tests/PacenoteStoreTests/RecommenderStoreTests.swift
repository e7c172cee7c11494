import Foundation
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteStore

/// What the recommender and `pacenote analyze` read from the store.
@Suite struct RecommenderStoreTests {
    @Test func candidatesEventsAndFilesWithoutBPM() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        _ = try store.applyLibrary(player: "default", changed: [
            SongInfo(uri: "a.flac", tags: ["Title": "A", "Artist": "X"]),
            SongInfo(uri: "b.flac", tags: ["Title": "B", "AlbumArtist": "Y"]),
        ], removed: [], stickers: ["a.flac": 128])
        let stream = try store.saveTrack(Track(uri: "http://radio.example/stream", title: "Live"))
        let a = try #require(try store.track(uri: "a.flac")?.id)
        let b = try #require(try store.track(uri: "b.flac")?.id)

        let candidates = try store.recommenderCandidates()
        #expect(candidates.first { $0.id == a } == .init(id: a, uri: "a.flac", title: "A", artist: "X", bpm: 128, inLibrary: true))
        #expect(candidates.first { $0.id == b }?.artist == "Y")        // the album artist stands in
        #expect(candidates.first { $0.id == stream }?.inLibrary == false)
        // Only library files without a BPM, never streams.
        #expect(try store.tracksWithoutBPM().map(\.uri) == ["b.flac"])
        let before = try store.recommenderTracksVersion()
        try store.setBPM(trackID: b, BPM(value: 120, source: .analysis, confidence: 0.9))
        #expect(try store.recommenderTracksVersion() != before)
        #expect(try store.tracksWithoutBPM().isEmpty)

        func play(_ id: Int64, _ at: Double, counted: Bool, zone: Zone?) -> Play {
            Play(trackID: id, startedAt: Date(timeIntervalSince1970: at), endedAt: Date(timeIntervalSince1970: at + 100),
                 playedSeconds: 100, counted: counted, source: "mpd", player: "default", zone: zone)
        }
        // Stored out of time order (an import of older listens): read back in time order.
        _ = try store.insertPlay(play(a, 2000, counted: true, zone: .z4))
        _ = try store.insertPlay(play(b, 1000, counted: false, zone: nil))
        let all = try store.recommenderEvents(afterID: 0)
        #expect(all.events.map(\.startedAtMs) == [1_000_000, 2_000_000])
        #expect(all.events.map(\.counted) == [false, true])
        #expect(all.events.map(\.zone) == [nil, .z4])
        #expect(try store.recommenderEvents(afterID: all.lastID).events.isEmpty)
        _ = try store.insertPlay(play(b, 3000, counted: true, zone: .z2))
        #expect(try store.recommenderEvents(afterID: all.lastID).events.map(\.trackID) == [b])
    }
}
