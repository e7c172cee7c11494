import Foundation
import GRDB
import GRDBSQLite
import PacenoteCore

/// An artist with a stable id (`artists`): a credited name, told apart by
/// `EntityKey.artist`.
public struct ArtistEntity: Equatable, Sendable {
    public var id: Int64
    public var name: String
    /// The MusicBrainz artist id a source gave with the name, when one did.
    public var mbid: String?
    /// The artist this one was merged into (`Store.merge`): its name is an alias of that one.
    public var mergedInto: Int64? = nil
}

/// An album with a stable id (`albums`): its MusicBrainz release, or its title with its
/// album artist — each track's primary artist when it has none (`EntityKey.album`).
public struct AlbumEntity: Equatable, Sendable {
    public var id: Int64
    public var title: String
    /// The album artist (or, without one, the primary artist of the track that named the
    /// album first) as received.
    public var artist: String?
    /// That artist's entity, when one is credited on some track.
    public var artistID: Int64?
    public var release: String?
    /// The album this one was merged into (`Store.merge`).
    public var mergedInto: Int64? = nil
}

/// Artist and album ids looked up or added in one transaction (a bulk import's batch), by
/// key: a batch of new tracks names the same artists and albums again and again. Kept no
/// longer than the transaction, so that no other connection's change can be missed.
final class EntityIDCache {
    /// Whether the artist's row has a MusicBrainz id (else one given later is written).
    var artists: [String: (id: Int64, hasMBID: Bool)] = [:]
    /// The same by the name as given, before it is folded into its key (folding is the
    /// dearer part of a look-up: a bulk import meets each name over and over).
    var artistsByName: [String: (id: Int64, hasMBID: Bool)] = [:]
    var albums: [String: Int64] = [:]
    /// Genre ids by the name as given (`Store.genreID`).
    var genresByName: [String: Int64] = [:]
}

extension Store {
    // MARK: Finding or adding

    /// The id of the artist named `name` (by `EntityKey.artist`), added if new; a
    /// MusicBrainz id fills one the row did not have yet.
    static func artistID(name: String, mbid: String?, at nowMs: Int64, cache: EntityIDCache? = nil,
                         in db: Database) throws -> Int64 {
        if let known = cache?.artistsByName[name], known.hasMBID || mbid == nil { return known.id }
        let key = EntityKey.artist(name)
        if let known = cache?.artists[key], known.hasMBID || mbid == nil {
            cache?.artistsByName[name] = known
            return known.id
        }
        let find = try RawStatement(db, "SELECT COALESCE(merged_into, id), mbid FROM artists WHERE name_key = ?1")
        find.bind(1, key)
        if try find.step() {
            let id = find.int64(0), known = find.text(1)
            find.reset()
            if known == nil, let mbid {
                try db.cachedStatement(sql: "UPDATE artists SET mbid = ? WHERE id = ?").execute(arguments: [mbid, id])
            }
            cache?.artists[key] = (id, known != nil || mbid != nil)
            cache?.artistsByName[name] = (id, known != nil || mbid != nil)
            return id
        }
        // A plain insert, its id the last rowid (none has the key: it was just looked up):
        // RETURNING builds a temporary table for every row, and an import of new music adds
        // an artist for nearly every track.
        let insert = try RawStatement(db, "INSERT INTO artists (name, name_key, mbid, created_at_ms) VALUES (?1, ?2, ?3, ?4)")
        insert.bind(1, name)
        insert.bind(2, key)
        insert.bind(3, mbid)
        insert.bind(4, nowMs)
        _ = try insert.step()
        let id = sqlite3_last_insert_rowid(db.sqliteConnection)
        cache?.artists[key] = (id, mbid != nil)
        cache?.artistsByName[name] = (id, mbid != nil)
        return id
    }

    /// The id of the album `identity` names, added if new.
    static func albumID(_ identity: AlbumIdentity, at nowMs: Int64, cache: EntityIDCache? = nil,
                        in db: Database) throws -> Int64 {
        if let known = cache?.albums[identity.key] { return known }
        let find = try RawStatement(db, "SELECT COALESCE(merged_into, id) FROM albums WHERE album_key = ?1")
        find.bind(1, identity.key)
        if try find.step() {
            let id = find.int64(0)
            find.reset()
            cache?.albums[identity.key] = id
            return id
        }
        // As an artist's: a plain insert, its id the last rowid.
        let insert = try RawStatement(db, """
            INSERT INTO albums (title, artist, mb_release_id, album_key, created_at_ms) VALUES (?1, ?2, ?3, ?4, ?5)
            """)
        insert.bind(1, identity.title)
        insert.bind(2, identity.artist)
        insert.bind(3, identity.release)
        insert.bind(4, identity.key)
        insert.bind(5, nowMs)
        _ = try insert.step()
        let id = sqlite3_last_insert_rowid(db.sqliteConnection)
        cache?.albums[identity.key] = id
        return id
    }

