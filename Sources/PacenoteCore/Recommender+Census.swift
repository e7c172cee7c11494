import Foundation

extension Recommender {
    /// The suggestions with the census of the library they were chosen from.
    public struct Answer: Equatable, Sendable {
        public var suggestions: [Suggestion]
        public var census: Census

        public init(suggestions: [Suggestion], census: Census) {
            self.suggestions = suggestions
            self.census = census
        }

        /// Why the list is empty, or nil when it is not (`Census.emptyReason`).
        public func emptyReason(for request: Request) -> EmptyReason? {
            suggestions.isEmpty ? census.emptyReason(for: request) : nil
        }
    }

    /// What the library held for one request, and why tracks were left out: an empty list
    /// must say which rule emptied it, or the feature seems broken (issue 52: every song of
    /// the demo was played in the last hours; a whole library queued in MPD).
    public struct Census: Equatable, Sendable {
        /// Tracks in MPD's library (with a URI): everything a list can be chosen from.
        public var library = 0
        /// Tracks left out by any of the rules below; one may count under several.
        public var leftOut = 0
        /// Any version of the song playing now.
        public var playing = 0
        /// Any version of a song in MPD's queue after the current one.
        public var queued = 0
        /// Any version of a disliked song.
        public var disliked = 0
        /// Any version of a song started in the last `Request.recentHours`.
        public var recentlyPlayed = 0
        /// Playing or queued: a whole library in MPD's queue (`mpc add /`) is one reason.
        var inQueue = 0
        /// Of the tracks not left out, those whose BPM fits no tempo the target allows.
        public var offTempo = 0
        /// Of the tracks that could be suggested, those without a BPM (ranked after the
        /// tracks that fit, when there is a tempo target).
        public var withoutBPM = 0

        public init() {}

        /// Tracks that could be suggested.
        public var candidates: Int { library - leftOut - offTempo }

        /// Why nothing could be suggested, with the way forward; nil while some track could be.
        public func emptyReason(for request: Request) -> EmptyReason? {
            guard request.limit > 0, candidates <= 0 else { return nil }
            let hours = Self.hours(request.recentHours)
            if library == 0 {
                return EmptyReason(
                    code: "empty_library",
                    message: "No song of MPD's library is known to Pacenote yet.",
                    fix: "Pacenote reads the library while it is connected to MPD: check that MPD runs and has indexed its music "
                        + "(`mpc update`); `pacenote doctor` tests the connection.")
            }
            var fixes: [String] = []
            if queued > 0 {
                fixes.append("Queued songs are never suggested: `mpc crop` keeps only the playing song, or clear the queue (`mpc clear`).")
            }
            if recentlyPlayed > 0 {
                fixes.append("Songs are suggested again \(hours) after they last started; for sooner, lower [recommender] recent_hours.")
            }
            if disliked > 0 { fixes.append("Disliked songs are never suggested: take back the ✕ on a song's page.") }
            if leftOut == library {
                let all = library == 1 ? "The only song in the library" : "All \(library) songs in the library"
                var (code, message) = ("", "")
                if recentlyPlayed == library {
                    (code, message) = ("all_recently_played", "\(all) \(library == 1 ? "was" : "were") played in the last \(hours).")
                } else if inQueue == library, queued > 0 {
                    (code, message) = ("all_queued", library == 1 ? "The only song in the library is queued in MPD."
                                       : "Every song in the library is in MPD's queue: \(reasons(hours)).")
                } else if disliked == library {
                    (code, message) = ("all_disliked", "\(all) \(library == 1 ? "is" : "are") disliked.")
                } else if playing == library {
                    (code, message) = ("only_playing", "\(all) \(library == 1 ? "is" : "are") playing now.")
                } else {
                    (code, message) = ("all_left_out", "\(all) \(library == 1 ? "is" : "are") left out: \(reasons(hours)).")
                }
                if fixes.isEmpty || code == "only_playing" { fixes.append("Add songs to MPD's music folder and run `mpc update`.") }
                return EmptyReason(code: code, message: message, fix: fixes.joined(separator: " "))
            }
            let rest = library - leftOut
            var message = rest == 1 ? "The one song left has a BPM that does not fit \(Self.target(request))"
                : "None of the \(rest) songs left has a BPM that fits \(Self.target(request))"
            message += leftOut > 0 ? "; \(leftOut) more \(leftOut == 1 ? "is" : "are") left out: \(reasons(hours))." : "."
            let tempoFix: String
            switch request.target {
            case .cadence: tempoFix = "Ask for another cadence, or set [recommender] cadence."
            default:
                tempoFix = request.zone.map { "Ask for another zone, or widen [recommender] tempo_z\($0.rawValue)." }
                    ?? "Ask for another tempo window."
            }
            return EmptyReason(code: "none_fits_tempo", message: message, fix: ([tempoFix] + fixes).joined(separator: " "))
        }

        /// A remark on a list that is not empty: none of its songs has a BPM, so the tempo
        /// the zone asks for could not be taken into account.
        public func tempoNote(for request: Request) -> String? {
            if case .any = request.target { return nil }
            guard candidates > 0, withoutBPM == candidates, offTempo == 0 else { return nil }
            return "No song here has a BPM yet, so the tempo is not taken into account: `pacenote analyze` measures them."
        }

        /// "12 were played in the last 6 hours, 3 are queued in MPD": each rule that left out a track.
        func reasons(_ hours: String) -> String {
            var parts: [String] = []
            func part(_ n: Int, _ one: String, _ many: String) { if n > 0 { parts.append("\(n) \(n == 1 ? one : many)") } }
            part(recentlyPlayed, "was played in the last \(hours)", "were played in the last \(hours)")
            part(queued, "is queued in MPD", "are queued in MPD")
            part(playing, "is playing now", "are playing now")
            part(disliked, "is disliked", "are disliked")
            return parts.joined(separator: ", ")
        }

        /// "6 hours", "1 hour", "1.5 hours".
        static func hours(_ h: Double) -> String {
            let text = h == h.rounded() ? String(Int(h)) : String(format: "%g", h)
            return h == 1 ? "1 hour" : "\(text) hours"
        }

        /// "zone 4's 130–140 bpm (or half or double)".
        static func target(_ request: Request) -> String {
            switch request.target {
            case .any: return "any tempo"
            case .window(let w):
                let range = String(format: "%.0f–%.0f bpm", w.lowerBound, w.upperBound)
                return (request.zone.map { "zone \($0.rawValue)'s \(range)" } ?? range) + " (or half or double that)"
            case .cadence(let steps, let change):
                return String(format: "a cadence of %.0f steps/min (within ±%.0f %%)", steps, change * 100)
            }
        }
    }

    /// Why a list is empty: a stable `code`, what happened and what to do.
    public struct EmptyReason: Equatable, Sendable {
        /// `empty_library`, `all_recently_played`, `all_queued`, `all_disliked`, `only_playing`,
        /// `all_left_out`, `none_fits_tempo`.
        public var code: String
        public var message: String
        public var fix: String

        public init(code: String, message: String, fix: String) {
            self.code = code
            self.message = message
            self.fix = fix
        }
    }
}
