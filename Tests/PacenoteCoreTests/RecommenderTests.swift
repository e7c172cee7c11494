import Foundation
import Testing
@testable import PacenoteCore

@Suite struct SongKeyTests {
    @Test func versionsAndCreditsMeet() {
        let base = SongKey.make(artist: "Röyksopp", title: "Eple")
        #expect(SongKey.make(artist: "ROYKSOPP", title: "Eple (Radio Edit)") == base)
        #expect(SongKey.make(artist: "Röyksopp feat. Robyn", title: "Eple - Remastered 2011") == base)
        #expect(SongKey.make(artist: "Röyksopp", title: "Eple [Fatboy Slim Remix]") == base)
        #expect(SongKey.make(artist: "Röyksopp", title: "Eple (feat. Someone)") == base)
        #expect(SongKey.make(artist: "Röyksopp", title: "Eple ft. Someone") == base)
        #expect(SongKey.make(artist: "Röyksopp & Robyn", title: "Eple (Live)") == base)
        #expect(SongKey.make(artist: "The Killers", title: "Mr. Brightside") == SongKey.make(artist: "Killers", title: "mr brightside"))
    }

    @Test func differentSongsStayApart() {
        #expect(SongKey.make(artist: "A", title: "Love (Part 2)") != SongKey.make(artist: "A", title: "Love"))
        #expect(SongKey.make(artist: "A", title: "Song - Part Two") != SongKey.make(artist: "A", title: "Song"))
        #expect(SongKey.make(artist: "A", title: "Eple") != SongKey.make(artist: "B", title: "Eple"))
    }
}

@Suite struct TempoTargetTests {
    @Test func zoneWindowsWithHalfAndDoubleTime() {
        let z4 = TempoTarget.window(TempoTable.defaults.window(for: .z4))
        #expect(z4.fit(bpm: 135)?.fit == 1)
        #expect(z4.fit(bpm: 130)?.factor == 1)
        #expect(z4.fit(bpm: 68)?.factor == 2)
        #expect(z4.fit(bpm: 68)?.effectiveBPM == 136)
        #expect(z4.fit(bpm: 270)?.factor == 0.5)
        #expect(z4.fit(bpm: 128) == nil)
        #expect(z4.fit(bpm: 100) == nil)
        #expect(TempoTable.defaults.window(for: .z0) == 100...120)
        #expect(TempoTable.defaults.window(for: .z5) == 135...145)
    }

    @Test func cadenceRejectsMoreThanTenPercentAndPrefersTheSmallestChange() {
        let run = TempoTarget.cadence(stepsPerMinute: 170)
        #expect(run.fit(bpm: 170)?.change == 0)
        #expect(run.fit(bpm: 85)?.factor == 2)           // 2:1, two steps a beat
        #expect(run.fit(bpm: 160) != nil)                 // +6.25 %
        #expect(run.fit(bpm: 150) == nil)                 // +13 %
        #expect(run.fit(bpm: 120) == nil)
        #expect(run.fit(bpm: 170)!.fit > run.fit(bpm: 160)!.fit)
        #expect(run.fit(bpm: 165)!.fit > run.fit(bpm: 180)!.fit)
    }
}

@Suite struct RecommenderTests {
    static let hour: Int64 = 3_600_000
    static let now: Int64 = 1_760_000_000_000

    /// A model and its tracks' texts, which the model does not keep: a suggestion reads
    /// those of the tracks it returns (the daemon from the database).
    struct Library {
        var model = ListeningModel()
        var tracks: [ListeningModel.Candidate] = []

        mutating func upsert(_ track: ListeningModel.Candidate) {
            model.upsert(track)
            tracks.append(track)
        }

        func suggest(_ request: Recommender.Request) -> [Recommender.Suggestion] {
            Recommender.suggest(model, request, texts: ListeningModel.Texts.lookup(tracks))
        }

        func texts(of id: Int64) -> ListeningModel.Texts {
            ListeningModel.Texts.lookup(tracks)([id])[id]!
        }
    }

    func model(_ tracks: [(Int64, String, String, Double?)]) -> Library {
        var m = Library()
        for (id, artist, title, bpm) in tracks {
            m.upsert(.init(id: id, uri: "\(id).flac", title: title, artist: artist, bpm: bpm, inLibrary: true))
        }
        return m
    }

