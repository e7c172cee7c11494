import Foundation

/// One rule of what to log (issue: curation, rules). Three actions:
/// - `ignore`: a matching play is not logged at all (a podcast, a test file, plays shorter
///   than N seconds);
/// - `hide`: it is logged but kept out of charts, songs of the day and the recommender
///   (a child's bedtime playlist, white noise): stored in `hidden_plays`, not `plays`;
/// - `rewrite`: a regular expression replaces text in a title, artist or album
///   (` - Remastered \d{4}` → nothing).
///
/// A rule compares one field of a play with its `value`: `equals` (case, accents and width
/// ignored), `prefix` and `contains` (the same folding), `regex` (as written, `(?i)` for
/// case), and `shorter_than` for the field `duration`: plays shorter than `value` seconds.
///
/// Patterns run on text strangers choose (scrobblers, submit keys, imports, stream titles),
/// so they run on `LinearRegex`, whose time grows with the text, never exponentially; a
/// pattern sees at most `matchedLength` characters of a field and may take `stepBudget`
/// steps, after which the rule counts as not matching and is reported (`RuleOverrun`).
public struct CurationRule: Equatable, Sendable {
    public enum Action: String, Sendable, CaseIterable { case ignore, hide, rewrite }
    public enum Field: String, Sendable, CaseIterable {
        case artist, album, title, genre
        /// The MPD path of a file of the library (a stream's URL never matches).
        case path
        /// A stream's URL (`http://…`).
        case stream
        /// How long the play lasted, in seconds (`shorter_than` only).
        case duration
    }
    public enum Match: String, Sendable, CaseIterable {
        case equals, prefix, contains, regex
        case shorterThan = "shorter_than"
    }

    /// Nil until stored.
    public var id: Int64?
    public var action: Action
    public var field: Field
    public var match: Match
    /// The text, pattern or number of seconds compared with.
    public var value: String
    /// What a rewrite puts in place of each match: `$1` names a group.
    public var replacement: String?
    public var enabled: Bool
    /// From the configuration file (`[[rules]]`): shown on the site, edited only there.
    public var fromConfig: Bool

    public init(id: Int64? = nil, action: Action, field: Field, match: Match, value: String,
                replacement: String? = nil, enabled: Bool = true, fromConfig: Bool = false) {
        self.id = id
        self.action = action
        self.field = field
        self.match = match
        self.value = value
        self.replacement = replacement
        self.enabled = enabled
        self.fromConfig = fromConfig
    }

    /// The match a rule takes when it names none: `shorter_than` for `duration`, `regex` for
    /// a rewrite, else `equals` (the API's and the configuration's default).
    public static func defaultMatch(action: Action, field: Field) -> Match {
        field == .duration ? .shorterThan : action == .rewrite ? .regex : .equals
    }

    /// The longest pattern or value a rule may hold.
    public static let maxValueLength = 500

    /// The characters (Unicode scalars) of a field a pattern sees: longer text is matched
    /// on its first 1,024, and a rewrite keeps the rest as it was.
    public static let matchedLength = 1_024

    /// The steps one pattern may take on one field of one play (all its matches, for a
    /// rewrite): about 10–20 ms of one core. Any pattern on text of `matchedLength` takes
    /// at most `LinearRegex.maxProgramSize` × 2 steps per character, so only a large program
    /// on long text can reach it.
    public static let stepBudget = 1_000_000

    /// The steps every pattern together may take on one play: past it, the patterns still
    /// to run are skipped and reported as over their budget, so that many slow rules cannot
    /// add up to seconds per play.
    public static let stepBudgetPerPlay = 8_000_000

    /// Why a rule cannot be used, in words for the API and the site; nil when it can.
    public var problem: String? { invalidity?.message }

    /// Why a rule cannot be used, with the key it is about (`value`, `match`, `field`,
    /// `replacement`): what the configuration's `[[rules]]` errors name.
    public var invalidity: (key: String, message: String)? {
        if value.isEmpty { return ("value", "'value' must not be empty") }
        if value.utf8.count > Self.maxValueLength { return ("value", "'value' is longer than \(Self.maxValueLength) bytes") }
        if let replacement, replacement.utf8.count > Self.maxValueLength {
            return ("replacement", "'replacement' is longer than \(Self.maxValueLength) bytes")
        }
        switch (field, match) {
        case (.duration, .shorterThan):
            guard let seconds = Double(value), seconds.isFinite, seconds > 0, seconds <= 86_400 else {
                return ("value", "a duration rule's 'value' is a number of seconds from 1 to 86400")
            }
        case (.duration, _): return ("match", "the field 'duration' takes the match 'shorter_than'")
        case (_, .shorterThan): return ("match", "the match 'shorter_than' is for the field 'duration'")
        default: break
        }
        if match == .regex {
            do { _ = try LinearRegex(value) } catch {
                return ("value", "'value' is not a valid regular expression for rules: \(error.message)")
            }
        }
        if action == .rewrite {
            guard [.title, .artist, .album].contains(field) else { return ("field", "a rewrite changes 'title', 'artist' or 'album'") }
            guard match == .regex else { return ("match", "a rewrite takes the match 'regex'") }
            guard replacement != nil else { return ("replacement", "a rewrite needs a 'replacement' (it may be empty)") }
        } else if replacement != nil {
            return ("replacement", "only a rewrite takes a 'replacement'")
        }
        return nil
    }

