import Foundation
import GRDB
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteStore

private let zone = TimeZone(identifier: "Europe/Berlin")!

/// Corrections (issue 19): deletes, edits, additions and merges keep every rollup equal to
/// its recomputation from the plays, merged names stay aliases, and every entry's undo
/// gives back the history as it was.
@Suite struct CurationStoreTests {
    /// A small history over spring 2024: artists spelled two ways, shared credits, albums
    /// of files and of text-only tracks, skips among the plays.
    static func history(seed: UInt64, plays: Int = 300) throws -> (TemporaryDirectory, Store) {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: zone)
        var state = seed
        func random(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
        let artists = ["Florence + the Machine", "Florence and the Machine", "Beyoncé", "Beyonce", "Artist A", "Artist A & Artist B", "Artist B"]
        var tracks: [Track] = []
        for i in 0..<30 {
            let artist = artists[i % artists.count]
            tracks.append(Track(uri: i % 3 == 0 ? "music/\(i).flac" : nil, title: "Song \(i % 12)" + (i % 5 == 0 ? " - Remastered 2011" : ""),
                                artist: artist, album: i % 4 == 3 ? nil : "Album \(i % 3)", albumArtist: nil,
                                // Genres: two in one text, case variants of one, none.
                                genre: ["Drum & Bass; Jungle", "Rock/Pop", "rock", nil, "Jungle"][i % 5], durationSeconds: 180 + Double(i)))
        }
        var at = 1_711_800_000.0  // 2024-03-30
        for _ in 0..<plays {
            let track = tracks[min(random(30), random(30))]  // skewed: low indexes more often
            let id = try store.saveTrack(track)
            let played = Double(random(240)) + 5
            try store.insertPlay(Play(trackID: id, startedAt: Date(timeIntervalSince1970: at), endedAt: Date(timeIntervalSince1970: at + played),
                                      playedSeconds: played, counted: random(5) != 0, source: "mpd"))
            at += Double(random(80_000)) + 60
        }
        return (dir, store)
    }

    /// Everything an undo must give back: the plays as rows, credits, albums of tracks,
    /// aliases, and every rollup.
    static func snapshot(_ store: Store) throws -> [String] {
        try store.read { db in
            var out: [String] = []
            for sql in ["SELECT id, track_id, started_at_ms, counted, played_s, local_day FROM plays ORDER BY id",
                        "SELECT track_id, position, artist_id, name FROM track_artists ORDER BY 1, 2",
                        "SELECT id, album_id, merged_into, bpm FROM tracks ORDER BY id",
                        "SELECT id, merged_into FROM artists ORDER BY id", "SELECT id, merged_into FROM albums ORDER BY id",
                        "SELECT day, track_id FROM sotd_pins ORDER BY day", "SELECT track_id, feeling FROM track_feelings ORDER BY 1",
                        "SELECT id, track_id, started_at_ms FROM hidden_plays ORDER BY id"]
                + (EntityRollups.tables.map(\.name) + ["rollup_track_total", "rollup_month_track", "rollup_year_track", "rollup_day_track"])
                .map { "SELECT * FROM \($0) ORDER BY 1, 2" } {
                for row in try Row.fetchAll(db, sql: sql) {
                    out.append(sql.prefix(40) + " " + row.map { value -> String in
                        if case .double(let d) = value.1.storage { return String(format: "%.6f", d) }
                        return value.1.description
                    }.joined(separator: " "))
                }
            }
            return out
        }
    }

    static func ids(_ store: Store, _ sql: String) throws -> [Int64] {
        try store.read { db in try Int64.fetchAll(db, sql: sql) }
    }

