import Foundation

/// A private session (issue 58, point 6): while it is on, new plays are still logged, but
/// among the hidden plays, so they stay out of the charts, forwarding, the recommender and
/// the now-playing card (`/now`). It ends by itself at `until`, or when turned off; nil
/// `until`: until it is turned off. The owner turns it on from the dashboard or the API.
///
/// Stored as its two times (`Store.privateSession`), so that it survives a restart and ends
/// at its time whether or not the daemon was running then.
public struct PrivateSession: Equatable, Sendable {
    public var since: Date
    public var until: Date?

    /// The longest a timed session may last: a week (longer is "until I turn it off").
    public static let longestSeconds: TimeInterval = 7 * 86_400

    public init(since: Date, until: Date?) {
        self.since = since
        self.until = until
    }

    /// A session that starts at `now` and lasts `seconds` (nil: until turned off).
    public static func starting(at now: Date, lasting seconds: TimeInterval?) -> PrivateSession {
        PrivateSession(since: now, until: seconds.map { now.addingTimeInterval($0) })
    }

    /// Whether it is on at `date`: from `since` (inclusive) to `until` (exclusive).
    public func isOn(at date: Date) -> Bool {
        date >= since && (until.map { date < $0 } ?? true)
    }

    /// Whether a play from `start` to `end` falls in the session, in part or whole: a song
    /// that was playing when the session was turned on, or that began before it ended, is
    /// kept private too (it is what the owner did not want shown).
    public func covers(start: Date, end: Date) -> Bool {
        let end = max(start, end)
        return end >= since && (until.map { start < $0 } ?? true)
    }

    /// Seconds left at `now`: nil when it runs until turned off, 0 once it has ended.
    public func secondsLeft(at now: Date) -> TimeInterval? {
        until.map { max(0, $0.timeIntervalSince(now)) }
    }

    /// The session the owner's choice of `minutes` asks for: nil minutes (or 0) is "until I
    /// turn it off"; 1 minute to a week otherwise. `seconds` is the same in seconds (the API
    /// takes either; tests use a few seconds).
    public static func duration(minutes: Double?, seconds: Double?) -> Result<TimeInterval?, DurationProblem> {
        if minutes != nil, seconds != nil { return .failure(.both) }
        guard let value = seconds ?? minutes.map({ $0 * 60 }) else { return .success(nil) }
        guard value.isFinite else { return .failure(.outOfRange) }
        if value == 0 { return .success(nil) }
        guard value >= 1, value <= longestSeconds else { return .failure(.outOfRange) }
        return .success(value)
    }

    public enum DurationProblem: Error, Equatable, Sendable {
        case both, outOfRange
    }
}
