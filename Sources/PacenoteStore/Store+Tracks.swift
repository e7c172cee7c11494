import Foundation
import GRDB
import GRDBSQLite
import PacenoteCore

extension Store {
    /// Inserts a track, or updates the one with the same URI, and returns its id; its
    /// credit (`track_artists`) is written with it.
    /// A track without a URI (a submitted or imported listen, a stream title) is the stored
    /// track with its MusicBrainz recording id, if it has one; else the stored track with the
    /// same normalised artist and title — a file in the library first — whose recording id
    /// is not another one (`findTrack`). It is not changed by it.
    @discardableResult
    public func saveTrack(_ track: Track, at now: Date = Date()) throws(StoreError) -> Int64 {
        try write { db in try Store.saveTrack(track, at: now, in: db) }
    }

    /// `knownNew`: the caller has just found no track with this match key (the bulk import),
    /// so a track without a URI is not looked up again. `matchKey`: `t.matchKey`, when the
    /// caller has it. Bound through SQLite's C API (`RawStatement`): a library mirror or an
    /// import saves tens of thousands of tracks, and GRDB's boxed arguments took as long as
    /// the insert.
    /// Its album (`albums`) is found or added by `Track.albumIdentity`, its artists
    /// (`artists`) by name with its credit. `credit`: with `knownNew`, the credit the caller
    /// parsed (the bulk import's reader); otherwise it is split here.
    static func saveTrack(_ t: Track, at now: Date, knownNew: Bool = false, matchKey: String? = nil,
                          credit parsed: ArtistCredit? = nil, in db: Database) throws -> Int64 {
        try fileTrack(t, at: now, knownNew: knownNew, matchKey: matchKey, credit: parsed, in: db).id
    }

    /// `saveTrack`, with the album and artists the track was filed under (nil when an
    /// existing track was found and left as it was).
    /// `album`: with `knownNew`, `t.albumIdentity` as the caller computed it (the bulk
    /// import's reader, on its own thread).
    static func fileTrack(_ t: Track, at now: Date, knownNew: Bool = false, matchKey: String? = nil,
                          credit parsed: ArtistCredit? = nil, album parsedAlbum: AlbumIdentity? = nil,
                          cache: EntityIDCache? = nil, in db: Database) throws -> (id: Int64, album: Int64?, artists: [Int64]?, genres: [Int64]?) {
        let nowMs = milliseconds(now)
        let matchKey = matchKey ?? t.matchKey
        if t.uri == nil && !knownNew, let id = try findTracks(matchKey: matchKey, recording: t.musicBrainz.recording, in: db).first {
            return (id, nil, nil, nil)
        }
        let album = try (knownNew ? parsedAlbum : t.albumIdentity).map { try Store.albumID($0, at: nowMs, cache: cache, in: db) }
        // A file moving to another album takes its plays along in the album rollups.
        var movingAlbum: Int64?
        if let uri = t.uri, let stored = try Row.fetchOne(db.cachedStatement(sql: "SELECT id, album_id FROM tracks WHERE uri = ?"),
                                                           arguments: [uri]), (stored[1] as Int64?) != album {
            movingAlbum = stored[0]
            try EntityRollups.move(track: stored[0], entity: "album", adding: false, in: db)
        }
        // Without a URI nothing conflicts (NULLs are distinct): a plain insert, whose id is
        // the last rowid, spares RETURNING's temporary table (a bulk import adds ~100,000 tracks).
        let insert = try RawStatement(db, t.uri == nil ? Self.insertTrackSQL : Self.upsertTrackSQL)
        insert.bind(1, t.uri)
        insert.bind(2, t.title)
        insert.bind(3, t.artist)
        insert.bind(4, t.album)
        insert.bind(5, t.albumArtist)
        insert.bind(6, t.genre)
        insert.bind(7, t.date)
        insert.bind(8, t.trackNumber.map(Int64.init))
        insert.bind(9, t.discNumber.map(Int64.init))
        insert.bind(10, t.durationSeconds)
        insert.bind(11, t.musicBrainz.recording)
        insert.bind(12, t.musicBrainz.release)
        insert.bind(13, t.musicBrainz.artist)
        insert.bind(14, t.musicBrainz.albumArtist)
        insert.bind(15, t.musicBrainz.releaseTrack)
        insert.bind(16, t.bpm?.value)
        insert.bind(17, t.bpm?.source.rawValue)
        insert.bind(18, t.bpm?.confidence)
        insert.bind(19, matchKey)
        insert.bind(20, nowMs)
        insert.bind(21, album)
        let id: Int64
        if t.uri == nil {
            _ = try insert.step()
            id = sqlite3_last_insert_rowid(db.sqliteConnection)
        } else {
            guard try insert.step() else { throw StoreError.sqlite("saving a track returned no id") }
            id = insert.int64(0)
            insert.reset()
        }
        if let movingAlbum { try EntityRollups.move(track: movingAlbum, entity: "album", adding: true, in: db) }
        let artists: [Int64]
        if knownNew {
            artists = try parsed.map { try saveCredit($0, trackID: id, newTrack: true, cache: cache, in: db) } ?? []
        } else if let credit = t.credit(separators: try creditSeparators(in: db)) {
            artists = try saveCredit(credit, trackID: id, in: db)
        } else {
            try EntityRollups.move(track: id, entity: "artist", adding: false, in: db)
            try db.cachedStatement(sql: "DELETE FROM track_artists WHERE track_id = ?").execute(arguments: [id])
            artists = []
        }
        // Its genres (`track_genres`), as its credit: a new track's written with it.
        let genres = try Store.saveGenres(t.genres, trackID: id, newTrack: knownNew, cache: cache, in: db)
        // A track merged into another (`Store.merge`) is an alias: its plays go to the kept one.
        if !knownNew, let kept = try Int64.fetchOne(db.cachedStatement(sql: "SELECT merged_into FROM tracks WHERE id = ?"), arguments: [id]) {
            return (kept, nil, nil, nil)
        }
        return (id, album, artists, genres)
    }