    func play(_ m: inout Library, _ id: Int64, hoursAgo: Double, counted: Bool = true, zone: Zone? = .z4) {
        let start = Self.now - Int64(hoursAgo * Double(Self.hour))
        m.model.record(.init(trackID: id, startedAtMs: start, endedAtMs: start + (counted ? 200_000 : 10_000), counted: counted, zone: zone))
    }

    func request(zone: Zone? = .z4, current: Int64? = nil, queued: [Recommender.SongRef] = [], limit: Int = 10, seed: UInt64 = 1,
                 in m: Library) -> Recommender.Request {
        let cur = current.map { id in
            Recommender.SongRef(trackID: id, artist: m.texts(of: id).artist, title: m.texts(of: id).title)
        }
        return .init(zone: zone, target: zone.map { .window(TempoTable.defaults.window(for: $0)) } ?? .any,
                     nowMs: Self.now, current: cur, queued: queued, limit: limit, seed: seed)
    }

    /// A suggestion carries the texts read for its track (the model keeps none) with the
    /// model's tempo and library flag; a track whose texts are gone is left out.
    @Test func suggestionsCarryTheTextsReadForThem() {
        var m = model([(1, "Björk", "Jóga", 135), (2, "B", "Two", 135), (3, "C", "Three", nil)])
        m.upsert(.init(id: 2, uri: "Música/ファイル.flac", title: "Two (retagged)", artist: nil, bpm: 136.5, inLibrary: true))
        var r = request(in: m)
        r.explorationShare = 0
        let out = m.suggest(r)
        #expect(out.map(\.track) == [
            .init(id: 1, uri: "1.flac", title: "Jóga", artist: "Björk", bpm: 135, inLibrary: true),
            .init(id: 2, uri: "Música/ファイル.flac", title: "Two (retagged)", artist: nil, bpm: 136.5, inLibrary: true),
            .init(id: 3, uri: "3.flac", title: "Three", artist: "C", bpm: nil, inLibrary: true),
        ])
        var asked: [Int64] = []
        let without2 = Recommender.suggest(m.model, r) { ids in
            asked = ids
            return ListeningModel.Texts.lookup(m.tracks)(ids.filter { $0 != 2 })
        }
        #expect(Set(asked) == [1, 2, 3])
        #expect(without2.map(\.track.id) == [1, 3])
    }

    @Test func onlyFittingTempoThenTracksWithoutBPM() {
        let m = model([(1, "A", "Fast", 135), (2, "A", "Slow", 100), (3, "B", "Half", 67), (4, "C", "Unknown", nil), (5, "D", "Edge", 140)])
        var r = request(in: m)
        r.explorationShare = 0
        let ids = m.suggest(r).map(\.track.id)
        #expect(Set(ids.prefix(3)) == [1, 3, 5])
        #expect(ids.last == 4)
        #expect(!ids.contains(2))
        #expect(m.suggest(r).first { $0.track.id == 4 }?.tier == 1)
    }

    @Test func neverTheCurrentQueuedOrRecentlyPlayedSongInAnyVersion() {
        var m = model([(1, "A", "Now", 135), (2, "A", "Queued", 135), (3, "B", "Recent", 135),
                       (4, "B", "Recent (Radio Edit)", 134), (5, "C", "Old", 135), (6, "A", "Queued - Remastered 2011", 135),
                       (7, "A feat. E", "Now (Radio Edit)", 135)])
        play(&m, 3, hoursAgo: 2)
        play(&m, 5, hoursAgo: 7)
        let r = request(current: 1, queued: [.init(artist: "A", title: "Queued")], in: m)
        #expect(m.suggest(r).map(\.track.id) == [5])
        var longer = r
        longer.recentHours = 1
        let ids = m.suggest(longer).map(\.track.id)
        #expect(ids.count == 2 && ids.contains(5) && (ids.contains(3) != ids.contains(4)))  // one version of "Recent"
    }

    @Test func zoneRecordFamiliaritySkipsAndTransitionsGiveReasons() {
        var m = model([(1, "A", "Current", 135), (2, "B", "Loved in Z4", 135), (3, "C", "Skipped in Z4", 135),
                       (4, "D", "Follows", 135), (5, "E", "Loved at rest", 135)])
        for d in 0..<5 { play(&m, 2, hoursAgo: 24.0 * Double(d + 1)) }
        for d in 0..<4 { play(&m, 3, hoursAgo: 24.0 * Double(d + 1) + 1, counted: false) }
        for d in 0..<3 {
            play(&m, 1, hoursAgo: 24.0 * Double(d + 1) + 3)
            play(&m, 4, hoursAgo: 24.0 * Double(d + 1) + 2.9)
        }
        for d in 0..<5 { play(&m, 5, hoursAgo: 24.0 * Double(d + 1) + 5, zone: .z0) }
        let list = m.suggest(request(current: 1, in: m))
        #expect(list.first?.track.id == 4)
        #expect(list.first?.reasons.contains { $0.kind == "follows_track" && $0.detail.contains("3 times") } == true)
        #expect(list.map(\.track.id).last == 3)
        #expect(list.first { $0.track.id == 3 }!.reasons.contains { $0.kind == "skips" })
        #expect(list.first { $0.track.id == 2 }!.reasons.contains { $0.kind == "zone_record" && $0.detail == "5 plays, 0 skips in Z4" })
        #expect(list.firstIndex { $0.track.id == 2 }! < list.firstIndex { $0.track.id == 5 }!)
        for s in list { #expect(abs(s.score - s.reasons.map(\.weight).reduce(0, +)) < 1e-9) }
    }

    @Test func explorationShareIsSeededAndDeterministic() {
        var tracks: [(Int64, String, String, Double?)] = []
        for i in 1...40 { tracks.append((Int64(i), "Artist \(i % 7)", "Song \(i)", 135)) }
        var m = model(tracks)
        for i in 1...20 { play(&m, Int64(i), hoursAgo: 48 + Double(i)) }
        let a = m.suggest(request(seed: 9, in: m))
        #expect(a == m.suggest(request(seed: 9, in: m)))
        #expect(a.count == 10)
        #expect(a.filter { $0.reasons.contains { $0.kind == "exploration" } }.count == 1)
        #expect(a.last!.track.id > 20)
        #expect(a.dropLast().allSatisfy { $0.track.id <= 20 })
        let seeds = Set((0..<20).map { m.suggest(request(seed: UInt64($0), in: m)).last!.track.id })
        #expect(seeds.count > 1)
    }

    @Test func cadenceModeRanksTheSmallestChangeFirst() {
        let m = model([(1, "A", "a", 176), (2, "B", "b", 171), (3, "C", "c", 86), (4, "D", "d", 150)])
        var r = request(zone: nil, in: m)
        r.target = .cadence(stepsPerMinute: 170)
        // Every track is new and every fitting one has a place: the order is the score's,
        // whatever the seed (the daemon's seed is the day).
        for seed in 0..<64 as Range<UInt64> {
            r.seed = seed
            let list = m.suggest(r)
            #expect(list.map(\.track.id) == [2, 3, 1], "seed \(seed)")
            #expect(!list.contains { $0.reasons.contains { $0.kind == "exploration" } }, "seed \(seed)")
        }
    }

    /// A never-played track that earned its place on score keeps it: exploration draws only
    /// among the tracks the score left out.
    @Test func explorationNeverMovesAPlaceTheScoreEarned() {
        var tracks: [(Int64, String, String, Double?)] = [(1, "A", "Exact", 150), (2, "B", "Near", 138)]
        for i in 3...30 { tracks.append((Int64(i), "Artist \(i)", "Song \(i)", nil)) }
        let m = model(tracks)
        var r = request(zone: nil, limit: 10, in: m)
        r.target = .cadence(stepsPerMinute: 150)
        var drawn = Set<Int64>()
        for seed in 0..<64 as Range<UInt64> {
            r.seed = seed
            let list = m.suggest(r)
            #expect(list.prefix(2).map(\.track.id) == [1, 2], "seed \(seed): \(list.map(\.track.id))")
            #expect(list.count == 10)
            drawn.formUnion(list.filter { $0.reasons.contains { $0.kind == "exploration" } }.map(\.track.id))
        }
        // Only tracks with a fitting BPM are drawn, and both already lead the list.
        #expect(drawn.isEmpty, "\(drawn)")
    }

    @Test func evaluationPacenoteBeatsEveryBaselineOnHitRate() {
        let h = SyntheticHistory.generate(seed: 3, artists: 30, days: 120)
        let results = RecommenderEvaluation.run(tracks: h.tracks, events: h.events, maxCases: 800)
        let pacenote = results.first { $0.method == .pacenote }!
        for r in results where r.method != .pacenote {
            #expect(pacenote.hitRate > r.hitRate, "\(r.method.rawValue): \(r.hitRate) vs \(pacenote.hitRate)")
        }
    }
}

