import Foundation
import GRDB
import PacenoteCore
import Synchronization

/// Rules (`CurationRule`): kept in `curation_rules`, the configuration's first. Every
/// change of them moves `meta.rules_generation` on, so that the rule set compiled for
/// ingest (`currentRules`) is compiled again only then, in this process or another.
extension Store {
    // MARK: Reading and changing rules

    /// Every rule in the order of the list: the configuration's, then the site's.
    public func rules() throws(StoreError) -> [CurationRule] {
        try read { db in try Store.rules(in: db) }
    }

    static func rules(in db: Database) throws -> [CurationRule] {
        try Row.fetchAll(db, sql: """
            SELECT id, action, field, match, value, replacement, enabled, from_config FROM curation_rules
            ORDER BY from_config DESC, position, id
            """).map(rule)
    }

    static func rule(_ row: Row) -> CurationRule {
        CurationRule(id: row[0], action: CurationRule.Action(rawValue: row[1]) ?? .ignore,
                     field: CurationRule.Field(rawValue: row[2]) ?? .title, match: CurationRule.Match(rawValue: row[3]) ?? .equals,
                     value: row[4], replacement: row[5], enabled: row[6], fromConfig: row[7])
    }

    public func rule(id: Int64) throws(StoreError) -> CurationRule? {
        try read { db in try Store.rule(id: id, in: db) }
    }

    static func rule(id: Int64, in db: Database) throws -> CurationRule? {
        try Row.fetchOne(db, sql: """
            SELECT id, action, field, match, value, replacement, enabled, from_config FROM curation_rules WHERE id = ?
            """, arguments: [id]).map(rule)
    }

