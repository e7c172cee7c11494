import Foundation
import GRDB
import PacenoteCore

/// A track whose credit a change of separators splits differently.
public struct CreditChange: Equatable, Sendable {
    public var trackID: Int64
    /// The credit text as received (`tracks.artist`, or the album artist) and the title.
    public var text: String
    public var title: String
    public var before: [String]
    public var after: [String]
    /// Its counted plays (all time): how much the artist charts move.
    public var plays: Int
}

extension Store {
    /// The separators credit text is split with besides the featuring markers
    /// (`meta.credit_separators`; none until a change is applied).
    public func creditSeparators() throws(StoreError) -> [String] {
        try read { db in try Store.creditSeparators(in: db) }
    }

    static func creditSeparators(in db: Database) throws -> [String] {
        guard let text = try String.fetchOne(db.cachedStatement(sql: "SELECT value FROM meta WHERE key = 'credit_separators'")) else { return [] }
        return text.split(separator: " ").map(String.init)
    }

    /// Records who a track is credited to (`track_artists`), replacing what was there
    /// (`newTrack`: the track was just added, nothing is there). Each name is an artist
    /// (`artists`), found by its key or added.
    /// Returns the artists the credit now names (each once).
    @discardableResult
    static func saveCredit(_ credit: ArtistCredit, trackID: Int64, newTrack: Bool = false,
                           cache: EntityIDCache? = nil, in db: Database) throws -> [Int64] {
        let now = milliseconds(Date())
        let artistIDs: [Int64?] = try credit.artists.map { try artistID(name: $0.name, mbid: $0.mbid, at: now, cache: cache, in: db) }
        if !newTrack {
            // The same credit again (every play of a known song saves its track): nothing to do.
            if try storedCredit(trackID: trackID, in: db) == StoredCredit(credit, artistIDs: artistIDs) {
                return StoredCredit(credit, artistIDs: artistIDs).rows.compactMap(\.artistID)
            }
            // The track's plays leave its old artists' rollups, and join the new ones' below.
            try EntityRollups.move(track: trackID, entity: "artist", adding: false, in: db)
            try db.cachedStatement(sql: "DELETE FROM track_artists WHERE track_id = ?").execute(arguments: [trackID])
        }
        let insert = try RawStatement(db, "INSERT INTO track_artists (track_id, position, name, role, listed, mbid, artist_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
        // One row per artist: two spellings of one name (`EntityKey.artist`) are one credit.
        var seen: Set<Int64> = []
        var position = 0
        for (i, artist) in credit.artists.enumerated() {
            if let id = artistIDs[i] {
                guard seen.insert(id).inserted else { continue }
                insert.bind(7, id)
            }
            defer { position += 1 }
            insert.bind(1, trackID)
            insert.bind(2, Int64(position))
            insert.bind(3, artist.name)
            insert.bind(4, artist.role.rawValue)
            insert.bind(5, Int64(credit.listed ? 1 : 0))
            insert.bind(6, artist.mbid)
            _ = try insert.step()
            insert.reset()
        }
        if !newTrack { try EntityRollups.move(track: trackID, entity: "artist", adding: true, in: db) }
        return StoredCredit(credit, artistIDs: artistIDs).rows.compactMap(\.artistID)
    }

    /// A credit as stored: what `saveCredit` compares to leave an unchanged one alone.
    struct StoredCredit: Equatable {
        var rows: [(name: String, role: String, listed: Bool, mbid: String?, artistID: Int64?)]

        init(_ credit: ArtistCredit, artistIDs: [Int64?]) {
            var seen: Set<Int64> = []
            rows = zip(credit.artists, artistIDs).compactMap { artist, id in
                if let id, !seen.insert(id).inserted { return nil }
                return (artist.name, artist.role.rawValue, credit.listed, artist.mbid, id)
            }
        }

        init(rows: [(name: String, role: String, listed: Bool, mbid: String?, artistID: Int64?)]) { self.rows = rows }

        static func == (a: StoredCredit, b: StoredCredit) -> Bool {
            a.rows.count == b.rows.count && zip(a.rows, b.rows).allSatisfy {
                $0.name == $1.name && $0.role == $1.role && $0.listed == $1.listed && $0.mbid == $1.mbid && $0.artistID == $1.artistID
            }
        }
    }

    static func storedCredit(trackID: Int64, in db: Database) throws -> StoredCredit {
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT name, role, listed, mbid, artist_id FROM track_artists WHERE track_id = ? ORDER BY position
            """), arguments: [trackID])
        return StoredCredit(rows: rows.map { (name: $0[0], role: $0[1], listed: $0[2], mbid: $0[3], artistID: $0[4]) })
    }

    /// The artists a track is credited to, in order.
    public func credit(trackID: Int64) throws(StoreError) -> ArtistCredit? {
        try read { db in try Store.credit(trackID: trackID, in: db) }
    }

    /// A track's credit with each artist's entity, read together (the track page links them).
    public func creditWithArtistIDs(trackID: Int64) throws(StoreError) -> [(artist: ArtistCredit.Artist, id: Int64?)] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT name, role, mbid, artist_id FROM track_artists WHERE track_id = ? ORDER BY position",
                             arguments: [trackID]).map { row in
                (ArtistCredit.Artist(name: row[0], role: ArtistCredit.Role(rawValue: row[1]) ?? .primary, mbid: row[2]), row[3])
            }
        }
    }

    static func credit(trackID: Int64, in db: Database) throws -> ArtistCredit? {
        let rows = try Row.fetchAll(db, sql: "SELECT name, role, mbid, listed FROM track_artists WHERE track_id = ? ORDER BY position",
                                    arguments: [trackID])
        guard let first = rows.first else { return nil }
        return ArtistCredit(artists: rows.map { ArtistCredit.Artist(name: $0[0], role: ArtistCredit.Role(rawValue: $0[1]) ?? .primary, mbid: $0[2]) },
                            listed: first[3] as Bool)
    }

    /// What splitting every credit that came as text with `separators` would change
    /// (`pacenote credits --preview`). Listed credits are never split again.
    public func creditChanges(separators: [String]) throws(StoreError) -> [CreditChange] {
        try read { db in try Store.creditChanges(separators: separators, in: db) }
    }

    static func creditChanges(separators: [String], in db: Database) throws -> [CreditChange] {
        let rows = try Row.fetchCursor(db, sql: """
            SELECT t.id, COALESCE(t.artist, t.album_artist), t.title, t.mb_artist_id,
                   (SELECT group_concat(name, char(31)) FROM (SELECT name FROM track_artists WHERE track_id = t.id ORDER BY position)),
                   COALESCE(r.plays, 0)
            FROM tracks t LEFT JOIN rollup_track_total r ON r.track_id = t.id
            WHERE COALESCE(t.artist, t.album_artist) IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM track_artists a WHERE a.track_id = t.id AND a.listed = 1)
            ORDER BY t.id
            """)
        var changes: [CreditChange] = []
        while let row = try rows.next() {
            let text: String = row[1], title: String = row[2]
            let before = (row[4] as String?).map { $0.components(separatedBy: "\u{1F}") } ?? []
            let track = Track(title: title, artist: text, musicBrainz: MusicBrainzIDs(artist: row[3]))
            let after = track.credit(separators: separators)?.names ?? []
            if after != before {
                changes.append(CreditChange(trackID: row[0], text: text, title: title, before: before, after: after, plays: row[5]))
            }
        }
        return changes
    }

    /// Splits every credit that came as text with `separators` and records them as the ones
    /// new tracks are split with, in one transaction. Returns what changed: exactly what
    /// `creditChanges(separators:)` showed for the same database.
    public func applyCreditSeparators(_ separators: [String]) throws(StoreError) -> [CreditChange] {
        try write { db in
            let changes = try Store.creditChanges(separators: separators, in: db)
            for change in changes {
                let mbid = try String.fetchOne(db, sql: "SELECT mb_artist_id FROM tracks WHERE id = ?", arguments: [change.trackID])
                let track = Track(title: change.title, artist: change.text, musicBrainz: MusicBrainzIDs(artist: mbid))
                if let credit = track.credit(separators: separators) {
                    try Store.saveCredit(credit, trackID: change.trackID, in: db)
                }
            }
            try db.execute(sql: """
                INSERT INTO meta (key, value) VALUES ('credit_separators', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value
                """, arguments: [separators.joined(separator: " ")])
            return changes
        }
    }
}
