import Foundation
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
        try v6FileEveryTrackUnderItsEntities(in: db)
        // From this version MPD's several Artist (and AlbumArtist) values are read: every
        // library file is read again at the next mirror, so that credits and albums of files
        // not modified since follow their tags.
        try db.execute(sql: """
            UPDATE library_files SET modified_at_ms = -1;
            DELETE FROM meta WHERE key LIKE 'library_update:%';
            """)
    }

    /// Gives every credit its artist and every track its album (the database had names
    /// only), as v6 did: frozen here from the store's look-ups of the day (`Store.artistID`,
    /// `Store.albumID`, before v10's `merged_into`). The keys are `EntityKey.artist` and
    /// `Track.albumIdentity` (`EntityKey.album`), kept as calls: the stored keys must be the
    /// ones live code looks rows up by (a frozen copy that drifted would file old names where
    /// no later look-up finds them; `EntityKey` says a change of folding needs a migration
    /// that keys every row again), and a copy would be an exact duplicate of live code.
    /// Their outputs are pinned instead: `FrozenFunctionTests` fails if they change.
    private static func v6FileEveryTrackUnderItsEntities(in db: Database) throws {
        let now = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        let credits = try Row.fetchAll(db, sql: "SELECT track_id, position, name, mbid FROM track_artists WHERE artist_id IS NULL")
        for row in credits {
            let name: String = row[2], mbid: String? = row[3]
            let key = EntityKey.artist(name)
            let id: Int64
            if let known = try Row.fetchOne(db, sql: "SELECT id, mbid FROM artists WHERE name_key = ?", arguments: [key]) {
                id = known[0]
                if (known[1] as String?) == nil, let mbid {
                    try db.execute(sql: "UPDATE artists SET mbid = ? WHERE id = ?", arguments: [mbid, id])
                }
            } else {
                try db.execute(sql: "INSERT INTO artists (name, name_key, mbid, created_at_ms) VALUES (?, ?, ?, ?)",
                               arguments: [name, key, mbid, now])
                id = db.lastInsertedRowID
            }
            try db.execute(sql: "UPDATE track_artists SET artist_id = ? WHERE track_id = ? AND position = ?",
                           arguments: [id, row[0], row[1]])
        }
        // Two spellings of one artist on one track (older credits told names apart by
        // lower-casing alone) are one credit: the later ones go.
        try db.execute(sql: """
            DELETE FROM track_artists AS a WHERE EXISTS (
              SELECT 1 FROM track_artists b WHERE b.track_id = a.track_id AND b.artist_id = a.artist_id AND b.position < a.position)
            """)
        let tracks = try Row.fetchAll(db, sql: """
            SELECT t.id, t.title, t.artist, t.album, t.album_artist, t.mb_release_id,
                   (SELECT name FROM track_artists a WHERE a.track_id = t.id AND a.listed = 1 ORDER BY position LIMIT 1)
            FROM tracks t WHERE t.album IS NOT NULL AND t.album_id IS NULL
            """)
        for row in tracks {
            let listed: String? = row[6]
            let track = Track(title: row[1], artist: row[2], album: row[3], albumArtist: row[4],
                              musicBrainz: MusicBrainzIDs(release: row[5]),
                              listedCredit: listed.flatMap { ArtistCredit(listed: [$0]) })
            guard let identity = track.albumIdentity else { continue }
            let id: Int64
            if let known = try Int64.fetchOne(db, sql: "SELECT id FROM albums WHERE album_key = ?", arguments: [identity.key]) {
                id = known
            } else {
                try db.execute(sql: "INSERT INTO albums (title, artist, mb_release_id, album_key, created_at_ms) VALUES (?, ?, ?, ?, ?)",
                               arguments: [identity.title, identity.artist, identity.release, identity.key, now])
                id = db.lastInsertedRowID
            }
            try db.execute(sql: "UPDATE tracks SET album_id = ? WHERE id = ?", arguments: [id, row[0]])
        }
    }
}
