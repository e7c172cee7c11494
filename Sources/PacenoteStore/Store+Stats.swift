import Foundation
import GRDB
import PacenoteCore

/// Chart rows: a track, an artist or an album with its counted plays and listening time.
public struct ChartEntry: Equatable, Sendable {
    public var track: Track?
    public var artist: String?
    public var album: String?
    public var plays: Int
    public var seconds: Double
}

public struct PeriodTotals: Equatable, Sendable {
    public var plays: Int
    public var skips: Int
    public var seconds: Double
}

extension Store {
    /// From the day rollups: never a scan of the plays.
    public func totals(fromDay: String, toDay: String) throws(StoreError) -> PeriodTotals {
        try read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT COALESCE(SUM(plays), 0), COALESCE(SUM(skips), 0), COALESCE(SUM(played_s), 0)
                FROM rollup_day_hour WHERE day BETWEEN ? AND ?
                """, arguments: [fromDay, toDay])!
            return PeriodTotals(plays: row[0], skips: row[1], seconds: row[2])
        }
    }

    /// The most played tracks (counted plays, then listening time, then title).
    public func topTracks(fromDay: String, toDay: String, limit: Int) throws(StoreError) -> [ChartEntry] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT t.*, r.plays AS chart_plays, r.secs AS chart_secs FROM (
                  SELECT track_id, SUM(plays) AS plays, SUM(played_s) AS secs FROM rollup_day_track
                  WHERE day BETWEEN ? AND ? GROUP BY track_id HAVING SUM(plays) > 0
                ) r JOIN tracks t ON t.id = r.track_id
                ORDER BY r.plays DESC, r.secs DESC, t.title LIMIT ?
                """, arguments: [fromDay, toDay, limit]).map { row in
                ChartEntry(track: Store.track(from: row), artist: nil, album: nil, plays: row["chart_plays"], seconds: row["chart_secs"])
            }
        }
    }

    /// The most played artists; a track without an artist counts for its album artist.
    public func topArtists(fromDay: String, toDay: String, limit: Int) throws(StoreError) -> [ChartEntry] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT MIN(COALESCE(t.artist, t.album_artist)) AS name, SUM(r.plays) AS plays, SUM(r.played_s) AS secs
                FROM rollup_day_track r JOIN tracks t ON t.id = r.track_id
                WHERE r.day BETWEEN ? AND ? AND COALESCE(t.artist, t.album_artist) IS NOT NULL
                GROUP BY COALESCE(t.artist, t.album_artist) COLLATE NOCASE HAVING SUM(r.plays) > 0
                ORDER BY plays DESC, secs DESC, name LIMIT ?
                """, arguments: [fromDay, toDay, limit]).map { row in
                ChartEntry(track: nil, artist: row["name"], album: nil, plays: row["plays"], seconds: row["secs"])
            }
        }
    }

    /// The most played albums, told apart by album and album artist.
    public func topAlbums(fromDay: String, toDay: String, limit: Int) throws(StoreError) -> [ChartEntry] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT MIN(t.album) AS album, MIN(COALESCE(t.album_artist, t.artist)) AS artist,
                       SUM(r.plays) AS plays, SUM(r.played_s) AS secs
                FROM rollup_day_track r JOIN tracks t ON t.id = r.track_id
                WHERE r.day BETWEEN ? AND ? AND t.album IS NOT NULL
                GROUP BY t.album COLLATE NOCASE, COALESCE(t.album_artist, t.artist) COLLATE NOCASE HAVING SUM(r.plays) > 0
                ORDER BY plays DESC, secs DESC, album LIMIT ?
                """, arguments: [fromDay, toDay, limit]).map { row in
                ChartEntry(track: nil, artist: row["artist"], album: row["album"], plays: row["plays"], seconds: row["secs"])
            }
        }
    }
}
