import GRDB
import PacenoteCore

/// Migration "v5.credits-and-recordings" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    static func v5CreditsAndRecordings(_ db: Database) throws {
        try db.execute(sql: """
            -- listed = 1: the source named the artists one by one (MPD's several Artist tags,
            -- ListenBrainz's artist_names); 0: split from tracks.artist, and split again when
            -- the separators change (meta.credit_separators). mbid: the artist's MusicBrainz id.
            ALTER TABLE track_artists ADD COLUMN listed INTEGER NOT NULL DEFAULT 0 CHECK (listed IN (0, 1));
            ALTER TABLE track_artists ADD COLUMN mbid TEXT;
            -- (No index on (track_id, name): the primary key finds a track's few artists, and a
            -- second index on every credit slows a bulk import of a wide library.)
            -- A recording id decides which track a listen is (Store.saveTrack).
            CREATE INDEX tracks_mb_recording ON tracks(mb_recording_id) WHERE mb_recording_id IS NOT NULL;
            """)
        // Credits v2's importer wrote: Maloja's listed artists (their names joined with ", "
        // are the track's text) become listed, never split again; the rest were split on
        // separators that are now off by default, and are split again with the defaults.
        let imported = try Row.fetchAll(db, sql: """
            SELECT t.id, COALESCE(t.artist, t.album_artist), t.title, t.mb_artist_id,
                   (SELECT group_concat(name, ', ') FROM (SELECT name FROM track_artists WHERE track_id = t.id ORDER BY position)),
                   (SELECT COUNT(*) FROM track_artists WHERE track_id = t.id)
            FROM tracks t WHERE t.id IN (SELECT track_id FROM track_artists) AND COALESCE(t.artist, t.album_artist) IS NOT NULL
            """)
        // Every track gets its credit: until now only imports wrote them, and every artist
        // chart reads them from here on.
        let rows = try Row.fetchAll(db, sql: """
            SELECT id, COALESCE(artist, album_artist), title, mb_artist_id FROM tracks
            WHERE COALESCE(artist, album_artist) IS NOT NULL AND id NOT IN (SELECT track_id FROM track_artists)
            """)
        for row in rows {
            let track = Track(id: row[0], title: row[2], artist: row[1], musicBrainz: MusicBrainzIDs(artist: row[3]))
            if let credit = track.credit(separators: []) {
                try v5SaveCredit(credit, trackID: row[0], replacing: false, in: db)
            }
        }
        for row in imported {
            let text: String = row[1], joined: String? = row[4], count: Int = row[5]
            if isListedV2Credit(text: text, joined: joined, count: count) {
                try db.execute(sql: "UPDATE track_artists SET listed = 1, role = 'primary' WHERE track_id = ?", arguments: [row[0]])
            } else if let credit = Track(title: row[2], artist: text, musicBrainz: MusicBrainzIDs(artist: row[3])).credit(separators: []) {
                try v5SaveCredit(credit, trackID: row[0], replacing: true, in: db)
            }
        }
    }

    /// A credit stored as v5 stored it (before artists had rows of their own: v6 files them),
    /// replacing the track's (`replacing`): its names in order, each a row. Frozen here from
    /// `Store.saveCredit`, which has gone on to file artists and move rollups.
    /// The credits themselves are `Track.credit(separators: [])` (`ArtistCredit.parse`), kept
    /// as a call: a copy would be the parser whole, an exact duplicate of live code, and the
    /// parser must go on agreeing with what it stored (a credit saved again compares equal and
    /// is left alone). Its outputs are pinned instead: `FrozenFunctionTests` fails if it
    /// splits any of its recorded credits differently (then this migration needs the old
    /// parser frozen here first).
    private static func v5SaveCredit(_ credit: ArtistCredit, trackID: Int64, replacing: Bool, in db: Database) throws {
        if replacing { try db.execute(sql: "DELETE FROM track_artists WHERE track_id = ?", arguments: [trackID]) }
        for (position, artist) in credit.artists.enumerated() {
            try db.execute(sql: "INSERT INTO track_artists (track_id, position, name, role, listed, mbid) VALUES (?, ?, ?, ?, ?, ?)",
                           arguments: [trackID, position, artist.name, artist.role.rawValue, credit.listed ? 1 : 0, artist.mbid])
        }
    }

    /// A v2 import's credit that listed its artists (Maloja): several names whose join is the text.
    private static func isListedV2Credit(text: String, joined: String?, count: Int) -> Bool {
        count > 1 && joined == text
    }
}
