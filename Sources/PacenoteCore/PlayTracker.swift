import Foundation

/// What one look at a player shows: MPD's `status` and `currentsong`, read together.
public struct PlayerSnapshot: Equatable, Sendable {
    public enum State: String, Sendable { case play, pause, stop }

    public var state: State
    public var song: SongInfo?
    /// MPD's queue id of the current song: the same file queued twice has two ids.
    public var songID: Int?
    /// Seconds into the current song.
    public var elapsed: Double?
    /// The volume and modes read in the same look (nil where a snapshot is made by hand).
    public var controls: PlayerControls?

    public init(state: State, song: SongInfo? = nil, songID: Int? = nil, elapsed: Double? = nil, controls: PlayerControls? = nil) {
        self.state = state
        self.song = song
        self.songID = songID
        self.elapsed = elapsed
        self.controls = controls
    }
}

/// The play in progress on one player.
public struct OpenPlay: Equatable, Sendable {
    public var song: SongInfo
    public var songID: Int?
    /// When playback of this play began.
    public var startedAt: Date
    /// Real playing time up to `asOf`.
    public var playedSeconds: Double
    public var isPlaying: Bool
    public var asOf: Date
    /// Position in the song at `asOf`.
    public var position: Double?
    /// When we lost sight of the player (MPD went away, or Pacenote itself stopped): the
    /// play ended then, unless the next look shows it still going.
    public var lostAt: Date?

    public init(song: SongInfo, songID: Int?, startedAt: Date, playedSeconds: Double, isPlaying: Bool,
                asOf: Date, position: Double?, lostAt: Date? = nil) {
        self.song = song
        self.songID = songID
        self.startedAt = startedAt
        self.playedSeconds = playedSeconds
        self.isPlaying = isPlaying
        self.asOf = asOf
        self.position = position
        self.lostAt = lostAt
    }

    /// The track's length; `nil` for streams.
    public var duration: Double? { song.isStream ? nil : song.durationSeconds }

    /// Brings `playedSeconds` and `position` up to `t` (the stopwatch runs while playing).
    mutating func advance(to t: Date) {
        guard t > asOf else { return }
        if isPlaying {
            let delta = t.timeIntervalSince(asOf)
            playedSeconds += delta
            position = position.map { $0 + delta }
        }
        asOf = t
    }
}

/// A play that has ended, ready to be stored.
public struct FinishedPlay: Equatable, Sendable {
    public var song: SongInfo
    public var startedAt: Date
    public var endedAt: Date
    public var playedSeconds: Double
    public var counted: Bool

    public init(song: SongInfo, startedAt: Date, endedAt: Date, playedSeconds: Double, counted: Bool) {
        self.song = song
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.playedSeconds = playedSeconds
        self.counted = counted
    }
}

public enum PlayEvent: Equatable, Sendable {
    /// A play ended; store it (a skip when not `counted`).
    case finished(FinishedPlay)
    /// The play in progress changed (started, paused, resumed, seeked, lost); `nil` when
    /// nothing is playing any more. Save it so that a crash loses nothing.
    case progress(OpenPlay?)
}

/// Turns looks at a player into plays: a pure state machine, fed by the MPD watcher.
///
/// - A play is one uninterrupted presence of one queued song (one title, for streams).
///   Pause/resume, seeks and queue edits continue it; another song, `stop`, or the same
///   song starting over after it already counted (repeat, single, a seek back to the
///   start) end it.
/// - Played time is real playing time measured by the wall clock, never MPD's position,
///   so seeks neither add nor remove time. Time while MPD is unreachable is not counted.
/// - After losing sight of the player, the next look decides: the same file, not started
///   over, continues the play (adding the time MPD's position moved on meanwhile, if it
///   kept playing); anything else ends it at the moment it was lost.
public struct PlayTracker: Sendable {
    public let rule: PlayRule
    public private(set) var current: OpenPlay?
    /// The previous look, while the connection is up; `nil` right after (re)connecting.
    private var lastLook: Date?

    /// How far MPD's position may lag our own estimate and still be "the same play".
    static let positionTolerance = 3.0

    public init(rule: PlayRule, resuming saved: OpenPlay? = nil) {
        self.rule = rule
        if var saved {
            // Saved before Pacenote stopped: the play is as of `asOf`, and what happened
            // after is for the first look to tell.
            saved.isPlaying = false
            saved.lostAt = saved.lostAt ?? saved.asOf
            current = saved
        }
    }

