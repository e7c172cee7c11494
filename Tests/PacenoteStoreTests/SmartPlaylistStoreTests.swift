import Foundation
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteStore

/// The songs a smart playlist's rules choose from a real database (issue 57): library songs
/// only, each rule over what the store knows, in the order asked for.
@Suite struct SmartPlaylistStoreTests {
    static let now = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01 00:00 UTC
    static let day = 86_400.0

    /// Six library songs (and one that is not in the library) with BPMs, genres, likes, and plays.
    static func store(_ dir: TemporaryDirectory) throws -> (Store, [String: Int64]) {
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        let songs: [(String, Double, String)] = [("A", 122, "Rock"), ("B", 125, "Rock"), ("C", 68, "Jazz"), ("D", 140, "Pop"),
                                                ("E", 90, "Pop"), ("F", 128, "Jazz")]
        _ = try store.applyLibrary(player: "default", changed: songs.map {
            SongInfo(uri: "\($0.0).flac", tags: ["Title": $0.0, "Artist": "X", "Genre": $0.2], durationSeconds: 200)
        }, removed: [], stickers: nil, now: now)
        var ids: [String: Int64] = [:]
        for (name, bpm, _) in songs {
            let id = try #require(try store.track(uri: "\(name).flac")?.id)
            ids[name] = id
            try store.setBPM(trackID: id, BPM(value: bpm, source: .manual))
        }
        ids["Gone"] = try store.saveTrack(Track(title: "Gone", artist: "X", bpm: BPM(value: 124, source: .manual)))
        _ = try store.setFeelings([(ids["A"]!, .like), (ids["C"]!, .like), (ids["Gone"]!, .like), (ids["D"]!, .dislike)], source: "site")
        func play(_ name: String, daysAgo: Double, zone: Zone? = nil) throws {
            let start = now.addingTimeInterval(-daysAgo * day)
            try store.insertPlay(Play(trackID: ids[name]!, startedAt: start, endedAt: start.addingTimeInterval(200), playedSeconds: 200,
                                      counted: true, source: "mpd", zone: zone))
        }
        // In 2025: B three times, A twice, E once; D in Z4 twice, F in Z4 once; C long ago and again
        // last week (a comeback); E not for a year.
        for d in [10.0, 20, 30] { try play("B", daysAgo: d) }
        for d in [40.0, 50] { try play("A", daysAgo: d) }
        try play("E", daysAgo: 360)
        try play("D", daysAgo: 15, zone: .z4)
        try play("D", daysAgo: 16, zone: .z4)
        try play("F", daysAgo: 17, zone: .z4)
        try play("C", daysAgo: 700)
        try play("C", daysAgo: 7)
        return (store, ids)
    }

    func names(_ store: Store, _ ids: [String: Int64], _ rules: SmartPlaylist.Rules) throws -> [String] {
        let byID = Dictionary(uniqueKeysWithValues: ids.map { ($0.value, $0.key) })
        return try store.smartPlaylistSongs(rules, tempo: .defaults, now: Self.now).map { byID[$0.trackID] ?? "?" }
    }

    @Test func eachRuleChoosesFromTheLibrary() throws {
        let dir = try TemporaryDirectory()
        let (store, ids) = try Self.store(dir)
        defer { try? store.close() }
        var r = SmartPlaylist.Rules()
        #expect(try names(store, ids, r) == ["B", "A", "C", "D", "E", "F"], "most played first; the song outside the library never")
        r.liked = true
        #expect(try names(store, ids, r) == ["A", "C"])
        r = SmartPlaylist.Rules()
        r.liked = false
        #expect(!(try names(store, ids, r)).contains("D"), "not disliked")
        r = SmartPlaylist.Rules()
        r.bpmMin = 120
        r.bpmMax = 130
        #expect(Set(try names(store, ids, r)) == ["A", "B", "F"])
        r = SmartPlaylist.Rules()
        r.zone = 4  // the default Z4 window, half- and double-time counting: C's 68 reads 136
        let z4 = TempoTarget.window(TempoTable.defaults.window(for: .z4))
        let expected = Set(["A", "B", "C", "D", "E", "F"].filter { name in
            z4.fit(bpm: [122, 125, 68, 140, 90, 128][["A", "B", "C", "D", "E", "F"].firstIndex(of: name)!]) != nil
        })
        #expect(Set(try names(store, ids, r)) == expected)
        r = SmartPlaylist.Rules()
        r.genres = ["jazz"]
        #expect(Set(try names(store, ids, r)) == ["C", "F"], "genres case folded")
        r = SmartPlaylist.Rules()
        r.playedFrom = "2025-01-01"
        r.playedTo = "2025-12-31"
        // Counted plays in 2025, most first (C's 2024 play left out: one in the period).
        #expect(try names(store, ids, r) == ["B", "A", "D", "C", "E", "F"])
        r.top = 2
        #expect(try names(store, ids, r) == ["B", "A"])
        r = SmartPlaylist.Rules()
        r.notPlayedMonths = 6
        #expect(try names(store, ids, r) == ["E"])
        r = SmartPlaylist.Rules()
        r.comebackMonths = 12
        #expect(try names(store, ids, r) == ["C"])
        r = SmartPlaylist.Rules()
        r.powerZone = 4
        #expect(try names(store, ids, r) == ["D", "F"])
        r = SmartPlaylist.Rules()
        r.order = .bpm
        r.limit = 3
        #expect(try names(store, ids, r) == ["C", "E", "A"])
        r = SmartPlaylist.Rules()
        r.order = .oldest
        #expect(try names(store, ids, r) == ["E", "A", "F", "D", "B", "C"], "least recently played first")
    }