    static let insertTrackSQL = """
        INSERT INTO tracks (uri, title, artist, album, album_artist, genre, date, track_number, disc_number,
                            duration_s, mb_recording_id, mb_release_id, mb_artist_id, mb_album_artist_id,
                            mb_release_track_id, bpm, bpm_source, bpm_confidence, match_key,
                            first_seen_at_ms, updated_at_ms, album_id)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?20, ?21)
        """
    /// A file's track (by URI) is updated in place.
    static let upsertTrackSQL = insertTrackSQL + """

        ON CONFLICT (uri) DO UPDATE SET
          title = excluded.title, artist = excluded.artist, album = excluded.album,
          album_artist = excluded.album_artist, genre = excluded.genre, date = excluded.date,
          track_number = excluded.track_number, disc_number = excluded.disc_number,
          duration_s = excluded.duration_s, mb_recording_id = excluded.mb_recording_id,
          mb_release_id = excluded.mb_release_id, mb_artist_id = excluded.mb_artist_id,
          mb_album_artist_id = excluded.mb_album_artist_id, mb_release_track_id = excluded.mb_release_track_id,
          -- A known BPM is kept: it changes only through setBPM, which weighs its source.
          bpm = COALESCE(tracks.bpm, excluded.bpm),
          bpm_source = CASE WHEN tracks.bpm IS NULL THEN excluded.bpm_source ELSE tracks.bpm_source END,
          bpm_confidence = CASE WHEN tracks.bpm IS NULL THEN excluded.bpm_confidence ELSE tracks.bpm_confidence END,
          match_key = excluded.match_key, updated_at_ms = excluded.updated_at_ms, album_id = excluded.album_id
        RETURNING id
        """

    /// The stored tracks a listen without a URI may be, best first: with a recording id,
    /// those with that id; else (or when none has it) those with the match key and no other
    /// recording id. A file in the library comes first.
    static func findTracks(matchKey: String, recording: String?, in db: Database) throws -> [Int64] {
        try findTrackIdentities(matchKey: matchKey, recording: recording, in: db).map(\.id)
    }

