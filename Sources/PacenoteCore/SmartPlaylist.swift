import Foundation

/// A playlist defined in Pacenote by rules over what it knows, kept in MPD as a stored
/// playlist of the same name (issue 57). A **mood** (YouPlay) is the same thing with a name
/// people pick from: rules over tempo, energy, genre and likes, or two moods combined.
public struct SmartPlaylist: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable { case smart, mood }

    public var id: Int64
    public var name: String
    public var kind: Kind
    public var rules: Rules
    public var updatedAt: Date

    public init(id: Int64, name: String, kind: Kind, rules: Rules, updatedAt: Date) {
        self.id = id
        self.name = name
        self.kind = kind
        self.rules = rules
        self.updatedAt = updatedAt
    }

    /// The rules: every one given must hold (they are ANDed); none given is every library song.
    public struct Rules: Sendable, Equatable, Codable {
        /// Tempo: a BPM range, as tagged or analysed (half- and double-time not counted).
        public var bpmMin: Double?
        public var bpmMax: Double?
        /// Tempo fit for a heart-rate zone: the zone's window of the tempo table, half- and
        /// double-time counting (a 68 bpm song fits a 136 bpm window), as the recommender fits.
        public var zone: Int?
        /// Liked songs only (true), or songs not disliked (false).
        public var liked: Bool?
        /// Any of these genres (case folded).
        public var genres: [String]?
        /// Plays in a period, `YYYY-MM-DD` inclusive: the songs played then, most played first;
        /// with `top`, the first `top` of them ("top 50 of 2025").
        public var playedFrom: String?
        public var playedTo: String?
        public var top: Int?
        /// Not played for N months (or never played).
        public var notPlayedMonths: Int?
        /// Comebacks: played in the last 30 days after a gap of at least N months.
        public var comebackMonths: Int?
        /// Power songs for a zone: the songs you played most while in zone N.
        public var powerZone: Int?
        /// Songs that made you faster on runs (a measured pace effect above zero).
        public var faster: Bool?
        /// Energy: integrated loudness (LUFS) and loudness range (LU) measured by `pacenote analyze`.
        public var loudnessMin: Double?
        public var loudnessMax: Double?
        public var rangeMin: Double?
        public var rangeMax: Double?
        /// Two or more moods (by name) combined: every song of any (union) or of all (intersection).
        public var moods: [String]?
        public var combine: Combine?
        /// The order: most played first (default), least recently played, tempo, random (fixed per day).
        public var order: Order?
        /// At most this many songs, and/or a length in seconds picked to within one song.
        public var limit: Int?
        public var lengthS: Int?

        public enum Combine: String, Sendable, Codable, CaseIterable { case union, intersection }
        public enum Order: String, Sendable, Codable, CaseIterable { case plays, oldest, bpm, random }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case bpmMin = "bpm_min", bpmMax = "bpm_max", zone, liked, genres
            case playedFrom = "played_from", playedTo = "played_to", top
            case notPlayedMonths = "not_played_months", comebackMonths = "comeback_months"
            case powerZone = "power_zone", faster
            case loudnessMin = "loudness_min", loudnessMax = "loudness_max", rangeMin = "range_min", rangeMax = "range_max"
            case moods, combine, order, limit, lengthS = "length_s"
        }

        public init() {}

        /// The rule names the API takes.
        public static let names: [String] = CodingKeys.allCases.map(\.rawValue)

        /// What is wrong with these rules, in words, or nil.
        public func problem() -> String? {
            func range(_ lo: Double?, _ hi: Double?, _ name: String, _ bounds: ClosedRange<Double>) -> String? {
                for v in [lo, hi].compactMap({ $0 }) where !bounds.contains(v) {
                    return "\(name): \(Int(bounds.lowerBound)) to \(Int(bounds.upperBound))"
                }
                if let lo, let hi, lo > hi { return "\(name): the lower bound is above the upper" }
                return nil
            }
            if let p = range(bpmMin, bpmMax, "bpm_min/bpm_max", 20...300) { return p }
            if let p = range(loudnessMin, loudnessMax, "loudness_min/loudness_max (LUFS)", -70...5) { return p }
            if let p = range(rangeMin, rangeMax, "range_min/range_max (LU)", 0...60) { return p }
            for (name, zone) in [("zone", zone), ("power_zone", powerZone)] {
                if let zone, !(1...5).contains(zone) { return "\(name): 1 to 5" }
            }
            for (name, day) in [("played_from", playedFrom), ("played_to", playedTo)] {
                if let day, CivilDate.days(of: day) == nil { return "\(name): a date, YYYY-MM-DD" }
            }
            if let a = playedFrom, let b = playedTo, a > b { return "played_from is after played_to" }
            if top != nil, playedFrom == nil, playedTo == nil { return "top needs played_from or played_to" }
            for (name, n, max) in [("top", top, 10_000), ("limit", limit, 10_000), ("not_played_months", notPlayedMonths, 240),
                                   ("comeback_months", comebackMonths, 240), ("length_s", lengthS, 86_400)] {
                if let n, !(1...max).contains(n) { return "\(name): 1 to \(max)" }
            }
            if let genres, genres.isEmpty || genres.count > 50 || genres.contains(where: { $0.isEmpty || $0.count > 100 }) {
                return "genres: 1 to 50 names"
            }
            if let moods {
                guard (2...10).contains(moods.count), Set(moods.map { $0.lowercased() }).count == moods.count else {
                    return "moods: 2 to 10 different mood names"
                }
                if combine == nil { return "moods need combine: union or intersection" }
            } else if combine != nil {
                return "combine needs moods"
            }
            return nil
        }

        /// A short description: "liked, 120–130 bpm, 10 minutes".
        public var summary: String {
            var parts: [String] = []
            if let moods { parts.append("\(combine == .intersection ? "in all of" : "in any of") \(moods.joined(separator: ", "))") }
            if liked == true { parts.append("liked") } else if liked == false { parts.append("not disliked") }
            switch (bpmMin, bpmMax) {
            case let (lo?, hi?): parts.append("\(Self.number(lo))–\(Self.number(hi)) bpm")
            case let (lo?, nil): parts.append("\(Self.number(lo)) bpm or more")
            case let (nil, hi?): parts.append("up to \(Self.number(hi)) bpm")
            default: break
            }
            if let zone { parts.append("tempo for zone \(zone)") }
            if let genres { parts.append(genres.joined(separator: " or ")) }
            if playedFrom != nil || playedTo != nil {
                let period = [playedFrom, playedTo].compactMap { $0 }.joined(separator: " to ")
                parts.append(top.map { "top \($0) of \(period)" } ?? "played \(period)")
            }
            if let notPlayedMonths { parts.append("not played for \(notPlayedMonths) months") }
            if let comebackMonths { parts.append("comebacks after \(comebackMonths) months") }
            if let powerZone { parts.append("power songs of zone \(powerZone)") }
            if faster == true { parts.append("made you faster") }
            if loudnessMin != nil || loudnessMax != nil {
                parts.append("loudness \(loudnessMin.map(Self.number) ?? "…") to \(loudnessMax.map(Self.number) ?? "…") LUFS")
            }
            if rangeMin != nil || rangeMax != nil {
                parts.append("range \(rangeMin.map(Self.number) ?? "…") to \(rangeMax.map(Self.number) ?? "…") LU")
            }
            if let limit { parts.append("\(limit) songs at most") }
            if let lengthS { parts.append(lengthS % 60 == 0 ? "\(lengthS / 60) minutes" : "\(lengthS) s") }
            return parts.isEmpty ? "every song in the library" : parts.joined(separator: ", ")
        }

        static func number(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(format: "%.1f", v) }
    }

    /// A song a playlist's rules chose, with what picking a length needs.
    public struct Candidate: Sendable, Equatable {
        public var trackID: Int64
        public var uri: String
        public var durationS: Double?
        public init(trackID: Int64, uri: String, durationS: Double?) {
            self.trackID = trackID
            self.uri = uri
            self.durationS = durationS
        }
    }

    /// Songs of two or more moods: every song of any (in the first mood's order, then the
    /// next's new ones), or the songs all of them hold (in the first's order).
    public static func combine(_ lists: [[Candidate]], _ how: Rules.Combine) -> [Candidate] {
        guard var out = lists.first else { return [] }
        switch how {
        case .union:
            var seen = Set(out.map(\.trackID))
            for list in lists.dropFirst() { for c in list where seen.insert(c.trackID).inserted { out.append(c) } }
        case .intersection:
            for list in lists.dropFirst() {
                let ids = Set(list.map(\.trackID))
                out.removeAll { !ids.contains($0.trackID) }
            }
        }
        return out
    }

    /// The songs kept, in order: at most `limit`, and with a length, those that fit it. A song
    /// that would run past the length is passed over for a shorter one further down, so the
    /// total ends short of the length by less than the shortest song left out (within one
    /// song); songs of unknown length are left out of a timed playlist.
    public static func pick(_ candidates: [Candidate], limit: Int?, lengthS: Int?) -> [Candidate] {
        var out: [Candidate] = []
        let cap = limit ?? Int.max
        guard let lengthS else { return Array(candidates.prefix(cap)) }
        let target = Double(lengthS)
        var total = 0.0
        for c in candidates where out.count < cap {
            guard let d = c.durationS, d > 0 else { continue }
            if total + d <= target {
                out.append(c)
                total += d
            }
        }
        return out
    }
}
