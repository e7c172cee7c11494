import Foundation
import GRDB
import PacenoteCore

/// The genres of one heart-rate zone's plays in a range: "Z4 is 60 % drum and bass".
public struct ZoneGenres: Equatable, Sendable {
    /// The zone (`Zone`'s number, 0 below Z1).
    public var zone: Int
    /// Counted plays in the zone.
    public var plays: Int
    /// Its genres, most played first (ties by name, then id): `genre`, `genreID`, `plays`
    /// (of the zone's plays, those of a track of that genre) and `seconds`.
    public var genres: [ChartEntry]

    /// The part of the zone's plays a genre has, 0…1. A track of several genres counts for
    /// each: the parts of a zone may add up to more than 1.
    public func share(_ entry: ChartEntry) -> Double { plays > 0 ? Double(entry.plays) / Double(plays) : 0 }
}

extension Store {
    /// Each zone with counted plays in `fromDay`…`toDay` (local days) and its `limit` most
    /// played genres. Zoned plays are those logged during a workout (a small part of the
    /// history): read from the plays by `plays_zoned_by_day`, which covers the columns needed.
    public func genresByZone(fromDay: String, toDay: String, limit: Int) throws(StoreError) -> [ZoneGenres] {
        try read { db in
            var zones: [Int: ZoneGenres] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT zone, COUNT(*) FROM plays INDEXED BY plays_zoned_by_day
                WHERE local_day BETWEEN ? AND ? AND zone IS NOT NULL AND counted = 1 GROUP BY zone
                """, arguments: [fromDay, toDay]) {
                zones[row[0]] = ZoneGenres(zone: row[0], plays: row[1], genres: [])
            }
            for row in try Row.fetchAll(db, sql: """
                SELECT p.zone, g.id, g.name, COUNT(*), SUM(p.played_s)
                FROM plays p INDEXED BY plays_zoned_by_day JOIN track_genres tg ON tg.track_id = p.track_id JOIN genres g ON g.id = tg.genre_id
                WHERE p.local_day BETWEEN ? AND ? AND p.zone IS NOT NULL AND p.counted = 1
                GROUP BY p.zone, g.id
                """, arguments: [fromDay, toDay]) {
                zones[row[0]]?.genres.append(ChartEntry(track: nil, artist: nil, album: nil, plays: row[3], seconds: row[4],
                                                        genre: row[2], genreID: row[1]))
            }
            return zones.keys.sorted().map { zone in
                var z = zones[zone]!
                z.genres.sort { a, b in
                    if a.plays != b.plays { return a.plays > b.plays }
                    if a.seconds != b.seconds { return a.seconds > b.seconds }
                    if a.genre != b.genre { return (a.genre ?? "").utf8.lexicographicallyPrecedes((b.genre ?? "").utf8) }
                    return (a.genreID ?? 0) < (b.genreID ?? 0)
                }
                z.genres = Array(z.genres.prefix(limit))
                return z
            }
        }
    }
}