/// Tempos are kept only once some track has one: a track's tempo comes back whether it
/// came before, with or after the first tempo, and a retag can take it away.
@Suite struct ModelTempoTests {
    @Test func temposComeBackAroundTheFirstOne() {
        var m = ListeningModel()
        let texts = ListeningModel.Texts(uri: nil, title: "t", artist: nil)
        m.upsert(.init(id: 1, uri: nil, title: "a", artist: nil, bpm: nil, inLibrary: true))
        #expect(m.candidate(at: 0, texts: texts).bpm == nil && m.bpm(at: 0).isNaN)
        m.upsert(.init(id: 2, uri: nil, title: "b", artist: nil, bpm: 128.5, inLibrary: true))
        m.upsert(.init(id: 3, uri: nil, title: "c", artist: nil, bpm: nil, inLibrary: true))
        m.upsert(.init(id: 1, uri: nil, title: "a", artist: nil, bpm: 90, inLibrary: true))
        m.upsert(.init(id: 2, uri: nil, title: "b", artist: nil, bpm: nil, inLibrary: true))
        #expect((0..<3).map { m.candidate(at: $0, texts: texts).bpm } == [90, nil, nil])
    }
}

/// Familiarity kept as one number a track (log2 of the count plus the half-lives since the
/// epoch) is the decayed count a count and its time give: each counted play adds one to the
/// count decayed to its start, halved every 60 days, read at any later time.
@Suite struct FamiliarityTests {
    @Test func sameAsTheCountAndItsTime() {
        var model = ListeningModel()
        for id in Int64(1)...20 {
            model.upsert(.init(id: id, uri: "t\(id).flac", title: "Song \(id)", artist: "Artist \(id % 4)", bpm: nil, inLibrary: true))
        }
        var rng = SystemRandomNumberGenerator()
        var count: [Int64: Double] = [:], at: [Int64: Int64] = [:]
        let day: Int64 = 86_400_000
        func expected(_ id: Int64, _ ms: Int64) -> Double {
            guard let c = count[id] else { return 0 }
            return c * exp2(-Double(ms - at[id]!) / Double(day) / 60)
        }
        var ms: Int64 = 1_262_304_000_000  // 2010
        for _ in 0..<20_000 {
            ms += Int64.random(in: 0...(2 * day), using: &rng)  // 16 years or more
            let id = Int64.random(in: 1...20, using: &rng)
            let counted = Bool.random(using: &rng)
            model.record(.init(trackID: id, startedAtMs: ms, endedAtMs: ms + 180_000, counted: counted, zone: nil))
            if counted {
                count[id] = expected(id, ms) + 1
                at[id] = ms
            }
        }
        for id in Int64(1)...20 {
            let slot = model.slot(of: id)!
            for later in [ms, ms + day, ms + 365 * day] {
                let want = expected(id, later), got = model.decayedFamiliarity(slot, at: later)
                #expect(abs(got - want) <= 1e-9 * max(want, 1e-300), "track \(id): \(got) against \(want)")
            }
        }
        model.upsert(.init(id: 99, uri: nil, title: "Never played", artist: nil, bpm: nil, inLibrary: false))
        #expect(model.decayedFamiliarity(model.slot(of: 99)!, at: ms) == 0)
    }

