import CEbur128
import CSndfile
import Foundation

/// A track's energy, measured rather than guessed (issue 57): its integrated loudness and
/// loudness range, from libebur128's EBU R 128 meter (ITU-R BS.1770-4 K-weighting and gating;
/// the range as EBU Tech 3342 defines it). `pacenote analyze` stores both
/// (`Track.loudnessLUFS`, `Track.loudnessRangeLU`).
///
/// The song is decoded in blocks of 4,096 frames and every channel is fed to the meter as it
/// is read, so memory stays flat whatever the song's length: the meter keeps only a figure per
/// 100 ms block (an hour of 48 kHz stereo FLAC took 12 s and 1.3 MiB more than a 10 s file,
/// libsndfile and libebur128 on this project's 2-core box; a four-minute song, under a second).
///
/// Channels are weighted as BS.1770 and libebur128 weight them by default (left, right,
/// centre, LFE unused, surrounds, in WAV order), with one exception: a mono file is measured
/// as dual mono, each sample counted twice, as if heard on the two speakers MPD plays it
/// through (what ffmpeg's `ebur128=dualmono=true` does). libebur128 alone would count it as a
/// left channel only and read it 3 LU quieter than the same song in stereo, so a mono
/// recording would always look calmer than it sounds.
///
/// Blocking and CPU-bound: call it off Swift's cooperative pool.
public enum LoudnessMeter {
    /// What a track with nothing loud enough for long enough to measure reads: silence, or
    /// audio shorter than the meter's 400 ms block. The meter gives -∞ there (nothing passes
    /// its absolute gate at -70 LUFS); it is stored as the lowest value the database takes,
    /// so the track counts as measured (and the quietest) and is not measured again. A real
    /// reading is never below -70.
    public static let silent = -120.0

    /// Frames decoded and fed to the meter at a time.
    static let block = 4096

    /// Why loudness cannot be measured on this machine (libsndfile or libebur128 cannot be
    /// loaded), or nil when it can.
    public static func unavailable() -> String? {
        load()?.description
    }

    /// Loads libsndfile and libebur128 (once for the process; see their shims).
    static func load() -> LoudnessError? {
        if let failure = pn_sndfile_load() {
            return .unavailable(library: "libsndfile", package: "libsndfile1", reason: String(cString: failure))
        }
        if let failure = pn_ebur128_load() {
            return .unavailable(library: "libebur128", package: "libebur128-1", reason: String(cString: failure))
        }
        return nil
    }

    /// Integrated loudness in LUFS and loudness range in LU of `path`, any file libsndfile
    /// decodes (FLAC, WAV, Ogg, …). Silence and audio under 400 ms read `silent` with a range of 0.
    ///
    /// Throws `.unavailable` without libebur128 or libsndfile, `.cannotOpen` when the file is
    /// missing or not audio, `.tooLong` past `maxSeconds` (refused before any work when the
    /// header gives the length), `.readFailed` when decoding breaks off, `.meterFailed` when
    /// the meter refuses the audio's shape.
    public static func measure(path: String, maxSeconds: Double = 3600) throws(LoudnessError) -> (lufs: Double, rangeLU: Double) {
        if let failure = load() { throw failure }
        let input: SoundFile
        do {
            input = try SoundFile(reading: path)
        } catch {
            if case .cannotOpen(_, let reason) = error { throw .cannotOpen(path: path, reason: reason) }
            throw .cannotOpen(path: path, reason: error.description)
        }
        let channels = Int(input.info.channels)
        let sampleRate = Int(input.info.samplerate)
        guard channels > 0, sampleRate > 0 else { throw .cannotOpen(path: path, reason: "it holds no audio") }
        let secondsInHeader = Double(input.info.frames) / Double(sampleRate)
        guard secondsInHeader <= maxSeconds else { throw .tooLong(path: path, seconds: secondsInHeader, limit: maxSeconds) }
        // A header that understates the length (a stream, a damaged file) is caught while reading.
        let maxFrames = Int(min(maxSeconds * Double(sampleRate), Double(Int.max / 2)))

        let meter = try Meter(channels: channels, sampleRate: sampleRate, path: path)
        let interleaved = UnsafeMutablePointer<Float>.allocate(capacity: block * channels)
        defer { interleaved.deallocate() }
        var framesRead = 0
        while true {
            let got = input.read(into: interleaved, frames: block)
            if got < 0 || (got < block && sf_error(input.handle) != 0) {
                throw .readFailed(path: path, reason: input.reason)
            }
            guard got > 0 else { break }
            framesRead += got
            guard framesRead <= maxFrames else {
                throw .tooLong(path: path, seconds: Double(framesRead) / Double(sampleRate), limit: maxSeconds)
            }
            try meter.add(interleaved, frames: got)
            if got < block { break }
        }
        guard framesRead > 0 else { throw .cannotOpen(path: path, reason: "it holds no audio") }
        let (lufs, range) = try meter.result()
        guard lufs.isFinite else { return (silent, 0) }
        return (min(max(lufs, silent), 20), range.isFinite ? min(max(range, 0), 120) : 0)
    }
}