    /// `findTracks` with each track's recording id.
    static func findTrackIdentities(matchKey: String, recording: String?, in db: Database) throws -> [(id: Int64, recording: String?)] {
        var ids: [(id: Int64, recording: String?)] = []
        if let recording {
            let byID = try RawStatement(db, "SELECT COALESCE(merged_into, id), mb_recording_id FROM tracks WHERE mb_recording_id = ?1 ORDER BY uri IS NULL, in_library DESC, id")
            byID.bind(1, recording)
            while try byID.step() { ids.append((byID.int64(0), byID.text(1))) }
            byID.reset()
            if !ids.isEmpty { return ids }
        }
        let find = try RawStatement(db, recording == nil
            ? "SELECT COALESCE(merged_into, id), mb_recording_id FROM tracks WHERE match_key = ?1 ORDER BY uri IS NULL, in_library DESC, id"
            : "SELECT COALESCE(merged_into, id), mb_recording_id FROM tracks WHERE match_key = ?1 AND mb_recording_id IS NULL ORDER BY uri IS NULL, in_library DESC, id")
        find.bind(1, matchKey)
        while try find.step() { ids.append((find.int64(0), find.text(1))) }
        find.reset()
        return ids
    }

    /// Sets (or clears) a track's BPM unless it already has one from a more trusted source
    /// (manual > tag > sticker > analysis > import). `replacingSource` also lets a value
    /// from that same source be replaced or cleared (a re-tagged file, a removed sticker).
    public func setBPM(trackID: Int64, _ bpm: BPM?) throws(StoreError) {
        try write { db in try Store.setBPM(trackID: trackID, bpm, in: db) }
    }

    static func setBPM(trackID: Int64, _ bpm: BPM?, clearingSource: BPM.Source? = nil, in db: Database) throws {
        if let bpm {
            try db.cachedStatement(sql: """
                UPDATE tracks SET bpm = ?2, bpm_source = ?3, bpm_confidence = ?4
                WHERE id = ?1 AND (bpm IS NULL OR bpm_source = ?3 OR \(rank("bpm_source")) <= \(rank("?3")))
                """).execute(arguments: [trackID, bpm.value, bpm.source.rawValue, bpm.confidence])
        } else if let clearingSource {
            try db.cachedStatement(sql: """
                UPDATE tracks SET bpm = NULL, bpm_source = NULL, bpm_confidence = NULL
                WHERE id = ?1 AND bpm_source = ?2
                """).execute(arguments: [trackID, clearingSource.rawValue])
        }
    }

    /// Sets how clear a track's beat is (0…1); false when there is no such track.
    public func setBeatConfidence(trackID: Int64, _ value: Double) throws(StoreError) -> Bool {
        try write { db in
            try db.cachedStatement(sql: "UPDATE tracks SET beat_confidence = ? WHERE id = ?").execute(arguments: [value, trackID])
            return db.changesCount > 0
        }
    }

    /// Sets a track's measured loudness (LUFS) and loudness range (LU); false when there is no
    /// such track. Operations validates both first.
    public func setLoudness(trackID: Int64, lufs: Double, rangeLU: Double) throws(StoreError) -> Bool {
        try write { db in
            try db.cachedStatement(sql: "UPDATE tracks SET loudness_lufs = ?, loudness_range_lu = ? WHERE id = ?")
                .execute(arguments: [lufs, rangeLU, trackID])
            return db.changesCount > 0
        }
    }

    /// How much a BPM source is trusted, as SQL.
    static func rank(_ column: String) -> String {
        "(CASE \(column) WHEN 'manual' THEN 5 WHEN 'tag' THEN 4 WHEN 'sticker' THEN 3 WHEN 'analysis' THEN 2 WHEN 'import' THEN 1 ELSE 0 END)"
    }