    /// Adds a rule at the end of the site's list. The caller checked it (`problem`).
    public func addRule(_ rule: CurationRule, at now: Date = Date()) throws(StoreError) -> CurationRule {
        try write { db in
            let position = try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(position), 0) + 1 FROM curation_rules WHERE from_config = 0") ?? 1
            try Store.insertRule(rule, position: position, fromConfig: false, at: now, in: db)
            var stored = rule
            stored.id = db.lastInsertedRowID
            stored.fromConfig = false
            try Store.bumpRulesGeneration(in: db)
            return stored
        }
    }

    static func insertRule(_ rule: CurationRule, position: Int64, fromConfig: Bool, at now: Date, in db: Database) throws {
        try db.execute(sql: """
            INSERT INTO curation_rules (position, action, field, match, value, replacement, enabled, from_config, created_at_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [position, rule.action.rawValue, rule.field.rawValue, rule.match.rawValue, rule.value,
                             rule.replacement, rule.enabled, fromConfig, milliseconds(now)])
    }

    /// Replaces a rule of the site's (its place in the list stays).
    public func updateRule(_ rule: CurationRule) throws(StoreError) -> CurationRule {
        try write { db in
            guard let id = rule.id, let stored = try Store.rule(id: id, in: db) else {
                throw StoreError.refused(.missing, "no rule \(rule.id ?? 0)")
            }
            if stored.fromConfig { throw StoreError.refused(.ruleFromConfig, "rule \(id) comes from the configuration file: change it there") }
            try db.execute(sql: """
                UPDATE curation_rules SET action = ?, field = ?, match = ?, value = ?, replacement = ?, enabled = ? WHERE id = ?
                """, arguments: [rule.action.rawValue, rule.field.rawValue, rule.match.rawValue, rule.value, rule.replacement, rule.enabled, id])
            try Store.forgetRuleOverruns(ids: [id], in: db)
            try Store.bumpRulesGeneration(in: db)
            var updated = rule
            updated.fromConfig = false
            return updated
        }
    }

    /// Deletes a rule of the site's. Plays it changed in the past stay as they are (undo
    /// its entry in the curation log for that).
    public func deleteRule(id: Int64) throws(StoreError) -> CurationRule {
        try write { db in
            guard let stored = try Store.rule(id: id, in: db) else { throw StoreError.refused(.missing, "no rule \(id)") }
            if stored.fromConfig { throw StoreError.refused(.ruleFromConfig, "rule \(id) comes from the configuration file: change it there") }
            try db.execute(sql: "DELETE FROM curation_rules WHERE id = ?", arguments: [id])
            try Store.forgetRuleOverruns(ids: [id], in: db)
            try Store.bumpRulesGeneration(in: db)
            return stored
        }
    }

    /// Replaces the configuration's rules (`[[rules]]`) with these, at each start. Rules
    /// unchanged keep their ids.
    public func replaceConfigRules(_ rules: [CurationRule], at now: Date = Date()) throws(StoreError) {
        try write { db in
            let stored = try Store.rules(in: db).filter(\.fromConfig)
            let same = stored.count == rules.count && zip(stored, rules).allSatisfy { a, b in
                a.action == b.action && a.field == b.field && a.match == b.match && a.value == b.value
                    && a.replacement == b.replacement && a.enabled == b.enabled
            }
            guard !same else { return }
            try Store.forgetRuleOverruns(ids: stored.compactMap(\.id), in: db)
            try db.execute(sql: "DELETE FROM curation_rules WHERE from_config = 1")
            for (i, rule) in rules.enumerated() { try Store.insertRule(rule, position: Int64(i + 1), fromConfig: true, at: now, in: db) }
            try Store.bumpRulesGeneration(in: db)
        }
    }

    static func bumpRulesGeneration(in db: Database) throws {
        try db.execute(sql: """
            INSERT INTO meta (key, value) VALUES ('rules_generation', '1')
            ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1
            """)
    }

    /// The rule set in force, compiled once per change of the rules: one small read of
    /// `meta` per call otherwise.
    public func currentRules() throws(StoreError) -> RuleSet {
        try read { db in
            let generation = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'rules_generation'") ?? "0"
            if let cached = ruleCache.withLock({ $0 }), cached.generation == generation { return cached.rules }
            let rules = RuleSet(try Store.rules(in: db))
            ruleCache.withLock { $0 = (generation, rules) }
            return rules
        }
    }

    // MARK: Hidden plays

    /// Logs a play among the hidden ones (a `hide` rule at ingest). A play already there
    /// (same track and start) is kept once. Returns its id when it was new.
    @discardableResult
    static func insertHiddenPlay(_ p: Play, localTime: LocalTime, in db: Database) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: """
            INSERT INTO hidden_plays (track_id, started_at_ms, ended_at_ms, played_s, counted, source, player,
                                      hr_avg, hr_max, zone, workout_id, local_day, local_hour, played_bpm, tempo_ratio)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (track_id, started_at_ms) DO NOTHING
            RETURNING id
            """), arguments: [
                p.trackID, milliseconds(p.startedAt), milliseconds(p.endedAt), p.playedSeconds, p.counted,
                p.source, p.player, p.heartRateAverage, p.heartRateMax, p.zone?.rawValue, p.workoutID,
                localTime.day(of: p.startedAt), localTime.hour(of: p.startedAt), p.playedBPM, p.tempoRatio,
            ])
    }

    /// Hidden plays, newest first, after `cursor` (exclusive).
    public func hiddenPlays(limit: Int, after cursor: PlayCursor? = nil) throws(StoreError) -> [PlayWithTrack] {
        try read { db in
            var sql = "SELECT \(Store.playWithTrackColumns) FROM hidden_plays p JOIN tracks t ON t.id = p.track_id"
            var arguments: StatementArguments = []
            if let cursor {
                sql += " WHERE (p.started_at_ms, p.id) < (?, ?)"
                arguments += [cursor.startedAtMs, cursor.id]
            }
            sql += " ORDER BY p.started_at_ms DESC, p.id DESC LIMIT ?"
            arguments += [limit]
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map(Store.playWithTrack)
        }
    }

    // MARK: Applying a rule to the past

    /// What applying one rule to the past changes: each play as it is, and its track
    /// after (a rewrite), in the order of the plays' starts. `total` counts them all,
    /// `changes` holds at most the number asked for.
    public struct RuleEffect: Sendable {
        public struct Change: Sendable {
            public var play: PlayWithTrack
            /// The track the play moves to (a rewrite); nil when it is deleted (ignore) or hidden.
            public var after: Track?
        }

        public var rule: CurationRule
        public var total: Int
        public var changes: [Change]
    }

    /// The dry run: the rule applied in a transaction that is rolled back, so that it
    /// lists exactly what `applyRule` then changes (the same function does both).
    public func previewRule(id: Int64, limit: Int = 100) throws(StoreError) -> RuleEffect {
        let outcomes = try ruleOutcomes(id: id)
        return try write { db in
            var effect: RuleEffect?
            try db.inSavepoint {
                var undo = CurationUndo()
                var touches: Set<String> = []
                effect = try Store.applyRule(id: id, limit: limit, outcomes: outcomes, undo: &undo, touches: &touches, in: db)
                return .rollback
            }
            guard let effect else { throw StoreError.sqlite("the dry run gave nothing") }
            return effect
        }
    }

    /// Applies one rule to every play already logged, as one curation log entry (undone as
    /// a whole). Refused when it changes nothing.
    public func applyRule(id: Int64, limit: Int = 100, request: String, source: String,
                          at now: Date = Date()) throws(StoreError) -> (entry: CurationEntry, effect: RuleEffect) {
        let outcomes = try ruleOutcomes(id: id)
        return try write { db in
            var undo = CurationUndo()
            var touches: Set<String> = ["rule:\(id)"]
            let effect = try Store.applyRule(id: id, limit: limit, outcomes: outcomes, undo: &undo, touches: &touches, in: db)
            guard effect.total > 0 else {
                throw StoreError.refused(.ruleChangesNothing, "rule \(id) changes no play logged so far")
            }
            let entry = try Store.log(.rule, facts: .rule(effect.rule, plays: effect.total),
                                      request: request, undo: undo, touches: touches, source: source, at: now, in: db)
            return (entry, effect)
        }
    }

    /// The one function behind the dry run and the change: finds the plays the rule
    /// changes and changes them, recording in `undo` how to reverse it (the dry run rolls
    /// it all back).
    static func applyRule(id: Int64, limit: Int, outcomes: [Int64: (track: Track, outcome: RuleOutcome)],
                          undo: inout CurationUndo, touches: inout Set<String>, in db: Database) throws -> RuleEffect {
        guard let rule = try rule(id: id, in: db) else { throw StoreError.refused(.missing, "no rule \(id)") }
        if let problem = rule.problem { throw StoreError.refused(.invalidRule, problem) }
        var single = rule
        single.enabled = true
        let rules = RuleSet([single])
        var effect = RuleEffect(rule: rule, total: 0, changes: [])
        func note(_ play: PlayWithTrack, after: Track?) {
            effect.total += 1
            effect.changes.append(.init(play: play, after: after))
            touches.formUnion(["play:\(play.play.id ?? 0)", "track:\(play.play.trackID)"])
        }
        func plays(where condition: String, _ arguments: StatementArguments) throws -> [PlayWithTrack] {
            try Row.fetchAll(db, sql: """
                SELECT \(playWithTrackColumns) FROM plays p JOIN tracks t ON t.id = p.track_id WHERE \(condition)
                ORDER BY p.started_at_ms, p.id
                """, arguments: arguments).map(playWithTrack)
        }
        // The plays the rule matches: by length, or by their tracks' text (read once per track).
        var matched: [(track: Track, after: Track?, plays: [PlayWithTrack])] = []
        var overruns: [RuleOverrun] = []
        if rule.field == .duration {
            // A length of 0 from a submission or an import is a length nobody knew.
            let found = try plays(where: "p.played_s < ? AND NOT (p.played_s = 0 AND p.source <> 'mpd')", [Double(rule.value) ?? 0])
            for play in found { matched.append((play.track, nil, [play])) }
        } else {
            for track in try tracksWithPlays(in: db) {
                // Worked out before the write lock; a track changed since is done again here.
                let outcome = track.id.flatMap { outcomes[$0] }.flatMap { $0.track == track ? $0.outcome : nil }
                    ?? rules.evaluate(track, playedSeconds: nil, uri: track.uri)
                overruns += outcome.overruns
                switch outcome.decision {
                case .keep(let after) where after != track:
                    matched.append((track, after, try plays(where: "p.track_id = ?", [track.id])))
                case .ignore, .hide:
                    matched.append((track, nil, try plays(where: "p.track_id = ?", [track.id])))
                default: break
                }
            }
        }
        if !overruns.isEmpty { try noteRuleOverruns(overruns, at: Date(), in: db) }
        switch rule.action {
        case .ignore:
            for (_, _, found) in matched {
                for play in found {
                    let playID = play.play.id ?? 0
                    undo.restorePlays.append(try StoredRow.fetch(table: "plays", id: playID, in: db))
                    try db.execute(sql: "DELETE FROM plays WHERE id = ?", arguments: [playID])
                    note(play, after: nil)
                }
            }
        case .hide:
            let columns = try hiddenPlayColumns(in: db)
            for (_, _, found) in matched {
                for play in found {
                    let playID = play.play.id ?? 0
                    let free = try Bool.fetchOne(db, sql: "SELECT NOT EXISTS (SELECT 1 FROM hidden_plays WHERE id = ?)", arguments: [playID]) == true
                    let kept = free ? columns : columns.filter { $0 != "id" }
                    let list = kept.joined(separator: ", ")
                    try db.execute(sql: "INSERT INTO hidden_plays (\(list)) SELECT \(list) FROM plays WHERE id = ?", arguments: [playID])
                    undo.unhide.append(.init(hidden: db.lastInsertedRowID, play: playID))
                    try db.execute(sql: "DELETE FROM plays WHERE id = ?", arguments: [playID])
                    note(play, after: nil)
                }
            }
        case .rewrite:
            let mark = try CurationUndo.Created.mark(in: db)
            for (track, after, found) in matched {
                guard let after, let from = track.id else { continue }
                let into = try saveTrack(after, at: Date(), in: db)
                guard into != from else { continue }
                var target = after
                target.id = into
                target.albumID = try albumID(ofTrack: into, in: db)
                let intoStarts = try Set(Int64.fetchAll(db, sql: "SELECT started_at_ms FROM plays WHERE track_id = ?", arguments: [into]))
                var moved: [Int64] = []
                for play in found {
                    let playID = play.play.id ?? 0
                    if intoStarts.contains(milliseconds(play.play.startedAt)) {
                        // The same listen is logged under the rewritten track already: kept once.
                        undo.restorePlays.append(try StoredRow.fetch(table: "plays", id: playID, in: db))
                        try db.execute(sql: "DELETE FROM plays WHERE id = ?", arguments: [playID])
                    } else {
                        moved.append(playID)
                        try db.execute(sql: "UPDATE plays SET track_id = ? WHERE id = ?", arguments: [into, playID])
                    }
                    note(play, after: target)
                }
                if !moved.isEmpty { undo.movedPlays.append(.init(track: from, plays: moved, into: into)) }
                touches.insert("track:\(into)")
            }
            undo.created = try mark.since(in: db)
        }
        effect.changes.sort { ($0.play.play.startedAt, $0.play.play.id ?? 0) < ($1.play.play.startedAt, $1.play.play.id ?? 0) }
        effect.changes = Array(effect.changes.prefix(max(limit, 0)))
        return effect
    }

    static func tracksWithPlays(in db: Database) throws -> [Track] {
        try Row.fetchAll(db, sql: """
            SELECT \(trackColumns("t")) FROM tracks t WHERE t.merged_into IS NULL AND EXISTS (SELECT 1 FROM plays WHERE track_id = t.id)
            ORDER BY t.id
            """).map { Store.track(from: $0) }
    }

    /// What one rule decides for each track with plays (by id), read in one transaction and
    /// worked out after it, outside the write lock.
    func ruleOutcomes(id: Int64) throws(StoreError) -> [Int64: (track: Track, outcome: RuleOutcome)] {
        let (rule, tracks) = try read { db in (try Store.rule(id: id, in: db), try Store.tracksWithPlays(in: db)) }
        guard var rule, rule.problem == nil, rule.field != .duration else { return [:] }
        rule.enabled = true
        let rules = RuleSet([rule])
        var outcomes: [Int64: (track: Track, outcome: RuleOutcome)] = [:]
        for track in tracks {
            guard let trackID = track.id else { continue }
            outcomes[trackID] = (track, rules.evaluate(track, playedSeconds: nil, uri: track.uri))
        }
        return outcomes
    }

    static func hiddenPlayColumns(in db: Database) throws -> [String] {
        try Row.fetchAll(db, sql: "PRAGMA table_info(hidden_plays)").map { $0["name"] }
    }
}

/// The rule set compiled for ingest, with the `meta.rules_generation` it was compiled at.
final class RuleCache: Sendable {
    private let state = Mutex<(generation: String, rules: RuleSet)?>(nil)

    func withLock<T>(_ body: (inout (generation: String, rules: RuleSet)?) -> T) -> T {
        state.withLock { body(&$0) }
    }
}