    /// One line for people: `Ignore plays whose artist equals “Podcast”`.
    public var summary: String {
        let verb = switch action {
        case .ignore: "Ignore"
        case .hide: "Hide"
        case .rewrite: "Rewrite"
        }
        if field == .duration { return "\(verb) plays shorter than \(value) s" }
        let what = field == .path ? "MPD path" : field == .stream ? "stream URL" : field.rawValue
        if action == .rewrite {
            return "Rewrite the \(what): “\(value)” → “\(replacement ?? "")”"
        }
        let how = switch match {
        case .equals: "is"
        case .prefix: "starts with"
        case .contains: "contains"
        case .regex: "matches"
        case .shorterThan: "is shorter than"
        }
        return "\(verb) plays whose \(what) \(how) “\(value)”"
    }
}

/// What the rules decide for one play.
public enum RuleDecision: Equatable, Sendable {
    /// Log it, with its track as the rewrites left it (unchanged when none applied).
    case keep(Track)
    /// Do not log it: the rule that said so.
    case ignore(ruleID: Int64?)
    /// Log it among the hidden plays.
    case hide(Track, ruleID: Int64?)

    public var track: Track? {
        switch self {
        case .keep(let track), .hide(let track, _): track
        case .ignore: nil
        }
    }
}

/// A pattern that took more than `CurationRule.stepBudget` steps on a play's field: the
/// rule counted as not matching that play.
public struct RuleOverrun: Equatable, Sendable {
    public var ruleID: Int64?
    public var field: CurationRule.Field
    public var steps: Int

    public init(ruleID: Int64?, field: CurationRule.Field, steps: Int) {
        self.ruleID = ruleID
        self.field = field
        self.steps = steps
    }
}

/// What the rules decide for one play, and the rules that ran out of steps deciding it.
public struct RuleOutcome: Equatable, Sendable {
    public var decision: RuleDecision
    public var overruns: [RuleOverrun]

    public init(decision: RuleDecision, overruns: [RuleOverrun]) {
        self.decision = decision
        self.overruns = overruns
    }
}

/// The rules in force, compiled once (patterns, folded values), applied in a defined
/// order: every rewrite first, in list order (each sees the text the previous left); then
/// the ignores; then the hides. The ignores and hides see the rewritten text, the play's
/// own URI and its length. The configuration's rules come first in the list.
public struct RuleSet: Sendable {
    public let rules: [CurationRule]
    private let compiled: [Compiled]

    public static let empty = RuleSet([])

    /// Rules that are disabled or not valid (`problem`) are left out.
    public init(_ rules: [CurationRule]) {
        self.rules = rules
        compiled = rules.filter { $0.enabled && $0.problem == nil }.compactMap(Compiled.init)
    }

    public var isEmpty: Bool { compiled.isEmpty }

    /// The rules in the order they apply (rewrites, ignores, hides; list order within each).
    public static func ordered(_ rules: [CurationRule]) -> [CurationRule] {
        let rank: [CurationRule.Action: Int] = [.rewrite: 0, .ignore: 1, .hide: 2]
        return rules.enumerated().sorted { (rank[$0.element.action]!, $0.offset) < (rank[$1.element.action]!, $1.offset) }.map(\.element)
    }

    /// The decision for one play of `track`: `playedSeconds` nil when its length is not
    /// known (a submitted listen without a duration: no `shorter_than` rule matches it),
    /// `uri` its MPD path or stream URL when it has one.
    public func apply(to track: Track, playedSeconds: Double?, uri: String?) -> RuleDecision {
        evaluate(track, playedSeconds: playedSeconds, uri: uri).decision
    }