    /// The track with this id, if any.
    public func track(id: Int64) throws(StoreError) -> Track? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT \(Store.trackColumns("tracks")) FROM tracks WHERE id = ?", arguments: [id])
                .map { Store.track(from: $0) }
        }
    }

    /// The track columns `track(from:at:)` reads, in its order, for a SELECT list. The
    /// artist is the one shown (`shownArtist`): a merged name reads as the kept one.
    static func trackColumns(_ table: String) -> String {
        ["id", "uri", "title", "artist", "album", "album_artist", "genre", "date", "track_number", "disc_number",
         "duration_s", "mb_recording_id", "mb_release_id", "mb_artist_id", "mb_album_artist_id", "mb_release_track_id",
         "bpm", "bpm_source", "bpm_confidence", "album_id", "beat_confidence",
         "loudness_lufs", "loudness_range_lu"].map { $0 == "artist" ? shownArtist("\(table).artist") : "\(table).\($0)" }
            .joined(separator: ", ")
    }

    /// An SQL expression for the artist text in `column` as pages, exports and reviews show
    /// it: the kept artist's name when that text names an artist merged into another, else
    /// the text as tagged (issue 52, row 8). Resolved when read, not written over the
    /// tags: MPD's next report of the file would bring the old spelling back, and an undo
    /// has nothing to restore. A credit of several ("Kinks feat. X") is shown as tagged.
    /// The uncorrelated subqueries are evaluated once per statement: without any merged
    /// artist (most databases) a row costs nothing more. Plain ASCII text (no doubled or
    /// outer spaces) is its own key once lower-cased, which SQLite does in C; only other
    /// text goes through `pacenote_artist_key` — called for every row, it made a 200,000-play
    /// export 50 % slower (debug build).
    static func shownArtist(_ column: String) -> String {
        let merged = "SELECT name_key FROM artists WHERE merged_into IS NOT NULL"
        let kept = "SELECT pn_kept.name FROM artists pn_alias JOIN artists pn_kept ON pn_kept.id = pn_alias.merged_into WHERE pn_alias.name_key ="
        return """
            CASE WHEN NOT EXISTS (\(merged)) THEN \(column)
            WHEN lower(\(column)) IN (\(merged)) THEN (\(kept) lower(\(column)))
            WHEN \(column) GLOB '*[^ -~]*' OR \(column) GLOB '*  *' OR \(column) GLOB ' *' OR \(column) GLOB '* '
            THEN COALESCE((\(kept) pacenote_artist_key(\(column))), \(column))
            ELSE \(column) END
            """
    }

    /// `pacenote_artist_key(text)`: `EntityKey.artist` in SQL, for `shownArtist`.
    static func artistKeyFunction() -> DatabaseFunction {
        DatabaseFunction("pacenote_artist_key", argumentCount: 1, pure: true) { values in
            guard let text = String.fromDatabaseValue(values[0]) else { return nil }
            return EntityKey.artist(text)
        }
    }
    static let trackColumnCount = 23

    /// The same from a statement's current row, read through the C API.
    static func track(from row: RawStatement, at i: Int32) -> Track {
        var bpm: BPM?
        if let value = row.optionalDouble(i + 16), let source = BPM.Source(rawValue: row.text(i + 17) ?? "") {
            bpm = BPM(value: value, source: source, confidence: row.optionalDouble(i + 18))
        }
        return Track(
            id: row.int64(i), uri: row.text(i + 1), title: row.text(i + 2) ?? "", artist: row.text(i + 3), album: row.text(i + 4),
            albumArtist: row.text(i + 5), genre: row.text(i + 6), date: row.text(i + 7),
            trackNumber: row.optionalInt(i + 8), discNumber: row.optionalInt(i + 9), durationSeconds: row.optionalDouble(i + 10),
            musicBrainz: MusicBrainzIDs(
                recording: row.text(i + 11), release: row.text(i + 12), artist: row.text(i + 13),
                albumArtist: row.text(i + 14), releaseTrack: row.text(i + 15)),
            bpm: bpm, albumID: row.optionalInt64(i + 19), beatConfidence: row.optionalDouble(i + 20),
            loudnessLUFS: row.optionalDouble(i + 21), loudnessRangeLU: row.optionalDouble(i + 22))
    }

    /// A track from the columns `trackColumns` selected, starting at column `i`. Read by
    /// position: looking columns up by name was a fifth of the listens endpoint's time.
    static func track(from row: Row, at i: Int = 0) -> Track {
        var bpm: BPM?
        if let value: Double = row[i + 16], let source = BPM.Source(rawValue: row[i + 17] ?? "") {
            bpm = BPM(value: value, source: source, confidence: row[i + 18])
        }
        return Track(
            id: row[i], uri: row[i + 1], title: row[i + 2], artist: row[i + 3], album: row[i + 4],
            albumArtist: row[i + 5], genre: row[i + 6], date: row[i + 7],
            trackNumber: row[i + 8], discNumber: row[i + 9], durationSeconds: row[i + 10],
            musicBrainz: MusicBrainzIDs(
                recording: row[i + 11], release: row[i + 12], artist: row[i + 13],
                albumArtist: row[i + 14], releaseTrack: row[i + 15]),
            bpm: bpm, albumID: row[i + 19], beatConfidence: row[i + 20],
            loudnessLUFS: row[i + 21], loudnessRangeLU: row[i + 22])
    }
}
