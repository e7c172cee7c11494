import Foundation

/// A play another program reports, already decided: a client's listen (ListenBrainz, Maloja's
/// `newscrobble`) or what a media server's webhooks add up to (Jellyfin, Plex, Web Scrobbler).
/// Stored as it is, a counted play or a skip with the seconds played.
public struct ReportedPlay: Equatable, Sendable {
    public var track: Track
    public var startedAt: Date
    /// The player or device that played it.
    public var player: String?
    public var playedSeconds: Double
    public var counted: Bool

    public init(track: Track, startedAt: Date, player: String?, playedSeconds: Double, counted: Bool) {
        self.track = track
        self.startedAt = startedAt
        self.player = player
        self.playedSeconds = playedSeconds
        self.counted = counted
    }

    /// A listen a client sends as played (ListenBrainz `single`): counted, for its whole length.
    public static func listen(_ track: Track, startedAt: Date, player: String?) -> ReportedPlay {
        ReportedPlay(track: track, startedAt: startedAt, player: player, playedSeconds: track.durationSeconds ?? 0, counted: true)
    }

    /// A listen that says how long it was played (ListenBrainz's `duration_played`, Maloja's
    /// `duration`): the play rule decides, on that time and the track's length.
    public static func judged(_ track: Track, startedAt: Date, player: String?, played: Double, rule: PlayRule) -> ReportedPlay {
        ReportedPlay(track: track, startedAt: startedAt, player: player, playedSeconds: played,
                     counted: rule.counts(played: played, duration: track.durationSeconds))
    }
}

/// One thing a media server's webhook says about a playback.
public struct PlaybackReport: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// Playing began (Jellyfin PlaybackStart, Plex media.play, Web Scrobbler nowplaying).
        case start
        /// Still playing, at `position` (Jellyfin PlaybackProgress).
        case progress
        case pause
        case resume
        /// Playing ended at `position` (Jellyfin PlaybackStop, Plex media.stop); `completed`:
        /// the source says it played to the end (Jellyfin's `PlayedToCompletion`).
        case stop(completed: Bool)
        /// The source says the play passed this share of the track (Plex media.scrobble: 90 %).
        /// The play counts when that share does by the rule; the stop that follows adds nothing.
        case passed(fraction: Double)
    }

    public var kind: Kind
    public var track: Track
    /// Names the player in the source: `jellyfin:Phone`, `plex:Living Room`, `webscrobbler`.
    public var source: String
    public var player: String
    /// Seconds into the track, when the source says (Jellyfin's ticks).
    public var position: Double?
    /// When the play began, when the source says (Web Scrobbler's `startTimestamp`).
    public var startedAt: Date?

    public init(_ kind: Kind, track: Track, source: String, player: String, position: Double? = nil, startedAt: Date? = nil) {
        self.kind = kind
        self.track = track
        self.source = source
        self.player = player
        self.position = position
        self.startedAt = startedAt
    }
}

/// The plays in progress that webhooks report, one per source, and the plays they end in.
///
/// A source's start opens a play; pauses stop its stopwatch and resumes start it again; its
/// stop ends it, and the play rule (`PlayRule`, the one MPD plays count by) decides whether
/// it counts: on the position the source reports when it reports one (Jellyfin), else on the
/// stopwatch (Plex sends no position for music). A stop with no open play (Pacenote was
/// restarted between the two) is judged on what the stop says alone. A new start while
/// another song is open ends that one first, as if stopped.
public struct PendingPlays: Sendable {
    struct Open: Sendable {
        var track: Track
        var player: String
        var startedAt: Date
        /// Seconds played up to `runningSince` (or in all, while paused).
        var played: Double
        var runningSince: Date?
        /// The last position the source reported.
        var position: Double?
        /// Already stored as counted (a Plex media.scrobble): the stop adds nothing.
        var decided: Bool

        func playedSeconds(at now: Date) -> Double {
            played + (runningSince.map { max(0, now.timeIntervalSince($0)) } ?? 0)
        }
    }

