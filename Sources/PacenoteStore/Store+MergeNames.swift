import Foundation
import GRDB
import PacenoteCore

/// What merges need beyond ids (issue 52, rows 7 and 8): entities found by the name people
/// see, and the albums an artist merge makes one.
extension Store {
    /// The entities not merged yet that `name` names: the artist of that name (its key, so
    /// "the kinks" finds "The Kinks"; a merged name finds the one it was merged into), the
    /// albums or the tracks of that title (case aside), each with its plays. Several albums
    /// or tracks can share a title; the caller asks which.
    public func mergeCandidates(_ kind: MergeKind, named name: String) throws(StoreError) -> [MergeSuggestion.Name] {
        let name = name.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { return [] }
        return try read { db in
            let sql = switch kind {
            case .artist: """
                SELECT DISTINCT k.id, k.name, COALESCE(r.plays, 0) FROM artists a JOIN artists k ON k.id = COALESCE(a.merged_into, a.id)
                LEFT JOIN rollup_artist_total r ON r.artist_id = k.id WHERE a.name_key = ?
                """
            case .album: """
                SELECT a.id, CASE WHEN a.artist IS NULL THEN a.title ELSE a.artist || ' – ' || a.title END, COALESCE(r.plays, 0)
                FROM albums a LEFT JOIN rollup_album_total r ON r.album_id = a.id
                WHERE a.merged_into IS NULL AND a.title = ? COLLATE NOCASE ORDER BY a.id
                """
            case .track: """
                SELECT t.id, CASE WHEN t.artist IS NULL THEN t.title ELSE t.artist || ' – ' || t.title END, COALESCE(r.plays, 0)
                FROM tracks t LEFT JOIN rollup_track_total r ON r.track_id = t.id
                WHERE t.merged_into IS NULL AND t.title = ? COLLATE NOCASE ORDER BY t.id LIMIT 20
                """
            case .genre: """
                SELECT DISTINCT k.id, k.name, COALESCE(r.plays, 0) FROM genres g JOIN genres k ON k.id = COALESCE(g.merged_into, g.id)
                LEFT JOIN rollup_genre_total r ON r.genre_id = k.id WHERE g.name_key = ?
                """
            }
            let key = kind == .artist ? EntityKey.artist(name) : kind == .genre ? EntityKey.genre(name) : name
            return try Row.fetchAll(db, sql: sql, arguments: [key]).map { MergeSuggestion.Name(id: $0[0], name: $0[1], plays: $0[2]) }
        }
    }

    /// After an artist merge: the albums of one title credited to the kept artist (by the
    /// album artist's name, merged names included) become one, as a merge of albums would
    /// make them — two "Village" albums, one filed under "Kinks" and one under "The Kinks",
    /// are one album of one artist now. The album filed under the kept artist's own name is
    /// kept (else the one with more tracks, else the older). Returns how many were merged in.
    static func mergeSameTitleAlbums(ofArtist into: Int64, undo: inout CurationUndo, touches: inout Set<String>,
                                     in db: Database) throws -> Int {
        let keys = try Set(String.fetchAll(db, sql: "SELECT name_key FROM artists WHERE id = ?1 OR merged_into = ?1", arguments: [into]))
        guard let keptKey = try String.fetchOne(db, sql: "SELECT name_key FROM artists WHERE id = ?", arguments: [into]) else { return 0 }
        struct Album { var id: Int64; var ownName: Bool; var tracks: Int64 }
        var byTitle: [String: [Album]] = [:]
        for row in try Row.fetchAll(db, sql: """
            SELECT a.id, a.title, a.artist, (SELECT COUNT(*) FROM tracks t WHERE t.album_id = a.id)
            FROM albums a WHERE a.merged_into IS NULL AND a.artist IS NOT NULL
            """) {
            let artistKey = EntityKey.artist(row[2] as String)
            guard keys.contains(artistKey) else { continue }
            let title = EntityKey.album(title: row[1], artist: nil, release: nil)
            byTitle[title, default: []].append(Album(id: row[0], ownName: artistKey == keptKey, tracks: row[3]))
        }
        var merged = 0
        for (_, albums) in byTitle.sorted(by: { $0.key < $1.key }) where albums.count > 1 {
            let ordered = albums.sorted { ($0.ownName ? 1 : 0, $0.tracks, -$0.id) > ($1.ownName ? 1 : 0, $1.tracks, -$1.id) }
            let from = ordered.dropFirst().map(\.id)
            touches.formUnion((from + [ordered[0].id]).map { "album:\($0)" })
            try mergeAlbums(from, into: ordered[0].id, undo: &undo, touches: &touches, in: db)
            merged += from.count
        }
        return merged
    }

    /// Artists added by their keys alone (their name is the key: an alias is never shown).
    static func addArtists(keys: [String], at now: Date, in db: Database) throws -> [Int64] {
        try keys.map { key in
            try db.execute(sql: "INSERT INTO artists (name, name_key, created_at_ms) VALUES (?, ?, ?)", arguments: [key, key, milliseconds(now)])
            return db.lastInsertedRowID
        }
    }
}
