import Foundation
import GRDB
import PacenoteCore
@testable import PacenoteStore
import PacenoteTestSupport
import Testing

/// One import pipeline (issue 53, point 2): the rules applied in the reader's batcher, the
/// hidden plays written in their batch's own transaction, track ids from the store only.
@Suite struct ImportPipelineTests {
    static let zone = TimeZone(identifier: "Europe/Berlin")!
    static let hideJingles = RuleSet([CurationRule(id: 1, action: .hide, field: .artist, match: .equals, value: "Jingles")])

    /// A batch's hidden plays are written in the transaction that stores its plays: one
    /// commit for both, and their tracks filed as any hidden play's.
    @Test func aRuleHiddenPlayIsWrittenWithItsBatch() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: Self.zone)
        defer { try? store.close() }
        let session = ListenImportSession(store: store, source: "import:test", rules: Self.hideJingles)
        defer { session.finish() }
        var batcher = session.makeBatcher()
        for (i, artist) in ["Band", "Jingles", "Band", "Jingles"].enumerated() {
            batcher.add(ImportedListen(track: Track(title: artist == "Band" ? "Song \(i)" : "Station ID", artist: artist),
                                       startedAtMs: 1_700_000_000_000 + Int64(i) * 600_000, playedSeconds: 100))
        }
        let batch = batcher.take()
        #expect(batch.count == 2 && batch.hidden.count == 2)
        let commits = store.commitCount
        #expect(try session.insert(batch).imported == 2)
        #expect(store.commitCount == commits + 1)
        let hidden = try store.hiddenPlays(limit: 10)
        #expect(hidden.map { "\($0.track.artist ?? "-")/\($0.track.title)" } == ["Jingles/Station ID", "Jingles/Station ID"])
        #expect(hidden.allSatisfy { $0.play.source == "import:test" })
        #expect(try store.counts().plays == 2)
        // The same file again: every play, hidden or not, is there already.
        var again = session.makeBatcher()
        for (i, artist) in ["Band", "Jingles", "Band", "Jingles"].enumerated() {
            again.add(ImportedListen(track: Track(title: artist == "Band" ? "Song \(i)" : "Station ID", artist: artist),
                                     startedAtMs: 1_700_000_000_000 + Int64(i) * 600_000, playedSeconds: 100))
        }
        #expect(try session.insert(again.take()).duplicates == 2)
        #expect(try store.hiddenPlays(limit: 10).count == 2)
    }

    /// A hidden play's track filed in the import's transaction is one the session has met:
    /// a later listen of it, kept, is looked up and goes to that track, not a second one.
    @Test func aHiddenPlaysTrackIsFoundByLaterListens() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: Self.zone)
        defer { try? store.close() }
        let rules = RuleSet([CurationRule(id: 1, action: .hide, field: .duration, match: .shorterThan, value: "30")])
        let session = ListenImportSession(store: store, source: "import:test", rules: rules)
        defer { session.finish() }
        var batcher = session.makeBatcher()
        batcher.add(ImportedListen(track: Track(title: "Song", artist: "Band"), startedAtMs: 1_700_000_000_000, playedSeconds: 10))
        _ = try session.insert(batcher.take())
        batcher.add(ImportedListen(track: Track(title: "Song", artist: "Band"), startedAtMs: 1_700_000_600_000, playedSeconds: 200))
        #expect(try session.insert(batcher.take()).imported == 1)
        #expect(try store.counts().tracks == 1)
        #expect(session.trackLookUps == 1)
    }

    /// A first import of tracks none alike adds every one without asking the store.
    @Test func aFirstImportOfDistinctTracksLooksNothingUp() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: Self.zone)
        defer { try? store.close() }
        let session = ListenImportSession(store: store, source: "import:test")
        defer { session.finish() }
        var batcher = session.makeBatcher()
        for i in 0..<2_000 {
            batcher.add(ImportedListen(track: Track(title: "Song \(i % 1_500)", artist: "Artist \(i % 1_500 % 7)"),
                                       startedAtMs: 1_700_000_000_000 + Int64(i) * 600_000, playedSeconds: 100))
            if i % 500 == 499 { _ = try session.insert(batcher.take()) }
        }
        #expect(session.trackLookUps == 0)
        #expect(try store.counts().tracks == 1_500 && store.counts().plays == 2_000)
    }
}

extension ImportPipelineTests {
    /// What reader and session hold of the texts is bounded: past their limits both forget
    /// what they met, and a listen of a track met before still goes to that track.
    @Test func forgottenTextsStillFindTheirTracks() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: Self.zone)
        defer { try? store.close() }
        let session = ListenImportSession(store: store, source: "import:test")
        defer { session.finish() }
        session.rememberedIdentities = 40
        var batcher = ImportBatcher(separators: session.separators, rememberedBytesLimit: 4_000)
        let title = String(repeating: "Piano Sonata No. 14 in C-sharp minor, ", count: 2)
        for round in 0..<3 {
            for i in 0..<100 {
                batcher.add(ImportedListen(track: Track(title: "\(title)\(i)", artist: "Composer \(i % 3)",
                                                        musicBrainz: MusicBrainzIDs(recording: i % 5 == 0 ? "rec-\(i)" : nil)),
                                           startedAtMs: 1_700_000_000_000 + Int64(round * 100 + i) * 600_000, playedSeconds: 200))
                if i % 25 == 24 { _ = try session.insert(batcher.take()) }
            }
            #expect(session.refOfIdentity.count <= 40)
            #expect(batcher.rememberedBytes <= 4_000)
        }
        #expect(try store.counts().tracks == 100 && store.counts().plays == 300)
        #expect(session.trackLookUps > 0)
    }

    /// A track of a batch not written yet (the bulk statement's pending rows) is still found
    /// by a later listen of the same batch with its recording under another title: the
    /// pending rows are written before the look-up only when their hashes say they may match.
    @Test func aLookUpSeesTheBatchsPendingTracksWhenTheyMayMatch() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: Self.zone)
        defer { try? store.close() }
        let session = ListenImportSession(store: store, source: "import:test")
        defer { session.finish() }
        var batcher = ImportBatcher(separators: session.separators)
        let at: Int64 = 1_700_000_000_000
        for (i, title) in ["Clair de lune", "Other 1", "Other 2", "Clair de lune (live)"].enumerated() {
            batcher.add(ImportedListen(track: Track(title: title, artist: "Debussy",
                                                    musicBrainz: MusicBrainzIDs(recording: title.hasPrefix("Clair") ? "rec-1" : nil)),
                                       startedAtMs: at + Int64(i) * 600_000, playedSeconds: 200))
        }
        _ = try session.insert(batcher.take())
        #expect(try store.counts().tracks == 3 && store.counts().plays == 4)
        #expect(session.trackLookUps == 1)
    }
}