    /// Open plays by source: bounded, so that a flood of made-up device names cannot grow it.
    private var open: [String: Open] = [:]
    public static let capacity = 64

    public init() {}

    public var count: Int { open.count }

    /// Takes one report; returns the plays it ends (none, one, or two when a start replaces an
    /// open play of another song).
    public mutating func report(_ r: PlaybackReport, now: Date, rule: PlayRule) -> [ReportedPlay] {
        var ended: [ReportedPlay] = []
        let same = open[r.source].map { $0.track.matchKey == r.track.matchKey } ?? false
        if !same, let previous = open[r.source], r.kind == .start || r.kind == .progress || r.kind == .resume {
            open[r.source] = nil
            if !previous.decided { ended.append(Self.end(previous, position: nil, completed: false, now: now, rule: rule)) }
        }
        switch r.kind {
        case .start, .progress, .resume:
            if open[r.source] == nil {
                let position = r.position ?? 0
                begin(r, Open(track: r.track, player: r.player, startedAt: r.startedAt ?? now.addingTimeInterval(-position),
                              played: r.kind == .start ? 0 : position, runningSince: now, position: r.position, decided: false))
            } else {
                // Playing again after a pause (Jellyfin says so in a progress that is not paused).
                if r.kind != .start, open[r.source]?.runningSince == nil { open[r.source]?.runningSince = now }
                if let position = r.position { open[r.source]?.position = position }
            }
        case .pause:
            guard var o = open[r.source], same else { break }
            o.played = o.playedSeconds(at: now)
            o.runningSince = nil
            if let position = r.position { o.position = position }
            open[r.source] = o
        case .stop(let completed):
            let o = same ? open.removeValue(forKey: r.source) : nil
            if let o, o.decided { break }
            var base = o ?? Open(track: r.track, player: r.player, startedAt: r.startedAt ?? now.addingTimeInterval(-(r.position ?? 0)),
                                 played: r.position ?? 0, runningSince: nil, position: r.position, decided: false)
            if base.track.durationSeconds == nil, r.track.durationSeconds != nil { base.track = r.track }
            if let startedAt = r.startedAt { base.startedAt = startedAt }
            ended.append(Self.end(base, position: r.position, completed: completed, now: now, rule: rule))
        case .passed(let fraction):
            var o = same ? open[r.source]! : Open(track: r.track, player: r.player, startedAt: now, played: 0, runningSince: now,
                                                  position: nil, decided: false)
            guard !o.decided else { break }
            let duration = r.track.durationSeconds ?? o.track.durationSeconds
            let played = max(o.playedSeconds(at: now), duration.map { $0 * fraction } ?? 0)
            if !same { o.startedAt = now.addingTimeInterval(-played) }
            let counted = duration.map { rule.counts(played: $0 * fraction, duration: $0) } ?? true
            o.decided = counted
            if counted {
                ended.append(ReportedPlay(track: r.track, startedAt: o.startedAt, player: o.player, playedSeconds: played, counted: true))
            }
            begin(r, o)
        }
        return ended
    }

    private mutating func begin(_ r: PlaybackReport, _ o: Open) {
        if open[r.source] == nil, open.count >= Self.capacity,
           let oldest = open.min(by: { $0.value.startedAt < $1.value.startedAt })?.key {
            open[oldest] = nil
        }
        open[r.source] = o
    }

    /// The play an open play ends in: the seconds played are the source's position when it
    /// gives one (it knows seeks and buffering; a position of 0 at the end is no position),
    /// the whole length when it says the song played to the end, else the stopwatch.
    static func end(_ o: Open, position: Double?, completed: Bool, now: Date, rule: PlayRule) -> ReportedPlay {
        let duration = o.track.durationSeconds
        var played = o.playedSeconds(at: now)
        if let position = position ?? o.position, position > 0 { played = position }
        if completed, let duration { played = max(played, duration) }
        return ReportedPlay(track: o.track, startedAt: o.startedAt, player: o.player, playedSeconds: played,
                            counted: rule.counts(played: played, duration: duration))
    }
}
