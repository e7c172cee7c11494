/// When a play counts as a listen (a "scrobble") and when it is a skip.
///
/// Last.fm's scrobbling rule, as mpdscribble applies it (`played_long_enough`, and
/// https://www.last.fm/api/scrobbling#when-is-a-scrobble-a-scrobble): "a track should only
/// be scrobbled when … the track is longer than 30 seconds, and the track has been played
/// for at least half its duration, or for 4 minutes (whichever occurs earlier)."
/// A stream has no duration: a title counts once it has played `streamSeconds`.
/// Played time is a stopwatch of real playing: pauses stop it, seeks neither add nor remove.
public struct PlayRule: Equatable, Sendable {
    /// Tracks shorter than this never count (30 s).
    public var minimumDuration: Double
    /// The share of the duration that must be played (one half).
    public var fraction: Double
    /// Played this long, any track counts (4 minutes).
    public var sufficientSeconds: Double
    /// A stream title counts after this long (60 s).
    public var streamSeconds: Double

    public static let lastFM = PlayRule(minimumDuration: 30, fraction: 0.5, sufficientSeconds: 240, streamSeconds: 60)

    public init(minimumDuration: Double, fraction: Double, sufficientSeconds: Double, streamSeconds: Double) {
        self.minimumDuration = minimumDuration
        self.fraction = fraction
        self.sufficientSeconds = sufficientSeconds
        self.streamSeconds = streamSeconds
    }

    /// Whether `played` seconds of a track of `duration` seconds (`nil`: unknown, as for a
    /// stream) make a counted play.
    /// `tempoRatio`: a copy rendered at another tempo plays in `duration` seconds; the track
    /// it was made from is `duration × tempoRatio` long, and that is the length the 30-second
    /// floor is about (a 31 s song sped up 8 % still counts when played whole).
    public func counts(played: Double, duration: Double?, tempoRatio: Double = 1) -> Bool {
        guard let duration, duration > 0 else { return played >= streamSeconds }
        guard duration * tempoRatio >= minimumDuration - 1e-9 else { return false }
        return played > duration * fraction || played > sufficientSeconds
    }
}
