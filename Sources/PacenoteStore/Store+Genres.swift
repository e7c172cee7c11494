import Foundation
import GRDB
import GRDBSQLite
import PacenoteCore

/// A genre with a stable id (`genres`): a name from a track's genre text
/// (`GenreTags.split`), told apart by `EntityKey.genre`.
public struct GenreEntity: Equatable, Sendable {
    public var id: Int64
    public var name: String
    /// The genre this one was merged into (`Store.merge`): its name is an alias of that one.
    public var mergedInto: Int64? = nil
}

extension Store {
    /// The id of the genre named `name` (by `EntityKey.genre`; a merged one's kept genre),
    /// added if new.
    static func genreID(name: String, at nowMs: Int64, cache: EntityIDCache? = nil, in db: Database) throws -> Int64 {
        if let known = cache?.genresByName[name] { return known }
        let key = EntityKey.genre(name)
        let find = try RawStatement(db, "SELECT COALESCE(merged_into, id) FROM genres WHERE name_key = ?1")
        find.bind(1, key)
        let id: Int64
        if try find.step() {
            id = find.int64(0)
            find.reset()
        } else {
            let insert = try RawStatement(db, "INSERT INTO genres (name, name_key, created_at_ms) VALUES (?1, ?2, ?3)")
            insert.bind(1, name)
            insert.bind(2, key)
            insert.bind(3, nowMs)
            _ = try insert.step()
            id = sqlite3_last_insert_rowid(db.sqliteConnection)
        }
        cache?.genresByName[name] = id
        return id
    }

    /// Files a track under the genres of its genre text (`track_genres`), replacing what was
    /// there (`newTrack`: nothing is, and it has no plays); its plays move from the old
    /// genres' rollups to the new ones'. Returns the genres, each once, in order.
    @discardableResult
    static func saveGenres(_ names: [String], trackID: Int64, newTrack: Bool = false, cache: EntityIDCache? = nil,
                           in db: Database) throws -> [Int64] {
        let now = milliseconds(Date())
        var ids: [Int64] = []
        for name in names {
            let id = try genreID(name: name, at: now, cache: cache, in: db)
            if !ids.contains(id) { ids.append(id) }
        }
        if !newTrack {
            let stored = try Int64.fetchAll(db.cachedStatement(sql: "SELECT genre_id FROM track_genres WHERE track_id = ? ORDER BY position"),
                                            arguments: [trackID])
            // The same genres again (every play of a known song saves its track): nothing to do.
            if stored == ids { return ids }
            try EntityRollups.move(track: trackID, entity: "genre", adding: false, in: db)
            try db.cachedStatement(sql: "DELETE FROM track_genres WHERE track_id = ?").execute(arguments: [trackID])
        }
        let insert = try RawStatement(db, "INSERT INTO track_genres (track_id, position, genre_id) VALUES (?1, ?2, ?3)")
        for (position, id) in ids.enumerated() {
            insert.bind(1, trackID)
            insert.bind(2, Int64(position))
            insert.bind(3, id)
            _ = try insert.step()
            insert.reset()
        }
        if !newTrack && !ids.isEmpty { try EntityRollups.move(track: trackID, entity: "genre", adding: true, in: db) }
        return ids
    }

    // MARK: Reading

    /// The tracks filed under a genre of these keys (`EntityKey.genre`; a merged genre's key
    /// finds the kept one's tracks), each with the first such genre's name: the recommender's
    /// preferred genres of a zone.
    public func tracks(withGenreKeys keys: Set<String>) throws(StoreError) -> [Int64: String] {
        guard !keys.isEmpty else { return [:] }
        return try read { db in
            let marks = Array(repeating: "?", count: keys.count).joined(separator: ", ")
            var out: [Int64: String] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT tg.track_id, k.name FROM genres g JOIN genres k ON k.id = COALESCE(g.merged_into, g.id)
                JOIN track_genres tg ON tg.genre_id = k.id
                WHERE g.name_key IN (\(marks)) ORDER BY tg.track_id, tg.position
                """, arguments: StatementArguments(keys.sorted())) {
                let id: Int64 = row[0]
                if out[id] == nil { out[id] = row[1] }
            }
            return out
        }
    }

    public func genre(id: Int64) throws(StoreError) -> GenreEntity? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT id, name, merged_into FROM genres WHERE id = ?", arguments: [id])
                .map { GenreEntity(id: $0[0], name: $0[1], mergedInto: $0[2]) }
        }
    }

    /// The genre a name is (by `EntityKey.genre`; a merged one's kept genre).
    public func genre(named name: String) throws(StoreError) -> GenreEntity? {
        try read { db in
            try Row.fetchOne(db, sql: """
                SELECT k.id, k.name FROM genres g JOIN genres k ON k.id = COALESCE(g.merged_into, g.id) WHERE g.name_key = ?
                """, arguments: [EntityKey.genre(name)])
                .map { GenreEntity(id: $0[0], name: $0[1]) }
        }
    }

    /// The genres a track is filed under, in order.
    public func genres(trackID: Int64) throws(StoreError) -> [GenreEntity] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT g.id, g.name FROM track_genres tg JOIN genres g ON g.id = tg.genre_id WHERE tg.track_id = ? ORDER BY tg.position
                """, arguments: [trackID]).map { GenreEntity(id: $0[0], name: $0[1]) }
        }
    }
}
