/// Merges of tracks, artists and albums, their replay from an export, and suggestions of likely duplicates.

import Foundation
import GRDB
import PacenoteCore

extension Store {
    // MARK: Merges

    /// Merges `from` into `into`: tracks (their plays move), artists (the credits naming
    /// them), albums (their tracks, those of the same title merged into the kept album's).
    /// The merged ones stay as aliases (`merged_into`), whatever names them later lands on
    /// `into`. One transaction: it happens whole or not at all.
    /// `aliasKeys`: artists' keys to add as aliases of `into` with the merge (a replay whose
    /// merged names the export no longer carries: `replayMerge`).
    public func merge(_ kind: MergeKind, from: [Int64], into: Int64, request: String, source: String,
                      at now: Date = Date(), aliasKeys: [String] = []) throws(StoreError) -> CurationEntry {
        try write { db in
            let aliases = try Store.addArtists(keys: kind == .artist ? aliasKeys : [], at: now, in: db)
            let from = Array(Set(from + aliases)).sorted()
            guard !from.isEmpty else { throw StoreError.refused(.nothingToMerge, "'from' names nothing to merge") }
            guard !from.contains(into) else { throw StoreError.refused(.mergeIntoItself, "cannot merge \(kind.rawValue) \(into) into itself") }
            let table = kind.table
            var names: [Int64: String] = [:], keys: [Int64: String] = [:]
            for id in from + [into] {
                guard let row = try Row.fetchOne(db, sql: "SELECT \(kind.nameColumn), merged_into, \(kind.keyColumn) FROM \(table) WHERE id = ?",
                                                 arguments: [id]) else {
                    throw StoreError.refused(.missing, "no \(kind.rawValue) \(id)")
                }
                if let kept = row[1] as Int64? {
                    throw StoreError.refused(.alreadyMerged, "\(kind.rawValue) \(id) was merged into \(kind.rawValue) \(kept) already")
                }
                names[id] = row[0]
                keys[id] = row[2]
            }
            var undo = CurationUndo()
            // Gone again with an undo, as a play's new artist is.
            undo.created.artists = aliases
            var touches = Set((from + [into]).map { "\(kind.rawValue):\($0)" })
            var albumsMerged = 0
            switch kind {
            case .track:
                for f in from { try Store.mergeTrack(f, into: into, undo: &undo, touches: &touches, in: db) }
            case .artist:
                try Store.mergeArtists(from, into: into, undo: &undo, touches: &touches, in: db)
                albumsMerged = try Store.mergeSameTitleAlbums(ofArtist: into, undo: &undo, touches: &touches, in: db)
            case .album:
                try Store.mergeAlbums(from, into: into, undo: &undo, touches: &touches, in: db)
            case .genre:
                try Store.mergeGenres(from, into: into, undo: &undo, in: db)
            }
            // The entities' keys go with the request: ids are this database's, keys follow from
            // the names, so a database rebuilt from an export replays the merge (`replayMerge`).
            let replayable = Store.addingKeys(to: request, kind: kind, from: from.compactMap { keys[$0] }, into: keys[into] ?? "")
            let facts = CurationFacts.merged(kind: kind.rawValue, names: from.map { names[$0] ?? "" }, into: names[into] ?? "",
                                             albums: albumsMerged)
            return try Store.log(.merge, facts: facts, request: replayable,
                                 undo: undo, touches: touches, source: source, at: now, in: db)
        }
    }

