import Foundation
import PacenoteCore
import Testing

/// The curation rules in the import's reader (issue 53, point 2): `ImportBatcher` applies
/// them to each listen before batching, so the store is given only what the rules left.
@Suite struct ImportBatcherRulesTests {
    static let rules = RuleSet([
        CurationRule(id: 1, action: .rewrite, field: .title, match: .regex, value: #" - Remastered \d{4}$"#, replacement: ""),
        CurationRule(id: 2, action: .ignore, field: .artist, match: .equals, value: "The Band"),
        CurationRule(id: 3, action: .ignore, field: .duration, match: .shorterThan, value: "30"),
        CurationRule(id: 4, action: .hide, field: .artist, match: .equals, value: "Jingles"),
    ])

    /// Listens of every kind the rules tell apart, some texts again (a key used twice).
    static func listens(count: Int) -> [ImportedListen] {
        let texts = [("The Band", "Song"), ("Band", "Song"), ("Other", "Tune - Remastered 2009"), ("Other", "Tune"),
                     ("Jingles", "Station ID"), ("band", "song"), ("Artist", "Skip")]
        return (0..<count).map { i in
            let text = texts[(i * 5 + i / 7) % texts.count]
            return ImportedListen(track: Track(title: text.1, artist: text.0), startedAtMs: 1_600_000_000_000 + Int64(i) * 600_000,
                                  playedSeconds: i % 4 == 0 ? 12 : 200, player: i % 3 == 0 ? "mpd" : nil)
        }
    }

    /// The plays and tracks a batcher with rules makes are those a batcher without rules
    /// makes of the listens as the rules leave them (what the import stored when the rules
    /// rewrote its batches afterwards), and the hidden ones are set apart with their track.
    @Test func rulesAppliedBeforeBatchingMakeTheSamePlays() {
        var ruled = ImportBatcher(rules: Self.rules)
        var plain = ImportBatcher()
        var expectedHidden: [(track: Track, startedAtMs: Int64, player: String?)] = []
        for listen in Self.listens(count: 60) {
            ruled.add(listen)
            switch Self.rules.apply(to: listen.track, playedSeconds: listen.playedSeconds, uri: nil) {
            case .ignore: continue
            case .keep(let track):
                var kept = listen
                kept.track = track
                plain.add(kept)
            case .hide(let track, _):
                expectedHidden.append((track, listen.startedAtMs, listen.player))
            }
        }
        let got = ruled.take(), want = plain.take()
        #expect(got.plays == want.plays)
        #expect(got.players == want.players)
        #expect(got.tracks.map(\.track) == want.tracks.map(\.track))
        #expect(got.tracks.map(\.matchKey) == want.tracks.map(\.matchKey))
        #expect(!got.tracks.contains { $0.track.artist == "The Band" || $0.track.title.contains("Remastered") })
        #expect(got.hidden.map(\.track) == expectedHidden.map(\.track))
        #expect(got.hidden.map(\.startedAtMs) == expectedHidden.map(\.startedAtMs))
        #expect(got.hidden.map(\.player) == expectedHidden.map(\.player))
        #expect(!got.hidden.isEmpty && got.count > 0 && got.count + got.hidden.count < 60)
    }

    /// A batch whose every listen a rule hid is not empty: its hidden plays are stored.
    @Test func aBatchOfHiddenPlaysOnlyIsNotEmpty() {
        var batcher = ImportBatcher(rules: Self.rules)
        batcher.add(ImportedListen(track: Track(title: "Station ID", artist: "Jingles"), startedAtMs: 1_600_000_000_000, playedSeconds: 40))
        let batch = batcher.take()
        #expect(batch.count == 0 && batch.tracks.isEmpty && batch.hidden.count == 1)
        #expect(!batch.isEmpty)
        #expect(batcher.take().isEmpty)
    }
}

/// What the reader holds of an import's texts is bounded (issue 53, point 2), not by the
/// file's count of tracks and length of titles.
@Suite struct ImportBatcherMemoryTests {
    /// Past its limit the batcher forgets the texts it met, between two batches; a text met
    /// again is then a new key, given with its track again, for the store to find.
    @Test func theTextsRememberedStayUnderTheLimit() {
        var batcher = ImportBatcher(rememberedBytesLimit: 20_000)
        let title = String(repeating: "Symphony No. 5 in C minor, ", count: 3)
        var keys: Set<Int32> = []
        for batch in 0..<20 {
            for i in 0..<50 {
                batcher.add(ImportedListen(track: Track(title: "\(title)\(batch * 50 + i)", artist: "Composer"),
                                           startedAtMs: Int64(batch * 50 + i) * 600_000, playedSeconds: 200))
            }
            let taken = batcher.take()
            #expect(taken.tracks.count == 50)
            keys.formUnion(taken.tracks.map(\.key))
            #expect(batcher.rememberedBytes <= 20_000)
        }
        #expect(keys.count == 1_000)  // keys go on being numbered across forgetting
        batcher.add(ImportedListen(track: Track(title: "\(title)0", artist: "Composer"), startedAtMs: 0, playedSeconds: 200))
        let again = batcher.take()
        #expect(again.tracks.count == 1 && again.tracks[0].key == 1_000 && again.plays.map(\.key) == [1_000])
    }

    /// Under the limit, a text met again is the key it was: no track given twice.
    @Test func underTheLimitATextKeepsItsKey() {
        var batcher = ImportBatcher()
        for round in 0..<3 {
            for i in 0..<100 {
                batcher.add(ImportedListen(track: Track(title: "Song \(i)", artist: "Band"), startedAtMs: Int64(round * 100 + i) * 600_000,
                                           playedSeconds: 200))
            }
            let taken = batcher.take()
            #expect(taken.tracks.count == (round == 0 ? 100 : 0))
            #expect(taken.plays.map(\.key) == (0..<100).map(Int32.init))
        }
    }
}