    /// A back-dated play (a listen submitted late, read after newer ones) adds what it would
    /// have added in order: the sum of each play's decayed one.
    @Test func playsOutOfOrderSumAsInOrder() {
        var model = ListeningModel()
        model.upsert(.init(id: 1, uri: "a.flac", title: "A", artist: "X", bpm: nil, inLibrary: true))
        let day: Int64 = 86_400_000, start: Int64 = 1_700_000_000_000
        let days: [Int64] = [0, 90, 30, 200, 120, 5]
        for d in days {
            model.record(.init(trackID: 1, startedAtMs: start + d * day, endedAtMs: start + d * day + 1, counted: true, zone: nil))
        }
        let now = start + 400 * day
        let want = days.map { exp2(-Double(400 - $0) / 60) }.reduce(0, +)
        let got = model.decayedFamiliarity(0, at: now)
        #expect(abs(got - want) <= 1e-9 * want, "\(got) against \(want)")
    }
}

/// Plays and skips, in all and by zone, are counted exactly past two bytes' worth (65,535).
@Suite struct ZoneRecordTests {
    /// Zone counts are kept for the tracks played in some zone only, and equal counting the
    /// plays: tracks added before and after the first play with a zone, counted and skipped.
    @Test func zoneCountsOnlyForZonedTracksEqualThePlays() {
        var model = ListeningModel()
        func upsert(_ ids: ClosedRange<Int64>) {
            for id in ids { model.upsert(.init(id: id, uri: "\(id).flac", title: "T\(id)", artist: "A", bpm: nil, inLibrary: true)) }
        }
        var expected: [Int64: [Int]] = [:]  // 12 counts: counted by zone, then skips
        var zoned = Set<Int64>()
        var ms: Int64 = 1_600_000_000_000
        var n = 0
        func play(_ tracks: ClosedRange<Int64>, _ count: Int) {
            for _ in 0..<count {
                n += 1
                let id = tracks.lowerBound + Int64((n * 7_919) % tracks.count)
                // Workouts: a zone on the plays of one track in ten.
                let zone = id % 10 == 0 ? Zone(rawValue: n % 6) : nil
                let counted = n % 5 != 0
                ms += 200_000
                model.record(.init(trackID: id, startedAtMs: ms, endedAtMs: ms + 180_000, counted: counted, zone: zone))
                if let zone {
                    expected[id, default: Array(repeating: 0, count: 12)][(counted ? 0 : 6) + zone.rawValue] += 1
                    zoned.insert(id)
                }
            }
        }
        upsert(1...1_000)
        play(1...1_000, 20_000)
        upsert(1_001...2_000)
        play(1...2_000, 20_000)
        #expect(model.zonedTracks == zoned.count)
        #expect(zoned.count == 200)
        func differing() -> Int {
            var n = 0
            for id in Int64(1)...2_000 {
                for zone in Zone.allCases {
                    let want = expected[id] ?? Array(repeating: 0, count: 12)
                    if model.record(of: id, in: zone) != (want[zone.rawValue], want[6 + zone.rawValue]) { n += 1 }
                }
            }
            return n
        }
        #expect(differing() == 0)
        // Rows came in the order tracks were first played in a zone; settled, in slot order,
        // with the same counts, past two bytes too.
        #expect(!model.zoneRowsAreInSlotOrder)
        for _ in 0..<70_000 {
            ms += 1_000
            model.record(.init(trackID: 1_990, startedAtMs: ms, endedAtMs: ms + 500, counted: true, zone: .z2))
        }
        expected[1_990]![Zone.z2.rawValue] += 70_000
        model.settle()
        #expect(model.zoneRowsAreInSlotOrder)
        #expect(model.zonedTracks == 200)
        #expect(differing() == 0)
        #expect(model.record(of: 1_990, in: .z2).counted >= 70_000)
    }

