import CAubio
import CSndfile
import Foundation

/// Where the beats of a song fall, heard by aubio's beat tracker (`aubio_tempo`, the tracker of
/// Davies and Plumbley, "Context-dependent beat tracking of musical audio", 2007), so a
/// tempo-matched render can mark them with clicks (`TempoRenderer.render(…clicks:)`).
///
/// The song is decoded in hops of 512 frames, mixed to mono and fed to the tracker as it is
/// read, so memory stays flat whatever the song's length; only the beat times are kept.
///
/// aubio hears music, not metronomes: on a bare click track it settles on a wrong tempo
/// (120 bpm clicks read as 48), while a kick under a chord is tracked within a percent. Tests
/// use music-shaped audio for that reason.
///
/// Blocking and CPU-bound (1.3 s and 47 MiB peak for a four-minute stereo FLAC, in a release
/// build): call it off Swift's cooperative pool, like the renderer.
public enum TempoBeats {
    /// What the tracker heard in one song.
    public struct Result: Sendable, Equatable {
        /// Beat times in seconds of the source, ascending.
        public var beats: [Double]
        /// The tempo aubio settled on by the end of the song; when it has none, the one from
        /// the median interval between beats; nil with fewer than two beats. It may be half or
        /// double the tempo a listener taps: compare both when that matters. It reads 1 to 2 %
        /// fast; `TempoBeats.fittedBPM(beats)` is the closer figure.
        public var bpm: Double?
        /// aubio's confidence in its tempo at the end of the song, 0 (none, or no beat found)
        /// to 1.
        public var confidence: Double

        public init(beats: [Double], bpm: Double?, confidence: Double) {
            self.beats = beats
            self.bpm = bpm
            self.confidence = confidence
        }
    }

    /// aubio's own defaults for `aubio beat`: a 1,024-frame analysis window moved 512 frames
    /// at a time (11.6 ms at 44.1 kHz; aubio places each beat within the hop it falls in).
    static let window = 1024
    static let hop = 512

    /// Why beats cannot be tracked on this machine (libsndfile or aubio cannot be loaded), or
    /// nil when they can.
    public static func unavailable() -> String? {
        if let failure = SoundFile.load() { return failure }
        if let failure = pn_aubio_load() { return "aubio (libaubio5) cannot be loaded: \(String(cString: failure))" }
        return nil
    }

    /// Tracks the beats of `source`, any file libsndfile decodes (FLAC, WAV, Ogg, …).
    ///
    /// Throws `.cannotOpen` when the file is missing, not audio or holds nothing to track,
    /// `.tooLong` past `maxSeconds` (refused before any work when the header gives the length),
    /// and `.readFailed` when decoding breaks off.
    public static func track(source: String, maxSeconds: Double = 3600) throws(TempoRenderError) -> Result {
        let input = try SoundFile(reading: source)
        let channels = Int(input.info.channels)
        let sampleRate = Int(input.info.samplerate)
        guard channels > 0, sampleRate > 0 else {
            throw .cannotOpen(path: source, reason: "it holds no audio")
        }
        let secondsInHeader = Double(input.info.frames) / Double(sampleRate)
        guard secondsInHeader <= maxSeconds else { throw .tooLong(seconds: secondsInHeader, limit: maxSeconds) }
        // A header that understates the length (a stream, a damaged file) is caught while reading.
        let maxFrames = Int(min(maxSeconds * Double(sampleRate), Double(Int.max / 2)))

        let tracker = try Tracker(sampleRate: sampleRate, source: source)
        let interleaved = UnsafeMutablePointer<Float>.allocate(capacity: hop * channels)
        defer { interleaved.deallocate() }

        var beats: [Double] = []
        var framesRead = 0
        while true {
            let got = input.read(into: interleaved, frames: hop)
            if got < 0 || (got < hop && sf_error(input.handle) != 0) {
                throw .readFailed(path: source, reason: input.reason)
            }
            guard got > 0 else { break }
            framesRead += got
            guard framesRead <= maxFrames else {
                throw .tooLong(seconds: Double(framesRead) / Double(sampleRate), limit: maxSeconds)
            }
            tracker.mixDown(interleaved, frames: got, channels: channels)
            if let beat = tracker.step() { beats.append(beat) }
            if got < hop { break }
        }
        guard framesRead > 0 else { throw .cannotOpen(path: source, reason: "it holds no audio") }

        let heard = tracker.bpm
        let bpm = heard.isFinite && heard > 0 ? heard : medianBPM(beats)
        let confidence = tracker.confidence
        return Result(beats: beats, bpm: bpm, confidence: confidence.isFinite ? min(max(confidence, 0), 1) : 0)
    }

    /// Source beat times as times in a render `ratio` times as fast (`TempoRenderer`'s
    /// `tempoRatio`): a beat at `t` s of the song is at `t / ratio` s of the render, since the
    /// stretch is spread evenly over the song. Negative and non-finite times are dropped.
    public static func clicks(for beats: [Double], ratio: Double) -> [Double] {
        guard ratio.isFinite, ratio > 0 else { return [] }
        return beats.filter { $0.isFinite && $0 >= 0 }.map { $0 / ratio }
    }

