import Foundation
import GRDB
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteStore

private let zone = TimeZone(identifier: "Europe/Berlin")!

/// The year in review (issue 22): a history generated with a seeded random number generator
/// over two and a half years — part imported through the bulk path, part stored play by play,
/// with new songs and artists, favourites that come back after a year, workouts with heart
/// rate, a merge, deleted plays and pins — and every figure of a year, a year to date, a
/// month and a from–to range held to a recomputation with plain SQL over the plays (and the
/// workouts and heart-rate samples).
@Suite struct ReviewStoreTests {
    /// SplitMix64: the same history on every run.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func chance(_ p: Double) -> Bool { Double(next() % 1_000_000) / 1_000_000 < p }
    }

    static let today = "2025-11-20"

    static func day(_ text: String) -> Int { CivilDate.days(of: text)! }

    /// The generated library: which tracks play when.
    struct Song {
        var track: Track
        /// Day numbers it may be played on.
        var active: (Int) -> Bool
        var weight: Int
    }

    static func library() -> [Song] {
        var songs: [Song] = []
        func add(_ title: String, _ artist: String, _ album: String, bpm: Double?, weight: Int, active: @escaping (Int) -> Bool) {
            songs.append(Song(track: Track(title: title, artist: artist, album: album, albumArtist: artist.components(separatedBy: " feat. ")[0],
                                           bpm: bpm.map { BPM(value: $0, source: .tag) }),
                              active: active, weight: weight))
        }
        // Always there: 30 songs by 8 artists, a few with a guest.
        for i in 0..<30 {
            let artist = "Artist \(i % 8)" + (i % 7 == 3 ? " feat. Guest \(i % 3)" : "")
            add("Song \(i)", artist, "Album \(i % 10)", bpm: i % 4 == 0 ? nil : Double(90 + i * 3), weight: 30 - i) { _ in true }
        }
        // Found along the way: each from its own day on.
        for i in 0..<20 {
            let first = day("2024-01-10") + i * 33
            add("Find \(i)", "Artist \(i % 8)", "Album \(10 + i % 4)", bpm: Double(120 + i), weight: 12) { $0 >= first }
        }
        // Favourites of 2023 that come back: three from March 2025, one only from 10 August 2025,
        // all by one artist heard nowhere else.
        let summer = day("2023-06-01")...day("2023-12-31")
        for i in 0..<3 {
            add("Old \(i)", "Artist Old", "Old Album", bpm: 128, weight: 20) { summer.contains($0) || $0 >= day("2025-03-01") }
        }
        add("Old 3", "Artist Old", "Old Album", bpm: 132, weight: 20) { summer.contains($0) || $0 >= day("2025-08-10") }
        // A new artist of June 2025, once with a new guest.
        for i in 0..<4 {
            add("Newcomer \(i)", i == 3 ? "Newcomer feat. Stranger" : "Newcomer", "Debut", bpm: 140, weight: 15) { $0 >= day("2025-06-01") }
        }
        return songs
    }

    struct Generated {
        var store: Store
        var dir: TemporaryDirectory
    }

    static func generate() throws -> Generated {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: zone)
        var rng = Random(state: 22)
        let songs = library()
        var ids: [Int64] = []
        for song in songs { ids.append(try store.saveTrack(song.track)) }
        var imported: [ImportedListen] = []
        var workouts: [(start: Int64, end: Int64)] = []
        let importBefore = Int64(day("2024-07-01")) * 86_400
        for n in day("2023-06-01")...day(today) {
            if rng.chance(0.12) { continue }
            let workout = n >= day("2024-05-01") && rng.chance(0.2)
            var at = Int64(n) * 86_400 + Int64(workout ? 17 * 3600 : (6 + rng.int(15)) * 3600 + rng.int(3600))
            let count = workout ? 8 + rng.int(4) : 1 + rng.int(9)
            let active = songs.indices.filter { songs[$0].active(n) }
            let total = active.reduce(0) { $0 + songs[$1].weight }
            if workout { workouts.append((at * 1000, 0)) }
            for _ in 0..<count {
                var pick = rng.int(total), index = active[0]
                for i in active { if pick < songs[i].weight { index = i; break }; pick -= songs[i].weight }
                let played = Double(30 + rng.int(271))
                let counted = played >= 60 && !rng.chance(0.05)
                if at < importBefore {
                    imported.append(ImportedListen(track: songs[index].track, startedAtMs: at * 1000, playedSeconds: played, counted: counted))
                } else {
                    _ = try store.insertPlay(Play(trackID: ids[index], startedAt: Date(timeIntervalSince1970: Double(at)),
                                                  endedAt: Date(timeIntervalSince1970: Double(at) + played), playedSeconds: played,
                                                  counted: counted, source: "mpd"))
                }
                at += Int64(played) + Int64(rng.int(90))
            }
            if workout { workouts[workouts.count - 1].end = at * 1000 }
        }
        // The first year through the bulk import, in three batches (out of order: the last first).
        let session = ListenImportSession(store: store, source: "import:listenbrainz")
        let third = imported.count / 3
        for part in [imported[(2 * third)...], imported[..<third], imported[third..<(2 * third)]] {
            _ = try session.insert(Array(part))
        }
        session.finish()
        // Workouts: a sample every 5 s from a minute before, heart rate rising with the songs.
        for (start, end) in workouts {
            var samples: [HeartRateSample] = []
            var ms = start - 60_000
            while ms <= end {
                let minutes = Double(ms - start) / 60_000
                let bpm = min(200, 95 + Int(minutes * 2.2) + rng.int(25))
                samples.append(HeartRateSample(at: Date(timeIntervalSince1970: Double(ms) / 1000), bpm: bpm))
                ms += 5_000
            }
            _ = try store.insertSamples(samples, source: "strap")
            let id = try store.startWorkout(at: Date(timeIntervalSince1970: Double(start) / 1000), kind: "auto", zoneSettingsID: nil)
            let zones = Dictionary(uniqueKeysWithValues: Zone.allCases.map { ($0, Double(rng.int(900))) })
            try store.updateWorkout(id: id, endedAt: Date(timeIntervalSince1970: Double(end) / 1000),
                                    average: Double(120 + rng.int(30)), max: 160 + rng.int(30), secondsInZone: zones)
            try store.tagPlays(from: Date(timeIntervalSince1970: Double(start) / 1000), to: Date(timeIntervalSince1970: Double(end) / 1000)) { _, avg in
                avg < 105 ? .z0 : avg < 120 ? .z1 : avg < 135 ? .z2 : avg < 150 ? .z3 : avg < 165 ? .z4 : .z5
            }
        }
        // Corrections: one song merged into another, a few plays deleted, two days pinned.
        _ = try store.merge(.track, from: [ids[5]], into: ids[4], request: "{}", source: "test")
        let victims = try store.read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM plays WHERE local_day BETWEEN '2025-08-01' AND '2025-08-31' ORDER BY id LIMIT 3")
                + Int64.fetchAll(db, sql: "SELECT id FROM plays WHERE track_id = ? AND counted = 1 ORDER BY started_at_ms LIMIT 1", arguments: [ids[50]])
        }
        _ = try store.curateDelete(playIDs: victims, request: "{}", source: "test")
        try store.pinSOTD(day: "2025-08-14", trackID: ids[7], note: "pinned")
        try store.pinSOTD(day: "2024-12-24", trackID: ids[40], note: nil)
        return Generated(store: store, dir: dir)
    }

    static func period(_ range: String?, from: String? = nil, to: String? = nil) throws -> ReviewPeriod {
        let local = LocalTime(timeZone: zone)
        let range = try StatsRange.resolve(range: range, from: from, to: to, today: local.startOfDay(today)!.addingTimeInterval(43_200), in: local)
        return ReviewPeriod.of(range, today: today)
    }

    @Test func periodsCompareWithTheStretchBefore() throws {
        let year = try Self.period("2025")
        #expect(year.kind == .year && year.from == "2025-01-01" && year.to == Self.today && year.end == "2025-12-31" && !year.isFinal)
        #expect(year.previous?.from == "2024-01-01" && year.previous?.to == "2024-11-20")
        let past = try Self.period("2024")
        #expect(past.isFinal && past.to == "2024-12-31" && past.previous?.from == "2023-01-01" && past.previous?.to == "2023-12-31")
        let month = try Self.period("2025-03")
        #expect(month.kind == .month && month.previous?.from == "2025-02-01" && month.previous?.to == "2025-02-28")
        let custom = try Self.period(nil, from: "2025-07-15", to: "2025-10-03")
        #expect(custom.kind == .custom && custom.previous?.from == "2025-04-25" && custom.previous?.to == "2025-07-14")
        #expect(custom.yearBefore == ("2024-07-15", "2025-07-14"))
        #expect(ReviewPeriod.shifted("2024-02-29", years: -1) == "2023-02-28")
        #expect(ReviewPeriod.shifted("2025-03-31", months: -1) == "2025-02-28")
        #expect(ReviewPeriod.shifted("2025-01-15", months: -1) == "2024-12-15")
        #expect(try Self.period("all").previous == nil)
        #expect(Weekday.of(dayNumber: Self.day("2025-11-17")) == 1)  // a Monday
        #expect(Weekday.order(startingOn: 7) == [7, 1, 2, 3, 4, 5, 6])
    }

    @Test func aGeneratedHistoryGivesExactlyItsFigures() throws {
        let g = try Self.generate()
        let periods = [try Self.period("2025"), try Self.period("2024"), try Self.period("2025-08"),
                       try Self.period(nil, from: "2025-07-15", to: "2025-10-03"), try Self.period(nil, from: "2025-01-01", to: Self.today)]
        var comebacks = 0, newArtists = 0, heartRates = 0
        for period in periods {
            let report = try g.store.review(period, limit: 10, weekStart: 1)
            try Self.expectExact(report, g.store)
            comebacks += report.discoveries.comebackTracks.count + report.discoveries.comebackArtists.count
            newArtists += report.discoveries.newArtists
            if report.heartRate != nil { heartRates += 1 }
        }
        // The generated history has what each part is about.
        #expect(comebacks >= 6 && newArtists >= 2 && heartRates == periods.count)
        let ytd = try g.store.review(periods[4]), year = try g.store.review(periods[0])
        #expect(ytd.totals == year.totals && ytd.discoveries == year.discoveries && ytd.heartRate == year.heartRate)
        // Rebuilt from scratch (a new time zone and back): the same figures.
        try g.store.close()
        for tz in [TimeZone(identifier: "UTC")!, zone] {
            let store = try Store.open(path: g.dir.file("p.sqlite"), timeZone: tz)
            if tz == zone {
                let again = try store.review(periods[0])
                #expect(again == year)
            }
            try store.close()
        }
    }

    // MARK: The figures from the plays

    static func expectExact(_ r: ReviewReport, _ store: Store, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let p = r.period, name = "\(p.from)–\(p.to)"
        try store.read { db in
            func totals(_ from: String, _ to: String) throws -> ReviewReport.Totals {
                let row = try Row.fetchOne(db, sql: """
                    SELECT COALESCE(SUM(counted), 0), COALESCE(SUM(1 - counted), 0), COALESCE(SUM(played_s), 0),
                           COUNT(DISTINCT CASE WHEN counted = 1 THEN local_day END), COUNT(DISTINCT CASE WHEN counted = 1 THEN track_id END)
                    FROM plays WHERE local_day BETWEEN ? AND ?
                    """, arguments: [from, to])!
                let artists = try Int.fetchOne(db, sql: """
                    SELECT COUNT(DISTINCT a.artist_id) FROM plays p JOIN track_artists a ON a.track_id = p.track_id
                    WHERE p.counted = 1 AND p.local_day BETWEEN ? AND ?
                    """, arguments: [from, to])!
                let albums = try Int.fetchOne(db, sql: """
                    SELECT COUNT(DISTINCT t.album_id) FROM plays p JOIN tracks t ON t.id = p.track_id
                    WHERE p.counted = 1 AND t.album_id IS NOT NULL AND p.local_day BETWEEN ? AND ?
                    """, arguments: [from, to])!
                return ReviewReport.Totals(plays: row[0], skips: row[1], seconds: row[2], days: row[3], tracks: row[4], artists: artists, albums: albums)
            }
            #expect(r.totals == (try totals(p.from, p.to)), "\(name): totals", sourceLocation: sourceLocation)
            if let previous = p.previous {
                #expect(r.previous == (try totals(previous.from, previous.to)), "\(name): the period before", sourceLocation: sourceLocation)
            }

            // Tracks, artists and albums of the period: id → (plays, seconds, name).
            func chart(_ sql: String) throws -> [(id: Int64, plays: Int, seconds: Double, name: String)] {
                try Row.fetchAll(db, sql: sql, arguments: [p.from, p.to]).map { ($0[0], $0[1], $0[2], $0[3]) }
            }
            let tracks = try chart("""
                SELECT p.track_id, SUM(p.counted), SUM(p.played_s), t.title FROM plays p JOIN tracks t ON t.id = p.track_id
                WHERE p.local_day BETWEEN ? AND ? GROUP BY p.track_id HAVING SUM(p.counted) > 0
                """)
            let artists = try chart("""
                SELECT a.artist_id, SUM(p.counted), SUM(p.played_s), ar.name FROM plays p JOIN track_artists a ON a.track_id = p.track_id
                JOIN artists ar ON ar.id = a.artist_id WHERE p.local_day BETWEEN ? AND ? GROUP BY a.artist_id HAVING SUM(p.counted) > 0
                """)
            let albums = try chart("""
                SELECT t.album_id, SUM(p.counted), SUM(p.played_s), al.title FROM plays p JOIN tracks t ON t.id = p.track_id
                JOIN albums al ON al.id = t.album_id WHERE p.local_day BETWEEN ? AND ? GROUP BY t.album_id HAVING SUM(p.counted) > 0
                """)
            typealias Entry = (id: Int64, plays: Int, seconds: Double, name: String)
            func ranked(_ entries: [Entry], byTime: Bool = false, limit: Int = 10) -> [Int64] {
                entries.sorted { a, b in
                    let x = byTime ? (a.seconds, Double(a.plays)) : (Double(a.plays), a.seconds)
                    let y = byTime ? (b.seconds, Double(b.plays)) : (Double(b.plays), b.seconds)
                    return x != y ? x > y : a.name.utf8.lexicographicallyPrecedes(b.name.utf8)
                }.prefix(limit).map(\.id)
            }
            #expect(r.topTracks.byPlays.map(\.id) == ranked(tracks), "\(name): top tracks", sourceLocation: sourceLocation)
            #expect(r.topTracks.byTime.map(\.id) == ranked(tracks, byTime: true), "\(name): top tracks by time", sourceLocation: sourceLocation)
            #expect(r.topArtists.byPlays.map(\.id) == ranked(artists), "\(name): top artists", sourceLocation: sourceLocation)
            #expect(r.topArtists.byTime.map(\.id) == ranked(artists, byTime: true), "\(name): top artists by time", sourceLocation: sourceLocation)
            #expect(r.topAlbums.byPlays.map(\.id) == ranked(albums), "\(name): top albums", sourceLocation: sourceLocation)
            #expect(r.topAlbums.byTime.map(\.id) == ranked(albums, byTime: true), "\(name): top albums by time", sourceLocation: sourceLocation)
            let trackPlays = Dictionary(uniqueKeysWithValues: tracks.map { ($0.id, $0) })
            for item in r.topTracks.byPlays {
                #expect(item.plays == trackPlays[item.id]?.plays && abs(item.seconds - (trackPlays[item.id]?.seconds ?? -1)) < 1e-6,
                        "\(name): \(item.name)'s figures", sourceLocation: sourceLocation)
            }

            // Discoveries: first counted plays ever, by track and by artist.
            let firstOfTrack = try Row.fetchAll(db, sql: "SELECT track_id, MIN(local_day) FROM plays WHERE counted = 1 GROUP BY track_id")
                .reduce(into: [Int64: String]()) { $0[$1[0]] = $1[1] }
            let newTracks = tracks.filter { (firstOfTrack[$0.id] ?? "") >= p.from }
            #expect(r.discoveries.newTracks == newTracks.count, "\(name): new tracks", sourceLocation: sourceLocation)
            #expect(r.discoveries.newTrackPlays == newTracks.reduce(0) { $0 + $1.plays }, "\(name): plays of new tracks", sourceLocation: sourceLocation)
            #expect(r.discoveries.topNewTracks.map(\.id) == ranked(newTracks), "\(name): best new finds", sourceLocation: sourceLocation)
            let firstOfArtist = try Row.fetchAll(db, sql: """
                SELECT a.artist_id, MIN(p.local_day) FROM plays p JOIN track_artists a ON a.track_id = p.track_id
                WHERE p.counted = 1 GROUP BY a.artist_id
                """).reduce(into: [Int64: String]()) { $0[$1[0]] = $1[1] }
            let newArtists = artists.filter { (firstOfArtist[$0.id] ?? "") >= p.from }
            #expect(r.discoveries.newArtists == newArtists.count, "\(name): new artists", sourceLocation: sourceLocation)
            #expect(r.discoveries.topNewArtists.map(\.id) == ranked(newArtists), "\(name): new artists ranked", sourceLocation: sourceLocation)
            // Comebacks: played in the period, not in the year before, five times before that.
            let window = p.yearBefore
            func comebacks(_ entries: [Entry], _ plays: String) throws -> [(Int64, String, Int)] {
                var out: [Entry] = []
                var facts: [Int64: (String, Int)] = [:]
                for e in entries {
                    let inWindow = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (\(plays)) WHERE local_day BETWEEN ? AND ?",
                                                    arguments: [e.id, window.from, window.to])!
                    let before = try Row.fetchOne(db, sql: "SELECT COUNT(*), MAX(local_day) FROM (\(plays)) WHERE local_day < ?",
                                                  arguments: [e.id, window.from])!
                    if inWindow == 0, (before[0] as Int) >= ReviewReport.comebackMinimumPlays {
                        out.append(e)
                        facts[e.id] = (before[1], before[0])
                    }
                }
                return ranked(out).map { ($0, facts[$0]!.0, facts[$0]!.1) }
            }
            let trackComebacks = try comebacks(tracks, "SELECT local_day FROM plays WHERE track_id = ? AND counted = 1")
            let artistComebacks = try comebacks(artists, """
                SELECT p.local_day FROM plays p JOIN track_artists a ON a.track_id = p.track_id WHERE a.artist_id = ? AND p.counted = 1
                """)
            #expect(r.discoveries.comebackTracks.map { [String($0.item.id), $0.lastHeard, String($0.playsBefore)] }
                    == trackComebacks.map { [String($0.0), $0.1, String($0.2)] }, "\(name): comebacks", sourceLocation: sourceLocation)
            #expect(r.discoveries.comebackArtists.map { [String($0.item.id), $0.lastHeard, String($0.playsBefore)] }
                    == artistComebacks.map { [String($0.0), $0.1, String($0.2)] }, "\(name): artists' comebacks", sourceLocation: sourceLocation)

            // Each month's number one, the best day, the longest streak, the clock, the weekdays.
            for month in r.months {
                let from = max(p.from, month.month + "-01"), to = min(p.to, month.month + "-31")
                let top = try Int64.fetchOne(db, sql: """
                    SELECT p.track_id FROM plays p JOIN tracks t ON t.id = p.track_id WHERE p.local_day BETWEEN ? AND ?
                    GROUP BY p.track_id HAVING SUM(p.counted) > 0 ORDER BY SUM(p.counted) DESC, SUM(p.played_s) DESC, t.title LIMIT 1
                    """, arguments: [from, to])
                let plays = try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(counted), 0) FROM plays WHERE local_day BETWEEN ? AND ?",
                                             arguments: [from, to])
                #expect(month.top?.id == top && month.plays == plays, "\(name): number one of \(month.month)", sourceLocation: sourceLocation)
            }
            #expect(r.months.map(\.month) == p.months(within: "2023-06-01", Self.today).map(\.month), sourceLocation: sourceLocation)
            let best = try Row.fetchOne(db, sql: """
                SELECT local_day, track_id, SUM(counted), SUM(played_s) FROM plays WHERE local_day BETWEEN ? AND ?
                GROUP BY 1, 2 HAVING SUM(counted) > 0 ORDER BY 3 DESC, 4 DESC, 1, 2 LIMIT 1
                """, arguments: [p.from, p.to])
            #expect(r.bestDay?.day == best?[0] && r.bestDay?.item.id == best?[1] && r.bestDay?.item.plays == best?[2],
                    "\(name): most played in a day", sourceLocation: sourceLocation)
            let days = try String.fetchAll(db, sql: """
                SELECT local_day FROM plays WHERE local_day BETWEEN ? AND ? GROUP BY 1 HAVING SUM(counted) > 0 ORDER BY 1
                """, arguments: [p.from, p.to]).map(Self.day)
            var longest = (start: 0, length: 0), run = (start: 0, length: 0)
            for (i, n) in days.enumerated() {
                run = i > 0 && days[i - 1] == n - 1 ? (run.start, run.length + 1) : (n, 1)
                if run.length > longest.length { longest = run }
            }
            #expect(r.longestStreak?.days == longest.length && r.longestStreak?.from == ReviewPeriod.text(longest.start),
                    "\(name): longest streak", sourceLocation: sourceLocation)
            let hours = try Row.fetchAll(db, sql: "SELECT local_hour, SUM(counted), SUM(played_s) FROM plays WHERE local_day BETWEEN ? AND ? GROUP BY 1",
                                         arguments: [p.from, p.to])
            var clock = (0..<24).map { ReviewReport.Slot(key: $0, plays: 0, seconds: 0) }
            for row in hours { clock[row[0]] = ReviewReport.Slot(key: row[0], plays: row[1], seconds: row[2]) }
            #expect(r.clock.map(\.plays) == clock.map(\.plays), "\(name): clock", sourceLocation: sourceLocation)
            let weekdays = try Row.fetchAll(db, sql: """
                SELECT (CAST(strftime('%w', local_day) AS INTEGER) + 6) % 7 + 1, SUM(counted) FROM plays
                WHERE local_day BETWEEN ? AND ? GROUP BY 1
                """, arguments: [p.from, p.to]).reduce(into: [Int: Int]()) { $0[$1[0]] = $1[1] }
            #expect(r.weekdays.map(\.key) == [1, 2, 3, 4, 5, 6, 7] && r.weekdays.map(\.plays) == (1...7).map { weekdays[$0] ?? 0 },
                    "\(name): weekdays", sourceLocation: sourceLocation)
        }

        // The songs of the days, as the song-of-the-day archive picks them.
        let candidates = try store.sotdCandidates(fromDay: p.from, toDay: p.to)
        let pins = try store.sotdPins(fromDay: p.from, toDay: p.to)
        var songs: [String] = []
        for day in Set(candidates.keys).union(pins.keys).sorted() {
            guard let choice = SongOfTheDay.choose(candidates[day] ?? [], pin: pins[day]) else { continue }
            let plays = try store.dayFigures(day: day, trackID: choice.trackID).plays
            songs.append("\(day) \(choice.trackID) \(plays) \(choice.pinned)")
        }
        #expect(r.songsOfTheDay.map { "\($0.day) \($0.track.id!) \($0.plays) \($0.pinned)" } == songs, "\(name): songs of the day",
                sourceLocation: sourceLocation)

        try expectHeartRateExact(r, store, sourceLocation: sourceLocation)
    }

    static func expectHeartRateExact(_ r: ReviewReport, _ store: Store, sourceLocation: SourceLocation) throws {
        let p = r.period, name = "\(p.from)–\(p.to)"
        let local = LocalTime(timeZone: zone)
        let workouts = try store.workouts(limit: 10_000).filter {
            let day = local.day(of: $0.startedAt)
            return $0.endedAt != nil && day >= p.from && day <= p.to
        }
        let hr = try #require(r.heartRate, "\(name): heart rate", sourceLocation: sourceLocation)
        #expect(hr.workouts == workouts.count, "\(name): workouts", sourceLocation: sourceLocation)
        let training = workouts.reduce(0.0) { $0 + $1.endedAt!.timeIntervalSince($1.startedAt) }
        #expect(abs(hr.trainingSeconds - training) < 1e-6, "\(name): training time", sourceLocation: sourceLocation)
        for z in 0..<6 {
            #expect(abs(hr.zoneSeconds[z] - workouts.reduce(0) { $0 + $1.secondsInZone[z] }) < 1e-6, "\(name): Z\(z)", sourceLocation: sourceLocation)
        }
        let load = { (w: Workout) in w.secondsInZone.enumerated().reduce(0.0) { $0 + Double($1.offset) * $1.element } }
        let hardest = workouts.max { (load($0), $0.endedAt!.timeIntervalSince($0.startedAt)) < (load($1), $1.endedAt!.timeIntervalSince($1.startedAt)) }
        #expect(hr.hardest?.id == hardest?.id, "\(name): the hardest workout", sourceLocation: sourceLocation)
        try store.read { db in
            for z in 0..<6 {
                let row = try Row.fetchOne(db, sql: """
                    SELECT COALESCE(SUM(counted), 0), COALESCE(SUM(played_s), 0) FROM plays WHERE zone = ? AND local_day BETWEEN ? AND ?
                    """, arguments: [z, p.from, p.to])!
                let tops = try Int64.fetchAll(db, sql: """
                    SELECT p.track_id FROM plays p JOIN tracks t ON t.id = p.track_id WHERE p.zone = ? AND p.local_day BETWEEN ? AND ?
                    GROUP BY p.track_id HAVING SUM(p.counted) > 0 ORDER BY SUM(p.counted) DESC, SUM(p.played_s) DESC, t.title LIMIT 5
                    """, arguments: [z, p.from, p.to])
                let tempo = try Row.fetchOne(db, sql: """
                    SELECT AVG(t.bpm), COUNT(*) FROM plays p JOIN tracks t ON t.id = p.track_id
                    WHERE p.zone = ? AND p.counted = 1 AND t.bpm IS NOT NULL AND p.local_day BETWEEN ? AND ?
                    """, arguments: [z, p.from, p.to])!
                let music = hr.zones[z]
                #expect(music.zone == z && music.plays == row[0] && abs(music.seconds - row[1]) < 1e-6, "\(name): Z\(z) plays",
                        sourceLocation: sourceLocation)
                #expect(music.tracks.map(\.id) == tops, "\(name): Z\(z)'s soundtrack", sourceLocation: sourceLocation)
                #expect(music.bpmPlays == tempo[1] && abs((music.bpm ?? 0) - ((tempo[0] as Double?) ?? 0)) < 1e-9,
                        "\(name): Z\(z)'s tempo", sourceLocation: sourceLocation)
            }
            // Power songs: each play of a workout, the mean heart rate during it less the mean of the 30 s before.
            let lifts = try Row.fetchAll(db, sql: """
                SELECT p.track_id,
                  (SELECT AVG(bpm) FROM hr_samples WHERE at_ms BETWEEN p.started_at_ms AND p.ended_at_ms)
                  - (SELECT AVG(bpm) FROM hr_samples WHERE at_ms >= p.started_at_ms - 30000 AND at_ms < p.started_at_ms)
                FROM plays p WHERE p.workout_id IS NOT NULL AND p.local_day BETWEEN ? AND ? ORDER BY p.started_at_ms
                """, arguments: [p.from, p.to])
            var byTrack: [Int64: [Double]] = [:]
            for row in lifts { if let lift: Double = row[1] { byTrack[row[0], default: []].append(lift) } }
            struct Lift { var id: Int64; var lift: Double; var plays: Int }
            var all: [Lift] = []
            for (id, values) in byTrack {
                let mean = values.reduce(0, +) / Double(values.count)
                if mean > 0 { all.append(Lift(id: id, lift: mean, plays: values.count)) }
            }
            all.sort { a, b in a.lift != b.lift ? a.lift > b.lift : a.plays > b.plays }
            let expected = all.prefix(10)
            #expect(hr.powerSongs.map(\.item.id) == expected.map(\.id), "\(name): power songs", sourceLocation: sourceLocation)
            for (song, e) in zip(hr.powerSongs, expected) {
                #expect(abs(song.lift - e.lift) < 1e-9 && song.item.plays == e.plays, "\(name): a power song's lift", sourceLocation: sourceLocation)
            }
            #expect(!expected.isEmpty, sourceLocation: sourceLocation)
        }
    }
}
