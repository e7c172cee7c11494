/// The tracks of an import's listens: found among the stored ones or added, many rows to a statement (`NewTracks`).

import Foundation
import GRDB
import GRDBSQLite
import PacenoteCore

extension ListenImportSession {
    /// Finds or adds the track of each key new in a batch (by match key). Tracks it adds
    /// are left out of the search index, whose trigger is dropped (by the transaction's
    /// first batch that adds one: `dropping`): their ids are returned, for the caller to
    /// index them and create the trigger again in the same transaction.
    func resolveTracks(_ tracks: [ImportBatch.NewTrack], now: Date, dropping: Bool, entityIDs: EntityIDCache,
                       in db: Database) throws -> ClosedRange<Int64>? {
        guard !tracks.isEmpty else { return nil }
        var added: ClosedRange<Int64>?
        var filing = NewTracks(db, now: now)
        defer { filing.forget() }
        // Room for the batch's keys, identities and tracks at once, not grown one at a time.
        let lastKey = Int(tracks.map(\.key).max() ?? -1)
        if lastKey >= refOfKey.count { refOfKey += repeatElement(-1, count: lastKey + 1 - refOfKey.count) }
        refOfIdentity.reserveCapacity(refOfIdentity.count + tracks.count)
        refOfTrackID.reserveCapacity(refOfTrackID.count + tracks.count)
        for new in tracks {
            let k = Int(new.key)
            let hashes = (matchKey: new.matchKeyHash, recording: new.recordingHash)
            let identity = Identity(matchKey: new.matchKey, recording: new.track.musicBrainz.recording, hashes: hashes)
            // New without a look-up: every stored track is this session's, and none can be this
            // one. (An identity in `refOfIdentity` has its hashes noted, so it is not asked for
            // either: on a first import of a wide library, most tracks take this way.)
            let knownNew = knowsEveryTrack == true && !mayBeStored(hashes)
            if !knownNew, let known = refOfIdentity[identity] {
                refOfKey[k] = known
                continue
            }
            var found: [(id: Int64, recording: String?)] = []
            if !knownNew {
                // The look-up must see the tracks this batch has filed so far: written first
                // when one not written yet may have this match key or recording. Only then: a
                // partial statement's rows are written one by one, and a wide first import meets
                // thousands of tracks again after the reader forgot their texts.
                if filing.mayHoldPending(hashes) { try filing.writePending() }
                trackLookUps += 1
                found = try Store.findTrackIdentities(matchKey: new.matchKey, recording: identity.recording, in: db)
            }
            let id: Int64
            var filed: ImportEntityRollups.Entities?
            if let first = found.first {
                id = first.id
                // Plays of the other tracks of one recording (or of none) are this one's for
                // the duplicate check; a track of another recording is not.
                for other in found.dropFirst() where other.recording == first.recording { aliases[other.id] = first.id }
            } else {
                if added == nil && dropping {
                    if ftsTriggerSQL == nil {
                        ftsTriggerSQL = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'tracks_fts_insert'")
                    }
                    guard ftsTriggerSQL != nil else { throw StoreError.sqlite("the trigger tracks_fts_insert is missing") }
                    try db.execute(sql: "DROP TRIGGER tracks_fts_insert")
                }
                let saved = try filing.add(new, hashes: hashes, cache: entityIDs)
                id = saved.id
                filed = ImportEntityRollups.Entities(artists: saved.artists, album: saved.album, genres: saved.genres)
                added = added.map { min($0.lowerBound, id)...max($0.upperBound, id) } ?? id...id
            }
            let index: Int32
            if let known = refOfTrackID[id] {
                index = known
            } else {
                index = Int32(trackIDs.count)
                trackIDs.append(id)
                refOfTrackID[id] = index
                entityOf.append(filed)
            }
            refOfKey[k] = index
            // Should anything else be committed, the look-ups that follow find what this
            // session found for an identity it has met.
            if refOfIdentity.count >= rememberedIdentities { refOfIdentity = [:] }
            refOfIdentity[identity] = index
            noteStored(hashes)
        }
        try filing.finish()
        return added
    }
}

