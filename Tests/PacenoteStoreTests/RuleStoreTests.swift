import Foundation
import GRDB
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteStore

/// Rules in the store (issue 19, point 3): applied to the past as one curation entry whose
/// dry run lists exactly the plays it changes, with every rollup exact after it and after
/// its undo; applied at ingest (ignored plays leave no row, hidden ones go to `hidden_plays`).
@Suite struct RuleStoreTests {
    static func playRows(_ store: Store) throws -> [Int64: Int64] {
        try store.read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT id, track_id FROM plays").map { ($0[0] as Int64, $0[1] as Int64) })
        }
    }

    /// The plays an apply changed: gone from `plays`, or now of another track.
    static func changed(_ before: [Int64: Int64], _ after: [Int64: Int64]) -> Set<Int64> {
        Set(before.compactMap { id, track in after[id] == track ? nil : id })
    }

    static func hiddenCount(_ store: Store) throws -> Int {
        try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM hidden_plays") ?? 0 }
    }

    /// Adds the rule, runs its dry run, applies it, and checks that the dry run named
    /// exactly the plays that changed, that the rollups are exact, and that undoing gives
    /// back the history as it was.
    @discardableResult
    static func applyAndUndo(_ rule: CurationRule, store: Store, expectChanges: Bool = true) throws -> Store.RuleEffect {
        let stored = try store.addRule(rule)
        let before = try CurationStoreTests.snapshot(store)
        let rowsBefore = try playRows(store)
        let preview = try store.previewRule(id: stored.id!, limit: 10_000)
        #expect(try CurationStoreTests.snapshot(store) == before, "a dry run changes nothing")
        #expect((preview.total > 0) == expectChanges, "\(rule.summary)")
        guard expectChanges else { return preview }
        let (entry, effect) = try store.applyRule(id: stored.id!, limit: 10_000, request: "{}", source: "test")
        #expect(entry.kind == .rule)
        #expect(effect.total == preview.total)
        #expect(effect.changes.map(\.play.play.id) == preview.changes.map(\.play.play.id))
        #expect(effect.changes.map(\.after?.title) == preview.changes.map(\.after?.title))
        #expect(Set(preview.changes.compactMap(\.play.play.id)) == changed(rowsBefore, try playRows(store)),
                "the dry run lists exactly the plays the apply changed")
        try EntityRollupTests.expectExact(store, "after \(rule.summary)")
        _ = try store.undoCuration(id: entry.id)
        try EntityRollupTests.expectExact(store, "after undoing \(rule.summary)")
        #expect(try CurationStoreTests.snapshot(store) == before, "undo gives back the history")
        #expect(try hiddenCount(store) == 0)
        return effect
    }

    @Test func aRetroactiveIgnoreDeletesTheMatchingPlaysAndItsUndoPutsThemBack() throws {
        let (_, store) = try CurationStoreTests.history(seed: 7)
        defer { try? store.close() }
        let effect = try Self.applyAndUndo(CurationRule(action: .ignore, field: .artist, match: .equals, value: "beyonce"), store: store)
        #expect(effect.changes.allSatisfy { $0.after == nil && ["Beyoncé", "Beyonce"].contains($0.play.track.artist) })
    }

    @Test func aRetroactiveHideMovesPlaysToHiddenPlaysAndOutOfEveryRollup() throws {
        let (_, store) = try CurationStoreTests.history(seed: 8)
        defer { try? store.close() }
        let rule = try store.addRule(CurationRule(action: .hide, field: .title, match: .prefix, value: "Song 1"))
        let total = try store.counts().plays
        let (entry, effect) = try store.applyRule(id: rule.id!, request: "{}", source: "test")
        #expect(effect.total > 0)
        #expect(try Self.hiddenCount(store) == effect.total)
        #expect(try store.counts().plays == total - effect.total)
        #expect(try store.hiddenPlays(limit: 1000).allSatisfy { $0.track.title.hasPrefix("Song 1") })
        try EntityRollupTests.expectExact(store, "hidden")
        _ = try store.undoCuration(id: entry.id)
        #expect(try Self.hiddenCount(store) == 0)
        #expect(try store.counts().plays == total)
        try EntityRollupTests.expectExact(store, "unhidden")
        // And the whole round trip through the helper.
        try Self.applyAndUndo(CurationRule(action: .hide, field: .path, match: .prefix, value: "music/1"), store: store)
    }

    @Test func aRetroactiveRewriteMovesPlaysToTheRewrittenTrackAndItsDryRunSaysSo() throws {
        let (_, store) = try CurationStoreTests.history(seed: 9)
        defer { try? store.close() }
        let rule = CurationRule(action: .rewrite, field: .title, match: .regex, value: " - Remastered \\d{4}$", replacement: "")
        let effect = try Self.applyAndUndo(rule, store: store)
        for change in effect.changes {
            #expect(change.play.track.title.hasSuffix(" - Remastered 2011"))
            #expect(change.after?.title == String(change.play.track.title.dropLast(" - Remastered 2011".count)))
        }
        // Applied for good: no remaster is left among the plays.
        let stored = try store.rules().last!
        _ = try store.applyRule(id: stored.id!, request: "{}", source: "test")
        #expect(try store.plays(limit: 10_000).allSatisfy { !$0.track.title.contains("Remastered") })
        try EntityRollupTests.expectExact(store, "rewritten")
        // Applying it again changes nothing, and says so.
        #expect(throws: StoreError.self) { try store.applyRule(id: stored.id!, request: "{}", source: "test") }
    }

    @Test func aDurationRuleLeavesPlaysOfUnknownLengthAlone() throws {
        let (_, store) = try CurationStoreTests.history(seed: 10, plays: 60)
        defer { try? store.close() }
        // A submitted listen without a duration: played_s 0, not known.
        _ = try store.recordListens([(Track(title: "No Length", artist: "Somebody"), Date(timeIntervalSince1970: 1_700_000_000), nil)],
                                    source: "listenbrainz")
        let effect = try Self.applyAndUndo(CurationRule(action: .ignore, field: .duration, match: .shorterThan, value: "60"), store: store)
        #expect(effect.changes.allSatisfy { $0.play.play.playedSeconds < 60 && $0.play.track.title != "No Length" })
    }

    @Test func atIngestIgnoredPlaysLeaveNoRowHiddenOnesGoApartRewrittenOnesAreFiledAnew() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        let rules = RuleSet([
            CurationRule(id: 1, action: .ignore, field: .path, match: .prefix, value: "Podcasts/"),
            CurationRule(id: 2, action: .hide, field: .genre, match: .equals, value: "Sleep"),
            CurationRule(id: 3, action: .rewrite, field: .title, match: .regex, value: " - Remastered \\d{4}$", replacement: ""),
            CurationRule(id: 4, action: .ignore, field: .duration, match: .shorterThan, value: "10"),
        ])
        func finished(_ uri: String, _ tags: [String: String], at: Double, played: Double = 200) -> FinishedPlay {
            FinishedPlay(song: SongInfo(uri: uri, tags: tags, durationSeconds: 240), startedAt: Date(timeIntervalSince1970: at),
                         endedAt: Date(timeIntervalSince1970: at + played), playedSeconds: played, counted: true)
        }
        let logged = try store.record(player: "default", finished: [
            finished("Podcasts/ep1.mp3", ["Title": "Episode 1"], at: 1000),
            finished("Sleep/rain.flac", ["Title": "Rain", "Genre": "Sleep"], at: 2000),
            finished("Music/song.flac", ["Title": "Song - Remastered 2011", "Artist": "Band"], at: 3000),
            finished("Music/other.flac", ["Title": "Other", "Artist": "Band"], at: 4000, played: 5),
            finished("Music/other.flac", ["Title": "Other", "Artist": "Band"], at: 5000),
        ], open: .clear, rules: rules)
        #expect(logged.map(\.track.title) == ["Song", "Other"])
        #expect(logged[0].track.uri == nil)
        #expect(try store.hiddenPlays(limit: 10).map(\.track.title) == ["Rain"])
        #expect(try store.counts().plays == 2)
        let podcastTracks = try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tracks WHERE uri LIKE 'Podcasts/%'") }
        #expect(podcastTracks == 0, "no track for an ignored play")
        // Submitted listens: the same rules.
        let listens = try store.recordListens([
            (Track(title: "Song - Remastered 2011", artist: "Band"), Date(timeIntervalSince1970: 6000), nil),
            (Track(title: "Lullaby", artist: "Band", genre: "sleep"), Date(timeIntervalSince1970: 7000), nil),
        ], source: "listenbrainz", rules: rules)
        #expect(listens.map(\.track.title) == ["Song"])
        #expect(listens[0].play.trackID == logged[0].play.trackID, "the rewritten listen meets the rewritten MPD play")
        #expect(try store.hiddenPlays(limit: 10).map(\.track.title) == ["Lullaby", "Rain"])
        try EntityRollupTests.expectExact(store, "ingest")
    }

    @Test func theRuleSetIsCompiledAgainOnlyWhenTheRulesChange() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        #expect(try store.currentRules().isEmpty)
        let rule = try store.addRule(CurationRule(action: .ignore, field: .artist, match: .equals, value: "X"))
        #expect(try store.currentRules().rules.map(\.id) == [rule.id])
        try store.replaceConfigRules([CurationRule(action: .hide, field: .genre, match: .equals, value: "Sleep")])
        let rules = try store.rules()
        #expect(rules.map(\.fromConfig) == [true, false], "the configuration's rules first")
        #expect(try store.currentRules().rules.count == 2)
        // The configuration's rules are not changed through the store's site methods.
        #expect(throws: StoreError.self) { try store.deleteRule(id: rules[0].id!) }
        _ = try store.deleteRule(id: rule.id!)
        #expect(try store.currentRules().rules.count == 1)
        // The same configuration again keeps its ids.
        try store.replaceConfigRules([CurationRule(action: .hide, field: .genre, match: .equals, value: "Sleep")])
        #expect(try store.rules().map(\.id) == [rules[0].id])
    }
}
