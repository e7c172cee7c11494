import GRDB
import PacenoteCore

/// Migration "v6.artists-and-albums" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    static func v6ArtistsAndAlbums(_ db: Database) throws {
        try db.execute(sql: """
            -- Artists and albums as entities with stable ids (PacenoteCore.EntityKey says when two
            -- spellings are one): what pages, the API and merges point at.
            CREATE TABLE artists (
              id            INTEGER PRIMARY KEY,
              name          TEXT NOT NULL,              -- as first credited
              name_key      TEXT NOT NULL UNIQUE,       -- EntityKey.artist: case and white space folded
              mbid          TEXT,                       -- MusicBrainz artist id, when a source gave one
              created_at_ms INTEGER NOT NULL
            );
            -- An album is its MusicBrainz release, else its title with its album artist (or
            -- each track's primary artist): two "Greatest Hits" stay apart.
            CREATE TABLE albums (
              id            INTEGER PRIMARY KEY,
              title         TEXT NOT NULL,
              artist        TEXT,
              mb_release_id TEXT,
              album_key     TEXT NOT NULL UNIQUE,       -- EntityKey.album
              created_at_ms INTEGER NOT NULL
            );
            ALTER TABLE track_artists ADD COLUMN artist_id INTEGER REFERENCES artists(id);
            ALTER TABLE tracks ADD COLUMN album_id INTEGER REFERENCES albums(id);
            -- Artists are found by entity now; the index on the name gives way to one on the id.
            DROP INDEX track_artists_name;
            CREATE INDEX track_artists_artist ON track_artists(artist_id);
            CREATE INDEX tracks_album_id ON tracks(album_id) WHERE album_id IS NOT NULL;
            """)
        try Store.fileEveryTrackUnderItsEntities(in: db)
        // From this version MPD's several Artist (and AlbumArtist) values are read: every
        // library file is read again at the next mirror, so that credits and albums of files
        // not modified since follow their tags.
        try db.execute(sql: """
            UPDATE library_files SET modified_at_ms = -1;
            DELETE FROM meta WHERE key LIKE 'library_update:%';
            """)
    }
}
