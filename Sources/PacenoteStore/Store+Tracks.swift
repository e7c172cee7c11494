import Foundation
import GRDB
import PacenoteCore

extension Store {
    /// Inserts a track, or updates the one with the same URI, and returns its id.
    /// A track without a URI (an imported listen) is matched by its normalised artist and title.
    @discardableResult
    public func saveTrack(_ track: Track, at now: Date = Date()) throws(StoreError) -> Int64 {
        try write { db in try Store.saveTrack(track, at: now, in: db) }
    }

    static func saveTrack(_ t: Track, at now: Date, in db: Database) throws -> Int64 {
        let nowMs = milliseconds(now)
        if t.uri == nil {
            if let id = try Int64.fetchOne(
                db, sql: "SELECT id FROM tracks WHERE uri IS NULL AND match_key = ? ORDER BY id LIMIT 1",
                arguments: [t.matchKey]) {
                return id
            }
        }
        let arguments: StatementArguments = [
            t.uri, t.title, t.artist, t.album, t.albumArtist, t.genre, t.date, t.trackNumber, t.discNumber,
            t.durationSeconds, t.musicBrainz.recording, t.musicBrainz.release, t.musicBrainz.artist,
            t.musicBrainz.albumArtist, t.musicBrainz.releaseTrack, t.bpm?.value, t.bpm?.source.rawValue,
            t.bpm?.confidence, t.matchKey, nowMs, nowMs,
        ]
        let statement = try db.cachedStatement(sql: """
            INSERT INTO tracks (uri, title, artist, album, album_artist, genre, date, track_number, disc_number,
                                duration_s, mb_recording_id, mb_release_id, mb_artist_id, mb_album_artist_id,
                                mb_release_track_id, bpm, bpm_source, bpm_confidence, match_key,
                                first_seen_at_ms, updated_at_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (uri) DO UPDATE SET
              title = excluded.title, artist = excluded.artist, album = excluded.album,
              album_artist = excluded.album_artist, genre = excluded.genre, date = excluded.date,
              track_number = excluded.track_number, disc_number = excluded.disc_number,
              duration_s = excluded.duration_s, mb_recording_id = excluded.mb_recording_id,
              mb_release_id = excluded.mb_release_id, mb_artist_id = excluded.mb_artist_id,
              mb_album_artist_id = excluded.mb_album_artist_id, mb_release_track_id = excluded.mb_release_track_id,
              -- A hand-set or analysed BPM is not overwritten by a later library scan without one.
              bpm = COALESCE(excluded.bpm, tracks.bpm),
              bpm_source = CASE WHEN excluded.bpm IS NULL THEN tracks.bpm_source ELSE excluded.bpm_source END,
              bpm_confidence = CASE WHEN excluded.bpm IS NULL THEN tracks.bpm_confidence ELSE excluded.bpm_confidence END,
              match_key = excluded.match_key, in_library = 1, updated_at_ms = excluded.updated_at_ms
            RETURNING id
            """)
        return try Int64.fetchOne(statement, arguments: arguments)!
    }

    /// The track with this id, if any.
    public func track(id: Int64) throws(StoreError) -> Track? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM tracks WHERE id = ?", arguments: [id]).map(Store.track(from:))
        }
    }

    static func track(from row: Row) -> Track {
        var bpm: BPM?
        if let value: Double = row["bpm"], let source = BPM.Source(rawValue: row["bpm_source"] ?? "") {
            bpm = BPM(value: value, source: source, confidence: row["bpm_confidence"])
        }
        return Track(
            id: row["id"], uri: row["uri"], title: row["title"], artist: row["artist"], album: row["album"],
            albumArtist: row["album_artist"], genre: row["genre"], date: row["date"],
            trackNumber: row["track_number"], discNumber: row["disc_number"], durationSeconds: row["duration_s"],
            musicBrainz: MusicBrainzIDs(
                recording: row["mb_recording_id"], release: row["mb_release_id"], artist: row["mb_artist_id"],
                albumArtist: row["mb_album_artist_id"], releaseTrack: row["mb_release_track_id"]),
            bpm: bpm)
    }
}