    @Test func smallCountsAreExactAcrossTheirOverflow() {
        var counts = SmallCounts()
        counts.appendZeros(3)
        for n in 1...70_000 {
            counts.increment(1)
            if n % 2 == 0 { counts.increment(2) }
            if (65_530...65_540).contains(n) || n == 70_000 { #expect(counts[1] == Int32(n)) }
        }
        #expect(counts[0] == 0 && counts[1] == 70_000 && counts[2] == 35_000)
        counts.appendZeros(1)
        #expect(counts.count == 4 && counts[3] == 0 && counts[1] == 70_000)
    }

    @Test func playsAndSkipsWithoutZonesPastTwoBytes() {
        var model = ListeningModel()
        model.upsert(.init(id: 1, uri: "a.flac", title: "A", artist: "X", bpm: nil, inLibrary: true))
        var ms: Int64 = 1_600_000_000_000
        for n in 1...66_000 {
            ms += 1_000
            model.record(.init(trackID: 1, startedAtMs: ms, endedAtMs: ms + 500, counted: true, zone: nil))
            model.record(.init(trackID: 1, startedAtMs: ms + 600, endedAtMs: ms + 700, counted: false, zone: nil))
            if (65_534...65_536).contains(n) { #expect(model.record(of: 1) == (n, n)) }
        }
        #expect(model.record(of: 1) == (66_000, 66_000))
        #expect(model.record(of: 1, in: .z3) == (0, 0))
    }

    @Test func countsPastTwoBytes() {
        var model = ListeningModel()
        model.upsert(.init(id: 1, uri: "a.flac", title: "A", artist: "X", bpm: nil, inLibrary: true))
        model.upsert(.init(id: 2, uri: "b.flac", title: "B", artist: "X", bpm: nil, inLibrary: true))
        #expect(model.record(of: 1, in: .z3) == (0, 0))
        var ms: Int64 = 1_600_000_000_000
        for n in 0..<70_000 {
            ms += 1_000
            model.record(.init(trackID: 1, startedAtMs: ms, endedAtMs: ms + 500, counted: true, zone: .z3))
            if n % 7 == 0 { model.record(.init(trackID: 2, startedAtMs: ms, endedAtMs: ms + 500, counted: false, zone: .z1)) }
            if n == 65_533 || n == 65_534 || n == 65_535 { #expect(model.record(of: 1, in: .z3).counted == n + 1) }
        }
        model.record(.init(trackID: 2, startedAtMs: ms + 1, endedAtMs: ms + 2, counted: true, zone: .z5))
        #expect(model.record(of: 1, in: .z3) == (70_000, 0))
        #expect(model.record(of: 1) == (70_000, 0))
        #expect(model.record(of: 2, in: .z1) == (0, 10_000))
        #expect(model.record(of: 2, in: .z5) == (1, 0))
        #expect(model.record(of: 2) == (1, 10_000))
        for zone in [Zone.z0, .z2, .z4] { #expect(model.record(of: 1, in: zone) == (0, 0) && model.record(of: 2, in: zone) == (0, 0)) }
    }
}

/// When a song was last played is kept to the second (4 bytes a song): "played recently" is
/// decided by the second a play started in, and nothing else about it changes.
@Suite struct LastPlayedTests {
    @Test func secondsSince1970PlusOneWithinFourBytes() {
        #expect(ListeningModel.second(0) == 1)
        #expect(ListeningModel.second(999) == 1)
        #expect(ListeningModel.second(1000) == 2)
        #expect(ListeningModel.second(1_700_000_000_123) == 1_700_000_001)
        #expect(ListeningModel.second(-1) == 1, "before 1970: its first second")
        #expect(ListeningModel.second(.min) == 1)
        #expect(ListeningModel.second(.max) == UInt32.max)
    }

    @Test func aSongIsRecentFromTheSecondItStarted() {
        var model = ListeningModel()
        model.upsert(.init(id: 1, uri: "a.flac", title: "A", artist: "X", bpm: nil, inLibrary: true))
        model.upsert(.init(id: 2, uri: "a-live.flac", title: "A", artist: "X", bpm: nil, inLibrary: true))  // the same song
        model.upsert(.init(id: 3, uri: "b.flac", title: "B", artist: "X", bpm: nil, inLibrary: true))
        let start: Int64 = 1_700_000_000_123
        model.record(.init(trackID: 1, startedAtMs: start - 86_400_000, endedAtMs: start - 86_000_000, counted: true, zone: nil))
        model.record(.init(trackID: 2, startedAtMs: start, endedAtMs: start + 180_000, counted: false, zone: nil))
        let a = model.songKey[0], b = model.songKey[2]
        #expect(model.songKey[1] == a)
        #expect(model.lastPlayedMs(songOf: 1) == start - 123, "any version's start, to the second")
        #expect(model.lastPlayedMs(songOf: 3) == nil)
        #expect(model.playedSince(song: a, start - 5_000))
        #expect(model.playedSince(song: a, start))
        #expect(model.playedSince(song: a, start + 500), "the same second")
        #expect(!model.playedSince(song: a, start + 877))
        #expect(!model.playedSince(song: b, .min))
        // A suggestion leaves out what was played within `recentHours`.
        let tracks = [1, 2, 3].map { ListeningModel.Candidate(id: $0, uri: "\($0).flac", title: "T", artist: "X", bpm: nil, inLibrary: true) }
        let request = Recommender.Request(zone: nil, target: .any, nowMs: start + 3_600_000, recentHours: 2, limit: 5)
        let ids = Recommender.suggest(model, request, texts: ListeningModel.Texts.lookup(tracks)).map(\.track.id)
        #expect(ids == [3])
    }
}
