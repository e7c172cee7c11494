import Foundation
import GRDB
import PacenoteCore

/// A forwarding target as the configuration gives it (`[[forward]]`).
public struct ForwardTargetSpec: Equatable, Sendable {
    public var name: String
    public var kind: Forwarding.Kind
    public var url: String
    /// Only plays from these sources (`mpd`, `listenbrainz`, `audioscrobbler`, `mpdscribble`, …);
    /// nil: every source.
    public var sources: [String]?
    /// Only plays from these players; nil: every player.
    public var players: [String]?

    public init(name: String, kind: Forwarding.Kind, url: String, sources: [String]? = nil, players: [String]? = nil) {
        self.name = name
        self.kind = kind
        self.url = url
        self.sources = sources
        self.players = players
    }
}

/// A target's state: its queue, what it took, its last error (`forward status`, `/api/v1/status`).
public struct ForwardTargetState: Equatable, Sendable {
    public var id: Int64
    public var name: String
    public var kind: Forwarding.Kind
    public var url: String
    public var active: Bool
    public var queued: Int
    public var parked: Int
    public var sent: Int
    public var lastSuccessAt: Date?
    public var lastError: String?
    public var lastErrorAt: Date?
    public var sessionUser: String?
    public var sessionKey: String?
}

/// A parked play: refused by its target, with the reason.
public struct ParkedPlay: Equatable, Sendable {
    public var target: String
    public var playID: Int64
    public var parkedAt: Date
    public var reason: String
    public var track: Track
    public var startedAt: Date
}

