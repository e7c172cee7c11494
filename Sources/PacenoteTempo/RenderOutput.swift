import Foundation

/// The render's way out: planar blocks from Rubber Band in, interleaved FLAC frames out, with
/// the optional beat clicks mixed in on the way.
///
/// A click's loudness check needs its whole 20 ms under the music, which may straddle two of
/// Rubber Band's blocks, so frames wait here until every click that starts in them is mixed:
/// `block` frames are written at a time, and `tail` frames (a click and its gain ramp) are
/// always held back until the end.
final class RenderOutput {
    let file: SoundFile
    let channels: Int
    let block: Int
    private(set) var framesWritten = 0

    /// Click starts (output frames), ascending; the next to mix is `clicks[nextClick]`.
    private let clicks: [Int]
    private var nextClick = 0
    private let click: [Float]
    /// After a click whose sum was turned down, frames over which the gain returns to 1, so
    /// the music does not jump back up.
    private let ramp: Int
    private var tail: Int { click.count + ramp }
    /// Interleaved frames not yet written; the first is output frame `framesWritten`.
    private var pending: [Float] = []

    /// The loudest a click and the music under it may sum to: −0.2 dBFS, under full scale so
    /// the 16-bit encode never clips what we added.
    static let ceiling: Float = 0.977

    init(file: SoundFile, sampleRate: Int, channels: Int, block: Int, clicks: [Double]?) {
        self.file = file
        self.channels = channels
        self.block = block
        let rate = Double(sampleRate)
        self.clicks = (clicks ?? []).filter { $0.isFinite && $0 >= 0 && $0 < 1e7 }
            .map { Int(($0 * rate).rounded()) }.sorted()
        self.click = Self.clickSound(sampleRate: sampleRate)
        self.ramp = max(1, sampleRate / 200)
        pending.reserveCapacity((block * 2 + sampleRate / 10) * channels)
    }

    /// A soft click: 20 ms of a 1.5 kHz sine at −18 dBFS, decaying with a 4 ms time constant
    /// (down 43 dB by its end), so it marks the beat without covering the music.
    static func clickSound(sampleRate: Int) -> [Float] {
        let rate = Double(sampleRate)
        let amplitude = pow(10, -18.0 / 20)
        let count = max(1, Int(0.020 * rate))
        return (0..<count).map { i in
            let t = Double(i) / rate
            return Float(amplitude * sin(2 * Double.pi * 1500 * t) * exp(-t / 0.004))
        }
    }

    /// Takes `frames` frames from Rubber Band's planar buffers.
    func append(_ planar: [UnsafeMutablePointer<Float>?], frames: Int) throws(TempoRenderError) {
        guard frames > 0 else { return }
        let start = pending.count
        pending.append(contentsOf: repeatElement(0, count: frames * channels))
        pending.withUnsafeMutableBufferPointer { out in
            for c in 0..<channels {
                guard let source = planar[c] else { continue }
                for i in 0..<frames { out[start + i * channels + c] = source[i] }
            }
        }
        while pending.count / channels >= block + tail {
            try flush(frames: block)
        }
    }

    /// Mixes and writes what is left; the output is complete after this.
    func finish() throws(TempoRenderError) {
        try flush(frames: pending.count / channels)
    }

    private func flush(frames: Int) throws(TempoRenderError) {
        let end = framesWritten + frames
        let held = pending.count / channels
        while nextClick < clicks.count, clicks[nextClick] < end {
            mixClick(at: clicks[nextClick] - framesWritten, held: held)
            nextClick += 1
        }
        try pending.withUnsafeBufferPointer { (out) throws(TempoRenderError) in
            try file.write(out.baseAddress!, frames: frames)
        }
        pending.removeFirst(frames * channels)
        framesWritten = end
    }

    /// Adds the click at pending frame `offset`. If the sum would pass the ceiling, the click
    /// and the music under it are turned down together, and back up over `ramp` frames.
    private func mixClick(at offset: Int, held: Int) {
        guard offset >= 0, offset < held else { return }
        let length = min(click.count, held - offset)
        pending.withUnsafeMutableBufferPointer { out in
            var peak: Float = 0
            for i in 0..<length {
                let base = (offset + i) * channels
                for c in 0..<channels { peak = max(peak, abs(out[base + c] + click[i])) }
            }
            let gain: Float = peak > Self.ceiling ? Self.ceiling / peak : 1
            for i in 0..<length {
                let base = (offset + i) * channels
                for c in 0..<channels { out[base + c] = (out[base + c] + click[i]) * gain }
            }
            guard gain < 1 else { return }
            let rampEnd = min(held, offset + length + ramp)
            for i in (offset + length)..<rampEnd {
                let g = gain + (1 - gain) * Float(i - offset - length) / Float(ramp)
                let base = i * channels
                for c in 0..<channels { out[base + c] *= g }
            }
        }
    }
}