    /// `request` (JSON text) with `"merge": {"kind", "from_keys", "into_key"}` added.
    static func addingKeys(to request: String, kind: MergeKind, from: [String], into: String) -> String {
        var object = (try? JSONSerialization.jsonObject(with: Data(request.utf8))) as? [String: Any] ?? [:]
        var merge = object["merge"] as? [String: Any] ?? [:]
        merge["kind"] = kind.rawValue
        merge["from_keys"] = from
        merge["into_key"] = into
        object["merge"] = merge
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return request }
        return String(decoding: data, as: UTF8.self)
    }

    /// Replays an exported merge in this database: the entities its keys name, merged as
    /// then. Nil when it does not apply here (a side missing, or merged already).
    public func replayMerge(request: String, source: String, at now: Date = Date()) throws(StoreError) -> CurationEntry? {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(request.utf8))) as? [String: Any],
              let merge = object["merge"] as? [String: Any], let kind = (merge["kind"] as? String).flatMap(MergeKind.init(rawValue:)),
              let fromKeys = merge["from_keys"] as? [String], let intoKey = merge["into_key"] as? String else {
            throw StoreError.refused(.notAnExportedMerge, "not a merge Pacenote exported")
        }
        let ids: (from: [Int64], into: Int64?, absent: [String]) = try read { db in
            func find(_ key: String) throws -> Int64? {
                try Int64.fetchOne(db, sql: """
                    SELECT id FROM \(kind.table) WHERE \(kind.keyColumn) = ? AND merged_into IS NULL ORDER BY id LIMIT 1
                    """, arguments: [key])
            }
            // An export shows merged artists' plays under the kept name, so a rebuilt
            // database has no artist of the merged name: it comes back as the alias it was.
            let absent = kind != .artist ? [] : try fromKeys.filter {
                try Bool.fetchOne(db, sql: "SELECT NOT EXISTS (SELECT 1 FROM artists WHERE name_key = ?)", arguments: [$0]) == true
            }
            return (try fromKeys.compactMap(find), try find(intoKey), absent)
        }
        guard let into = ids.into, !ids.from.isEmpty || !ids.absent.isEmpty, !ids.from.contains(into) else { return nil }
        return try self.merge(kind, from: ids.from, into: into, request: request, source: source, at: now, aliasKeys: ids.absent)
    }

    /// Moves one track's plays, pins, BPM and like to `into` and makes it an alias of it.
    /// A play of both at the same instant (one listen logged twice) is kept once.
    static func mergeTrack(_ f: Int64, into: Int64, undo: inout CurationUndo, touches: inout Set<String>, in db: Database) throws {
        let intoStarts = try Set(Int64.fetchAll(db, sql: "SELECT started_at_ms FROM plays WHERE track_id = ?", arguments: [into]))
        let plays = try Row.fetchAll(db, sql: "SELECT id, started_at_ms FROM plays WHERE track_id = ?", arguments: [f])
        var moved: [Int64] = []
        for row in plays {
            let id: Int64 = row[0]
            if intoStarts.contains(row[1]) {
                undo.restorePlays.append(try StoredRow.fetch(table: "plays", id: id, in: db))
                try db.execute(sql: "DELETE FROM plays WHERE id = ?", arguments: [id])
            } else {
                moved.append(id)
            }
        }
        try movePlays(of: f, to: into, ids: nil, in: db)
        if !moved.isEmpty { undo.movedPlays.append(.init(track: f, plays: moved, into: into)) }
        // Its hidden plays too (a hide rule's): shown again one day, they are the kept one's.
        let hidden = try Int64.fetchAll(db, sql: """
            SELECT id FROM hidden_plays h WHERE track_id = ?1
              AND NOT EXISTS (SELECT 1 FROM hidden_plays k WHERE k.track_id = ?2 AND k.started_at_ms = h.started_at_ms)
            """, arguments: [f, into])
        for id in hidden { try db.execute(sql: "UPDATE hidden_plays SET track_id = ? WHERE id = ?", arguments: [into, id]) }
        if !hidden.isEmpty { undo.movedHidden.append(.init(track: f, plays: hidden, into: into)) }
        // The kept track's BPM and like win; the merged one's fill what it lacks.
        if try Bool.fetchOne(db, sql: "SELECT bpm IS NULL FROM tracks WHERE id = ?", arguments: [into]) == true,
           try Bool.fetchOne(db, sql: "SELECT bpm IS NOT NULL FROM tracks WHERE id = ?", arguments: [f]) == true {
            try db.execute(sql: """
                UPDATE tracks SET (bpm, bpm_source, bpm_confidence) = (SELECT bpm, bpm_source, bpm_confidence FROM tracks WHERE id = ?)
                WHERE id = ?
                """, arguments: [f, into])
            undo.clearBPM.append(into)
        }
        if try Bool.fetchOne(db, sql: """
            SELECT NOT EXISTS (SELECT 1 FROM track_feelings WHERE track_id = ?) AND EXISTS (SELECT 1 FROM track_feelings WHERE track_id = ?)
            """, arguments: [into, f]) == true {
            try db.execute(sql: """
                INSERT INTO track_feelings (track_id, feeling, source, updated_at_ms)
                SELECT ?, feeling, source, updated_at_ms FROM track_feelings WHERE track_id = ?
                """, arguments: [into, f])
            undo.removeFeelings.append(into)
        }
        for day in try String.fetchAll(db, sql: "SELECT day FROM sotd_pins WHERE track_id = ?", arguments: [f]) {
            undo.pins.append(.init(day: day, track: f))
        }
        try db.execute(sql: "UPDATE sotd_pins SET track_id = ? WHERE track_id = ?", arguments: [into, f])
        try db.execute(sql: "UPDATE open_plays SET track_id = ? WHERE track_id = ?", arguments: [into, f])
        try pointAliases(table: "tracks", from: f, into: into, undo: &undo, in: db)
        touches.formUnion(["track:\(f)", "track:\(into)"])
    }

    /// Re-points every credit of `from` to `into` (a track that credited both keeps one
    /// credit), then sums both sides' rollups again.
    static func mergeArtists(_ from: [Int64], into: Int64, undo: inout CurationUndo, touches: inout Set<String>, in db: Database) throws {
        let credits = try Row.fetchAll(db, sql: """
            SELECT track_id, position, artist_id FROM track_artists WHERE artist_id IN (\(from.map(String.init).joined(separator: ",")))
            ORDER BY track_id, position
            """)
        var credited = try Set(Int64.fetchAll(db, sql: "SELECT track_id FROM track_artists WHERE artist_id = ?", arguments: [into]))
        for row in credits {
            let track: Int64 = row[0], position: Int64 = row[1], artist: Int64 = row[2]
            if credited.contains(track) {
                undo.restoreCredits.append(try StoredRow.fetch(db, sql: "SELECT * FROM track_artists WHERE track_id = ? AND position = ?",
                                                               arguments: [track, position]))
                try db.execute(sql: "DELETE FROM track_artists WHERE track_id = ? AND position = ?", arguments: [track, position])
            } else {
                credited.insert(track)
                undo.credits.append(.init(track: track, position: position, artist: artist))
                try db.execute(sql: "UPDATE track_artists SET artist_id = ? WHERE track_id = ? AND position = ?",
                               arguments: [into, track, position])
            }
        }
        for f in from { try pointAliases(table: "artists", from: f, into: into, undo: &undo, in: db) }
        undo.refileArtists = from.map { .init(from: $0, into: into) }
        undo.recomputeArtists = from + [into]
        try recomputeEntityRollups(entity: "artist", ids: undo.recomputeArtists, in: db)
        try bumpEntityGeneration(in: db)
        _ = touches
    }

    /// Re-points every track filed under a genre of `from` to `into` (a track under both
    /// keeps one link), then sums both sides' rollups again. Case variants need no merge:
    /// they are one genre by their key (`EntityKey.genre`).
    static func mergeGenres(_ from: [Int64], into: Int64, undo: inout CurationUndo, in db: Database) throws {
        let links = try Row.fetchAll(db, sql: """
            SELECT track_id, position, genre_id FROM track_genres WHERE genre_id IN (\(from.map(String.init).joined(separator: ",")))
            ORDER BY track_id, position
            """)
        var filed = try Set(Int64.fetchAll(db, sql: "SELECT track_id FROM track_genres WHERE genre_id = ?", arguments: [into]))
        var moved: [CurationUndo.GenreLink] = [], removed: [StoredRow] = []
        for row in links {
            let track: Int64 = row[0], position: Int64 = row[1], genre: Int64 = row[2]
            if filed.contains(track) {
                removed.append(try StoredRow.fetch(db, sql: "SELECT * FROM track_genres WHERE track_id = ? AND position = ?",
                                                   arguments: [track, position]))
                try db.execute(sql: "DELETE FROM track_genres WHERE track_id = ? AND position = ?", arguments: [track, position])
            } else {
                filed.insert(track)
                moved.append(.init(track: track, position: position, genre: genre))
                try db.execute(sql: "UPDATE track_genres SET genre_id = ? WHERE track_id = ? AND position = ?",
                               arguments: [into, track, position])
            }
        }
        for f in from { try pointAliases(table: "genres", from: f, into: into, undo: &undo, in: db) }
        undo.genreLinks = moved
        undo.restoreGenreLinks = removed
        undo.recomputeGenres = from + [into]
        try recomputeEntityRollups(entity: "genre", ids: from + [into], in: db)
        try bumpEntityGeneration(in: db)
    }

    /// Moves the albums' tracks to `into`; a track whose title the kept album already has
    /// is merged into that track.
    static func mergeAlbums(_ from: [Int64], into: Int64, undo: inout CurationUndo, touches: inout Set<String>, in db: Database) throws {
        var byTitle: [String: Int64] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, title FROM tracks WHERE album_id = ? AND merged_into IS NULL ORDER BY id", arguments: [into]) {
            let key = MatchKey.make(artist: nil, title: row[1])
            if byTitle[key] == nil { byTitle[key] = row[0] }
        }
        let tracks = try Row.fetchAll(db, sql: """
            SELECT id, title, album_id, merged_into FROM tracks WHERE album_id IN (\(from.map(String.init).joined(separator: ","))) ORDER BY id
            """)
        for row in tracks {
            let id: Int64 = row[0], album: Int64 = row[2]
            if (row[3] as Int64?) == nil, let same = byTitle[MatchKey.make(artist: nil, title: row[1])] {
                try mergeTrack(id, into: same, undo: &undo, touches: &touches, in: db)
            }
            undo.trackAlbums.append(.init(track: id, album: album))
            try db.execute(sql: "UPDATE tracks SET album_id = ? WHERE id = ?", arguments: [into, id])
            touches.insert("track:\(id)")
        }
        for f in from { try pointAliases(table: "albums", from: f, into: into, undo: &undo, in: db) }
        undo.recomputeAlbums += from + [into]
        try recomputeEntityRollups(entity: "album", ids: undo.recomputeAlbums, in: db)
        try bumpEntityGeneration(in: db)
    }

    /// Moves plays from track `from` to `to` (all of them, or those of `ids`) as one
    /// statement with the update triggers set aside, then sums both tracks' rollups and
    /// their artists' and albums' again from their plays: a merge of 100,000 plays row by
    /// row through the triggers took 20 s (scripts/bench/merge), this a second.
    static func movePlays(of from: Int64, to: Int64, ids: [Int64]?, in db: Database) throws {
        let entities = try trackEntities([from, to], in: db)
        try withoutPlayUpdateTriggers(in: db) {
            if let ids {
                for chunk in stride(from: 0, to: ids.count, by: 500) {
                    let list = ids[chunk..<min(chunk + 500, ids.count)].map(String.init).joined(separator: ",")
                    try db.execute(sql: "UPDATE plays SET track_id = ? WHERE track_id = ? AND id IN (\(list))", arguments: [to, from])
                }
            } else {
                try db.execute(sql: "UPDATE plays SET track_id = ? WHERE track_id = ?", arguments: [to, from])
            }
        }
        try recomputeTrackRollups([from, to], in: db)
        try recomputeEntityRollups(entity: "artist", ids: entities.artists, in: db)
        try recomputeEntityRollups(entity: "album", ids: entities.albums, in: db)
        try recomputeEntityRollups(entity: "genre", ids: trackGenres([from, to], in: db), in: db)
    }

    /// The genres some tracks are filed under.
    static func trackGenres(_ tracks: [Int64], in db: Database) throws -> [Int64] {
        let list = tracks.map(String.init).joined(separator: ",")
        return try Int64.fetchAll(db, sql: "SELECT DISTINCT genre_id FROM track_genres WHERE track_id IN (\(list))")
    }

    /// The artists credited on and the albums of some tracks.
    static func trackEntities(_ tracks: [Int64], in db: Database) throws -> (artists: [Int64], albums: [Int64]) {
        let list = tracks.map(String.init).joined(separator: ",")
        return (try Int64.fetchAll(db, sql: "SELECT DISTINCT artist_id FROM track_artists WHERE track_id IN (\(list)) AND artist_id IS NOT NULL"),
                try Int64.fetchAll(db, sql: "SELECT DISTINCT album_id FROM tracks WHERE id IN (\(list)) AND album_id IS NOT NULL"))
    }

    /// Makes `from` (and whatever was merged into it before) point at `into`.
    static func pointAliases(table: String, from: Int64, into: Int64, undo: inout CurationUndo, in db: Database) throws {
        for id in try Int64.fetchAll(db, sql: "SELECT id FROM \(table) WHERE merged_into = ?", arguments: [from]) {
            undo.aliases.append(.init(table: table, id: id, mergedInto: from))
        }
        undo.aliases.append(.init(table: table, id: from, mergedInto: nil))
        try db.execute(sql: "UPDATE \(table) SET merged_into = ? WHERE merged_into = ? OR id = ?", arguments: [into, from, from])
    }

    /// Likely duplicates among tracks, artists and albums not merged yet (`MergeSuggestion`).
    public func mergeSuggestions(limit: Int) throws(StoreError) -> [MergeSuggestion] {
        try read { db in
            let artists = try Row.fetchAll(db, sql: """
                SELECT a.id, a.name, COALESCE(r.plays, 0) FROM artists a LEFT JOIN rollup_artist_total r ON r.artist_id = a.id
                WHERE a.merged_into IS NULL
                """).map { row -> (name: MergeSuggestion.Name, key: String) in
                (MergeSuggestion.Name(id: row[0], name: row[1], plays: row[2]), MergeSuggestion.artistKey(row[1]))
            }
            let albums = try Row.fetchAll(db, sql: """
                SELECT a.id, a.title, a.artist, COALESCE(r.plays, 0) FROM albums a LEFT JOIN rollup_album_total r ON r.album_id = a.id
                WHERE a.merged_into IS NULL
                """).map { row -> (name: MergeSuggestion.Name, key: String) in
                let artist: String? = row[2], title: String = row[1]
                // The artist with the title: two albums of one title by spellings of one artist
                // read "Kinks – Village" and "The Kinks – Village", not "Village" twice.
                return (MergeSuggestion.Name(id: row[0], name: artist.map { "\($0) – \(title)" } ?? title, plays: row[3]),
                        MergeSuggestion.albumKey(artist: artist, title: title))
            }
            // Tracks that were played: a library's unplayed files are not worth a merge.
            let tracks = try Row.fetchAll(db, sql: """
                SELECT t.id, t.title, t.artist, r.plays FROM rollup_track_total r JOIN tracks t ON t.id = r.track_id
                WHERE t.merged_into IS NULL
                """).map { row -> (name: MergeSuggestion.Name, key: String) in
                let artist: String? = row[2]
                let title: String = row[1]
                return (MergeSuggestion.Name(id: row[0], name: artist.map { "\($0) – \(title)" } ?? title, plays: row[3]),
                        MergeSuggestion.trackKey(artist: artist, title: title))
            }
            return Array((MergeSuggestion.group(.artist, artists, limit: limit) + MergeSuggestion.group(.album, albums, limit: limit)
                + MergeSuggestion.group(.track, tracks, limit: limit)).prefix(limit))
        }
    }
}

extension MergeKind {
    var table: String {
        switch self {
        case .track: "tracks"
        case .artist: "artists"
        case .album: "albums"
        case .genre: "genres"
        }
    }

    var nameColumn: String { self == .artist || self == .genre ? "name" : "title" }

    /// The column that tells one from another by its text alone (the same in any database
    /// built from the same plays).
    var keyColumn: String {
        switch self {
        case .track: "match_key"
        case .artist: "name_key"
        case .album: "album_key"
        case .genre: "name_key"
        }
    }
}