    @Test func mergingTwoSpellingsOfAnArtistSumsThemAndLaterPlaysFollowTheKeptOne() throws {
        let (_, store) = try Self.history(seed: 7)
        defer { try? store.close() }
        let plus = try #require(try store.artist(named: "Florence + the Machine"))
        let and = try #require(try store.artist(named: "Florence and the Machine"))
        let before = try Self.snapshot(store)
        let charts = try EntityStoreTests.charts(store, from: "0000-01-01", to: "9999-12-31").artists
        let entry = try store.merge(.artist, from: [plus.id], into: and.id, request: "{}", source: "test")
        #expect(entry.kind == .merge && entry.summary(in: store.localTime).contains("Florence + the Machine"))
        try EntityRollupTests.expectExact(store, "artists merged")
        let after = try EntityStoreTests.charts(store, from: "0000-01-01", to: "9999-12-31").artists
        #expect(after[and.id] == (charts[and.id] ?? 0) + (charts[plus.id] ?? 0))
        #expect(after[plus.id] == nil)
        // The merged name is an alias: a new play credited to it counts for the kept one.
        #expect(try store.artist(named: "Florence + the Machine")?.id == and.id)
        _ = try CreditStoreTests.play(store, Track(title: "Dog Days", artist: "Florence + the Machine"), at: 1_716_000_000)
        try EntityRollupTests.expectExact(store, "a play under the alias")
        #expect(try EntityStoreTests.charts(store, from: "0000-01-01", to: "9999-12-31").artists[and.id] == after[and.id]! + 1)
        #expect(try EntityStoreTests.charts(store, from: "0000-01-01", to: "9999-12-31").artists[plus.id] == nil)
        // The new play is no curation entry: the merge can still be undone, and both come
        // back as they were, the new play (credited by the alias's name) with the alias.
        _ = try store.undoCuration(id: entry.id)
        try EntityRollupTests.expectExact(store, "merge undone")
        #expect(try store.artist(named: "Florence + the Machine")?.id == plus.id)
        let restored = try EntityStoreTests.charts(store, from: "0000-01-01", to: "9999-12-31").artists
        #expect(restored[plus.id] == (charts[plus.id] ?? 0) + 1)
        #expect(restored[and.id] == charts[and.id])
        _ = before
    }

    @Test func everyEntryUndoesToExactlyTheHistoryBeforeIt() throws {
        let (_, store) = try Self.history(seed: 11)
        defer { try? store.close() }
        let start = try Self.snapshot(store)
        let plays = try Self.ids(store, "SELECT id FROM plays ORDER BY id")
        let tracks = try Self.ids(store, "SELECT id FROM tracks WHERE id IN (SELECT track_id FROM plays) ORDER BY id")
        let albums = try Self.ids(store, "SELECT id FROM albums ORDER BY id")
        try store.write { db in
            try db.execute(sql: "INSERT INTO sotd_pins (day, track_id, pinned_at_ms) VALUES ('2024-04-01', ?, 0)", arguments: [tracks[1]])
            try db.execute(sql: "INSERT INTO track_feelings (track_id, feeling, source, updated_at_ms) VALUES (?, 'like', 'site', 0)", arguments: [tracks[1]])
            try db.execute(sql: "UPDATE tracks SET bpm = 120, bpm_source = 'manual' WHERE id = ?", arguments: [tracks[1]])
            // A play a hide rule kept out of the charts: it follows a merge of its track.
            _ = try Store.insertHiddenPlay(Play(trackID: tracks[1], startedAt: Date(timeIntervalSince1970: 1_713_000_000),
                                                endedAt: Date(timeIntervalSince1970: 1_713_000_100), playedSeconds: 100, counted: true,
                                                source: "mpd"), localTime: store.localTime, in: db)
        }
        let pinned = try Self.snapshot(store)
        var entries: [CurationEntry] = []
        var states: [[String]] = [pinned]
        entries.append(try store.curateDelete(playIDs: [plays[3], plays[4]], request: "{}", source: "test").entry)
        states.append(try Self.snapshot(store))
        entries.append(try store.curateEdit(playID: plays[10], Store.PlayEdit(counted: false), request: "{}", source: "test").entry)
        states.append(try Self.snapshot(store))
        entries.append(try store.curateEdit(playID: plays[11], Store.PlayEdit(track: Track(title: "Corrected", artist: "Someone New", album: "New")),
                                            request: "{}", source: "test").entry)
        states.append(try Self.snapshot(store))
        entries.append(try store.merge(.track, from: [tracks[1], tracks[2]], into: tracks[0], request: "{}", source: "test"))
        try EntityRollupTests.expectExact(store, "tracks merged")
        #expect(try store.read { db in try Int64.fetchOne(db, sql: "SELECT track_id FROM sotd_pins") } == tracks[0])
        #expect(try store.track(id: tracks[0])?.bpm?.value == 120)
        #expect(try Self.ids(store, "SELECT track_id FROM hidden_plays") == [tracks[0]])
        states.append(try Self.snapshot(store))
        entries.append(try store.merge(.album, from: [albums[1]], into: albums[0], request: "{}", source: "test"))
        try EntityRollupTests.expectExact(store, "albums merged")
        states.append(try Self.snapshot(store))
        entries.append(try store.curateAdd(.album(id: albums[0]), startedAt: Date(timeIntervalSince1970: 1_717_000_000), request: "{}", source: "test").entry)
        try EntityRollupTests.expectExact(store, "an album added")
        // Undone newest first, each gives back the state before it.
        for (entry, state) in zip(entries, states).reversed() {
            _ = try store.undoCuration(id: entry.id)
            try EntityRollupTests.expectExact(store, "undo of \(entry.summary(in: store.localTime))")
            let now = try Self.snapshot(store)
            let diff = Array(Set(now).symmetricDifference(state).sorted().prefix(6))
            #expect(diff.isEmpty, "undo of \(entry.summary(in: store.localTime)): \(diff)")
        }
        #expect(try Self.snapshot(store) == pinned)
        #expect(start != pinned)
    }

