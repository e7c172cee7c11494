import GRDB

/// Migration "v34.playlists-loudness" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// The player's playlists (issue 57).
    ///
    /// - `smart_playlists`: playlists defined in Pacenote by rules over what it knows (BPM,
    ///   tempo fit for a zone, likes, genre, plays in a period, energy…) and kept in sync as
    ///   MPD stored playlists of the same name. `kind` 'mood' marks the named moods (YouPlay);
    ///   `rules_json` is the definition as the API writes it (`SmartPlaylist.Rules`).
    /// - `tracks.loudness_lufs` and `tracks.loudness_range_lu`: a track's energy, measured from
    ///   the audio by `pacenote analyze` with an EBU R 128 meter (libebur128): integrated
    ///   loudness in LUFS and loudness range in LU. NULL until measured.
    static func v34PlaylistsLoudness(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE smart_playlists (
              id            INTEGER PRIMARY KEY,
              name          TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
              kind          TEXT NOT NULL DEFAULT 'smart' CHECK (kind IN ('smart', 'mood')),
              rules_json    TEXT NOT NULL CHECK (json_valid(rules_json)),
              created_at_ms INTEGER NOT NULL,
              updated_at_ms INTEGER NOT NULL
            );
            CREATE UNIQUE INDEX smart_playlists_name ON smart_playlists(name COLLATE NOCASE);
            ALTER TABLE tracks ADD COLUMN loudness_lufs REAL
                CHECK (loudness_lufs IS NULL OR loudness_lufs BETWEEN -120 AND 20);
            ALTER TABLE tracks ADD COLUMN loudness_range_lu REAL
                CHECK (loudness_range_lu IS NULL OR loudness_range_lu BETWEEN 0 AND 120);
            """)
    }
}
