import Foundation
import GRDB
import PacenoteCore

/// What the player (issue 57) asks of the library mirror: the files to queue for a track,
/// an album or an artist, and the library to browse — artists, their albums, an album's
/// tracks — with BPM, likes and plays beside each. Library files only: MPD can play nothing else.
extension Store {
    /// What can be queued of a track, an album or an artist.
    public enum Playable: Equatable, Sendable {
        case tracks([Int64])
        case album(Int64)
        case artist(Int64)
    }

    /// The MPD files of `what`, in playing order (an artist's by album, disc and track).
    /// Tracks not in the library are left out; an unknown id gives none.
    public func libraryURIs(_ what: Playable) throws(StoreError) -> [String] {
        let local = "t.in_library = 1 AND t.uri IS NOT NULL AND t.uri NOT LIKE '%://%'"
        let albumOrder = "t.disc_number IS NULL, t.disc_number, t.track_number IS NULL, t.track_number, t.title, t.id"
        return try read { db in
            switch what {
            case .tracks(let ids):
                guard !ids.isEmpty else { return [] }
                let found = try Dictionary(Row.fetchAll(db, sql: """
                    SELECT t.id, t.uri FROM tracks t WHERE \(local) AND t.id IN (\(ids.map { _ in "?" }.joined(separator: ",")))
                    """, arguments: StatementArguments(ids)).map { ($0[0] as Int64, $0[1] as String) }, uniquingKeysWith: { a, _ in a })
                return ids.compactMap { found[$0] }
            case .album(let id):
                return try String.fetchAll(db, sql: "SELECT t.uri FROM tracks t WHERE t.album_id = ? AND \(local) ORDER BY \(albumOrder)",
                                           arguments: [id])
            case .artist(let id):
                return try String.fetchAll(db, sql: """
                    SELECT t.uri FROM tracks t LEFT JOIN albums al ON al.id = t.album_id
                    WHERE t.id IN (SELECT track_id FROM track_artists WHERE artist_id = ?) AND \(local)
                    ORDER BY al.title IS NULL, al.title, al.id, \(albumOrder)
                    """, arguments: [id])
            }
        }
    }

    /// A row of the library browser: an artist or an album with how many library tracks it
    /// has and its plays.
    public struct LibraryEntry: Equatable, Sendable {
        public var id: Int64
        public var name: String
        /// An album's artist as credited.
        public var artist: String?
        public var tracks: Int
        public var plays: Int
        /// An album's first library track (its cover is the album's).
        public var firstTrackID: Int64?
    }