extension ListenImportSession {
    /// Whether a track this session added or found may have this match key or recording
    /// (a hash met: then the store is asked).
    func mayBeStored(_ hashes: (matchKey: Int, recording: Int?)) -> Bool {
        matchKeyHashes.contains(hashes.matchKey) || hashes.recording.map(recordingHashes.contains) == true
    }

    func noteStored(_ hashes: (matchKey: Int, recording: Int?)) {
        matchKeyHashes.insert(hashes.matchKey)
        if let recording = hashes.recording { recordingHashes.insert(recording) }
    }

    /// Writes the plays the rules hid, in the transaction of the batches they came with.
    /// Their tracks are filed as a player's hidden play's are (`Store.insertHiddenPlay`).
    func writeHidden(_ hidden: [ImportBatch.HiddenPlay], now: Date, in db: Database) throws {
        for play in hidden {
            let trackID = try Store.saveTrack(play.track, at: now, in: db)
            // A track filed here is one this session has met too (`knowsEveryTrack`).
            noteStored((play.track.matchKey.hashValue, play.track.musicBrainz.recording?.hashValue))
            _ = try Store.insertHiddenPlay(Play(trackID: trackID, startedAt: Date(timeIntervalSince1970: Double(play.startedAtMs) / 1000),
                                                endedAt: Date(timeIntervalSince1970: Double(play.endedAtMs) / 1000),
                                                playedSeconds: play.playedSeconds, counted: play.counted, source: source,
                                                player: play.player),
                                           localTime: store.localTime, in: db)
        }
    }
}

/// The new tracks of an import's batch, filed as `Store.fileTrack` files a track without a
/// URI that is known to be new (`knownNew`), many rows to a statement (`BulkInsert`): each
/// is given the next id, its album and artists are found or added at once, and its row and
/// its credit's rows are written together at `finish()` (before the batch's plays).
/// One statement of 64 tracks rather than 64 statements: a first import of a library adds
/// a track for nearly every listen.
struct NewTracks {
    private let db: Database
    private let nowMs: Int64
    /// When artists added for credits are created (`Store.saveCredit`'s: the clock's time).
    private let creditsAtMs = Store.milliseconds(Date())
    private var nextID: Int64?
    private let texts = TextArena()
    private var tracks: BulkInsert
    private var credits: BulkInsert
    /// The match-key and recording hashes of the tracks not written yet (at most a statement's).
    private var pendingHashes: [Int] = []
    /// The genres of the tracks not written yet (`track_genres`), written after them.
    private var pendingGenres: [(track: Int64, genres: [Int64])] = []

    init(_ db: Database, now: Date) {
        self.db = db
        nowMs = Store.milliseconds(now)
        // OR IGNORE, as the plays': a statement of many rows that may abort keeps a copy of
        // every page it changes that was there before it (the match keys' and albums' index
        // pages, all over), to undo itself; a row ignored fails the batch instead. Stored from
        // memory (scripts/bench/store-floor.c), 147,554 tracks took 0.55 s so, against 1.3-1.5 s.
        tracks = BulkInsert(db, columns: 22, everyRowChanges: true) { values in
            "INSERT OR IGNORE INTO tracks (\(Self.trackColumns)) VALUES \(values)"
        }
        credits = BulkInsert(db, columns: 7, everyRowChanges: true) { values in
            "INSERT OR IGNORE INTO track_artists (track_id, position, name, role, listed, mbid, artist_id) VALUES \(values)"
        }
    }

    static let trackColumns = """
        id, title, artist, album, album_artist, genre, date, track_number, disc_number, duration_s, mb_recording_id,
        mb_release_id, mb_artist_id, mb_album_artist_id, mb_release_track_id, bpm, bpm_source, bpm_confidence, match_key,
        first_seen_at_ms, updated_at_ms, album_id
        """

