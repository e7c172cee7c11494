/// Why a render did not happen. Each case carries what a user needs to act on it, and
/// `description` is the one line shown to them (the web page, the CLI, the log).
public enum TempoRenderError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The source is missing, unreadable or not audio libsndfile can decode; `reason` is
    /// libsndfile's own (`sf_strerror`).
    case cannotOpen(path: String, reason: String)
    /// The source broke off or changed while it was being read.
    case readFailed(path: String, reason: String)
    /// The source is longer than the renderer accepts (a DJ mix, an audiobook): refused
    /// before any work, since a render takes time and disk in proportion to the length.
    case tooLong(seconds: Double, limit: Double)
    /// The render could not be written: the disk is full, the directory is not writable.
    case writeFailed(reason: String)
    /// The tempo ratio is not a number between 0.25 and 4 (Rubber Band's sensible range).
    case badRatio(Double)
    /// Rubber Band refused the settings (it returned no stretcher).
    case stretcherFailed

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            return "Cannot read \(path) as audio: \(reason)"
        case .readFailed(let path, let reason):
            return "Reading \(path) failed partway: \(reason)"
        case .tooLong(let seconds, let limit):
            return "The song is \(Self.minutes(seconds)) long; tempo matching takes songs up to \(Self.minutes(limit))."
        case .writeFailed(let reason):
            return "Could not write the tempo-matched file: \(reason)"
        case .badRatio(let ratio):
            return "A tempo ratio of \(ratio) is out of range (0.25 to 4)."
        case .stretcherFailed:
            return "The time stretcher could not be started for this file."
        }
    }

    /// "4:05", "1:00:00": how people read a song's length.
    static func minutes(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0, seconds < 1e9 else { return "\(seconds) s" }
        let whole = Int(seconds.rounded())
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        if whole >= 3600 { return "\(whole / 3600):\(two(whole / 60 % 60)):\(two(whole % 60))" }
        return "\(whole / 60):\(two(whole % 60))"
    }
}

/// What a render did: the lengths in and out and how long it took, for the log and the bench.
public struct TempoRenderResult: Sendable, Equatable {
    public var framesIn: Int
    public var framesOut: Int
    public var sampleRate: Int
    public var channels: Int
    public var secondsIn: Double
    public var secondsOut: Double
    /// Wall-clock time of the render, study and process passes and the encode together.
    public var wallSeconds: Double

    public init(framesIn: Int, framesOut: Int, sampleRate: Int, channels: Int, secondsIn: Double, secondsOut: Double, wallSeconds: Double) {
        self.framesIn = framesIn
        self.framesOut = framesOut
        self.sampleRate = sampleRate
        self.channels = channels
        self.secondsIn = secondsIn
        self.secondsOut = secondsOut
        self.wallSeconds = wallSeconds
    }
}
