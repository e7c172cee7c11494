import GRDB

/// The rollups by artist and album (all time and per year) and the totals by year, day
/// and year-and-hour (migration v7): their tables, the trigger statements that add or
/// remove one play, and their rebuild from the track and hour rollups.
///
/// They are sums over the track rollups: an artist's row is the sum of the rows of the
/// tracks that credit it, an album's of its tracks'. So whatever moves a track to other
/// artists or another album moves its track rows along (`move`), and a rebuild is
/// a GROUP BY over `rollup_track_total` and `rollup_year_track`. (`move` is the one place
/// a track's rows move between entities.)
enum EntityRollups {
    struct Table {
        var name: String
        var keys: [String]
        /// Which entity: `artist` (via `track_artists`) or `album` (via `tracks.album_id`).
        var entity: String
    }

    static let tables = [
        Table(name: "rollup_artist_total", keys: ["artist_id"], entity: "artist"),
        Table(name: "rollup_year_artist", keys: ["year", "artist_id"], entity: "artist"),
        Table(name: "rollup_album_total", keys: ["album_id"], entity: "album"),
        Table(name: "rollup_year_album", keys: ["year", "album_id"], entity: "album"),
    ]

    /// The entities of a track as a subquery of ids (the track's id as SQL).
    static func entities(_ entity: String, of track: String) -> String {
        entity == "artist"
            ? "SELECT artist_id AS id FROM track_artists WHERE track_id = \(track) AND artist_id IS NOT NULL"
            : "SELECT album_id AS id FROM tracks WHERE id = \(track) AND album_id IS NOT NULL"
    }

    static let upsert = "plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s"

    /// The statements that add (`NEW`) or remove (`OLD`) one play from every table here.
    static func statements(_ row: String, adding: Bool) -> String {
        var out: [String] = []
        for table in tables {
            let id = table.keys.last!
            let year = table.keys.contains("year")
            let ids = entities(table.entity, of: "\(row).track_id")
            if adding {
                out.append("""
                    INSERT INTO \(table.name) (\(table.keys.joined(separator: ", ")), plays, skips, played_s)
                      SELECT \(year ? "substr(\(row).local_day, 1, 4), " : "")e.id, \(row).counted, 1 - \(row).counted, \(row).played_s
                      FROM (\(ids)) e WHERE true
                      ON CONFLICT (\(table.keys.joined(separator: ", "))) DO UPDATE SET \(upsert);
                    """)
            } else {
                let match = "\(year ? "year = substr(\(row).local_day, 1, 4) AND " : "")\(id) IN (\(ids))"
                out.append("""
                    UPDATE \(table.name) SET plays = plays - \(row).counted, skips = skips - (1 - \(row).counted),
                      played_s = played_s - \(row).played_s WHERE \(match);
                    DELETE FROM \(table.name) WHERE \(match) AND plays = 0 AND skips = 0;
                    """)
            }
        }
        for (table, keys, values) in periods(row) {
            if adding {
                out.append("""
                    INSERT INTO \(table) (\(keys.joined(separator: ", ")), plays, skips, played_s)
                      VALUES (\(values.joined(separator: ", ")), \(row).counted, 1 - \(row).counted, \(row).played_s)
                      ON CONFLICT (\(keys.joined(separator: ", "))) DO UPDATE SET \(upsert);
                    """)
            } else {
                let match = zip(keys, values).map { "\($0) = \($1)" }.joined(separator: " AND ")
                out.append("""
                    UPDATE \(table) SET plays = plays - \(row).counted, skips = skips - (1 - \(row).counted),
                      played_s = played_s - \(row).played_s WHERE \(match);
                    DELETE FROM \(table) WHERE \(match) AND plays = 0 AND skips = 0;
                    """)
            }
        }
        return out.joined(separator: "\n")
    }

    /// The totals by period: table, key columns, and their values for a play (`NEW`, `OLD`).
    static func periods(_ row: String) -> [(String, [String], [String])] {
        [("rollup_year_total", ["year"], ["substr(\(row).local_day, 1, 4)"]),
         ("rollup_day_total", ["day"], ["\(row).local_day"]),
         ("rollup_year_hour", ["year", "hour"], ["substr(\(row).local_day, 1, 4)", "\(row).local_hour"])]
    }