    /// Files `new` (no stored track has its identity) and returns its id, the artists its
    /// credit names (each once, in order) and its album.
    mutating func add(_ new: ImportBatch.NewTrack, hashes: (matchKey: Int, recording: Int?),
                      cache: EntityIDCache) throws -> (id: Int64, artists: [Int64], album: Int64?, genres: [Int64]) {
        if nextID == nil { nextID = try (Int64.fetchOne(db, sql: "SELECT max(id) FROM tracks") ?? 0) + 1 }
        let id = nextID!
        nextID = id + 1
        let t = new.track
        let album = try new.album.map { try Store.albumID($0, at: nowMs, cache: cache, in: db) }
        tracks.append(id)
        tracks.append(t.title, in: texts)
        tracks.append(t.artist, in: texts)
        tracks.append(t.album, in: texts)
        tracks.append(t.albumArtist, in: texts)
        tracks.append(t.genre, in: texts)
        tracks.append(t.date, in: texts)
        tracks.append(t.trackNumber.map(Int64.init))
        tracks.append(t.discNumber.map(Int64.init))
        tracks.append(t.durationSeconds)
        tracks.append(t.musicBrainz.recording, in: texts)
        tracks.append(t.musicBrainz.release, in: texts)
        tracks.append(t.musicBrainz.artist, in: texts)
        tracks.append(t.musicBrainz.albumArtist, in: texts)
        tracks.append(t.musicBrainz.releaseTrack, in: texts)
        tracks.append(t.bpm?.value)
        tracks.append(t.bpm?.source.rawValue, in: texts)
        tracks.append(t.bpm?.confidence)
        tracks.append(new.matchKey, in: texts)
        tracks.append(nowMs)
        tracks.append(nowMs)
        tracks.append(album)
        try tracks.endRow()
        if tracks.pendingRows == 0 {
            pendingHashes.removeAll(keepingCapacity: true)
        } else {
            pendingHashes.append(hashes.matchKey)
            if let recording = hashes.recording { pendingHashes.append(recording) }
        }
        // The credit as `Store.saveCredit` writes a new track's: a row per artist, two
        // spellings of one artist (`EntityKey.artist`) one row.
        var artists: [Int64] = []
        if let credit = new.credit {
            let listed = Int64(credit.listed ? 1 : 0)
            for artist in credit.artists {
                let artistID = try Store.artistID(name: artist.name, mbid: artist.mbid, at: creditsAtMs, cache: cache, in: db)
                guard !artists.contains(artistID) else { continue }
                credits.append(id)
                credits.append(Int64(artists.count))
                credits.append(artist.name, in: texts)
                credits.append(artist.role.rawValue, in: texts)
                credits.append(listed)
                credits.append(artist.mbid, in: texts)
                credits.append(artistID)
                try credits.endRow()
                artists.append(artistID)
            }
        }
        // Its genres, as `Store.saveGenres` files a new track's: written after its row.
        var genres: [Int64] = []
        for name in t.genres {
            let genreID = try Store.genreID(name: name, at: creditsAtMs, cache: cache, in: db)
            if !genres.contains(genreID) { genres.append(genreID) }
        }
        if !genres.isEmpty { pendingGenres.append((id, genres)) }
        return (id, artists, album, genres)
    }

    /// Writes the genres of the tracks written so far.
    private mutating func writeGenres() throws {
        guard !pendingGenres.isEmpty else { return }
        let insert = try RawStatement(db, "INSERT INTO track_genres (track_id, position, genre_id) VALUES (?1, ?2, ?3)")
        for (track, genres) in pendingGenres {
            for (position, genre) in genres.enumerated() {
                insert.bind(1, track)
                insert.bind(2, Int64(position))
                insert.bind(3, genre)
                _ = try insert.step()
                insert.reset()
            }
        }
        pendingGenres.removeAll(keepingCapacity: true)
    }

    /// Whether a track not written yet may have this match key or recording (a hash met).
    func mayHoldPending(_ hashes: (matchKey: Int, recording: Int?)) -> Bool {
        pendingHashes.contains(hashes.matchKey) || hashes.recording.map(pendingHashes.contains) == true
    }

    /// Writes the rows filed so far, for a look-up to see them.
    mutating func writePending() throws {
        try tracks.writePending()
        try credits.writePending()
        try writeGenres()
        pendingHashes.removeAll(keepingCapacity: true)
    }

    /// Writes the rows not written yet.
    mutating func finish() throws {
        try tracks.finish()
        try credits.finish()
        try writeGenres()
    }

    /// Forgets the texts bound (they go with the arena) if `finish()` was not reached.
    mutating func forget() {
        tracks.forgetBindings()
        credits.forgetBindings()
    }
}
