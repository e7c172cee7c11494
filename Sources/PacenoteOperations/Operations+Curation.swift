import Foundation
import PacenoteCore
import PacenoteStore

/// Corrections to the history (issue: curation): each is one curation log entry, written
/// in the same transaction as the change, and announced once (`.curated`) so that charts,
/// pages, the recommender and the live page follow.
extension Operations {
    /// Deletes one play (the API, the site, ListenBrainz's delete-listen).
    @discardableResult
    public func deletePlay(id: Int64, source: String = "api") throws -> PlayWithTrack {
        try deletePlays(ids: [id], source: source).deleted[0]
    }

    /// Deletes plays as one entry (undone together).
    public func deletePlays(ids: [Int64], source: String = "api") throws -> (entry: CurationEntry, deleted: [PlayWithTrack]) {
        guard !ids.isEmpty, ids.count <= 1000 else { throw OperationError.invalid("invalid_ids", "delete 1 to 1,000 plays at a time") }
        let request = "{\"delete\":{\"listens\":[\(ids.map(String.init).joined(separator: ","))]}}"
        return try curate { () throws(StoreError) in
            try store.curateDelete(playIDs: ids, request: request, source: source)
        } entry: { $0.entry }
    }

    /// Edits a play: its track, or whether it counted.
    public func editPlay(id: Int64, _ edit: Store.PlayEdit, request: String, source: String = "api") throws -> (entry: CurationEntry, play: PlayWithTrack) {
        if let track = edit.track, track.title.trimmingCharacters(in: .whitespaces).isEmpty {
            throw OperationError.invalid("invalid_track", "a track needs a title")
        }
        guard edit.trackID != nil || edit.track != nil || edit.counted != nil else {
            throw OperationError.invalid("invalid_edit", "say what to change: 'track_id', 'track' or 'counted'")
        }
        return try curate { () throws(StoreError) in try store.curateEdit(playID: id, edit, request: request, source: source) } entry: { $0.entry }
    }

    /// Adds plays that were never logged: a song, or an album back to back.
    public func addPlays(_ addition: Store.PlayAddition, startedAt: Date, request: String, source: String = "api",
                         now: Date = Date()) throws -> (entry: CurationEntry, added: [PlayWithTrack]) {
        guard startedAt <= now.addingTimeInterval(60) else {
            throw OperationError.invalid("invalid_started_at", "'started_at' is in the future")
        }
        if case .text(let track) = addition, track.title.trimmingCharacters(in: .whitespaces).isEmpty {
            throw OperationError.invalid("invalid_track", "a track needs a title")
        }
        return try curate { () throws(StoreError) in
            try store.curateAdd(addition, startedAt: startedAt, request: request, source: source)
        } entry: { $0.entry }
    }

    /// Merges tracks, artists or albums into one; the merged names become aliases.
    public func merge(_ kind: MergeKind, from: [Int64], into: Int64, request: String, source: String = "api") throws -> CurationEntry {
        guard from.count <= 1000 else { throw OperationError.invalid("invalid_from", "at most 1,000 ids in 'from'") }
        return try curate { () throws(StoreError) in
            try store.merge(kind, from: from, into: into, request: request, source: source)
        } entry: { $0 }
    }

    /// Makes an exported merge again in this database (`pacenote import --curation`).
    public func replayMerge(request: String) throws -> CurationEntry? {
        do {
            let entry = try store.replayMerge(request: request, source: "import")
            if let entry { announce(.curated(entryID: entry.id, undone: false)) }
            return entry
        } catch {
            throw OperationError.from(error)
        }
    }

    /// Undoes one entry as a whole.
    public func undoCuration(id: Int64) throws -> CurationEntry {
        do {
            let entry = try store.undoCuration(id: id)
            announce(.curated(entryID: id, undone: true))
            return entry
        } catch {
            throw OperationError.from(error)
        }
    }

    /// Runs a curation, maps the store's refusal to the operation's words, and announces it.
    private func curate<T>(_ body: () throws(StoreError) -> T, entry: (T) -> CurationEntry) throws -> T {
        do {
            let result = try body()
            announce(.curated(entryID: entry(result).id, undone: false))
            return result
        } catch {
            throw OperationError.from(error)
        }
    }
}