    /// The library's artists (with a track in the library), by name; `search` narrows them
    /// to those whose own name (or a name merged into it) has every word of the search at
    /// the start of one of its words, folded as the full-text index folds (`SearchWords`).
    /// By name, not by the tracks' credit text: a track "Jay-Z feat. Beyoncé" does not make
    /// Jay-Z a "beyonce", and an artist credited only in titles ("(feat. X)") is found.
    /// A search with no word in it (an artist called "!!!") matches the name's text.
    public func libraryArtists(search: String?, limit: Int, offset: Int) throws(StoreError) -> [LibraryEntry] {
        var arguments: [any DatabaseValueConvertible] = []
        // The names are judged once each (MATERIALIZED), not once per track joined below.
        var found = "", filter = ""
        if let search, !search.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            let words = SearchWords.searched(search)
            let named = words.isEmpty ? "instr(lower(x.name), lower(?)) > 0" : "pacenote_search_words(x.name, ?)"
            found = "WITH found(id) AS MATERIALIZED (SELECT DISTINCT COALESCE(x.merged_into, x.id) FROM artists x WHERE \(named))"
            filter = "AND a.id IN found"
            arguments.append(words.isEmpty ? search.trimmingCharacters(in: .whitespacesAndNewlines) : Store.foldedWords(search))
        }
        arguments += [limit, offset]
        return try read { db in
            try Row.fetchAll(db, sql: """
                \(found)
                SELECT a.id, a.name, count(DISTINCT t.id), COALESCE((SELECT plays FROM rollup_artist_total WHERE artist_id = a.id), 0)
                FROM artists a JOIN track_artists ta ON ta.artist_id = a.id JOIN tracks t ON t.id = ta.track_id AND t.in_library = 1
                WHERE a.merged_into IS NULL \(filter)
                GROUP BY a.id ORDER BY a.name COLLATE NOCASE, a.id LIMIT ? OFFSET ?
                """, arguments: StatementArguments(arguments)).map {
                LibraryEntry(id: $0[0], name: $0[1], artist: nil, tracks: $0[2], plays: $0[3])
            }
        }
    }

    /// What the library's search finds: the site's search (the full-text index over titles,
    /// artists and albums that the history's search uses — accents and case folded, each word
    /// the start of a word, every word needed) over the library. Artists by their own name
    /// (`libraryArtists`); albums whose tracks match by album and artist, or whose own title
    /// and album artist do ("tempo" finds the artist's albums, "various" a compilation; by
    /// title); tracks that match anywhere (most played first).
    public struct LibrarySearch: Equatable, Sendable {
        public var artists: [LibraryEntry]
        public var albums: [LibraryEntry]
        public var tracks: [ChartEntry]
    }

    /// `librarySearch`: at most `limit` of each (no artists when `artists` is false: a page
    /// that lists them itself); nothing but artists for a text with no word in it.
    public func librarySearch(_ text: String, limit: Int, artists withArtists: Bool = true) throws(StoreError) -> LibrarySearch {
        let artists = withArtists ? try libraryArtists(search: text, limit: limit, offset: 0) : []
        guard let match = Store.ftsQuery(text) else { return LibrarySearch(artists: artists, albums: [], tracks: []) }
        let words = Store.foldedWords(text)
        return try read { db in
            let albums = try Row.fetchAll(db, sql: """
                WITH found(id) AS MATERIALIZED (
                  SELECT album_id FROM tracks WHERE in_library = 1 AND id IN (SELECT rowid FROM tracks_fts WHERE tracks_fts MATCH ?)
                  UNION SELECT id FROM albums WHERE pacenote_search_words(title || ' ' || COALESCE(artist, ''), ?))
                SELECT al.id, al.title, al.artist, count(DISTINCT t.id), COALESCE((SELECT plays FROM rollup_album_total WHERE album_id = al.id), 0), min(t.id)
                FROM tracks t JOIN albums al ON al.id = t.album_id
                WHERE t.in_library = 1 AND al.id IN found
                GROUP BY al.id ORDER BY al.title COLLATE NOCASE, al.id LIMIT ?
                """, arguments: ["{album artist} : (\(match))", words, limit]).map {
                LibraryEntry(id: $0[0], name: $0[1], artist: $0[2], tracks: $0[3], plays: $0[4], firstTrackID: $0[5])
            }
            let tracks = try Row.fetchAll(db, sql: """
                SELECT \(Store.trackColumns("t")), COALESCE(r.plays, 0), COALESCE(r.played_s, 0)
                FROM tracks t LEFT JOIN rollup_track_total r ON r.track_id = t.id
                WHERE t.in_library = 1 AND t.id IN (SELECT rowid FROM tracks_fts WHERE tracks_fts MATCH ?)
                ORDER BY COALESCE(r.plays, 0) DESC, t.title COLLATE NOCASE, t.id LIMIT ?
                """, arguments: [match, limit]).map(Store.chartEntry(track:))
            return LibrarySearch(artists: artists, albums: albums, tracks: tracks)
        }
    }

    /// `pacenote_search_words(text, words)`: `SearchWords.matches` in SQL, `words` the search's
    /// words folded already and joined by spaces (`foldedWords`), so a search folds them once.
    static func searchWordsFunction() -> DatabaseFunction {
        DatabaseFunction("pacenote_search_words", argumentCount: 2, pure: true) { values in
            guard let text = String.fromDatabaseValue(values[0]), let words = String.fromDatabaseValue(values[1]) else { return false }
            return SearchWords.matches(text, words: words.split(separator: " "))
        }
    }

    /// A search's words for `pacenote_search_words`: the counted ones (`SearchWords.searched`), folded.
    static func foldedWords(_ text: String) -> String {
        SearchWords.searched(text).flatMap { SearchWords.words(String($0)) }.joined(separator: " ")
    }

    /// An artist's albums that have a track in the library, by title.
    public func libraryAlbums(artistID: Int64) throws(StoreError) -> [LibraryEntry] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT al.id, al.title, al.artist, count(DISTINCT t.id), COALESCE((SELECT plays FROM rollup_album_total WHERE album_id = al.id), 0), min(t.id)
                FROM tracks t JOIN albums al ON al.id = t.album_id
                WHERE t.in_library = 1 AND t.id IN (SELECT track_id FROM track_artists WHERE artist_id = ?)
                GROUP BY al.id ORDER BY al.title COLLATE NOCASE, al.id
                """, arguments: [artistID]).map {
                LibraryEntry(id: $0[0], name: $0[1], artist: $0[2], tracks: $0[3], plays: $0[4], firstTrackID: $0[5])
            }
        }
    }

    /// An album's library tracks in disc and track order, with their plays (all time).
    public func libraryTracks(albumID: Int64) throws(StoreError) -> [ChartEntry] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Store.trackColumns("t")), COALESCE(r.plays, 0), COALESCE(r.played_s, 0)
                FROM tracks t LEFT JOIN rollup_track_total r ON r.track_id = t.id
                WHERE t.album_id = ? AND t.in_library = 1
                ORDER BY t.disc_number IS NULL, t.disc_number, t.track_number IS NULL, t.track_number, t.title, t.id
                """, arguments: [albumID]).map(Store.chartEntry(track:))
        }
    }

    /// The likes and dislikes of `ids`.
    public func feelings(of ids: [Int64]) throws(StoreError) -> [Int64: Feeling] {
        guard !ids.isEmpty else { return [:] }
        return try read { db in
            try Dictionary(Row.fetchAll(db, sql: """
                SELECT track_id, feeling FROM track_feelings WHERE track_id IN (\(ids.map { _ in "?" }.joined(separator: ",")))
                """, arguments: StatementArguments(ids)).map { ($0[0] as Int64, Feeling(rawValue: $0[1]) ?? .none) }, uniquingKeysWith: { a, _ in a })
        }
    }

    /// The stored tracks of MPD files, by URI (what the queue and a playlist show beside a song).
    public func tracks(uris: [String]) throws(StoreError) -> [String: Track] {
        guard !uris.isEmpty else { return [:] }
        return try read { db in
            var out: [String: Track] = [:]
            for chunk in stride(from: 0, to: uris.count, by: 500).map({ Array(uris[$0..<min($0 + 500, uris.count)]) }) {
                for row in try Row.fetchAll(db, sql: """
                    SELECT \(Store.trackColumns("t")) FROM tracks t WHERE t.uri IN (\(chunk.map { _ in "?" }.joined(separator: ",")))
                    """, arguments: StatementArguments(chunk)) {
                    let track = Store.track(from: row)
                    if let uri = track.uri { out[uri] = track }
                }
            }
            return out
        }
    }
}
