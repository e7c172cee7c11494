import Foundation
import GRDB
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteStore

/// A small seeded generator (an LCG): the same histories on every machine.
struct ChartRNG {
    var state: UInt64
    mutating func next(_ n: Int) -> Int {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Int((state >> 33) % UInt64(max(1, n)))
    }
}

/// Random histories through every read path of the charts, against a recomputation from
/// `plays`: ten time zones (DST changes, half-hour and 45-minute offsets, a date-line
/// jump), listens clustered at DST changes, local midnights, year ends and a leap day,
/// tracks and albums of the same name, skips only, loaded one by one and then by three
/// import sessions (one that sets the indexes aside), and again after deletes, edits and
/// merges of tracks, artists and albums and one more import. Each chart — tracks, artists,
/// albums, genres; by plays and by time; at lengths from 1 to past the 500 ids that `Store.named`
/// reads at once — must have the recomputation's entries in its order (ties broken by name,
/// then id), every shorter chart must be the start of the longer one (a page of
/// ListenBrainz's statistics is the same whatever the length read), and the totals and
/// chart lengths must be exact. Written by an independent review, it found a chart by time
/// that stopped early when entries had 0 s (`RankedSum`: a frontier of 0 read as "read
/// whole") and same-named entries whose order depended on the read path.
@Suite struct RandomHistoryChartTests {
    struct Want { var id: Int64; var plays: Int; var seconds: Double; var name: String }

    static func recompute(_ store: Store, _ entity: Store.ChartEntity, _ from: String, _ to: String) throws -> [Want] {
        let sql: String
        switch entity {
        case .track: sql = """
            SELECT p.track_id, SUM(p.counted), SUM(p.played_s), t.title FROM plays p JOIN tracks t ON t.id = p.track_id
            WHERE p.local_day BETWEEN ? AND ? GROUP BY p.track_id HAVING SUM(p.counted) > 0
            """
        case .artist: sql = """
            SELECT a.artist_id, SUM(p.counted), SUM(p.played_s), ar.name FROM plays p JOIN track_artists a ON a.track_id = p.track_id
            JOIN artists ar ON ar.id = a.artist_id
            WHERE p.local_day BETWEEN ? AND ? GROUP BY a.artist_id HAVING SUM(p.counted) > 0
            """
        case .album: sql = """
            SELECT t.album_id, SUM(p.counted), SUM(p.played_s), al.title FROM plays p JOIN tracks t ON t.id = p.track_id
            JOIN albums al ON al.id = t.album_id
            WHERE p.local_day BETWEEN ? AND ? GROUP BY t.album_id HAVING SUM(p.counted) > 0
            """
        case .genre: sql = """
            SELECT tg.genre_id, SUM(p.counted), SUM(p.played_s), g.name FROM plays p JOIN track_genres tg ON tg.track_id = p.track_id
            JOIN genres g ON g.id = tg.genre_id
            WHERE p.local_day BETWEEN ? AND ? GROUP BY tg.genre_id HAVING SUM(p.counted) > 0
            """
        }
        return try store.read { db in
            try Row.fetchAll(db, sql: sql, arguments: [from, to]).map { Want(id: $0[0], plays: $0[1], seconds: $0[2], name: $0[3]) }
        }
    }

    /// A recomputed chart in the charts' order: by plays then time (or time then plays), then
    /// name (bytes), then id.
    static func sorted(_ w: [Want], _ order: ChartOrder) -> [Want] {
        w.sorted { a, b in
            let (x, y) = order == .plays ? ((Double(a.plays), a.seconds), (Double(b.plays), b.seconds))
                                         : ((a.seconds, Double(a.plays)), (b.seconds, Double(b.plays)))
            if abs(x.0 - y.0) > 1e-6 { return x.0 > y.0 }
            if abs(x.1 - y.1) > 1e-6 { return x.1 > y.1 }
            if !a.name.utf8.elementsEqual(b.name.utf8) { return a.name.utf8.lexicographicallyPrecedes(b.name.utf8) }
            return a.id < b.id
        }
    }

