import GRDB
import PacenoteCore

/// Migration "v1.tracks" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    static func v1Tracks(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE tracks (
              id                  INTEGER PRIMARY KEY,
              uri                 TEXT UNIQUE,          -- MPD song URI or stream URL; NULL when only imported
              title               TEXT NOT NULL,        -- falls back to the file name when untagged
              artist              TEXT,
              album               TEXT,
              album_artist        TEXT,
              genre               TEXT,
              date                TEXT,                 -- as tagged: '1997', '1997-05-21'
              track_number        INTEGER,
              disc_number         INTEGER,
              duration_s          REAL CHECK (duration_s IS NULL OR duration_s >= 0),
              mb_recording_id     TEXT,
              mb_release_id       TEXT,
              mb_artist_id        TEXT,
              mb_album_artist_id  TEXT,
              mb_release_track_id TEXT,
              bpm                 REAL CHECK (bpm IS NULL OR bpm > 0),
              bpm_source          TEXT CHECK (bpm_source IN ('tag', 'sticker', 'analysis', 'manual', 'import')),
              bpm_confidence      REAL CHECK (bpm_confidence IS NULL OR bpm_confidence BETWEEN 0 AND 1),
              match_key           TEXT NOT NULL,        -- normalised artist + title (PacenoteCore.MatchKey)
              in_library          INTEGER NOT NULL DEFAULT 0 CHECK (in_library IN (0, 1)),  -- in some player's library_files
              first_seen_at_ms    INTEGER NOT NULL,
              updated_at_ms       INTEGER NOT NULL,
              CHECK ((bpm IS NULL) = (bpm_source IS NULL))
            );
            CREATE INDEX tracks_match_key ON tracks(match_key);
            CREATE INDEX tracks_artist ON tracks(artist COLLATE NOCASE);
            CREATE INDEX tracks_album ON tracks(album COLLATE NOCASE);

            -- Full-text search over titles, artists and albums (FTS5, accents folded), kept in
            -- step with tracks by triggers.
            CREATE VIRTUAL TABLE tracks_fts USING fts5(
              title, artist, album, content = 'tracks', content_rowid = 'id',
              tokenize = 'unicode61 remove_diacritics 2'
            );
            CREATE TRIGGER tracks_fts_insert AFTER INSERT ON tracks BEGIN
              INSERT INTO tracks_fts (rowid, title, artist, album) VALUES (NEW.id, NEW.title, NEW.artist, NEW.album);
            END;
            CREATE TRIGGER tracks_fts_delete AFTER DELETE ON tracks BEGIN
              INSERT INTO tracks_fts (tracks_fts, rowid, title, artist, album) VALUES ('delete', OLD.id, OLD.title, OLD.artist, OLD.album);
            END;
            CREATE TRIGGER tracks_fts_update AFTER UPDATE OF title, artist, album ON tracks BEGIN
              INSERT INTO tracks_fts (tracks_fts, rowid, title, artist, album) VALUES ('delete', OLD.id, OLD.title, OLD.artist, OLD.album);
              INSERT INTO tracks_fts (rowid, title, artist, album) VALUES (NEW.id, NEW.title, NEW.artist, NEW.album);
            END;

            -- Which files each player's MPD has, as last mirrored. Players (rooms) may have
            -- different libraries; a track is in_library while any player has it.
            CREATE TABLE library_files (
              player         TEXT NOT NULL,
              track_id       INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
              modified_at_ms INTEGER NOT NULL,          -- MPD's Last-Modified; -1 until its tags are read
              PRIMARY KEY (player, track_id)
            ) WITHOUT ROWID;
            CREATE INDEX library_files_track ON library_files(track_id);
            CREATE TRIGGER library_files_insert AFTER INSERT ON library_files BEGIN
              UPDATE tracks SET in_library = 1 WHERE id = NEW.track_id;
            END;
            CREATE TRIGGER library_files_delete AFTER DELETE ON library_files BEGIN
              UPDATE tracks SET in_library = EXISTS (SELECT 1 FROM library_files WHERE track_id = OLD.track_id)
              WHERE id = OLD.track_id;
            END;
            """)
    }
}