    /// The play in progress brought up to `t`, for periodic saving.
    public func progress(at t: Date) -> OpenPlay? {
        guard var play = current else { return nil }
        play.advance(to: t)
        return play
    }

    /// The connection to the player is lost at `t`: the stopwatch stops.
    public mutating func lost(at t: Date) -> [PlayEvent] {
        lastLook = nil
        guard var play = current else { return [] }
        play.advance(to: t)
        play.isPlaying = false
        if play.lostAt == nil { play.lostAt = t }
        current = play
        return [.progress(play)]
    }

    /// Takes one look at the player at `t`.
    public mutating func observe(_ snapshot: PlayerSnapshot, at t: Date) -> [PlayEvent] {
        let joined = lastLook == nil
        let previousLook = lastLook
        lastLook = t
        var events: [PlayEvent] = []

        if var play = current {
            play.advance(to: t)
            if continues(play, with: snapshot, at: t) {
                if let lostAt = play.lostAt, let elapsed = snapshot.elapsed, let position = play.position {
                    // MPD kept playing while we could not see it: its position moved on.
                    play.playedSeconds += min(max(elapsed - position, 0), max(t.timeIntervalSince(lostAt), 0))
                }
                play.lostAt = nil
                play.isPlaying = snapshot.state == .play
                play.position = snapshot.elapsed ?? play.position
                play.songID = snapshot.songID ?? play.songID
                if let song = snapshot.song { play.song = song }
                current = play
                return [.progress(play)]
            }
            let end = max(play.lostAt ?? t, play.startedAt)
            events.append(.finished(FinishedPlay(
                song: play.song, startedAt: play.startedAt, endedAt: end, playedSeconds: play.playedSeconds,
                counted: rule.counts(played: play.playedSeconds, duration: play.duration, tempoRatio: play.song.tempo?.ratio ?? 1))))
            current = nil
        }

        guard snapshot.state != .stop, let song = snapshot.song else {
            if !events.isEmpty { events.append(.progress(nil)) }
            return events
        }
        let elapsed = max(0, snapshot.elapsed ?? 0)
        // Joining a song already under way, assume it played from its start. A song seen
        // starting while we watch can only have played since our previous look.
        // (The wall clock can jump back: a negative interval counts as none.)
        var played = joined ? elapsed : min(elapsed, max(t.timeIntervalSince(previousLook ?? t), 0))
        // A stream's position runs across titles; a new title starts when it is seen.
        if song.isStream { played = 0 }
        let play = OpenPlay(
            song: song, songID: snapshot.songID, startedAt: t.addingTimeInterval(-played),
            playedSeconds: played, isPlaying: snapshot.state == .play, asOf: t, position: snapshot.elapsed)
        current = play
        events.append(.progress(play))
        return events
    }

    /// Whether `snapshot` shows the same play still going.
    private func continues(_ play: OpenPlay, with snapshot: PlayerSnapshot, at t: Date) -> Bool {
        guard snapshot.state != .stop, let song = snapshot.song, song.uri == play.song.uri else { return false }
        if song.isStream {
            // Each title inside a stream is its own play.
            return song.tag("Title") == play.song.tag("Title") && song.tag("Artist") == play.song.tag("Artist")
        }
        if play.lostAt == nil, let id = snapshot.songID, let current = play.songID, id != current {
            return false  // the same file queued again
        }
        guard let elapsed = snapshot.elapsed, let position = play.position else { return true }
        if let lostAt = play.lostAt {
            // Song ids may have been renumbered (MPD restarted): the file, and a position
            // that has neither gone back nor moved on further than the time we were away
            // allows, make it the same play. Days later at the same spot is a new listen.
            let away = max(t.timeIntervalSince(lostAt), 0)
            return elapsed + Self.positionTolerance >= position
                && elapsed <= position + away + Self.positionTolerance
        }
        // Back at the very start, after the play counted or reached its end: the song
        // again (repeat, single mode, or a seek to the start once it had counted).
        if elapsed < min(2, position) && position - elapsed >= min(Self.positionTolerance, position / 2) {
            let duration = play.duration ?? .infinity
            let reachedEnd = position >= duration - min(2, duration * 0.2)
            if reachedEnd || rule.counts(played: play.playedSeconds, duration: play.duration, tempoRatio: play.song.tempo?.ratio ?? 1) { return false }
        }
        return true
    }
}