extension Store {
    /// The outbox takes a counted play for each active target whose filters it passes, in
    /// the transaction that stores the play (so a crash loses nothing and queues nothing twice).
    static func queueForForwarding(playID: Int64, source: String, player: String?, in db: Database) throws {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO forward_outbox (target_id, play_id, queued_at_ms)
            SELECT id, ?1, ?2 FROM forward_targets
            WHERE active = 1
              AND (sources IS NULL OR instr(sources, char(31) || ?3 || char(31)) > 0)
              AND (players IS NULL OR instr(players, char(31) || ifnull(?4, '') || char(31)) > 0)
            ON CONFLICT DO NOTHING
            """)
        try statement.execute(arguments: [playID, Store.milliseconds(Date()), source, player])
    }

    private static func wrapped(_ list: [String]?) -> String? {
        list.map { "\u{1F}" + $0.joined(separator: "\u{1F}") + "\u{1F}" }
    }

    /// Makes the stored targets those of the configuration: new ones are added (they take
    /// plays from now on; `backfill` sends the past), changed ones updated, and those no
    /// longer named are kept inactive (their queue waits, in case they come back).
    @discardableResult
    public func syncForwardTargets(_ specs: [ForwardTargetSpec], at now: Date = Date()) throws(StoreError) -> [String: Int64] {
        try write { db in
            try db.execute(sql: "UPDATE forward_targets SET active = 0")
            var ids: [String: Int64] = [:]
            for spec in specs {
                let id = try Int64.fetchOne(db, sql: """
                    INSERT INTO forward_targets (name, kind, url, active, sources, players, created_at_ms)
                    VALUES (?, ?, ?, 1, ?, ?, ?)
                    ON CONFLICT (name) DO UPDATE SET
                      active = 1, sources = excluded.sources, players = excluded.players,
                      -- a session is the service's: it does not follow the target to another
                      session_key = CASE WHEN kind = excluded.kind AND url = excluded.url THEN session_key END,
                      session_user = CASE WHEN kind = excluded.kind AND url = excluded.url THEN session_user END,
                      kind = excluded.kind, url = excluded.url
                    RETURNING id
                    """, arguments: [spec.name, spec.kind.rawValue, spec.url, Store.wrapped(spec.sources),
                                     Store.wrapped(spec.players), Store.milliseconds(now)])
                ids[spec.name] = id
            }
            return ids
        }
    }

    public func forwardTargets() throws(StoreError) -> [ForwardTargetState] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, name, kind, url, active, queued, parked, sent, last_success_at_ms, last_error,
                       last_error_at_ms, session_user, session_key
                FROM forward_targets ORDER BY active DESC, name
                """).map { row in
                ForwardTargetState(
                    id: row[0], name: row[1], kind: Forwarding.Kind(rawValue: row[2]) ?? .listenbrainz, url: row[3],
                    active: row[4], queued: row[5], parked: row[6], sent: row[7],
                    lastSuccessAt: (row[8] as Int64?).map(Store.date(milliseconds:)), lastError: row[9],
                    lastErrorAt: (row[10] as Int64?).map(Store.date(milliseconds:)), sessionUser: row[11], sessionKey: row[12])
            }
        }
    }

    /// The next plays to send to a target, oldest first, parked ones left out.
    public func forwardBatch(target: Int64, limit: Int) throws(StoreError) -> [Forwarding.Listen] {
        try read { db in
            let rows = try RawStatement(db, """
                SELECT \(Store.playWithTrackColumns), o.attempts
                FROM forward_outbox o JOIN plays p ON p.id = o.play_id JOIN tracks t ON t.id = p.track_id
                WHERE o.target_id = ? AND o.parked_at_ms IS NULL
                ORDER BY o.play_id
                LIMIT ?
                """, arguments: [target, limit])
            var listens: [Forwarding.Listen] = []
            while try rows.step() {
                let row = Store.playWithTrack(from: rows)
                listens.append(Forwarding.Listen(playID: row.play.id ?? 0, track: row.track, startedAt: row.play.startedAt,
                                                 playedSeconds: row.play.playedSeconds, source: row.play.source,
                                                 player: row.play.player, attempts: Int(rows.int64(Int32(Store.playWithTrackColumnCount)))))
            }
            return listens
        }
    }

    /// A target took these plays: out of the queue, remembered as sent.
    public func forwardDelivered(target: Int64, plays: [Int64], at now: Date = Date()) throws(StoreError) {
        guard !plays.isEmpty else { return }
        try write { db in
            let remove = try db.cachedStatement(sql: "DELETE FROM forward_outbox WHERE target_id = ? AND play_id = ?")
            let remember = try db.cachedStatement(sql: "INSERT OR IGNORE INTO forward_sent (target_id, play_id) VALUES (?, ?)")
            for play in plays {
                try remove.execute(arguments: [target, play])
                try remember.execute(arguments: [target, play])
            }
            try db.execute(sql: """
                UPDATE forward_targets SET sent = sent + ?, last_success_at_ms = ? WHERE id = ?
                """, arguments: [plays.count, Store.milliseconds(now), target])
        }
    }

    /// A target refused these plays for good: parked with the reason, the queue goes on.
    public func forwardParked(target: Int64, plays: [(id: Int64, reason: String)], at now: Date = Date()) throws(StoreError) {
        guard !plays.isEmpty else { return }
        try write { db in
            for play in plays {
                try db.execute(sql: """
                    UPDATE forward_outbox SET parked_at_ms = ?, reason = ?, attempts = attempts + 1
                    WHERE target_id = ? AND play_id = ?
                    """, arguments: [Store.milliseconds(now), play.reason, target, play.id])
            }
            try db.execute(sql: "UPDATE forward_targets SET last_error = ?, last_error_at_ms = ? WHERE id = ?",
                           arguments: ["refused: " + (plays.last?.reason ?? ""), Store.milliseconds(now), target])
        }
    }

    /// A request failed for a reason that is not the plays' (the service is down, limiting
    /// us or refusing our credentials): the plays stay queued, the error is shown.
    public func forwardFailed(target: Int64, plays: [Int64], reason: String, at now: Date = Date()) throws(StoreError) {
        try write { db in
            for play in plays {
                try db.execute(sql: "UPDATE forward_outbox SET attempts = attempts + 1 WHERE target_id = ? AND play_id = ?",
                               arguments: [target, play])
            }
            try db.execute(sql: "UPDATE forward_targets SET last_error = ?, last_error_at_ms = ? WHERE id = ?",
                           arguments: [reason, Store.milliseconds(now), target])
        }
    }

    /// The parked plays, newest first (of one target, or all).
    public func parkedPlays(target name: String? = nil, limit: Int = 100) throws(StoreError) -> [ParkedPlay] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT f.name, o.play_id, o.parked_at_ms, o.reason, p.started_at_ms, \(Store.trackColumns("t"))
                FROM forward_outbox o JOIN forward_targets f ON f.id = o.target_id
                JOIN plays p ON p.id = o.play_id JOIN tracks t ON t.id = p.track_id
                WHERE o.parked_at_ms IS NOT NULL AND (?1 IS NULL OR f.name = ?1)
                ORDER BY o.parked_at_ms DESC, o.play_id DESC LIMIT ?2
                """, arguments: [name, limit]).map { row in
                ParkedPlay(target: row[0], playID: row[1], parkedAt: Store.date(milliseconds: row[2]), reason: row[3] ?? "",
                           track: Store.track(from: row, at: 5), startedAt: Store.date(milliseconds: row[4]))
            }
        }
    }

    /// Puts parked plays back in the queue (of one target, or all); returns how many.
    @discardableResult
    public func retryParked(target name: String? = nil) throws(StoreError) -> Int {
        try write { db in
            try db.execute(sql: """
                UPDATE forward_outbox SET parked_at_ms = NULL, reason = NULL, attempts = 0
                WHERE parked_at_ms IS NOT NULL
                  AND (?1 IS NULL OR target_id = (SELECT id FROM forward_targets WHERE name = ?1))
                """, arguments: [name])
            return db.changesCount
        }
    }

    /// Queues a target's counted plays of the past (started in [`from`, `to`)) that it has
    /// not taken yet and that pass its filters; returns how many. Nil when no such target.
    public func backfill(target name: String, from: Date, to: Date?, at now: Date = Date()) throws(StoreError) -> Int? {
        try write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT id, sources, players FROM forward_targets WHERE name = ?",
                                             arguments: [name]) else { return nil }
            let id: Int64 = row[0]
            try db.execute(sql: """
                INSERT INTO forward_outbox (target_id, play_id, queued_at_ms)
                SELECT ?1, p.id, ?2 FROM plays p
                WHERE p.counted = 1 AND p.started_at_ms >= ?3 AND p.started_at_ms < ?4
                  AND (?5 IS NULL OR instr(?5, char(31) || p.source || char(31)) > 0)
                  AND (?6 IS NULL OR instr(?6, char(31) || ifnull(p.player, '') || char(31)) > 0)
                  AND NOT EXISTS (SELECT 1 FROM forward_sent s WHERE s.target_id = ?1 AND s.play_id = p.id)
                ORDER BY p.id
                ON CONFLICT DO NOTHING
                """, arguments: [id, Store.milliseconds(now), Store.milliseconds(from), to.map(Store.milliseconds) ?? Int64.max,
                                 row[1] as String?, row[2] as String?])
            return db.changesCount
        }
    }

    /// Keeps the session `pacenote forward login` obtained (nil: forget it). False when no such target.
    @discardableResult
    public func setForwardSession(target name: String, key: String?, user: String?) throws(StoreError) -> Bool {
        try write { db in
            try db.execute(sql: "UPDATE forward_targets SET session_key = ?, session_user = ?, last_error = NULL WHERE name = ?",
                           arguments: [key, user, name])
            return db.changesCount > 0
        }
    }
}
