import Foundation
import GRDB
import PacenoteCore

/// Migration "v30.genres" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// Genres as entities, like artists (issue 58, point 5): `genres` (a name kept as first
    /// seen, its key folded by `EntityKey.genre`), `track_genres` linking each track to
    /// the genres of its genre text (`GenreTags.split`: MPD's several `Genre` values, "Drum &
    /// Bass; Jungle"), and their rollups — all time, per year, month (with its halves) and
    /// day, as the artists' — kept by the entity triggers (`Rollups.all`).
    ///
    /// Every stored track is filed under the genres of its stored genre text (which held
    /// only MPD's first `Genre` value until now: a file of several is filed under all of them
    /// when its tags are read again, as a mirror of a changed file or a play does), and the
    /// rollups are summed from the track rollups.
    static func v30Genres(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE genres (
              id            INTEGER PRIMARY KEY,
              name          TEXT NOT NULL,              -- as first seen
              name_key      TEXT NOT NULL UNIQUE,       -- EntityKey.genre: case and white space folded
              merged_into   INTEGER REFERENCES genres(id),
              created_at_ms INTEGER NOT NULL
            );
            CREATE TABLE track_genres (
              track_id INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
              position INTEGER NOT NULL CHECK (position >= 0),
              genre_id INTEGER NOT NULL REFERENCES genres(id),
              PRIMARY KEY (track_id, position)
            ) WITHOUT ROWID;
            CREATE INDEX track_genres_genre ON track_genres(genre_id);
            CREATE TABLE rollup_genre_total (
              genre_id INTEGER NOT NULL,
              plays    INTEGER NOT NULL,
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL,
              PRIMARY KEY (genre_id)
            ) WITHOUT ROWID;
            CREATE TABLE rollup_year_genre (
              year     TEXT NOT NULL,
              genre_id INTEGER NOT NULL,
              plays    INTEGER NOT NULL,
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL,
              PRIMARY KEY (year, genre_id)
            ) WITHOUT ROWID;
            CREATE TABLE rollup_month_genre (
              month    TEXT NOT NULL,
              genre_id INTEGER NOT NULL,
              plays    INTEGER NOT NULL,
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL,
              first_half_plays INTEGER NOT NULL DEFAULT 0,
              first_half_played_s REAL NOT NULL DEFAULT 0.0,
              PRIMARY KEY (month, genre_id)
            ) WITHOUT ROWID;
            CREATE TABLE rollup_day_genre (
              day      TEXT NOT NULL,
              genre_id INTEGER NOT NULL,
              plays    INTEGER NOT NULL,
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL,
              PRIMARY KEY (day, genre_id)
            ) WITHOUT ROWID;
            CREATE INDEX rollup_year_genre_skipped ON rollup_year_genre(year) WHERE plays <= 0;
            """)
        // The ranking indexes — or, while an import has them set aside (its record under
        // `meta.deferred_indexes`, `DeferredIndexes`), recorded with them, as v21 does.
        let rankings = [
            "CREATE INDEX rollup_genre_total_top ON rollup_genre_total(plays DESC, played_s DESC)",
            "CREATE INDEX rollup_genre_total_by_time ON rollup_genre_total(played_s DESC, plays DESC)",
            "CREATE INDEX rollup_year_genre_top ON rollup_year_genre(year, plays DESC, played_s DESC) WHERE plays >= 2",
            "CREATE INDEX rollup_year_genre_by_time ON rollup_year_genre(year, played_s DESC, plays DESC) WHERE played_s >= 600",
            "CREATE INDEX rollup_month_genre_top ON rollup_month_genre(month, plays DESC, played_s DESC) WHERE plays >= 2",
            "CREATE INDEX rollup_month_genre_by_time ON rollup_month_genre(month, played_s DESC, plays DESC) WHERE played_s >= 600",
            "CREATE INDEX rollup_day_genre_top ON rollup_day_genre(day, plays DESC, played_s DESC) WHERE plays >= 3",
        ]
        if let record = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'deferred_indexes'") {
            try db.execute(sql: "UPDATE meta SET value = ? WHERE key = 'deferred_indexes'",
                           arguments: [([record] + rankings).joined(separator: "\n")])
        } else {
            for statement in rankings { try db.execute(sql: statement) }
        }
        try v30FileEveryTrackUnderItsGenres(in: db)
        // Summed from the track rollups, as v17 summed the days' artists.
        try db.execute(sql: """
            INSERT INTO rollup_genre_total (genre_id, plays, skips, played_s)
              SELECT e.genre_id, SUM(r.plays), SUM(r.skips), SUM(r.played_s)
              FROM rollup_track_total r JOIN track_genres e ON e.track_id = r.track_id GROUP BY e.genre_id;
            INSERT INTO rollup_year_genre (year, genre_id, plays, skips, played_s)
              SELECT r.year, e.genre_id, SUM(r.plays), SUM(r.skips), SUM(r.played_s)
              FROM rollup_year_track r JOIN track_genres e ON e.track_id = r.track_id GROUP BY r.year, e.genre_id;
            INSERT INTO rollup_month_genre (month, genre_id, plays, skips, played_s, first_half_plays, first_half_played_s)
              SELECT r.month, e.genre_id, SUM(r.plays), SUM(r.skips), SUM(r.played_s), SUM(r.first_half_plays), SUM(r.first_half_played_s)
              FROM rollup_month_track r JOIN track_genres e ON e.track_id = r.track_id GROUP BY r.month, e.genre_id;
            INSERT INTO rollup_day_genre (day, genre_id, plays, skips, played_s)
              SELECT r.day, e.genre_id, SUM(r.plays), SUM(r.skips), SUM(r.played_s)
              FROM rollup_day_track r JOIN track_genres e ON e.track_id = r.track_id GROUP BY r.day, e.genre_id;
            """)
    }

    /// Files every track with a genre text under its genres. The split and the keys are
    /// `GenreTags.split` and `EntityKey.genre`, kept as calls for v6's reason: the stored keys
    /// must be the ones live code looks rows up by. Their outputs are pinned instead:
    /// `FrozenFunctionTests` fails if they change.
    private static func v30FileEveryTrackUnderItsGenres(in db: Database) throws {
        let now = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        var ids: [String: Int64] = [:]
        let tracks = try Row.fetchAll(db, sql: "SELECT id, genre FROM tracks WHERE genre IS NOT NULL ORDER BY id")
        for row in tracks {
            let track: Int64 = row[0]
            var filed: [Int64] = []
            for name in GenreTags.split(row[1] as String) {
                let key = EntityKey.genre(name)
                let id: Int64
                if let known = ids[key] {
                    id = known
                } else {
                    try db.execute(sql: "INSERT INTO genres (name, name_key, created_at_ms) VALUES (?, ?, ?)", arguments: [name, key, now])
                    id = db.lastInsertedRowID
                    ids[key] = id
                }
                guard !filed.contains(id) else { continue }
                try db.execute(sql: "INSERT INTO track_genres (track_id, position, genre_id) VALUES (?, ?, ?)",
                               arguments: [track, filed.count, id])
                filed.append(id)
            }
        }
    }
}
