import CRubberBand
import CSndfile
import Foundation

/// Renders a song time-stretched to a new tempo with its pitch kept (issue 56, tempo-matched
/// playback), through Rubber Band in offline mode: a study pass over the whole song so the
/// stretch is spread evenly, then a process pass. Both read the source in blocks and the
/// output is encoded as it comes, so memory stays flat whatever the song's length (a
/// four-minute stereo song peaks well under 150 MiB; see `scripts/bench/tempo`).
///
/// Blocking and CPU-heavy (seconds per song, on Rubber Band's own threads as well): call it
/// off Swift's cooperative pool, on a thread or queue of its own.
public enum TempoRenderer {
    /// Frames read, studied and processed at a time: 16,384 stereo frames are 128 KiB of
    /// floats, small next to Rubber Band's own buffers.
    static let blockFrames = 16_384

    /// Renders `source` to `destination` as a 16-bit FLAC at the same rate and channels,
    /// `tempoRatio` times as fast (1.05: 5 % faster, the song lasts 1/1.05 as long).
    ///
    /// The file is written as `destination + ".part"` and renamed when complete, so a reader
    /// (MPD, the cache) never sees half a render; on any failure the `.part` is removed and
    /// nothing is left. `tags` keys `title`, `artist`, `album` become the FLAC's tags.
    /// `clicks` are beat times in seconds of the output at which a soft click is mixed in.
    @discardableResult
    public static func render(
        source: String, destination: String, tempoRatio: Double, quality: TempoQuality = .balanced,
        tags: [String: String] = [:], maxSeconds: Double = 1800, clicks: [Double]? = nil
    ) throws(TempoRenderError) -> TempoRenderResult {
        let started = ContinuousClock.now
        guard tempoRatio.isFinite, tempoRatio >= 0.25, tempoRatio <= 4 else { throw .badRatio(tempoRatio) }

        let input = try SoundFile(reading: source)
        let channels = Int(input.info.channels)
        let sampleRate = Int(input.info.samplerate)
        let frames = Int(input.info.frames)
        guard channels > 0, sampleRate > 0, frames > 0, input.info.seekable != 0 else {
            throw .cannotOpen(path: source, reason: "it holds no audio that can be read twice")
        }
        let secondsIn = Double(frames) / Double(sampleRate)
        // Refused before any work: Rubber Band also counts frames in 32 bits.
        guard secondsIn <= maxSeconds, frames < Int(UInt32.max) / 2 else {
            throw .tooLong(seconds: secondsIn, limit: maxSeconds)
        }

        // Loaded on first use (see CRubberBand's shim).
        if let failure = pn_rubberband_load() {
            throw .cannotOpen(path: source, reason: "Rubber Band (librubberband2) cannot be loaded: " + String(cString: failure))
        }
        guard let stretcher = rubberband_new(UInt32(sampleRate), UInt32(channels), quality.options, 1 / tempoRatio, 1) else {
            throw .stretcherFailed
        }
        defer { rubberband_delete(stretcher) }
        rubberband_set_expected_input_duration(stretcher, UInt32(frames))
        rubberband_set_max_process_size(stretcher, UInt32(blockFrames))

        let buffers = Buffers(channels: channels, frames: blockFrames)

        // Study pass: Rubber Band sees the whole song before it stretches any of it.
        var studied = 0
        while studied < frames {
            let got = input.read(into: buffers.interleaved, frames: min(blockFrames, frames - studied))
            guard got > 0 else { break }
            buffers.deinterleave(frames: got)
            studied += got
            rubberband_study(stretcher, buffers.planarInput, UInt32(got), studied >= frames ? 1 : 0)
        }
        guard studied > 0 else {
            throw .cannotOpen(path: source, reason: sf_error(input.handle) != 0 ? input.reason : "it holds no audio")
        }
        // A file shorter than its header says (cut off): the frames read are the song.
        if studied < frames { rubberband_study(stretcher, buffers.planarInput, 0, 1) }
        guard input.rewind() else { throw .readFailed(path: source, reason: input.reason) }

        let part = destination + ".part"
        let descriptor = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .writeFailed(reason: "\(part): \(String(cString: strerror(errno)))") }
        var descriptorOpen = true
        do throws(TempoRenderError) {
            let file = try SoundFile(writingFLACTo: descriptor, sampleRate: sampleRate, channels: channels)
            for (key, kind) in [("title", SF_STR_TITLE), ("artist", SF_STR_ARTIST), ("album", SF_STR_ALBUM)] {
                if let value = tags[key], !value.isEmpty { try file.setTag(Int32(kind), value) }
            }
            let output = RenderOutput(file: file, sampleRate: sampleRate, channels: channels, block: blockFrames, clicks: clicks)

            // Process pass: the same frames again, stretched output encoded as it comes.
            var processed = 0
            while processed < studied {
                let want = min(blockFrames, studied - processed)
                let got = input.read(into: buffers.interleaved, frames: want)
                guard got == want else {
                    throw .readFailed(path: source, reason: got < 0 || sf_error(input.handle) != 0 ? input.reason : "the file changed while it was read")
                }
                buffers.deinterleave(frames: got)
                processed += got
                rubberband_process(stretcher, buffers.planarInput, UInt32(got), processed >= studied ? 1 : 0)
                try drain(stretcher, buffers, output, untilDone: false)
            }
            try drain(stretcher, buffers, output, untilDone: true)
            try output.finish()
            try file.close()
            guard fsync(descriptor) == 0 else { throw .writeFailed(reason: String(cString: strerror(errno))) }
            descriptorOpen = false
            guard close(descriptor) == 0 else { throw .writeFailed(reason: String(cString: strerror(errno))) }
            guard rename(part, destination) == 0 else {
                throw .writeFailed(reason: "\(destination): \(String(cString: strerror(errno)))")
            }
            let secondsOut = Double(output.framesWritten) / Double(sampleRate)
            return TempoRenderResult(
                framesIn: studied, framesOut: output.framesWritten, sampleRate: sampleRate, channels: channels,
                secondsIn: Double(studied) / Double(sampleRate), secondsOut: secondsOut,
                wallSeconds: Self.seconds(ContinuousClock.now - started))
        } catch {
            if descriptorOpen { close(descriptor) }
            unlink(part)
            throw error
        }
    }

    /// Moves what Rubber Band has ready to the output. After the last block (`untilDone`) it
    /// waits for the rest, since with threads the stretcher can have none ready yet while it
    /// still works; `available` is −1 once everything has been retrieved.
    private static func drain(_ stretcher: RubberBandState, _ buffers: Buffers, _ output: RenderOutput, untilDone: Bool) throws(TempoRenderError) {
        while true {
            let available = Int(rubberband_available(stretcher))
            if available < 0 { return }
            if available == 0 {
                if !untilDone { return }
                usleep(1000)
                continue
            }
            let got = Int(rubberband_retrieve(stretcher, buffers.planarOutput, UInt32(min(available, buffers.frames))))
            try output.append(buffers.planarOutputList, frames: got)
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        let (whole, attoseconds) = duration.components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}

/// The block buffers: one interleaved as libsndfile reads, planar for Rubber Band in and out.
/// Allocated once per render, freed when the render lets go of it.
final class Buffers {
    let channels: Int
    let frames: Int
    let interleaved: UnsafeMutablePointer<Float>
    private let planar: [UnsafeMutablePointer<Float>]
    private let retrieved: [UnsafeMutablePointer<Float>]
    let planarInput: UnsafeMutablePointer<UnsafePointer<Float>?>
    let planarOutput: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    var planarOutputList: [UnsafeMutablePointer<Float>?] { retrieved }

    init(channels: Int, frames: Int) {
        self.channels = channels
        self.frames = frames
        interleaved = .allocate(capacity: channels * frames)
        planar = (0..<channels).map { _ in .allocate(capacity: frames) }
        retrieved = (0..<channels).map { _ in .allocate(capacity: frames) }
        planarInput = .allocate(capacity: channels)
        planarOutput = .allocate(capacity: channels)
        for c in 0..<channels {
            planarInput[c] = UnsafePointer(planar[c])
            planarOutput[c] = retrieved[c]
        }
    }

    func deinterleave(frames count: Int) {
        for c in 0..<channels {
            let target = planar[c]
            for i in 0..<count { target[i] = interleaved[i * channels + c] }
        }
    }

    deinit {
        interleaved.deallocate()
        planar.forEach { $0.deallocate() }
        retrieved.forEach { $0.deallocate() }
        planarInput.deallocate()
        planarOutput.deallocate()
    }
}