    @Test func anUndoThatLaterEntriesDependOnIsRefused() throws {
        let (_, store) = try Self.history(seed: 5)
        defer { try? store.close() }
        let tracks = try Self.ids(store, "SELECT id FROM tracks WHERE id IN (SELECT track_id FROM plays) ORDER BY id")
        let merge = try store.merge(.track, from: [tracks[1]], into: tracks[0], request: "{}", source: "test")
        let play = try #require(try Self.ids(store, "SELECT id FROM plays WHERE track_id = \(tracks[0]) LIMIT 1").first)
        let delete = try store.curateDelete(playIDs: [play], request: "{}", source: "test").entry
        #expect(throws: StoreError.self) { try store.undoCuration(id: merge.id) }
        do { _ = try store.undoCuration(id: merge.id) } catch {
            guard case .refused(let refusal) = error else { Issue.record("\(error)"); return }
            #expect(refusal.reason == .undoBlocked && refusal.message.contains("\(delete.id)"))
        }
        _ = try store.undoCuration(id: delete.id)
        _ = try store.undoCuration(id: merge.id)
        try EntityRollupTests.expectExact(store, "both undone")
        do { _ = try store.undoCuration(id: merge.id) } catch {
            guard case .refused(let refusal) = error else { Issue.record("\(error)"); return }
            #expect(refusal.reason == .alreadyUndone)
        }
        // Bad merges are refused, and write nothing.
        let before = try Self.snapshot(store)
        for (from, into) in [([tracks[0]], tracks[0]), ([999_999], tracks[0]), ([tracks[1]], 999_999)] {
            #expect(throws: StoreError.self) { try store.merge(.track, from: from, into: into, request: "{}", source: "test") }
        }
        #expect(try Self.snapshot(store) == before)
    }

