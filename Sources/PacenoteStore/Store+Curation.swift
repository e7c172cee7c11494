import Foundation
import GRDB
import PacenoteCore

/// Corrections to the history: deleting, editing and adding plays, merging tracks, artists
/// and albums. Each is one transaction that also writes its `curation_log` entry, with
/// what undoing it needs (`CurationUndo`); `undo` reverses one as a whole. Rollups follow:
/// the plays' triggers keep the track, period and entity rollups when plays move, and the
/// rollups of artists and albums whose credits or tracks move are summed again from their
/// plays (`recomputeEntityRollups`).
extension Store {
    // MARK: Plays

    /// Deletes plays; their rows go to the log entry, to be put back by an undo.
    public func curateDelete(playIDs: [Int64], request: String, source: String,
                             at now: Date = Date()) throws(StoreError) -> (entry: CurationEntry, deleted: [PlayWithTrack]) {
        let localTime = self.localTime
        return try write { db in
            var undo = CurationUndo()
            var deleted: [PlayWithTrack] = []
            var touches: Set<String> = []
            for id in playIDs {
                guard let play = try Store.playWithTrack(id: id, in: db) else {
                    throw StoreError.refused(.notFound, "not_found", "no play \(id)")
                }
                deleted.append(play)
                undo.restorePlays.append(try StoredRow.fetch(table: "plays", id: id, in: db))
                touches.formUnion(["play:\(id)", "track:\(play.play.trackID)"])
                try db.execute(sql: "DELETE FROM plays WHERE id = ?", arguments: [id])
            }
            let summary = deleted.count == 1
                ? "Deleted the play of “\(deleted[0].track.title)” at \(Store.localText(deleted[0].play.startedAt, localTime))"
                : "Deleted \(deleted.count) plays"
            let entry = try Store.log(.delete, summary: summary, request: request, undo: undo, touches: touches,
                                      source: source, at: now, in: db)
            return (entry, deleted)
        }
    }

    /// What an edit changes in a play: its track (by id, or by title, artist and album
    /// text: found or added like a submitted listen's) and whether it counted.
    public struct PlayEdit: Sendable {
        public var trackID: Int64?
        public var track: Track?
        public var counted: Bool?

        public init(trackID: Int64? = nil, track: Track? = nil, counted: Bool? = nil) {
            self.trackID = trackID
            self.track = track
            self.counted = counted
        }
    }

