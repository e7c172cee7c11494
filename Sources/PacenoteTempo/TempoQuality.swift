import CRubberBand

/// How hard Rubber Band works on a render: the trade between the time a song takes to
/// stretch and how clean it sounds. All three keep the pitch and run offline (a study pass,
/// then a process pass), so the tempo is exact over the whole song.
///
/// Measured with `scripts/bench/tempo` on this 2-core box (Debian 12, Rubber Band 3.1.2, a
/// parallel Swift build sharing the cores): a four-minute 44.1 kHz stereo FLAC of a kick and
/// click at 120 bpm, a chord and pink noise, rendered at ×1.05 (240 s -> 228.6 s):
///
/// | quality  | Rubber Band options                          | wall   | of song | peak RSS |
/// |----------|----------------------------------------------|--------|---------|----------|
/// | fast     | R2 engine, short window, crisp transients    | 12-14 s| 5-6 %   | 24 MiB   |
/// | balanced | R2 engine, its defaults (`rubberband -T`)    | 22-23 s| 9-10 %  | 25 MiB   |
/// | best     | R3 engine (`EngineFiner`, `rubberband -3`)   | 48-53 s| 20-22 % | 23 MiB   |
///
/// The same file through the `rubberband` tool took the same time at balanced and best (4.7 s
/// and 12.2 s for a one-minute cut, against 5.0 s and 13.2 s here), so the options match.
/// All three keep a 440 Hz tone within 0.4 % (aubio pitch: 441.5, 440.8, 440.8 Hz) and turn
/// 120 bpm clicks into 126 (aubio onsets: 126.0 bpm). R3 splits many short synthetic clicks
/// into two attacks 16 ms apart; the beat stays where it was.
public enum TempoQuality: String, CaseIterable, Sendable {
    /// The R2 ("faster") engine with its short window: the least work per frame. Rubber
    /// Band's documentation says a short window suits audio that depends on timing; it also
    /// resolves held notes less finely than the standard one.
    case fast
    /// The R2 engine as Rubber Band ships it (standard window, crisp transients, laminar
    /// phase): what `rubberband -T` does by default, and the level Pacenote renders at.
    case balanced
    /// The R3 ("finer") engine: the cleanest sound, for when there is time to spare.
    case best

    /// Rubber Band's option bits for this level, offline and with pitch kept (scale 1).
    var options: RubberBandOptions {
        let offline = RubberBandOptionProcessOffline.rawValue
        let bits: UInt32
        switch self {
        case .fast:
            bits = offline | RubberBandOptionEngineFaster.rawValue | RubberBandOptionWindowShort.rawValue
                | RubberBandOptionTransientsCrisp.rawValue
        case .balanced:
            bits = offline | RubberBandOptionEngineFaster.rawValue | RubberBandOptionTransientsCrisp.rawValue
        case .best:
            bits = offline | RubberBandOptionEngineFiner.rawValue
        }
        return RubberBandOptions(bitPattern: bits)
    }
}
