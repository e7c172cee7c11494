import Foundation
import GRDB
import PacenoteCore

/// The private session (`PrivateSession`): two rows of `meta`, its start and its end in
/// Unix milliseconds (an empty end: until it is turned off). Only the last session is kept;
/// the plays it hid stay among the hidden plays after it ends.
extension Store {
    static let privateSinceKey = "private_session_since_ms"
    static let privateUntilKey = "private_session_until_ms"

    /// The last private session, on or ended; nil when there never was one.
    public func privateSession() throws(StoreError) -> PrivateSession? {
        try read { db in try Store.privateSession(in: db) }
    }

    static func privateSession(in db: Database) throws -> PrivateSession? {
        let rows = try Row.fetchAll(db.cachedStatement(sql: "SELECT key, value FROM meta WHERE key IN (?, ?)"),
                                    arguments: [privateSinceKey, privateUntilKey])
        var values: [String: String] = [:]
        for row in rows {
            let key: String = row["key"], value: String = row["value"]
            values[key] = value
        }
        guard let since = values[privateSinceKey].flatMap({ Int64($0) }) else { return nil }
        let until = values[privateUntilKey].flatMap { Int64($0) }
        return PrivateSession(since: date(milliseconds: since), until: until.map(date(milliseconds:)))
    }

    /// Stores the session (a new one, or the current one ended early).
    public func setPrivateSession(_ session: PrivateSession) throws(StoreError) {
        try write { db in
            let upsert = "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
            try db.execute(sql: upsert, arguments: [Store.privateSinceKey, String(Store.milliseconds(session.since))])
            try db.execute(sql: upsert, arguments: [Store.privateUntilKey, session.until.map { String(Store.milliseconds($0)) } ?? ""])
        }
    }

    /// Whether a new play from `start` to `end` is private: the rules' decision to keep it
    /// becomes a decision to hide it (an ignore stays an ignore).
    static func privateDecision(_ decision: RuleDecision, start: Date, end: Date, session: PrivateSession?) -> RuleDecision {
        guard let session, session.covers(start: start, end: end), case .keep(let track) = decision else { return decision }
        return .hide(track, ruleID: nil)
    }
}

extension Store {
    /// Shows a hidden play again (one a private session or a `hide` rule kept out): it moves
    /// to `plays`, where the rollups' triggers count it, and a counted play is queued for
    /// forwarding as any new play is. Nil when there is no such hidden play, or the same
    /// listen is already among the plays (then the hidden copy is dropped).
    public func unhidePlay(id: Int64) throws(StoreError) -> (found: Bool, logged: LoggedPlay?) {
        try write { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT \(Store.playWithTrackColumns) FROM hidden_plays p JOIN tracks t ON t.id = p.track_id WHERE p.id = ?
                """, arguments: [id]) else { return (false, nil) }
            var hidden = Store.playWithTrack(from: row)
            try db.execute(sql: "DELETE FROM hidden_plays WHERE id = ?", arguments: [id])
            hidden.play.id = nil
            guard let newID = try Store.insertPlay(hidden.play, localTime: localTime, in: db) else { return (true, nil) }
            hidden.play.id = newID
            return (true, LoggedPlay(id: newID, play: hidden.play, track: hidden.track))
        }
    }
}