    /// The album a stored track is filed under (for a play announced with its track).
    static func albumID(ofTrack id: Int64, in db: Database) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT album_id FROM tracks WHERE id = ?"), arguments: [id])
    }

    // MARK: Reading

    public func artist(id: Int64) throws(StoreError) -> ArtistEntity? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT id, name, mbid, merged_into FROM artists WHERE id = ?", arguments: [id])
                .map { ArtistEntity(id: $0[0], name: $0[1], mbid: $0[2], mergedInto: $0[3]) }
        }
    }

    /// The artist a name is (by `EntityKey.artist`): what old `/artist?name=` links find.
    public func artist(named name: String) throws(StoreError) -> ArtistEntity? {
        try read { db in
            try Row.fetchOne(db, sql: """
                SELECT k.id, k.name, k.mbid FROM artists a JOIN artists k ON k.id = COALESCE(a.merged_into, a.id) WHERE a.name_key = ?
                """, arguments: [EntityKey.artist(name)])
                .map { ArtistEntity(id: $0[0], name: $0[1], mbid: $0[2]) }
        }
    }

    /// The artist credit text names, for links that carry text (history rows, old links):
    /// the artist of that name; else the text's primary artist (`A feat. B`); else the first
    /// artist credited on a track whose credit text this is (MPD's several `Artist` tags
    /// read together, `A & B`).
    public func artist(creditedAs text: String) throws(StoreError) -> ArtistEntity? {
        if let exact = try artist(named: text) { return exact }
        let primary = ArtistCredit.parse(artist: text, title: "", separators: []).primary
        if primary != text, let found = try artist(named: primary) { return found }
        return try read { db in
            try Row.fetchOne(db, sql: """
                SELECT ar.id, ar.name, ar.mbid FROM tracks t
                JOIN track_artists a ON a.track_id = t.id AND a.position = 0 JOIN artists ar ON ar.id = a.artist_id
                WHERE t.artist = ? COLLATE NOCASE LIMIT 1
                """, arguments: [text]).map { ArtistEntity(id: $0[0], name: $0[1], mbid: $0[2]) }
        }
    }

    public func album(id: Int64) throws(StoreError) -> AlbumEntity? {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT id, title, artist, mb_release_id, merged_into FROM albums WHERE id = ?",
                                             arguments: [id]) else { return nil }
            let artist: String? = row[2]
            let artistID = try artist.flatMap {
                try Int64.fetchOne(db, sql: "SELECT COALESCE(merged_into, id) FROM artists WHERE name_key = ?", arguments: [EntityKey.artist($0)])
            }
            return AlbumEntity(id: row[0], title: row[1], artist: artist, artistID: artistID, release: row[3], mergedInto: row[4])
        }
    }

    /// Plays, first and last play, plays per month and per zone of every track an artist is
    /// credited on, featured or not.
    public func artistSummary(id: Int64) throws(StoreError) -> TrackSummary {
        try summary(tracks: "SELECT DISTINCT track_id AS id FROM track_artists WHERE artist_id = ?1",
                    monthRollup: ("rollup_month_artist", "artist_id"), id: id)
    }

    /// The same for the tracks of an album.
    public func albumSummary(id: Int64) throws(StoreError) -> TrackSummary {
        try summary(tracks: "SELECT id FROM tracks WHERE album_id = ?1", monthRollup: ("rollup_month_album", "album_id"), id: id)
    }

    /// An artist's most played tracks (all time), those they are featured on marked so.
    public func topTracks(artistID: Int64, limit: Int) throws(StoreError) -> [ChartEntry] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Store.trackColumns("t")), r.plays, r.played_s,
                       NOT EXISTS (SELECT 1 FROM track_artists p WHERE p.track_id = t.id AND p.artist_id = ?1 AND p.role = 'primary')
                FROM tracks t JOIN rollup_track_total r ON r.track_id = t.id
                WHERE t.id IN (SELECT track_id FROM track_artists WHERE artist_id = ?1)
                ORDER BY r.plays DESC, r.played_s DESC, t.title, t.id LIMIT ?2
                """, arguments: [artistID, limit]).map { row in
                var entry = Store.chartEntry(track: row)
                entry.featured = row[Store.trackColumnCount + 2]
                return entry
            }
        }
    }

    /// An album's tracks in disc and track order, each with its plays (all time).
    public func albumTracks(albumID: Int64) throws(StoreError) -> [ChartEntry] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Store.trackColumns("t")), COALESCE(r.plays, 0), COALESCE(r.played_s, 0)
                FROM tracks t LEFT JOIN rollup_track_total r ON r.track_id = t.id
                WHERE t.album_id = ?
                ORDER BY t.disc_number IS NULL, t.disc_number, t.track_number IS NULL, t.track_number, t.title, t.id
                """, arguments: [albumID]).map(Store.chartEntry(track:))
        }
    }

    /// The albums an artist's tracks are on, most played first.
    public func albums(artistID: Int64, limit: Int) throws(StoreError) -> [ChartEntry] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT al.id, al.title, al.artist, COALESCE(SUM(r.plays), 0) AS plays, COALESCE(SUM(r.played_s), 0) AS secs
                FROM tracks t JOIN albums al ON al.id = t.album_id LEFT JOIN rollup_track_total r ON r.track_id = t.id
                WHERE t.id IN (SELECT track_id FROM track_artists WHERE artist_id = ?1)
                GROUP BY al.id ORDER BY plays DESC, secs DESC, al.title, al.id LIMIT ?2
                """, arguments: [artistID, limit]).map { row in
                ChartEntry(track: nil, artist: row[2], album: row[1], plays: row[3], seconds: row[4], albumID: row[0])
            }
        }
    }

    /// A chart row of a track: the track's columns, then its plays and seconds.
    static func chartEntry(track row: Row) -> ChartEntry {
        ChartEntry(track: Store.track(from: row), artist: nil, album: nil,
                   plays: row[Store.trackColumnCount], seconds: row[Store.trackColumnCount + 1])
    }
}