/// Why a track's loudness was not measured. `description` is the one line shown to a user.
public enum LoudnessError: Error, Sendable, CustomStringConvertible, Equatable {
    /// libebur128, or libsndfile which decodes the file, cannot be loaded; `reason` is the
    /// loader's (dlerror).
    case unavailable(library: String, package: String, reason: String)
    /// The file is missing, unreadable or not audio libsndfile can decode.
    case cannotOpen(path: String, reason: String)
    /// The file broke off or changed while it was being read.
    case readFailed(path: String, reason: String)
    /// Longer than the limit (an audiobook, a day-long mix): refused before any work.
    case tooLong(path: String, seconds: Double, limit: Double)
    /// libebur128 refused the audio (a sample rate or a channel count it does not take) or
    /// ran out of memory; `reason` says which.
    case meterFailed(path: String, reason: String)

    public var description: String {
        switch self {
        case .unavailable(let library, let package, let reason):
            return "loudness needs \(library) (Debian package \(package)): \(reason)"
        case .cannotOpen(let path, let reason):
            return "Cannot read \(path) as audio: \(reason)"
        case .readFailed(let path, let reason):
            return "Reading \(path) failed partway: \(reason)"
        case .tooLong(let path, let seconds, let limit):
            return "\(path) is \(TempoRenderError.minutes(seconds)) long; loudness is measured on songs up to \(TempoRenderError.minutes(limit))."
        case .meterFailed(let path, let reason):
            return "The loudness meter could not measure \(path): \(reason)"
        }
    }
}

/// libebur128's state with one owner: destroyed in `deinit`, on every way out of `measure`.
private final class Meter {
    private var state: OpaquePointer?
    private let path: String

    init(channels: Int, sampleRate: Int, path: String) throws(LoudnessError) {
        // NULL for settings it does not take (no channels, more than it counts, a sample rate
        // outside 16 Hz to 2.8 MHz) or when out of memory.
        guard let state = ebur128_init(UInt32(channels), UInt(sampleRate), Int32(EBUR128_MODE_I | EBUR128_MODE_LRA)) else {
            throw .meterFailed(path: path, reason: "it does not take \(channels) channels at \(sampleRate) Hz")
        }
        self.state = state
        self.path = path
        if channels == 1 {
            // Dual mono: see `LoudnessMeter`.
            guard Int(ebur128_set_channel(state, 0, Int32(EBUR128_DUAL_MONO))) == EBUR128_SUCCESS else {
                throw .meterFailed(path: path, reason: "it refused a mono channel as dual mono")
            }
        }
    }

    deinit {
        ebur128_destroy(&state)
    }

    func add(_ interleaved: UnsafeMutablePointer<Float>, frames: Int) throws(LoudnessError) {
        guard Int(ebur128_add_frames_float(state, interleaved, frames)) == EBUR128_SUCCESS else {
            throw .meterFailed(path: path, reason: "out of memory")
        }
    }

    /// Integrated loudness (-∞ when nothing passed the gate) and loudness range.
    func result() throws(LoudnessError) -> (Double, Double) {
        var lufs = 0.0, range = 0.0
        guard Int(ebur128_loudness_global(state, &lufs)) == EBUR128_SUCCESS,
              Int(ebur128_loudness_range(state, &range)) == EBUR128_SUCCESS else {
            throw .meterFailed(path: path, reason: "out of memory")
        }
        return (lufs, range)
    }
}
