import Foundation
import GRDB
import PacenoteCore

/// Smart playlists and moods (issue 57): their definitions, and the songs their rules choose
/// from what the store knows (library songs only: MPD can play nothing else).
extension Store {
    public func smartPlaylists() throws(StoreError) -> [SmartPlaylist] {
        try read { db in try Self.smartPlaylists(where: "1", [], in: db) }
    }

    public func smartPlaylist(id: Int64) throws(StoreError) -> SmartPlaylist? {
        try read { db in try Self.smartPlaylists(where: "id = ?", [id], in: db).first }
    }

    /// The definition of this exact name (MPD's names are case-sensitive).
    public func smartPlaylist(named name: String) throws(StoreError) -> SmartPlaylist? {
        try read { db in try Self.smartPlaylists(where: "name = ?", [name], in: db).first }
    }

    /// The definition whose name differs from `name` at most in case (names are unique so).
    public func smartPlaylist(namedAnyCase name: String) throws(StoreError) -> SmartPlaylist? {
        try read { db in try Self.smartPlaylists(where: "name = ? COLLATE NOCASE", [name], in: db).first }
    }

    static func smartPlaylists(where condition: String, _ arguments: StatementArguments, in db: Database) throws -> [SmartPlaylist] {
        try Row.fetchAll(db, sql: """
            SELECT id, name, kind, rules_json, updated_at_ms FROM smart_playlists WHERE \(condition) ORDER BY name COLLATE NOCASE
            """, arguments: arguments).compactMap { row in
            // Rules this version cannot read (written by a newer one) choose nothing rather than everything.
            guard let rules = try? JSONDecoder().decode(SmartPlaylist.Rules.self, from: Data((row[3] as String).utf8)) else { return nil }
            return SmartPlaylist(id: row[0], name: row[1], kind: SmartPlaylist.Kind(rawValue: row[2]) ?? .smart,
                                 rules: rules, updatedAt: Store.date(milliseconds: row[4]))
        }
    }

    /// Saves a new definition; returns its id. The caller has checked the rules and the name.
    public func insertSmartPlaylist(name: String, kind: SmartPlaylist.Kind, rules: SmartPlaylist.Rules, now: Date) throws(StoreError) -> Int64 {
        try write { db in
            let ms = Store.milliseconds(now)
            try db.execute(sql: """
                INSERT INTO smart_playlists (name, kind, rules_json, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?)
                """, arguments: [name, kind.rawValue, Self.rulesJSON(rules), ms, ms])
            return db.lastInsertedRowID
        }
    }

    /// Replaces a definition's name and rules; false when there is none with this id.
    public func updateSmartPlaylist(id: Int64, name: String, rules: SmartPlaylist.Rules, now: Date) throws(StoreError) -> Bool {
        try write { db in
            try db.execute(sql: "UPDATE smart_playlists SET name = ?, rules_json = ?, updated_at_ms = ? WHERE id = ?",
                           arguments: [name, Self.rulesJSON(rules), Store.milliseconds(now), id])
            return db.changesCount > 0
        }
    }