    /// `apply`, with the rules that ran out of steps (each counted as not matching).
    public func evaluate(_ track: Track, playedSeconds: Double?, uri: String?) -> RuleOutcome {
        var track = track
        var steps = Steps()
        for rule in compiled where rule.rule.action == .rewrite {
            track = rule.rewrite(track, steps: &steps)
        }
        for rule in compiled where rule.rule.action == .ignore
            && rule.matches(track, playedSeconds: playedSeconds, uri: uri, steps: &steps) {
            return RuleOutcome(decision: .ignore(ruleID: rule.rule.id), overruns: steps.overruns)
        }
        for rule in compiled where rule.rule.action == .hide
            && rule.matches(track, playedSeconds: playedSeconds, uri: uri, steps: &steps) {
            return RuleOutcome(decision: .hide(track, ruleID: rule.rule.id), overruns: steps.overruns)
        }
        return RuleOutcome(decision: .keep(track), overruns: steps.overruns)
    }

    /// The steps one play's patterns have left, and the rules that ran out.
    struct Steps {
        var left = CurationRule.stepBudgetPerPlay
        var overruns: [RuleOverrun] = []

        /// A budget for one pattern: its own, or what the play has left if that is less.
        var next: LinearRegex.Budget { LinearRegex.Budget(steps: min(CurationRule.stepBudget, left)) }

        mutating func spent(_ budget: LinearRegex.Budget) { left -= budget.used }
    }

    /// One rule, compiled: its pattern, or its value folded.
    struct Compiled: Sendable {
        let rule: CurationRule
        let regex: LinearRegex?
        let folded: String
        let seconds: Double

        init?(_ rule: CurationRule) {
            self.rule = rule
            if rule.match == .regex {
                guard let regex = try? LinearRegex(rule.value) else { return nil }
                self.regex = regex
            } else {
                regex = nil
            }
            folded = Compiled.fold(rule.value)
            seconds = Double(rule.value) ?? 0
        }

        static func fold(_ text: String) -> String {
            SongKey.fold(text.trimmingCharacters(in: .whitespacesAndNewlines))
        }

        func text(of track: Track, uri: String?) -> String? {
            switch rule.field {
            case .title: track.title
            case .artist: track.artist ?? track.albumArtist
            case .album: track.album
            case .genre: track.genre
            case .path: uri.flatMap { $0.contains("://") ? nil : $0 }
            case .stream: uri.flatMap { $0.contains("://") ? $0 : nil }
            case .duration: nil
            }
        }

        func matches(_ track: Track, playedSeconds: Double?, uri: String?, steps: inout Steps) -> Bool {
            if rule.match == .shorterThan {
                guard let playedSeconds else { return false }
                return playedSeconds < seconds
            }
            guard let text = text(of: track, uri: uri) else { return false }
            switch rule.match {
            case .regex:
                var budget = steps.next
                defer { steps.spent(budget) }
                do {
                    return try regex!.firstMatch(in: .init(text, limit: CurationRule.matchedLength, folding: regex!.ignoresCase), budget: &budget) != nil
                } catch {
                    steps.overruns.append(RuleOverrun(ruleID: rule.id, field: rule.field, steps: error.steps))
                    return false
                }
            case .equals:
                return Compiled.fold(text) == folded
            case .prefix:
                return Compiled.fold(text).hasPrefix(folded)
            case .contains:
                return Compiled.fold(text).contains(folded)
            case .shorterThan:
                return false
            }
        }

        /// The track with the rule's field rewritten. A changed title, artist or album is
        /// a different song (or release) from the one the file or the MusicBrainz ids name:
        /// the rewritten track drops its URI and the ids the change no longer fits, so that
        /// it is filed by its new text.
        func rewrite(_ track: Track, steps: inout Steps) -> Track {
            guard let regex, let original = text(of: track, uri: nil) else { return track }
            var budget = steps.next
            defer { steps.spent(budget) }
            let replaced: String
            do {
                replaced = try regex.replacingMatches(in: original, input: .init(original, limit: CurationRule.matchedLength, folding: regex.ignoresCase),
                                                      with: rule.replacement ?? "", budget: &budget)
                    .trimmingCharacters(in: .whitespaces)
            } catch {
                steps.overruns.append(RuleOverrun(ruleID: rule.id, field: rule.field, steps: error.steps))
                return track
            }
            guard replaced != original else { return track }
            var track = track
            switch rule.field {
            case .title:
                guard !replaced.isEmpty else { return track }  // a track keeps a title
                track.title = replaced
                track.musicBrainz.recording = nil
                track.musicBrainz.releaseTrack = nil
            case .artist:
                track.artist = replaced.isEmpty ? nil : replaced
                if track.artist == nil { track.albumArtist = nil }
                track.listedCredit = nil
                track.musicBrainz.artist = nil
                track.musicBrainz.recording = nil
            case .album:
                track.album = replaced.isEmpty ? nil : replaced
                track.musicBrainz.release = nil
                track.musicBrainz.releaseTrack = nil
                track.albumID = nil
            default:
                return track
            }
            track.uri = nil
            track.id = nil
            return track
        }
    }
}
