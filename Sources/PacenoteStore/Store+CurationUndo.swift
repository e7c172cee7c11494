/// What undoing a curation entry needs (`CurationUndo`) and the whole rows it puts back (`StoredRow`).

import Foundation
import GRDB
import PacenoteCore

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
    /// A genre merge's links (`track_genres`) moved to the kept genre, and those removed
    /// (the track was filed under both); the genres whose rollups to sum again. Optional:
    /// entries logged before v30 have none.
    struct GenreLink: Codable { var track: Int64; var position: Int64; var genre: Int64 }
    var genreLinks: [GenreLink]?
    var restoreGenreLinks: [StoredRow]?
    var recomputeGenres: [Int64]?
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
        for link in genreLinks ?? [] {
            try db.execute(sql: "UPDATE track_genres SET genre_id = ? WHERE track_id = ? AND position = ?",
                           arguments: [link.genre, link.track, link.position])
        }
        for row in restoreGenreLinks ?? [] { try row.insert(into: "track_genres", in: db) }
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
            try row.markPacesStale(in: db)
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
            try row.markPacesStale(in: db)
        }
        try created.remove(in: db)
        try Store.recomputeEntityRollups(entity: "artist", ids: recomputeArtists, in: db)
        try Store.recomputeEntityRollups(entity: "album", ids: recomputeAlbums, in: db)
        try Store.recomputeEntityRollups(entity: "genre", ids: recomputeGenres ?? [], in: db)
        if !recomputeArtists.isEmpty || !recomputeAlbums.isEmpty || !trackAlbums.isEmpty || !(recomputeGenres ?? []).isEmpty {
            try Store.bumpEntityGeneration(in: db)
        }
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

    /// A play put back: the run it fell in is measured again (its effect went with it).
    func markPacesStale(in db: Database) throws {
        guard let a = columns.firstIndex(of: "started_at_ms"), let b = columns.firstIndex(of: "ended_at_ms"),
              case .int(let start) = values[a], case .int(let end) = values[b] else { return }
        try Store.markPacesStale(fromMs: start, toMs: end, in: db)
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
            throw StoreError.refused(.undoConflict, "cannot put a \(table) row back: \(error.message ?? "a constraint")")
        }
    }
}