    public func deleteSmartPlaylist(id: Int64) throws(StoreError) -> Bool {
        try write { db in
            try db.execute(sql: "DELETE FROM smart_playlists WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    static func rulesJSON(_ rules: SmartPlaylist.Rules) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: (try? encoder.encode(rules)) ?? Data("{}".utf8), as: UTF8.self)
    }

    // MARK: The songs the rules choose

    /// The songs `rules` choose, in their order, length and limit applied; moods combined
    /// are looked up by name, in the first mood's order (`Operations` refuses cycles and more
    /// than 3 levels; deeper ones choose nothing here). `now` places "not played for N months"
    /// and comebacks.
    public func smartPlaylistSongs(_ rules: SmartPlaylist.Rules, tempo: TempoTable, now: Date) throws(StoreError) -> [SmartPlaylist.Candidate] {
        try read { db in try Self.songs(rules, tempo: tempo, now: now, depth: 0, in: db) }
    }

    /// A cheap summary of what the smart playlists choose from — the plays (their number,
    /// the newest, the last correction or undo, the zones tagged: `tagPlays` counts in `meta`),
    /// the tracks (tags, BPM, loudness, the library), the likes, the workouts and their pace
    /// effects, and the definitions — that changes when any of them does, also
    /// when another process (`pacenote import`, `analyze`) wrote it: the sync's periodic look
    /// refreshes only then (a refresh reads every definition's songs, a few hundred ms on a
    /// wide library), or when the hour turns (rules relative to now: "not played for 6 months").
    public func smartPlaylistsStamp() throws(StoreError) -> String {
        try read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT (SELECT COALESCE(SUM(plays + skips), 0) FROM rollup_year_total), (SELECT max(id) FROM plays),
                       (SELECT max(id) || '/' || max(undone_at_ms) FROM curation_log),
                       (SELECT count(*) || '/' || max(updated_at_ms) || '/' || total(bpm) || '/' || total(in_library) || '/' ||
                               max(id) || '/' || total(loudness_lufs) || '/' || total(loudness_range_lu) FROM tracks),
                       (SELECT count(*) || '/' || max(updated_at_ms) || '/' || total(track_id) FROM track_feelings),
                       (SELECT count(*) || '/' || max(id) || '/' || total(ended_at_ms) || '/' || total(hr_avg) || '/' ||
                               total(paces_measured_ms) FROM workouts),
                       (SELECT count(*) || '/' || max(updated_at_ms) || '/' || total(id) FROM smart_playlists),
                       (SELECT count(*) || '/' || total(speed_during) || '/' || max(play_id) FROM pace_effects),
                       (SELECT value FROM meta WHERE key = 'plays_tagged')
                """)!
            return (0..<9).map { (row[$0] as DatabaseValue).description }.joined(separator: "|")
        }
    }

    /// Every definition's songs at once, in one read (the sync's refresh).
    public func everySmartPlaylistsSongs(tempo: TempoTable, now: Date) throws(StoreError) -> [(SmartPlaylist, [SmartPlaylist.Candidate])] {
        try read { db in
            try Self.smartPlaylists(where: "1", [], in: db).map { ($0, try Self.songs($0.rules, tempo: tempo, now: now, depth: 0, in: db)) }
        }
    }

    static func songs(_ rules: SmartPlaylist.Rules, tempo: TempoTable, now: Date, depth: Int, in db: Database) throws -> [SmartPlaylist.Candidate] {
        var all: [SmartPlaylist.Candidate]
        if let moods = rules.moods {
            guard depth < 3 else { return [] }
            var lists: [[SmartPlaylist.Candidate]] = []
            for name in moods {
                guard let mood = try smartPlaylists(where: "name = ? COLLATE NOCASE", [name], in: db).first else { lists.append([]); continue }
                var inner = mood.rules
                inner.limit = nil
                inner.lengthS = nil
                lists.append(try songs(inner, tempo: tempo, now: now, depth: depth + 1, in: db))
            }
            all = SmartPlaylist.combine(lists, rules.combine ?? .union)
            var own = rules
            own.moods = nil
            own.combine = nil
            own.limit = nil
            own.lengthS = nil
            if own != SmartPlaylist.Rules() {
                let allowed = Set(try songs(own, tempo: tempo, now: now, depth: depth + 1, in: db).map(\.trackID))
                all.removeAll { !allowed.contains($0.trackID) }
            }
        } else {
            all = try ruleSongs(rules, tempo: tempo, now: now, in: db)
        }
        return SmartPlaylist.pick(all, limit: rules.limit, lengthS: rules.lengthS)
    }

    private static func ruleSongs(_ r: SmartPlaylist.Rules, tempo: TempoTable, now: Date, in db: Database) throws -> [SmartPlaylist.Candidate] {
        var conditions = ["t.in_library = 1", "t.merged_into IS NULL", "t.uri IS NOT NULL", "t.uri NOT LIKE '%://%'"]
        var arguments: [any DatabaseValueConvertible] = []
        var joins: [String] = []
        var joinArguments: [any DatabaseValueConvertible] = []
        // The order's measure: counted plays over all time, or over the period.
        var score = "COALESCE((SELECT plays FROM rollup_track_total WHERE track_id = t.id), 0)"
        if let lo = r.bpmMin { conditions.append("t.bpm >= ?"); arguments.append(lo) }
        if let hi = r.bpmMax { conditions.append("t.bpm <= ?"); arguments.append(hi) }
        if r.zone != nil { conditions.append("t.bpm IS NOT NULL") }
        if r.liked == true { conditions.append("EXISTS (SELECT 1 FROM track_feelings f WHERE f.track_id = t.id AND f.feeling = 'like')") }
        if r.liked == false { conditions.append("NOT EXISTS (SELECT 1 FROM track_feelings f WHERE f.track_id = t.id AND f.feeling = 'dislike')") }
        if let genres = r.genres {
            conditions.append("""
                EXISTS (SELECT 1 FROM track_genres tg JOIN genres g ON g.id = tg.genre_id
                        WHERE tg.track_id = t.id AND COALESCE(g.merged_into, g.id) IN
                          (SELECT COALESCE(merged_into, id) FROM genres WHERE name_key IN (\(genres.map { _ in "?" }.joined(separator: ",")))))
                """)
            arguments.append(contentsOf: genres.map { EntityKey.genre($0) })
        }
        if r.playedFrom != nil || r.playedTo != nil {
            joins.append("""
                JOIN (SELECT track_id, sum(plays) AS n FROM rollup_day_track WHERE day BETWEEN ? AND ? GROUP BY track_id HAVING sum(plays) > 0) period
                  ON period.track_id = t.id
                """)
            joinArguments += [r.playedFrom ?? "0000-01-01", r.playedTo ?? "9999-12-31"]
            score = "period.n"
        }
        let nowMs = Store.milliseconds(now)
        let month: Int64 = 30 * 86_400_000
        if let months = r.notPlayedMonths {
            conditions.append("NOT EXISTS (SELECT 1 FROM plays p WHERE p.track_id = t.id AND p.counted = 1 AND p.started_at_ms >= ?)")
            arguments.append(nowMs - Int64(months) * month)
        }
        if let months = r.comebackMonths {
            // A play in the last 30 days, and none in the N months before the first of them.
            conditions.append("""
                EXISTS (SELECT 1 FROM plays p WHERE p.track_id = t.id AND p.counted = 1 AND p.started_at_ms >= ?
                        AND NOT EXISTS (SELECT 1 FROM plays q WHERE q.track_id = t.id AND q.counted = 1 AND q.started_at_ms < p.started_at_ms
                                        AND q.started_at_ms >= p.started_at_ms - ?)
                        AND EXISTS (SELECT 1 FROM plays q WHERE q.track_id = t.id AND q.counted = 1 AND q.started_at_ms < p.started_at_ms - ?))
                """)
            arguments += [nowMs - month, Int64(months) * month, Int64(months) * month]
        }
        if let zone = r.powerZone {
            joins.append("""
                JOIN (SELECT track_id, count(*) AS n FROM plays WHERE zone = ? AND counted = 1 GROUP BY track_id) power
                  ON power.track_id = t.id
                """)
            joinArguments.append(zone)
            score = "power.n"
        }
        // Silence is stored as -120 LUFS (below the meter's gate): no energy rule chooses it.
        if r.loudnessMin != nil || r.loudnessMax != nil || r.rangeMin != nil || r.rangeMax != nil { conditions.append("t.loudness_lufs > -120") }
        if let lo = r.loudnessMin { conditions.append("t.loudness_lufs >= ?"); arguments.append(lo) }
        if let hi = r.loudnessMax { conditions.append("t.loudness_lufs <= ?"); arguments.append(hi) }
        if let lo = r.rangeMin { conditions.append("t.loudness_range_lu >= ?"); arguments.append(lo) }
        if let hi = r.rangeMax { conditions.append("t.loudness_range_lu <= ?"); arguments.append(hi) }
        let order = switch r.order ?? .plays {
        case .plays: "score DESC, t.id"
        case .oldest: "(SELECT max(started_at_ms) FROM plays p WHERE p.track_id = t.id) NULLS FIRST, t.id"
        case .bpm: "t.bpm NULLS LAST, t.id"
        // A shuffle that changes each day: the id's hash times a day-chosen factor, modulo a prime.
        case .random: "((t.id * 2654435761) % 1000003) * \((nowMs / 86_400_000) % 1_000_002 + 1) % 1000003, t.id"
        }
        let sql = """
            SELECT t.id, t.uri, t.duration_s, t.bpm, \(score) AS score FROM tracks t \(joins.joined(separator: " "))
            WHERE \(conditions.joined(separator: " AND ")) ORDER BY \(order)
            """
        var rows = try Row.fetchAll(db, sql: sql, arguments: StatementArguments(joinArguments + arguments))
        if let zone = r.zone, let z = Zone(rawValue: zone) {
            let target = TempoTarget.window(tempo.window(for: z))
            rows = rows.filter { ($0[3] as Double?).flatMap { target.fit(bpm: $0) } != nil }
        }
        if r.faster == true {
            let faster = Set(PaceEffect.songs(try measuredPlays(from: nil, to: nil, in: db)).filter { $0.isShown && $0.speedChange > 0 }.map(\.trackID))
            rows = rows.filter { faster.contains($0[0]) }
        }
        if let top = r.top, r.playedFrom != nil || r.playedTo != nil, (r.order ?? .plays) == .plays {
            rows = Array(rows.prefix(top))
        } else if let top = r.top {
            // The period's top N, then put in the order asked for.
            let best = Set(rows.sorted { ($0[4] as Int64) > ($1[4] as Int64) }.prefix(top).map { $0[0] as Int64 })
            rows = rows.filter { best.contains($0[0]) }
        }
        return rows.map { SmartPlaylist.Candidate(trackID: $0[0], uri: $0[1], durationS: $0[2]) }
    }
}