    /// Every table here from the track rollups, from scratch.
    static func rebuild(in db: Database) throws {
        for table in tables { try db.execute(sql: "DELETE FROM \(table.name)") }
        for (table, _, _) in periods("NEW") { try db.execute(sql: "DELETE FROM \(table)") }
        for table in tables {
            let year = table.keys.contains("year")
            let (join, id) = table.entity == "artist"
                ? ("JOIN track_artists e ON e.track_id = r.track_id", "e.artist_id")
                : ("JOIN tracks e ON e.id = r.track_id", "e.album_id")
            let keys = (year ? "r.year, " : "") + id
            try db.execute(sql: """
                INSERT INTO \(table.name) (\(table.keys.joined(separator: ", ")), plays, skips, played_s)
                  SELECT \(keys), SUM(r.plays), SUM(r.skips), SUM(r.played_s)
                  FROM \(year ? "rollup_year_track" : "rollup_track_total") r \(join)
                  WHERE \(id) IS NOT NULL GROUP BY \(keys)
                """)
        }
        try db.execute(sql: """
            INSERT INTO rollup_year_total (year, plays, skips, played_s)
              SELECT year, SUM(plays), SUM(skips), SUM(played_s) FROM rollup_year_track GROUP BY year;
            INSERT INTO rollup_day_total (day, plays, skips, played_s)
              SELECT day, SUM(plays), SUM(skips), SUM(played_s) FROM rollup_day_hour GROUP BY day;
            INSERT INTO rollup_year_hour (year, hour, plays, skips, played_s)
              SELECT substr(day, 1, 4), hour, SUM(plays), SUM(skips), SUM(played_s) FROM rollup_day_hour GROUP BY 1, 2;
            """)
    }

    /// The rows a track contributes, moved out of (`adding: false`) or into the rows of its
    /// current artists (`entity: "artist"`) or album: before and after its credit or album
    /// changes.
    static func move(track: Int64, entity: String, adding: Bool, in db: Database) throws {
        // A bulk import caches tracks' entities between its batches: it reads this to know.
        try db.cachedStatement(sql: """
            INSERT INTO meta (key, value) VALUES ('entity_generation', '1')
            ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1
            """).execute()
        for table in tables where table.entity == entity {
            let year = table.keys.contains("year")
            // rollup_year_track's key begins with the year: naming the years lets SQLite look
            // the track's rows up instead of reading the table.
            let source = year ? "rollup_year_track" : "rollup_track_total"
            let sourceRows = year ? "r.year IN (SELECT year FROM rollup_year_total) AND r.track_id = ?1" : "r.track_id = ?1"
            let years = year ? "year IN (SELECT year FROM rollup_year_total) AND " : ""
            let id = table.keys.last!
            let ids = entities(entity, of: "?1")
            if adding {
                try db.cachedStatement(sql: """
                    INSERT INTO \(table.name) (\(table.keys.joined(separator: ", ")), plays, skips, played_s)
                      SELECT \(year ? "r.year, " : "")e.id, r.plays, r.skips, r.played_s
                      FROM \(source) r, (\(ids)) e WHERE \(sourceRows)
                      ON CONFLICT (\(table.keys.joined(separator: ", "))) DO UPDATE SET \(upsert)
                    """).execute(arguments: [track])
            } else {
                try db.cachedStatement(sql: """
                    UPDATE \(table.name) SET plays = \(table.name).plays - r.plays, skips = \(table.name).skips - r.skips,
                      played_s = \(table.name).played_s - r.played_s
                    FROM \(source) r WHERE \(sourceRows) AND \(id) IN (\(ids))\(year ? " AND \(table.name).year = r.year" : "")
                    """).execute(arguments: [track])
                try db.cachedStatement(sql: "DELETE FROM \(table.name) WHERE \(years)\(id) IN (\(ids)) AND plays = 0 AND skips = 0")
                    .execute(arguments: [track])
            }
        }
    }
}