    /// Random sequences of deletes, edits, additions, merges, rules and undos: after every step,
    /// every rollup, chart, total and page summary equals its recomputation from the plays.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func randomCurationsKeepEveryRollupExact(seed: UInt64) throws {
        let (_, store) = try Self.history(seed: seed, plays: 200)
        defer { try? store.close() }
        var state = seed &* 977
        func random(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(max(n, 1)))
        }
        func pick(_ sql: String) throws -> Int64? {
            let all = try Self.ids(store, sql)
            return all.isEmpty ? nil : all[random(all.count)]
        }
        var steps = 0
        while steps < 14 {
            let step: String
            do {
                switch random(8) {
                case 0:
                    guard let play = try pick("SELECT id FROM plays") else { continue }
                    _ = try store.curateDelete(playIDs: [play], request: "{}", source: "test")
                    step = "delete \(play)"
                case 1:
                    guard let play = try pick("SELECT id FROM plays"), let track = try pick("SELECT id FROM tracks WHERE merged_into IS NULL") else { continue }
                    _ = try store.curateEdit(playID: play, Store.PlayEdit(trackID: track, counted: random(2) == 0), request: "{}", source: "test")
                    step = "edit \(play) → track \(track)"
                case 2:
                    guard let track = try pick("SELECT id FROM tracks WHERE merged_into IS NULL") else { continue }
                    _ = try store.curateAdd(.track(id: track), startedAt: Date(timeIntervalSince1970: 1_712_000_000 + Double(random(5_000_000))),
                                            request: "{}", source: "test")
                    step = "add track \(track)"
                case 3:
                    guard let a = try pick("SELECT id FROM tracks WHERE merged_into IS NULL"),
                          let b = try pick("SELECT id FROM tracks WHERE merged_into IS NULL AND id != \(a)") else { continue }
                    _ = try store.merge(.track, from: [a], into: b, request: "{}", source: "test")
                    step = "merge track \(a) into \(b)"
                case 4:
                    guard let a = try pick("SELECT id FROM artists WHERE merged_into IS NULL"),
                          let b = try pick("SELECT id FROM artists WHERE merged_into IS NULL AND id != \(a)") else { continue }
                    _ = try store.merge(.artist, from: [a], into: b, request: "{}", source: "test")
                    step = "merge artist \(a) into \(b)"
                case 5:
                    guard let a = try pick("SELECT id FROM albums WHERE merged_into IS NULL"),
                          let b = try pick("SELECT id FROM albums WHERE merged_into IS NULL AND id != \(a)") else { continue }
                    _ = try store.merge(.album, from: [a], into: b, request: "{}", source: "test")
                    step = "merge album \(a) into \(b)"
                case 6:
                    // A rule applied to the past (issue 19, point 3): one entry, like the others.
                    let rules = [
                        CurationRule(action: .ignore, field: .artist, match: .equals, value: "beyonce"),
                        CurationRule(action: .hide, field: .title, match: .prefix, value: "Song \(random(12))"),
                        CurationRule(action: .rewrite, field: .title, match: .regex, value: " - Remastered \\d{4}$", replacement: ""),
                        CurationRule(action: .rewrite, field: .artist, match: .regex, value: "^Artist (A|B)$", replacement: "The Artist $1"),
                        CurationRule(action: .ignore, field: .duration, match: .shorterThan, value: "\(random(60) + 5)"),
                        CurationRule(action: .hide, field: .path, match: .prefix, value: "music/\(random(3))"),
                    ]
                    let rule = try store.addRule(rules[random(rules.count)])
                    _ = try store.applyRule(id: rule.id!, request: "{}", source: "test")
                    step = "rule \(rule.summary)"
                default:
                    guard let entry = try pick("SELECT id FROM curation_log WHERE undone_at_ms IS NULL") else { continue }
                    _ = try store.undoCuration(id: entry)
                    step = "undo \(entry)"
                }
            } catch StoreError.refused {
                continue  // a conflict (a duplicate, an undo others depend on): nothing written
            }
            steps += 1
            try EntityRollupTests.expectExact(store, "seed \(seed) step \(steps): \(step)")
        }
        // Everything undone, newest first: the rollups are still exact.
        for id in try Self.ids(store, "SELECT id FROM curation_log WHERE undone_at_ms IS NULL ORDER BY id DESC") {
            _ = try store.undoCuration(id: id)
        }
        try EntityRollupTests.expectExact(store, "seed \(seed): all undone")
    }
}