    @Test func definitionsAreStoredAndMoodsCombined() throws {
        let dir = try TemporaryDirectory()
        let (store, ids) = try Self.store(dir)
        defer { try? store.close() }
        var rock = SmartPlaylist.Rules()
        rock.genres = ["Rock"]
        var liked = SmartPlaylist.Rules()
        liked.liked = true
        _ = try store.insertSmartPlaylist(name: "Rocky", kind: .mood, rules: rock, now: Self.now)
        _ = try store.insertSmartPlaylist(name: "Loved", kind: .mood, rules: liked, now: Self.now)
        var both = SmartPlaylist.Rules()
        both.moods = ["rocky", "Loved"]
        both.combine = .union
        #expect(Set(try names(store, ids, both)) == ["A", "B", "C"])
        both.combine = .intersection
        #expect(try names(store, ids, both) == ["A"])
        // A combination with rules of its own keeps only the songs those choose.
        both.combine = .union
        both.bpmMax = 100
        #expect(try names(store, ids, both) == ["C"])
        let id = try store.insertSmartPlaylist(name: "Both", kind: .mood, rules: both, now: Self.now)
        #expect(try store.smartPlaylist(id: id)?.rules == both, "the rules round-trip")
        #expect(try store.smartPlaylist(namedAnyCase: "both")?.id == id && store.smartPlaylist(named: "both") == nil, "MPD's names are case-sensitive")
        #expect(try store.everySmartPlaylistsSongs(tempo: .defaults, now: Self.now).count == 3)
        #expect(try store.deleteSmartPlaylist(id: id) && !(try store.deleteSmartPlaylist(id: id)))
        // A mood that names itself chooses nothing rather than looping.
        var loop = SmartPlaylist.Rules()
        loop.moods = ["Loop", "Loved"]
        loop.combine = .intersection
        _ = try store.insertSmartPlaylist(name: "Loop", kind: .mood, rules: loop, now: Self.now)
        #expect(try names(store, ids, loop).isEmpty)
    }

    /// The sync's periodic look refreshes when this changes: each kind of write another process
    /// can make without an announcement moves it, and a read does not.
    @Test func theStampMovesWithEveryWriteTheRulesRead() throws {
        let dir = try TemporaryDirectory()
        let (store, ids) = try Self.store(dir)
        defer { try? store.close() }
        var last = try store.smartPlaylistsStamp()
        func moved(_ what: String) throws {
            let now = try store.smartPlaylistsStamp()
            #expect(now != last, "\(what) did not move the stamp")
            last = now
        }
        _ = try store.smartPlaylistSongs(SmartPlaylist.Rules(), tempo: .defaults, now: Self.now)
        #expect(try store.smartPlaylistsStamp() == last, "a read moves nothing")
        let start = Self.now.addingTimeInterval(-3600)
        try store.insertPlay(Play(trackID: ids["E"]!, startedAt: start, endedAt: start.addingTimeInterval(200), playedSeconds: 200,
                                  counted: true, source: "mpd"))
        try moved("a play")
        _ = try store.setFeelings([(ids["E"]!, .like)], source: "site")
        try moved("a like")
        try store.setBPM(trackID: ids["E"]!, BPM(value: 91, source: .manual))
        try moved("a BPM")
        _ = try store.insertSamples((0..<200).map { HeartRateSample(at: start.addingTimeInterval(Double($0)), bpm: 150) }, source: "t")
        #expect(try store.tagPlays(from: start, to: start.addingTimeInterval(199)) { _, _ in .z4 }.count == 1)
        try moved("a play's zone")
        #expect(try store.tagPlays(from: start, to: start.addingTimeInterval(199)) { _, _ in .z4 }.isEmpty)
        #expect(try store.smartPlaylistsStamp() == last, "tagging again, unchanged, moves nothing")
    }
}
