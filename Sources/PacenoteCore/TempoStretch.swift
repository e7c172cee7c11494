import Foundation

/// How a song was played when MPD played a copy Pacenote rendered at another tempo (issue 56):
/// carried by the `SongInfo` of the original from the watcher to the stored play.
public struct TempoPlayback: Equatable, Sendable, Codable {
    /// The tempo factor: 1.05 plays 5 % faster (the copy lasts 1/1.05 of the track).
    public var ratio: Double
    /// The tempo the song was played at, in bpm (its own BPM times `ratio`), when known.
    public var playedBPM: Double?

    public init(ratio: Double, playedBPM: Double?) {
        self.ratio = ratio
        self.playedBPM = playedBPM
    }
}

/// How much to speed a song up or slow it down so that it meets a tempo target: the pure
/// half of tempo-matched playback (the rendering is `PacenoteTempo`'s).
public enum TempoStretch {
    /// A change smaller than this is not worth a render: the song is queued as it is.
    public static let negligible = 0.01

    public struct Plan: Equatable, Sendable {
        /// The factor to render at (1.04: 4 % faster).
        public var ratio: Double
        /// The tempo the track's beat will play at (its BPM times `ratio`).
        public var playedBPM: Double
        /// What the target asked for, after half- or double-time (`TempoFit.factor`): the
        /// played tempo times the factor (a 85 bpm song at 2:1 meets 170 steps a minute).
        public var targetBPM: Double
        /// The factor the song is read at against the target (0.5, 1, 2).
        public var factor: Double
    }

    /// The render that brings a song of `bpm` to `target`, changing its tempo by at most
    /// `maxChange` (0.08: ±8 %): towards the cadence (1:1 or 2:1, whichever needs less) or the
    /// centre of a zone's window (at the half- or double-time that fits, else the nearest).
    /// Nil when there is no target, no usable BPM, or the change would be negligible.
    public static func plan(bpm: Double?, target: TempoTarget, maxChange: Double) -> Plan? {
        guard let bpm, bpm.isFinite, bpm >= 20, bpm <= 400, maxChange > 0 else { return nil }
        let wanted: Double
        let factor: Double
        switch target {
        case .any:
            return nil
        case .cadence(let steps, _):
            wanted = steps
            factor = [1.0, 2.0, 0.5].min { abs(steps / (bpm * $0) - 1) < abs(steps / (bpm * $1) - 1) }!
        case .window(let window):
            wanted = (window.lowerBound + window.upperBound) / 2
            if let fit = target.fit(bpm: bpm) {
                factor = fit.factor
            } else {
                factor = [1.0, 2.0, 0.5].min { abs(wanted / (bpm * $0) - 1) < abs(wanted / (bpm * $1) - 1) }!
            }
        }
        let ratio = min(max(wanted / (bpm * factor), 1 - maxChange), 1 + maxChange)
        guard abs(ratio - 1) >= negligible else { return nil }
        return Plan(ratio: ratio, playedBPM: bpm * ratio, targetBPM: bpm * ratio * factor, factor: factor)
    }
}