    static func chart(_ store: Store, _ entity: Store.ChartEntity, _ from: String, _ to: String, _ limit: Int,
                      _ order: ChartOrder) throws -> [(id: Int64, plays: Int, seconds: Double, name: String)] {
        switch entity {
        case .track: return try store.topTracks(fromDay: from, toDay: to, limit: limit, by: order).map { ($0.track!.id!, $0.plays, $0.seconds, $0.track!.title) }
        case .artist: return try store.topArtists(fromDay: from, toDay: to, limit: limit, by: order).map { ($0.artistID!, $0.plays, $0.seconds, $0.artist!) }
        case .album: return try store.topAlbums(fromDay: from, toDay: to, limit: limit, by: order).map { ($0.albumID!, $0.plays, $0.seconds, $0.album!) }
        case .genre: return try store.topGenres(fromDay: from, toDay: to, limit: limit, by: order).map { ($0.genreID!, $0.plays, $0.seconds, $0.genre!) }
        }
    }

    /// Returns failure messages.
    static func check(_ store: Store, _ step: String, ranges: [(String, String)], limits: [Int]) throws -> [String] {
        var fails: [String] = []
        for (from, to) in ranges {
            for entity in [Store.ChartEntity.track, .artist, .album, .genre] {
                let all = try recompute(store, entity, from, to)
                let byID = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) })
                // Chart lengths are ListenBrainz's (tracks, artists, albums): genres have none.
                if entity != .genre {
                    let counted = try store.countedChart(entity, fromDay: from, toDay: to, limit: 5)
                    if counted.total != all.count { fails.append("\(step) \(entity) \(from)–\(to): countedChart total \(counted.total) want \(all.count)") }
                    let cc = try store.chartedCount(entity, fromDay: from, toDay: to)
                    if cc != all.count { fails.append("\(step) \(entity) \(from)–\(to): chartedCount \(cc) want \(all.count)") }
                }
                for order in ChartOrder.allCases {
                    let want = sorted(all, order)
                    var full: [Int64]? = nil
                    for limit in limits.sorted(by: >) {
                        let got = try chart(store, entity, from, to, limit, order)
                        let w = Array(want.prefix(limit))
                        let label = "\(step) \(entity) \(from)–\(to) \(order) limit \(limit)"
                        if got.count != w.count { fails.append("\(label): count \(got.count) want \(w.count)"); continue }
                        if Set(got.map(\.id)).count != got.count { fails.append("\(label): duplicate ids") }
                        for (i, (g, x)) in zip(got, w).enumerated() {
                            if g.id != x.id || g.plays != x.plays || abs(g.seconds - x.seconds) > 1e-6 * max(1, x.seconds) || g.name != x.name {
                                fails.append("\(label) #\(i): got \(g.id) \(g.name) \(g.plays) \(g.seconds), want \(x.id) \(x.name) \(x.plays) \(x.seconds)")
                                break
                            }
                            if let truth = byID[g.id], truth.plays == g.plays, abs(truth.seconds - g.seconds) <= 1e-6 * max(1, truth.seconds) {} else {
                                fails.append("\(label) #\(i): id \(g.id) has values \(g.plays) \(g.seconds), truth \(String(describing: byID[g.id]))")
                                break
                            }
                        }
                        if let full {
                            if Array(full.prefix(limit)) != got.map(\.id) {
                                fails.append("\(label): not a prefix of the longer chart: \(got.map(\.id)) vs \(Array(full.prefix(limit)))")
                            }
                        } else {
                            full = got.map(\.id)
                        }
                    }
                }
            }
            let t = try store.totals(fromDay: from, toDay: to)
            let e = try store.read { db in
                try Row.fetchOne(db, sql: "SELECT COALESCE(SUM(counted), 0), COUNT(*) - COALESCE(SUM(counted), 0), COALESCE(SUM(played_s), 0) FROM plays WHERE local_day BETWEEN ? AND ?",
                                 arguments: [from, to])!
            }
            if t.plays != e[0] || t.skips != e[1] || abs(t.seconds - (e[2] as Double)) > 1e-6 * max(1, e[2] as Double) {
                fails.append("\(step) totals \(from)–\(to): \(t) want \(e[0] as Int) \(e[1] as Int) \(e[2] as Double)")
            }
        }
        return fails
    }

    static func checkAllPaths(_ store: Store, _ step: String, ranges: [(String, String)], limits: [Int]) throws -> [String] {
        var fails = try check(store, step, ranges: ranges, limits: limits)
        for (edge, budget) in [(0, 2_000), (0, 1), (1_000, 1), (3, 40), (0, 30)] {
            try Store.$edgeDaysSummedWhole.withValue(edge) {
                try Store.$rankedBudget.withValue(budget) {
                    fails += try check(store, step + " [edge \(edge) budget \(budget)]", ranges: ranges, limits: limits)
                }
            }
        }
        return fails
    }

    static func dayText(_ n: Int) -> String {
        let c = CivilDate.civil(days: n)
        return LocalTime.format(year: c.year, month: c.month, day: c.day)
    }

    static func checkLocalDays(_ store: Store, _ zone: TimeZone) throws -> [String] {
        let local = LocalTime(timeZone: zone)
        let rows = try store.read { db in try Row.fetchAll(db, sql: "SELECT id, started_at_ms, local_day, local_hour FROM plays") }
        var fails: [String] = []
        for row in rows {
            let at = Date(timeIntervalSince1970: Double(row[1] as Int64) / 1000)
            if local.day(of: at) != row[2] || local.hour(of: at) != row[3] {
                fails.append("play \(row[0] as Int64) at \(row[1] as Int64): \(row[2] as String) \(row[3] as Int) want \(local.day(of: at)) \(local.hour(of: at))")
            }
        }
        return fails
    }

    static let zones = ["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Pacific/Chatham", "America/Sao_Paulo",
                        "Asia/Kathmandu", "Pacific/Apia", "Europe/Moscow", "America/Santiago"]

    /// Listens around interesting instants.
    static func makeListens(_ rng: inout ChartRNG, count: Int, tracks: [Track], zone: TimeZone, fractional: Bool,
                            base: Int64) -> [ImportedListen] {
        // Anchors: DST transitions and local midnights, year ends, leap day.
        var anchors: [Int64] = []
        var d = Date(timeIntervalSince1970: Double(base) / 1000)
        for _ in 0..<8 {
            guard let n = zone.nextDaylightSavingTimeTransition(after: d) else { break }
            anchors.append(Int64(n.timeIntervalSince1970 * 1000))
            d = n
        }
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = zone
        for (y, m, dd) in [(2023, 12, 31), (2024, 1, 1), (2024, 2, 29), (2024, 3, 1), (2024, 12, 31), (2025, 1, 1), (2024, 2, 28), (2024, 3, 31), (2024, 10, 27), (2024, 11, 3)] {
            if let date = cal.date(from: DateComponents(year: y, month: m, day: dd)) { anchors.append(Int64(date.timeIntervalSince1970 * 1000)) }
        }
        var out: [ImportedListen] = []
        var used = Set<String>()
        while out.count < count {
            let at: Int64
            if rng.next(3) == 0 {
                at = base + Int64(rng.next(600)) * 86_400_000 + Int64(rng.next(86_400_000))
            } else {
                let a = anchors[rng.next(anchors.count)]
                at = a + Int64(rng.next(4 * 3_600_000)) - 2 * 3_600_000
            }
            let t = tracks[min(tracks.count - 1, rng.next(tracks.count) * (rng.next(3) == 0 ? 1 : 1) / (1 + rng.next(2)))]
            let key = "\(t.title)|\(t.artist ?? "")|\(t.album ?? "")|\(at / 1000)"
            if used.contains(key) { continue }
            used.insert(key)
            // Fractions of a second in quarters: exact in binary, so a sum is the same number in
            // any order (tenths are not: 333.6 against 333.59999999999997 would order two
            // entries of the same time by rounding, not by their plays).
            let secs = fractional ? Double(rng.next(12_000)) / 4 + 0.25 : Double(rng.next(8)) * 30
            out.append(ImportedListen(track: t, startedAtMs: at / 1000 * 1000, playedSeconds: secs, counted: rng.next(5) != 0))
        }
        return out
    }

    static func run(seed: UInt64, fractional: Bool = false, trackCount: Int = 60, listens count: Int = 1500,
                    limits: [Int] = [10_000, 700, 501, 100, 7, 3, 1], rangeCount: Int = 12) throws -> [String] {
        var rng = ChartRNG(state: seed)
        let zoneName = zones[Int(seed % UInt64(zones.count))]
        let zone = TimeZone(identifier: zoneName)!
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: zone)
        defer { try? store.close() }
        // Names that tie, differ only in case, or are one name to Swift's `==` but not in
        // bytes ("Café" composed and decomposed): ties go by bytes, then id.
        let titles = ["Intro", "Outro", "Home", "Song", "Zeta", "intro", "Ä", "A", "B", "Caf\u{E9}", "Cafe\u{301}"]
        let tracks = (0..<trackCount).map { i in
            Track(title: titles[i % titles.count] + (i % 4 == 0 ? "" : " \(i % 13)"),
                  artist: "Artist \(i % 11)" + (i % 10 == 0 ? " feat. Guest \(i % 3)" : ""),
                  album: i % 6 == 0 ? nil : (i % 3 == 0 ? "Greatest Hits" : "Album \(i % 5)"),
                  // Genres: one, two, a case variant, none.
                  genre: i % 7 == 0 ? nil : ["Rock", "Drum & Bass; Jungle", "rock/Pop", "Ambient", "Techno, House"][i % 5], durationSeconds: 200)
        }
        let base: Int64 = 1_703_000_000_000  // 2023-12-19
        let listens = makeListens(&rng, count: count, tracks: tracks, zone: zone, fractional: fractional, base: base)
        var fails: [String] = []
        // Sessions: some one by one, a small import, then a large import (indexes dropped), then another.
        let parts = [listens.count / 10, listens.count / 5, listens.count * 3 / 5, listens.count]
        try ImportStoreTests.storeOneByOne(listens[0..<parts[0]], in: store)
        let s1 = ListenImportSession(store: store, source: "import:a")
        _ = try s1.insert(Array(listens[parts[0]..<parts[1]]))
        s1.finish()
        let s2 = ListenImportSession(store: store, source: "import:b")
        _ = try s2.insert(Array(listens[parts[1]..<(parts[1] + parts[2]) / 2]))
        _ = try s2.insert(Array(listens[(parts[1] + parts[2]) / 2..<parts[2]]))
        let dropped = s2.buildsIndexesAtFinish
        s2.finish()
        let s3 = ListenImportSession(store: store, source: "import:c")
        _ = try s3.insert(Array(listens[parts[2]..<parts[3]]))
        s3.finish()
        fails += try checkLocalDays(store, zone).prefix(5)
        let days = try store.read { db in try String.fetchAll(db, sql: "SELECT DISTINCT local_day FROM plays ORDER BY 1") }
        func randomRanges() -> [(String, String)] {
            var r: [(String, String)] = [("0000-01-01", "9999-12-31"), ("2024-01-01", "2024-12-31"), ("2024-02-29", "2024-03-01"),
                                         ("2023-12-31", "2024-01-01"), ("2024-02-01", "2024-02-29"), ("2023-12-01", "2025-01-31")]
            for _ in 0..<rangeCount {
                let a = CivilDate.days(of: days[rng.next(days.count)])! + rng.next(5) - 2
                let b = a + [0, 1, 6, 30, 45, 90, 400][rng.next(7)] + rng.next(3)
                r.append((dayText(a), dayText(b)))
            }
            return r
        }
        fails += try checkAllPaths(store, "seed \(seed) \(zoneName) imported (dropped \(dropped))", ranges: randomRanges(), limits: limits)
        // Deletes, edits, merges.
        let ids = try store.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM plays ORDER BY id") }
        for id in ids where rng.next(10) == 0 { _ = try store.deletePlay(id: id) }
        for id in ids.shuffled(using: &rng).prefix(20) {
            _ = try? store.curateEdit(playID: id, Store.PlayEdit(counted: rng.next(2) == 0), request: "{}", source: "test")
        }
        let trackIDs = try store.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM tracks WHERE merged_into IS NULL ORDER BY id") }
        if trackIDs.count > 4 { _ = try store.merge(.track, from: [trackIDs[1], trackIDs[3]], into: trackIDs[2], request: "{}", source: "test") }
        let artistIDs = try store.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM artists WHERE merged_into IS NULL ORDER BY id") }
        if artistIDs.count > 4 { _ = try store.merge(.artist, from: [artistIDs[0]], into: artistIDs[4], request: "{}", source: "test") }
        let albumIDs = try store.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM albums WHERE merged_into IS NULL ORDER BY id") }
        if albumIDs.count > 3 { _ = try store.merge(.album, from: [albumIDs[1]], into: albumIDs[2], request: "{}", source: "test") }
        // One more import into the history.
        var more = makeListens(&rng, count: count / 3, tracks: tracks, zone: zone, fractional: fractional, base: base)
        more.shuffle(using: &rng)
        let s4 = ListenImportSession(store: store, source: "import:d")
        _ = try s4.insert(more)
        s4.finish()
        fails += try checkLocalDays(store, zone).prefix(5)
        fails += try checkAllPaths(store, "seed \(seed) \(zoneName) after curation", ranges: randomRanges(), limits: limits)
        return fails
    }

    static func expectNoFailures(_ fails: [String]) {
        for f in fails.prefix(15) { Issue.record(Comment(rawValue: f)) }
        #expect(fails.isEmpty, "\(fails.count) failures")
    }

    @Test(arguments: 1...8) func randomHistories(seed: Int) throws {
        Self.expectNoFailures(try Self.run(seed: UInt64(seed)))
    }

    @Test(arguments: 11...12) func fractionalSeconds(seed: Int) throws {
        Self.expectNoFailures(try Self.run(seed: UInt64(seed), fractional: true))
    }

    /// Charts longer than the 500 ids `Store.named` reads at once.
    @Test func wideCharts() throws {
        Self.expectNoFailures(try Self.run(seed: 21, trackCount: 1600, listens: 6000, limits: [10_000, 1200, 501, 500, 499, 100, 3], rangeCount: 6))
    }

    /// A new store in `dir`, its days in UTC.
    static func utcStore(_ dir: TemporaryDirectory) throws -> Store {
        try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
    }

    /// Milliseconds at `seconds` into a UTC day of 2024.
    static func ms2024(_ month: Int, _ day: Int, seconds: Int) -> Int64 {
        Int64(CivilDate.days(year: 2024, month: month, day: day)) * 86_400_000 + Int64(seconds) * 1_000
    }

    /// Listens without a known length (a Last.fm export without durations: 0 s each). By
    /// time, every entry ties on 0 s and the chart goes by plays: "Steady", played twice in
    /// January and twice in February, is first with 4; twenty tracks a month have 3.
    @Test func aChartByTimeOfListensWithoutLengthsFindsTheMostPlayed() throws {
        let dir = try TemporaryDirectory()
        let store = try Self.utcStore(dir)
        defer { try? store.close() }
        func at(_ month: Int, _ day: Int, _ hour: Int) -> Int64 { Self.ms2024(month, day, seconds: hour * 3_600) }
        var listens: [ImportedListen] = []
        for month in 1...2 {
            for i in 0..<20 {
                for n in 0..<3 { listens.append(ImportedListen(track: Track(title: "M\(month) \(i)", artist: "A"), startedAtMs: at(month, 1 + i, n), playedSeconds: 0)) }
            }
            for n in 0..<2 { listens.append(ImportedListen(track: Track(title: "Steady", artist: "B"), startedAtMs: at(month, 25, n), playedSeconds: 0)) }
        }
        // A play in June: the range is two months' lists, not the year's.
        listens.append(ImportedListen(track: Track(title: "June", artist: "C"), startedAtMs: at(6, 1, 0), playedSeconds: 0))
        #expect(try ListenImportSession(store: store, source: "import:test").insert(listens).imported == listens.count)
        let byTime = try store.topTracks(fromDay: "2024-01-01", toDay: "2024-02-29", limit: 1, by: .time)
        let byPlays = try store.topTracks(fromDay: "2024-01-01", toDay: "2024-02-29", limit: 1, by: .plays)
        #expect(byPlays.map { "\($0.track!.title) \($0.plays)" } == ["Steady 4"])
        #expect(byTime.map { "\($0.track!.title) \($0.plays)" } == ["Steady 4"])
        let whole = try Store.$rankedBudget.withValue(1) { try store.topTracks(fromDay: "2024-01-01", toDay: "2024-02-29", limit: 1, by: .time) }
        #expect(whole.map { "\($0.track!.title) \($0.plays)" } == ["Steady 4"], "summed whole")
    }

    /// Two tracks titled "Intro" tied on plays and seconds at the 100th place of a two-month
    /// chart. ListenBrainz's stats read it to depth 100 for `offset=99&count=1` and to depth
    /// 200 for `offset=100&count=1`: the two pages must show both tracks.
    @Test func pagesOfATieOnEqualNamesAgree() throws {
        let dir = try TemporaryDirectory()
        let store = try Self.utcStore(dir)
        defer { try? store.close() }
        func at(_ month: Int, _ day: Int, _ s: Int) -> Int64 { Self.ms2024(month, day, seconds: s) }
        var listens: [ImportedListen] = []
        // B first (the lower id), played only in February; A only in January. Seconds 0, as
        // a Last.fm export without durations gives.
        let b = Track(title: "Intro", artist: "Band B"), a = Track(title: "Intro", artist: "Band A")
        for n in 0..<3 { listens.append(ImportedListen(track: b, startedAtMs: at(2, 10, n * 600), playedSeconds: 0)) }
        for n in 0..<3 { listens.append(ImportedListen(track: a, startedAtMs: at(1, 10, n * 600), playedSeconds: 0)) }
        // 99 tracks above them, and a flat tail of 8,000 tracks played once.
        for i in 0..<99 {
            for n in 0..<5 { listens.append(ImportedListen(track: Track(title: "Hit \(i)", artist: "X"), startedAtMs: at(1, 5, i * 10 + n * 3_600), playedSeconds: 0)) }
        }
        for i in 0..<8_000 {
            listens.append(ImportedListen(track: Track(title: "Tail \(i)", artist: "Y"), startedAtMs: at(i % 2 == 0 ? 1 : 2, 20, i), playedSeconds: 0))
        }
        // A play in June: the range is two months' lists, not the year's.
        listens.append(ImportedListen(track: Track(title: "June", artist: "Z"), startedAtMs: at(6, 1, 0), playedSeconds: 0))
        let session = ListenImportSession(store: store, source: "import:test")
        #expect(try session.insert(listens).imported == listens.count)
        session.finish()
        let depth100 = try store.countedChart(.track, fromDay: "2024-01-01", toDay: "2024-02-29", limit: 100).entries
        let depth200 = try store.countedChart(.track, fromDay: "2024-01-01", toDay: "2024-02-29", limit: 200).entries
        let shown = [depth100[99], depth200[100]].map { $0.track!.artist! }
        #expect(Set(shown) == ["Band A", "Band B"], "offset 99 shows \(shown[0]), offset 100 shows \(shown[1])")
        #expect(depth200.prefix(100).map(\.track!.id) == depth100.map(\.track!.id), "depth 100 is not depth 200's first 100")
    }
}

extension Array {
    // The shuffles of ChartRNG.
    func shuffled(using rng: inout ChartRNG) -> [Element] {
        var a = self
        a.shuffle(using: &rng)
        return a
    }
    mutating func shuffle(using rng: inout ChartRNG) {
        guard count > 1 else { return }
        for i in stride(from: count - 1, to: 0, by: -1) {
            swapAt(i, rng.next(i + 1))
        }
    }
}