    /// The tempo of the line that best fits the beat times (least squares), each beat
    /// numbered by how many median intervals it follows the one before, so a missed beat
    /// does not halve the tempo. aubio's own tempo (`Result.bpm`) reads 1 to 2 % fast on
    /// steady generated tracks (121.6 for 120, 142.5 for 140, 129.9 for 128), but its beats
    /// are placed again on the music every 1.5 s or so and stay on the kicks, so the line
    /// through them lands within 0.1 % (120.04, 140.10, 128.000). Nil with fewer than two beats.
    public static func fittedBPM(_ beats: [Double]) -> Double? {
        guard let median = medianBPM(beats).map({ 60 / $0 }) else { return nil }
        var index = 0.0
        var points: [(index: Double, time: Double)] = [(0, beats[0])]
        for (previous, time) in zip(beats, beats.dropFirst()) {
            index += max(1, ((time - previous) / median).rounded())
            points.append((index, time))
        }
        let count = Double(points.count)
        let meanIndex = points.reduce(0) { $0 + $1.index } / count
        let meanTime = points.reduce(0) { $0 + $1.time } / count
        let spread = points.reduce(0) { $0 + ($1.index - meanIndex) * ($1.index - meanIndex) }
        let slope = points.reduce(0) { $0 + ($1.index - meanIndex) * ($1.time - meanTime) } / spread
        return slope > 0 && slope.isFinite ? 60 / slope : nil
    }

    /// 60 over the median interval between consecutive beats; the median, so a missed or an
    /// extra beat does not move it.
    static func medianBPM(_ beats: [Double]) -> Double? {
        let intervals = zip(beats, beats.dropFirst()).map { $1 - $0 }.filter { $0 > 0 }.sorted()
        guard !intervals.isEmpty else { return nil }
        let middle = intervals.count / 2
        let median = intervals.count % 2 == 1 ? intervals[middle] : (intervals[middle - 1] + intervals[middle]) / 2
        return 60 / median
    }
}

/// aubio's tracker and its two vectors, with one owner: all three are freed in `deinit`, on
/// every way out of `track`; if one cannot be made, those already made are freed at once.
private final class Tracker {
    private let tempo: OpaquePointer
    private let input: UnsafeMutablePointer<fvec_t>
    private let output: UnsafeMutablePointer<fvec_t>

    init(sampleRate: Int, source: String) throws(TempoRenderError) {
        // Loaded on first use (see CAubio's shim): missing, the beats cannot be found.
        if let failure = pn_aubio_load() {
            throw .cannotOpen(path: source, reason: "aubio (libaubio5) cannot be loaded: \(String(cString: failure))")
        }
        // aubio returns nil (and prints why) only for settings it cannot take, such as a
        // sample rate it has no use for.
        guard let tempo = new_aubio_tempo("default", UInt32(TempoBeats.window), UInt32(TempoBeats.hop), UInt32(sampleRate)) else {
            throw .cannotOpen(path: source, reason: "aubio's beat tracker cannot take \(sampleRate) Hz audio")
        }
        // aubio_tempo_do writes the beat flag (and its position in the hop) to `output[0]` and
        // the onset flag to `output[1]`.
        let input = new_fvec(UInt32(TempoBeats.hop)), output = new_fvec(2)
        guard let input, let output else {
            if let input { del_fvec(input) }
            if let output { del_fvec(output) }
            del_aubio_tempo(tempo)
            throw .cannotOpen(path: source, reason: "out of memory for aubio's beat tracker")
        }
        self.tempo = tempo
        self.input = input
        self.output = output
    }

    deinit {
        del_fvec(output)
        del_fvec(input)
        del_aubio_tempo(tempo)
    }

    /// Writes the mono mix of `frames` interleaved frames into the tracker's input, silence
    /// after them when the last hop is short.
    func mixDown(_ interleaved: UnsafeMutablePointer<Float>, frames: Int, channels: Int) {
        let samples = input.pointee.data!
        let scale = 1 / Float(channels)
        for i in 0..<frames {
            var sum: Float = 0
            for c in 0..<channels { sum += interleaved[i * channels + c] }
            samples[i] = sum * scale
        }
        for i in frames..<TempoBeats.hop { samples[i] = 0 }
    }

    /// Feeds the input to the tracker: the beat's time in seconds of the song when one falls
    /// in this hop (aubio adds its own look-back delay to place it).
    func step() -> Double? {
        aubio_tempo_do(tempo, input, output)
        guard output.pointee.data[0] != 0 else { return nil }
        return Double(aubio_tempo_get_last_s(tempo))
    }

    var bpm: Double { Double(aubio_tempo_get_bpm(tempo)) }
    var confidence: Double { Double(aubio_tempo_get_confidence(tempo)) }
}