    public func curateEdit(playID: Int64, _ edit: PlayEdit, request: String, source: String,
                           at now: Date = Date()) throws(StoreError) -> (entry: CurationEntry, play: PlayWithTrack) {
        let localTime = self.localTime
        return try write { db in
            guard let before = try Store.playWithTrack(id: playID, in: db) else {
                throw StoreError.refused(.notFound, "not_found", "no play \(playID)")
            }
            var trackID = before.play.trackID
            var undo = CurationUndo()
            if let id = edit.trackID {
                guard let kept = try Int64.fetchOne(db, sql: "SELECT COALESCE(merged_into, id) FROM tracks WHERE id = ?", arguments: [id]) else {
                    throw StoreError.refused(.notFound, "not_found", "no track \(id)")
                }
                trackID = kept
            } else if let track = edit.track {
                let mark = try CurationUndo.Created.mark(in: db)
                trackID = try Store.saveTrack(track, at: now, in: db)
                undo.created = try mark.since(in: db)
            }
            let counted = edit.counted ?? before.play.counted
            if trackID != before.play.trackID,
               try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM plays WHERE track_id = ? AND started_at_ms = ?)",
                                 arguments: [trackID, Store.milliseconds(before.play.startedAt)]) == true {
                throw StoreError.refused(.conflict, "duplicate_play", "track \(trackID) already has a play at \(ISO8601.string(before.play.startedAt))")
            }
            try db.execute(sql: "UPDATE plays SET track_id = ?, counted = ? WHERE id = ?", arguments: [trackID, counted, playID])
            undo.playValues = [.init(id: playID, trackID: before.play.trackID, counted: before.play.counted)]
            guard let after = try Store.playWithTrack(id: playID, in: db) else { throw StoreError.sqlite("the edited play is gone") }
            var changes: [String] = []
            if trackID != before.play.trackID { changes.append("“\(before.track.title)” → “\(after.track.title)”") }
            if counted != before.play.counted { changes.append(counted ? "counted" : "a skip") }
            let summary = "Edited the play of \(Store.localText(before.play.startedAt, localTime))" + (changes.isEmpty ? "" : ": " + changes.joined(separator: ", "))
            let entry = try Store.log(.edit, summary: summary, request: request, undo: undo,
                                      touches: ["play:\(playID)", "track:\(before.play.trackID)", "track:\(trackID)"],
                                      source: source, at: now, in: db)
            return (entry, after)
        }
    }

    /// What to add: a track (by id, by MPD file, or by text) or an album's tracks, back
    /// to back from `startedAt` by their lengths.
    public enum PlayAddition: Sendable {
        case track(id: Int64)
        case file(uri: String)
        case text(Track)
        case album(id: Int64)
    }

    /// Adds plays that were never logged: counted, `source` `manual`. Plays already stored
    /// (same track, same start) are not added twice.
    public func curateAdd(_ addition: PlayAddition, startedAt: Date, request: String, source: String,
                          at now: Date = Date()) throws(StoreError) -> (entry: CurationEntry, added: [PlayWithTrack]) {
        let localTime = self.localTime
        return try write { db in
            var tracks: [(id: Int64, duration: Double?)] = []
            var undo = CurationUndo()
            switch addition {
            case .track(let id):
                guard let row = try Row.fetchOne(db, sql: "SELECT COALESCE(merged_into, id), duration_s FROM tracks WHERE id = ?", arguments: [id]) else {
                    throw StoreError.refused(.notFound, "not_found", "no track \(id)")
                }
                tracks = [(row[0], row[1])]
            case .file(let uri):
                guard let row = try Row.fetchOne(db, sql: "SELECT COALESCE(merged_into, id), duration_s FROM tracks WHERE uri = ?", arguments: [uri]) else {
                    throw StoreError.refused(.notFound, "not_found", "no file \(uri) in the library")
                }
                tracks = [(row[0], row[1])]
            case .text(let track):
                let mark = try CurationUndo.Created.mark(in: db)
                let id = try Store.saveTrack(track, at: now, in: db)
                undo.created = try mark.since(in: db)
                tracks = [(id, try Double.fetchOne(db, sql: "SELECT duration_s FROM tracks WHERE id = ?", arguments: [id]))]
            case .album(let id):
                guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM albums WHERE id = ?)", arguments: [id]) == true else {
                    throw StoreError.refused(.notFound, "not_found", "no album \(id)")
                }
                // The album's files as MPD has them, in order; tracks only ever listened to
                // elsewhere (no file) when it has none.
                let rows = try Row.fetchAll(db, sql: """
                    SELECT id, duration_s FROM tracks WHERE album_id = ? AND merged_into IS NULL
                    ORDER BY in_library DESC, uri IS NULL, COALESCE(disc_number, 1), COALESCE(track_number, 0), uri, id
                    """, arguments: [id])
                let inLibrary = try Set(Int64.fetchAll(db, sql: "SELECT id FROM tracks WHERE album_id = ? AND in_library = 1", arguments: [id]))
                tracks = rows.map { ($0[0], $0[1]) }.filter { inLibrary.isEmpty || inLibrary.contains($0.0) }
                guard !tracks.isEmpty else { throw StoreError.refused(.invalid, "empty_album", "album \(id) has no tracks") }
                if let missing = tracks.first(where: { ($0.duration ?? 0) <= 0 }) {
                    throw StoreError.refused(.invalid, "unknown_duration", "track \(missing.id) of album \(id) has no known length")
                }
            }
            var start = startedAt
            var added: [PlayWithTrack] = []
            var touches: Set<String> = []
            for track in tracks {
                let length = max(track.duration ?? 0, 0)
                let play = Play(trackID: track.id, startedAt: start, endedAt: start.addingTimeInterval(length),
                                playedSeconds: length, counted: true, source: "manual")
                start = start.addingTimeInterval(length)
                guard let id = try Store.insertPlay(play, localTime: localTime, in: db) else { continue }
                undo.removePlays.append(id)
                touches.formUnion(["play:\(id)", "track:\(track.id)"])
                if let stored = try Store.playWithTrack(id: id, in: db) { added.append(stored) }
            }
            guard !added.isEmpty else {
                throw StoreError.refused(.conflict, "duplicate_play", "every play asked for is already stored")
            }
            let summary = added.count == 1
                ? "Added a play of “\(added[0].track.title)” at \(Store.localText(startedAt, localTime))"
                : "Added \(added.count) plays from \(Store.localText(startedAt, localTime))"
            let entry = try Store.log(.add, summary: summary, request: request, undo: undo, touches: touches,
                                      source: source, at: now, in: db)
            return (entry, added)
        }
    }

    /// A time as people read it in a summary: the local day and minute (`2026-01-05 11:30`).
    static func localText(_ date: Date, _ local: LocalTime) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = local.timeZone
        let c = calendar.dateComponents([.hour, .minute], from: date)
        return local.day(of: date) + String(format: " %02d:%02d", c.hour ?? 0, c.minute ?? 0)
    }

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
            guard !from.isEmpty else { throw StoreError.refused(.invalid, "invalid_from", "'from' names nothing to merge") }
            guard !from.contains(into) else { throw StoreError.refused(.invalid, "invalid_merge", "cannot merge \(kind.rawValue) \(into) into itself") }
            let table = kind.table
            var names: [Int64: String] = [:], keys: [Int64: String] = [:]
            for id in from + [into] {
                guard let row = try Row.fetchOne(db, sql: "SELECT \(kind.nameColumn), merged_into, \(kind.keyColumn) FROM \(table) WHERE id = ?",
                                                 arguments: [id]) else {
                    throw StoreError.refused(.notFound, "not_found", "no \(kind.rawValue) \(id)")
                }
                if let kept = row[1] as Int64? {
                    throw StoreError.refused(.conflict, "already_merged", "\(kind.rawValue) \(id) was merged into \(kind.rawValue) \(kept) already")
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
            }
            let quoted = from.map { "“\(names[$0] ?? "")”" }.joined(separator: ", ")
            // The entities' keys go with the request: ids are this database's, keys follow from
            // the names, so a database rebuilt from an export replays the merge (`replayMerge`).
            let replayable = Store.addingKeys(to: request, kind: kind, from: from.compactMap { keys[$0] }, into: keys[into] ?? "")
            let albums = albumsMerged == 0 ? "" : albumsMerged == 1 ? ", and 1 album of the same title" : ", and \(albumsMerged) albums of the same title"
            return try Store.log(.merge, summary: "Merged \(kind.rawValue) \(quoted) into “\(names[into] ?? "")”\(albums)", request: replayable,
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
            throw StoreError.refused(.invalid, "invalid_merge", "not a merge Pacenote exported")
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
    }

    /// The artists credited on and the albums of some tracks.
    static func trackEntities(_ tracks: [Int64], in db: Database) throws -> (artists: [Int64], albums: [Int64]) {
        let list = tracks.map(String.init).joined(separator: ",")
        return (try Int64.fetchAll(db, sql: "SELECT DISTINCT artist_id FROM track_artists WHERE track_id IN (\(list)) AND artist_id IS NOT NULL"),
                try Int64.fetchAll(db, sql: "SELECT DISTINCT album_id FROM tracks WHERE id IN (\(list)) AND album_id IS NOT NULL"))
    }

    /// Runs `body` with the plays' update triggers dropped, and creates them again as they
    /// were (in the same transaction: nothing else sees them missing).
    static func withoutPlayUpdateTriggers(in db: Database, _ body: () throws -> Void) throws {
        let triggers = try Row.fetchAll(db, sql: """
            SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'plays'
              AND name IN ('plays_rollup_update', 'plays_entity_rollup_update')
            """)
        for row in triggers { try db.execute(sql: "DROP TRIGGER \(row[0] as String)") }
        try body()
        for row in triggers { try db.execute(sql: row[1] as String) }
    }

    /// The rollups of some tracks (by day, month, year and all time) summed again from their
    /// plays. Rows are found through the periods that have plays (the totals' keys), as the
    /// rollups are keyed by period first.
    static func recomputeTrackRollups(_ tracks: [Int64], in db: Database) throws {
        let list = tracks.map(String.init).joined(separator: ",")
        let periods = ["day": "rollup_day_total", "year": "rollup_year_total", "month": "rollup_month_total"]
        for (table, keys) in Schema.trackRollups where keys.contains(where: { $0.column == "track_id" }) {
            let first = keys[0].column
            let period = periods[first].map { "\(first) IN (SELECT \(first) FROM \($0)) AND " } ?? ""
            try db.execute(sql: "DELETE FROM \(table) WHERE \(period)track_id IN (\(list))")
            let expressions = keys.map(\.expression).joined(separator: ", ")
            let halves = first == "month"
            try db.execute(sql: """
                INSERT INTO \(table) (\(keys.map(\.column).joined(separator: ", ")), plays, skips, played_s\(halves ? ", " + MonthHalves.columns : ""))
                SELECT \(expressions), SUM(counted), SUM(1 - counted), SUM(played_s)\(halves ? ", " + MonthHalves.sums() : "")
                FROM plays WHERE track_id IN (\(list))
                GROUP BY \(expressions)
                """)
        }
        try rebuildFirstPlays(tracks: tracks, in: db)
    }

    /// `rollup_track_first` of some tracks (nil: of all) found again from their plays.
    static func rebuildFirstPlays(tracks: [Int64]?, in db: Database) throws {
        let only = tracks.map { " AND track_id IN (\($0.map(String.init).joined(separator: ",")))" } ?? ""
        // Some tracks' plays through plays_identity; all of them in one pass and a sort.
        try db.execute(sql: """
            DELETE FROM rollup_track_first WHERE true\(only);
            INSERT INTO rollup_track_first (track_id, day)
              SELECT track_id, MIN(local_day) FROM plays\(tracks == nil ? " NOT INDEXED" : "") WHERE counted = 1\(only) GROUP BY track_id;
            """)
    }

    /// Makes `from` (and whatever was merged into it before) point at `into`.
    static func pointAliases(table: String, from: Int64, into: Int64, undo: inout CurationUndo, in db: Database) throws {
        for id in try Int64.fetchAll(db, sql: "SELECT id FROM \(table) WHERE merged_into = ?", arguments: [from]) {
            undo.aliases.append(.init(table: table, id: id, mergedInto: from))
        }
        undo.aliases.append(.init(table: table, id: from, mergedInto: nil))
        try db.execute(sql: "UPDATE \(table) SET merged_into = ? WHERE merged_into = ? OR id = ?", arguments: [into, from, from])
    }

    /// A bulk import caches tracks' entities between batches: a change of credits or albums
    /// tells it to read them again (as `EntityRollups.move` does).
    static func bumpEntityGeneration(in db: Database) throws {
        try db.execute(sql: """
            INSERT INTO meta (key, value) VALUES ('entity_generation', '1')
            ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1
            """)
    }

    /// The rollups of some artists or albums, summed again from their tracks' plays (all
    /// time, per year, per month, per day): one read of those plays by track, summed by day
    /// and the days' sums added up into their months, years and all time.
    static func recomputeEntityRollups(entity: String, ids: [Int64], in db: Database) throws {
        guard !ids.isEmpty else { return }
        let list = ids.map(String.init).joined(separator: ",")
        let tables = EntityRollups.tables.filter { $0.entity == entity }
        for table in tables {
            // A period's rows are found by naming its periods (each one a seek of the key):
            // the tables have no index by the entity, and a day's has a row per play or so.
            let periods = table.period.map { "\($0.rawValue) IN (SELECT \($0.rawValue) FROM \($0.totalTable)) AND " } ?? ""
            try db.execute(sql: "DELETE FROM \(table.name) WHERE \(periods)\(table.keys.last!) IN (\(list))")
        }
        let join = entity == "artist"
            ? "track_artists e JOIN plays p ON p.track_id = e.track_id WHERE e.artist_id IN (\(list))"
            : "tracks e JOIN plays p ON p.track_id = e.id WHERE e.album_id IN (\(list))"
        let idColumn = entity == "artist" ? "e.artist_id" : "e.album_id"
        let days = try Row.fetchAll(db, sql: """
            SELECT \(idColumn), p.local_day, SUM(p.counted), SUM(1 - p.counted), SUM(p.played_s)
            FROM \(join) GROUP BY 1, 2
            """)
        struct Sum { var plays: Int64 = 0, skips: Int64 = 0, played: Double = 0, firstHalfPlays: Int64 = 0, firstHalfPlayed: Double = 0 }
        for table in tables {
            // Each row of the table: its period's prefix of the day (none for all time) and the id.
            var sums: [String: [Int64: Sum]] = [:]
            let halves = table.period == .month
            for row in days {
                let id: Int64 = row[0], day: String = row[1]
                let key = table.period.map { String(day.prefix($0.length)) } ?? ""
                sums[key, default: [:]][id, default: Sum()].plays += row[2]
                sums[key, default: [:]][id, default: Sum()].skips += row[3]
                sums[key, default: [:]][id, default: Sum()].played += row[4]
                if halves && MonthHalves.isFirst(day: day) {
                    sums[key]![id]!.firstHalfPlays += row[2]
                    sums[key]![id]!.firstHalfPlayed += row[4]
                }
            }
            let insert = try db.makeStatement(sql: """
                INSERT INTO \(table.name) (\(table.keys.joined(separator: ", ")), plays, skips, played_s\(halves ? ", " + MonthHalves.columns : ""))
                VALUES (\(Array(repeating: "?", count: table.keys.count + (halves ? 5 : 3)).joined(separator: ", ")))
                """)
            for (key, byID) in sums {
                for (id, sum) in byID {
                    var values: [DatabaseValueConvertible] = [id, sum.plays, sum.skips, sum.played]
                    if halves { values += [sum.firstHalfPlays, sum.firstHalfPlayed] }
                    try insert.execute(arguments: StatementArguments(table.period == nil ? values : [key] + values))
                }
            }
        }
    }

    // MARK: The log

    /// Entries, newest first (at most `limit`, before the id `before` when given).
    public func curationLog(limit: Int = 50, before: Int64? = nil) throws(StoreError) -> [CurationEntry] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, at_ms, kind, summary, request_json, source, undone_at_ms, touches FROM curation_log
                WHERE id < ? ORDER BY id DESC LIMIT ?
                """, arguments: [before ?? Int64.max, limit]).map(Store.curationEntry)
        }
    }

    public func curationEntry(id: Int64) throws(StoreError) -> CurationEntry? {
        try read { db in try Store.curationEntry(id: id, in: db) }
    }

    static func curationEntry(id: Int64, in db: Database) throws -> CurationEntry? {
        try Row.fetchOne(db, sql: """
            SELECT id, at_ms, kind, summary, request_json, source, undone_at_ms, touches FROM curation_log WHERE id = ?
            """, arguments: [id]).map(curationEntry)
    }

    static func curationEntry(_ row: Row) -> CurationEntry {
        CurationEntry(id: row[0], at: date(milliseconds: row[1]), kind: CurationEntry.Kind(rawValue: row[2]) ?? .edit,
                      summary: row[3], request: row[4], source: row[5],
                      undoneAt: (row[6] as Int64?).map { date(milliseconds: $0) },
                      touches: CurationEntry.touches(fromText: row[7]))
    }

    static func log(_ kind: CurationEntry.Kind, summary: String, request: String, undo: CurationUndo, touches: Set<String>,
                    source: String, at now: Date, in db: Database) throws -> CurationEntry {
        let undoText = String(decoding: try JSONEncoder().encode(undo), as: UTF8.self)
        try db.execute(sql: """
            INSERT INTO curation_log (at_ms, kind, summary, request_json, undo_json, touches, source) VALUES (?, ?, ?, ?, ?, ?, ?)
            """, arguments: [milliseconds(now), kind.rawValue, summary, request, undoText, CurationEntry.touchesText(touches), source])
        return CurationEntry(id: db.lastInsertedRowID, at: date(milliseconds: milliseconds(now)), kind: kind, summary: summary,
                             request: request, source: source, undoneAt: nil, touches: touches)
    }

    /// Reverses one entry as a whole: refused when it was undone already, or when a later
    /// entry still in force touched what it touched (that one is to be undone first).
    public func undoCuration(id: Int64, at now: Date = Date()) throws(StoreError) -> CurationEntry {
        try write { db in
            guard let entry = try Store.curationEntry(id: id, in: db) else {
                throw StoreError.refused(.notFound, "not_found", "no curation entry \(id)")
            }
            if entry.undoneAt != nil { throw StoreError.refused(.conflict, "already_undone", "entry \(id) was undone already") }
            let later = try Row.fetchAll(db, sql: """
                SELECT id, at_ms, kind, summary, request_json, source, undone_at_ms, touches FROM curation_log
                WHERE id > ? AND undone_at_ms IS NULL
                """, arguments: [id]).map(Store.curationEntry)
            let blockers = CurationEntry.blockers(of: entry, among: later)
            if !blockers.isEmpty {
                throw StoreError.refused(.conflict, "undo_blocked",
                    "later changes depend on entry \(id): undo \(blockers.map { "\($0.id)" }.joined(separator: ", ")) first")
            }
            guard let text = try String.fetchOne(db, sql: "SELECT undo_json FROM curation_log WHERE id = ?", arguments: [id]) else {
                throw StoreError.sqlite("curation entry \(id) has no undo")
            }
            let undo = try JSONDecoder().decode(CurationUndo.self, from: Data(text.utf8))
            try undo.apply(in: db)
            try db.execute(sql: "UPDATE curation_log SET undone_at_ms = ? WHERE id = ?", arguments: [Store.milliseconds(now), id])
            var undone = entry
            undone.undoneAt = Store.date(milliseconds: Store.milliseconds(now))
            return undone
        }
    }

    static func playWithTrack(id: Int64, in db: Database) throws -> PlayWithTrack? {
        try Row.fetchOne(db, sql: """
            SELECT \(Store.playWithTrackColumns) FROM plays p JOIN tracks t ON t.id = p.track_id WHERE p.id = ?
            """, arguments: [id]).map(Store.playWithTrack)
    }

    /// One play with its track.
    public func play(id: Int64) throws(StoreError) -> PlayWithTrack? {
        try read { db in try Store.playWithTrack(id: id, in: db) }
    }
}

extension MergeKind {
    var table: String {
        switch self {
        case .track: "tracks"
        case .artist: "artists"
        case .album: "albums"
        }
    }

    var nameColumn: String { self == .artist ? "name" : "title" }

    /// The column that tells one from another by its text alone (the same in any database
    /// built from the same plays).
    var keyColumn: String {
        switch self {
        case .track: "match_key"
        case .artist: "name_key"
        case .album: "album_key"
        }
    }
}

/// What undoing one curation entry needs, stored as JSON in its row. Applied in the
/// reverse order of the change: aliases, pins, likes and BPM; then credits and albums;
/// then the plays (whose triggers move the rollups back); then the entities' rollups.
struct CurationUndo: Codable {
    struct PlayValues: Codable { var id: Int64; var trackID: Int64; var counted: Bool }
    struct MovedPlays: Codable { var track: Int64; var plays: [Int64]; var into: Int64 }
    struct Credit: Codable { var track: Int64; var position: Int64; var artist: Int64 }
    struct TrackAlbum: Codable { var track: Int64; var album: Int64 }
    struct Alias: Codable { var table: String; var id: Int64; var mergedInto: Int64? }
    struct Pin: Codable { var day: String; var track: Int64 }
    struct Unhide: Codable { var hidden: Int64; var play: Int64 }

    /// Plays removed (deleted, or a merge's second copy of a listen): put back as they were.
    var restorePlays: [StoredRow] = []
    /// Plays added: removed again.
    var removePlays: [Int64] = []
    /// Plays edited: their track and counted flag before.
    var playValues: [PlayValues] = []
    /// Plays a merge moved to the kept track, by the track they came from.
    var movedPlays: [MovedPlays] = []
    /// Hidden plays a merge moved along.
    var movedHidden: [MovedPlays] = []
    var credits: [Credit] = []
    var restoreCredits: [StoredRow] = []
    var trackAlbums: [TrackAlbum] = []
    var aliases: [Alias] = []
    var pins: [Pin] = []
    var clearBPM: [Int64] = []
    var removeFeelings: [Int64] = []
    /// Plays a `hide` rule moved to `hidden_plays` (their id there, and in `plays`): moved back.
    var unhide: [Unhide] = []
    var recomputeArtists: [Int64] = []
    var recomputeAlbums: [Int64] = []
    /// Merged artists whose name credits filed under the kept one while they were merged
    /// (a play or submission under the alias) go back to, with the merge's undo.
    var refileArtists: [Refile] = []
    struct Refile: Codable { var from: Int64; var into: Int64 }
    /// The track, artists and album a play's text brought in (an edit, an addition): gone
    /// again with it, unless something else has come to use them since.
    var created = Created()

    struct Created: Codable {
        var tracks: [Int64] = []
        var artists: [Int64] = []
        var albums: [Int64] = []

        /// The highest ids before a change, to tell what it added.
        static func mark(in db: Database) throws -> Created {
            var mark = Created()
            for (table, path) in [("tracks", \Created.tracks), ("artists", \Created.artists), ("albums", \Created.albums)] {
                mark[keyPath: path] = [try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(id), 0) FROM \(table)") ?? 0]
            }
            return mark
        }

        func since(in db: Database) throws -> Created {
            var added = Created()
            for (table, path) in [("tracks", \Created.tracks), ("artists", \Created.artists), ("albums", \Created.albums)] {
                added[keyPath: path] = try Int64.fetchAll(db, sql: "SELECT id FROM \(table) WHERE id > ?", arguments: [self[keyPath: path].first ?? 0])
            }
            return added
        }

        /// Removes what is still unused: no plays, file, pin or play in progress on a track;
        /// no credit or alias on an artist; no track or alias on an album.
        func remove(in db: Database) throws {
            for id in tracks {
                try db.execute(sql: """
                    DELETE FROM tracks WHERE id = ?1 AND uri IS NULL
                      AND NOT EXISTS (SELECT 1 FROM plays WHERE track_id = ?1) AND NOT EXISTS (SELECT 1 FROM library_files WHERE track_id = ?1)
                      AND NOT EXISTS (SELECT 1 FROM hidden_plays WHERE track_id = ?1)
                      AND NOT EXISTS (SELECT 1 FROM sotd_pins WHERE track_id = ?1) AND NOT EXISTS (SELECT 1 FROM open_plays WHERE track_id = ?1)
                      AND NOT EXISTS (SELECT 1 FROM tracks WHERE merged_into = ?1)
                    """, arguments: [id])
            }
            for id in artists {
                try db.execute(sql: """
                    DELETE FROM artists WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM track_artists WHERE artist_id = ?1)
                      AND NOT EXISTS (SELECT 1 FROM artists WHERE merged_into = ?1)
                    """, arguments: [id])
            }
            for id in albums {
                try db.execute(sql: """
                    DELETE FROM albums WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM tracks WHERE album_id = ?1)
                      AND NOT EXISTS (SELECT 1 FROM albums WHERE merged_into = ?1)
                    """, arguments: [id])
            }
        }
    }

    func apply(in db: Database) throws {
        for alias in aliases.reversed() {
            try db.execute(sql: "UPDATE \(alias.table) SET merged_into = ? WHERE id = ?", arguments: [alias.mergedInto, alias.id])
        }
        for pin in pins { try db.execute(sql: "UPDATE sotd_pins SET track_id = ? WHERE day = ?", arguments: [pin.track, pin.day]) }
        for id in clearBPM { try db.execute(sql: "UPDATE tracks SET bpm = NULL, bpm_source = NULL, bpm_confidence = NULL WHERE id = ?", arguments: [id]) }
        for id in removeFeelings { try db.execute(sql: "DELETE FROM track_feelings WHERE track_id = ?", arguments: [id]) }
        for credit in credits {
            try db.execute(sql: "UPDATE track_artists SET artist_id = ? WHERE track_id = ? AND position = ?",
                           arguments: [credit.artist, credit.track, credit.position])
        }
        for row in restoreCredits { try row.insert(into: "track_artists", in: db) }
        for refile in refileArtists {
            guard let key = try String.fetchOne(db, sql: "SELECT name_key FROM artists WHERE id = ?", arguments: [refile.from]) else { continue }
            for row in try Row.fetchAll(db, sql: "SELECT track_id, position, name FROM track_artists WHERE artist_id = ?", arguments: [refile.into])
            where EntityKey.artist(row[2]) == key {
                try db.execute(sql: "UPDATE track_artists SET artist_id = ? WHERE track_id = ? AND position = ?",
                               arguments: [refile.from, row[0], row[1]])
            }
        }
        for move in trackAlbums { try db.execute(sql: "UPDATE tracks SET album_id = ? WHERE id = ?", arguments: [move.album, move.track]) }
        for move in movedPlays.reversed() { try Store.movePlays(of: move.into, to: move.track, ids: move.plays, in: db) }
        for move in movedHidden.reversed() {
            for id in move.plays { try db.execute(sql: "UPDATE hidden_plays SET track_id = ? WHERE id = ?", arguments: [move.track, id]) }
        }
        for values in playValues.reversed() {
            try db.execute(sql: "UPDATE plays SET track_id = ?, counted = ? WHERE id = ?", arguments: [values.trackID, values.counted, values.id])
        }
        for id in removePlays { try db.execute(sql: "DELETE FROM plays WHERE id = ?", arguments: [id]) }
        for move in unhide.reversed() {
            // Back under its old id unless a play logged since has taken it.
            var row = try StoredRow.fetch(table: "hidden_plays", id: move.hidden, in: db)
            if let i = row.columns.firstIndex(of: "id") {
                if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM plays WHERE id = ?)", arguments: [move.play]) == true {
                    row.columns.remove(at: i)
                    row.values.remove(at: i)
                } else {
                    row.values[i] = .int(move.play)
                }
            }
            try db.execute(sql: "DELETE FROM hidden_plays WHERE id = ?", arguments: [move.hidden])
            try row.insert(into: "plays", in: db)
        }
        for row in restorePlays {
            // A play logged since may have taken the id (SQLite gives the highest id plus
            // one): the play comes back under a new one.
            var row = row
            if let i = row.columns.firstIndex(of: "id"), case .int(let id) = row.values[i],
               try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM plays WHERE id = ?)", arguments: [id]) == true {
                row.columns.remove(at: i)
                row.values.remove(at: i)
            }
            try row.insert(into: "plays", in: db)
        }
        try created.remove(in: db)
        try Store.recomputeEntityRollups(entity: "artist", ids: recomputeArtists, in: db)
        try Store.recomputeEntityRollups(entity: "album", ids: recomputeAlbums, in: db)
        if !recomputeArtists.isEmpty || !recomputeAlbums.isEmpty || !trackAlbums.isEmpty { try Store.bumpEntityGeneration(in: db) }
    }
}

/// A row as it was, every column, to be inserted again as it was (a deleted play, a
/// dropped credit). Columns added by later versions come along by themselves.
struct StoredRow: Codable {
    enum Value: Codable {
        case null, int(Int64), real(Double), text(String)
    }

    var columns: [String]
    var values: [Value]

    static func fetch(table: String, id: Int64, in db: Database) throws -> StoredRow {
        try fetch(db, sql: "SELECT * FROM \(table) WHERE id = ?", arguments: [id])
    }

    static func fetch(_ db: Database, sql: String, arguments: StatementArguments) throws -> StoredRow {
        guard let row = try Row.fetchOne(db, sql: sql, arguments: arguments) else { throw StoreError.sqlite("no row for \(sql)") }
        var stored = StoredRow(columns: [], values: [])
        for (column, value) in row {
            stored.columns.append(column)
            switch value.storage {
            case .null, .blob: stored.values.append(.null)
            case .int64(let v): stored.values.append(.int(v))
            case .double(let v): stored.values.append(.real(v))
            case .string(let v): stored.values.append(.text(v))
            }
        }
        return stored
    }

    func insert(into table: String, in db: Database) throws {
        let arguments = StatementArguments(values.map { value -> (any DatabaseValueConvertible)? in
            switch value {
            case .null: nil
            case .int(let v): v
            case .real(let v): v
            case .text(let v): v
            }
        })
        do {
            try db.execute(sql: "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))",
                           arguments: arguments)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            throw StoreError.refused(.conflict, "undo_conflict", "cannot put a \(table) row back: \(error.message ?? "a constraint")")
        }
    }
}

extension Store {
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
