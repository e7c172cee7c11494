import Foundation
import PacenoteTempo
import PacenoteTestSupport
import Testing

/// Beat tracking for the clicks of a tempo-matched render (issue 56): aubio's tracker finds
/// the beats of music-shaped tracks made by sox (a kick on each beat under a chord and a
/// little noise: aubio misreads bare click tracks), and clicks rendered at those beats land
/// on the stretched kicks, as `aubio onset` hears them.
/// Without sox and aubio they fail (`AudioTools`): `scripts/test` installs them.
@Suite struct TempoBeatsTests {
    // MARK: - Tracks

    /// `seconds` of music-shaped audio at `bpm`, stereo 44.1 kHz FLAC: a 120 ms kick (a sine
    /// sweeping 90 to 40 Hz) starting on each beat, an A major chord held throughout and pink
    /// noise 20 dB under it. The first kick is at 0 s.
    static func musicTrack(bpm: Int, seconds: Int = 30, in dir: String) throws -> String {
        let beat = 60 / Double(bpm), beats = seconds * bpm / 60
        try AudioTools.run(["sox", "-n", "-r", "44100", "-c", "2", "\(dir)/kicks.wav", "synth", "0.12", "sine", "90:40",
                 "fade", "q", "0.002", "0.12", "0.1", "pad", "0", "\(beat - 0.12)", "repeat", "\(beats - 1)"])
        try AudioTools.run(["sox", "-r", "44100", "-c", "3", "-n", "-c", "2", "\(dir)/chord.wav", "synth", "\(seconds)",
                 "sine", "220", "sine", "277.18", "sine", "329.63",
                 "remix", "-m", "1v0.1,2v0.1,3v0.1", "1v0.1,2v0.1,3v0.1"])
        try AudioTools.run(["sox", "-n", "-r", "44100", "-c", "2", "\(dir)/noise.wav", "synth", "\(seconds)", "pinknoise", "vol", "0.03"])
        let path = "\(dir)/music\(bpm).flac"
        try AudioTools.run(["sox", "-m", "\(dir)/kicks.wav", "\(dir)/chord.wav", "\(dir)/noise.wav", "-b", "16", path])
        return path
    }

    /// Whether `bpm` is `target` within 2 %, or half or double it: a tracker may lock on to
    /// every other beat or to the off-beats too, and a runner's cadence matches either.
    static func sameTempo(_ bpm: Double?, _ target: Double) -> Bool {
        guard let bpm else { return false }
        return [target, target / 2, target * 2].contains { abs(bpm - $0) <= 0.02 * $0 }
    }

    /// How far `time` is from the nearest multiple of `period`.
    static func offGrid(_ time: Double, period: Double) -> Double {
        abs(time - (time / period).rounded() * period)
    }

    // MARK: - Tracking

    @Test(arguments: [120, 140])
    func findsTheBeatsOfAMusicShapedTrack(bpm: Int) throws {
        let dir = try AudioTools.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = try Self.musicTrack(bpm: bpm, in: dir)
        let result = try TempoBeats.track(source: source)
        let period = 60 / Double(bpm)

        let spacing = AudioTools.median(zip(result.beats, result.beats.dropFirst()).map { $1 - $0 })
        #expect(abs(spacing - period) <= 0.02 * period, "median spacing \(spacing) s, beats \(result.beats)")
        #expect(Self.sameTempo(result.bpm, Double(bpm)), "\(String(describing: result.bpm)) bpm")
        #expect(result.confidence > 0 && result.confidence <= 1, "confidence \(result.confidence)")
        // aubio's own figure reads fast (121.6, 142.5); the line through its beats does not.
        let fitted = TempoBeats.fittedBPM(result.beats) ?? .nan
        #expect(abs(fitted - Double(bpm)) <= 0.005 * Double(bpm), "fitted \(fitted) bpm")
        // aubio needs a few seconds to lock on; after that nearly every beat is found.
        #expect(result.beats.count >= (30 - 5) * bpm / 60, "\(result.beats.count) beats")
        #expect(result.beats == result.beats.sorted() && result.beats.allSatisfy { $0 >= 0 && $0 <= 30 })
        // And in phase: on the kicks, not between them.
        let onKicks = result.beats.filter { Self.offGrid($0, period: period) <= 0.03 }
        #expect(Double(onKicks.count) >= 0.9 * Double(result.beats.count), "\(onKicks.count) of \(result.beats.count) on the kicks")
    }

    /// The confidence `pacenote analyze` stores and the recommender ranks on: a track with a
    /// kick on each beat is surer than the same chord and noise with no kick at all.
    @Test func aClearBeatIsSurerThanNone() throws {
        let dir = try AudioTools.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let beat = try TempoBeats.track(source: try Self.musicTrack(bpm: 128, in: dir))
        let drone = "\(dir)/drone.flac"
        try AudioTools.run(["sox", "-m", "\(dir)/chord.wav", "\(dir)/noise.wav", "-b", "16", drone])
        let none = try TempoBeats.track(source: drone)
        print("BEAT CONFIDENCE kicks \(beat.confidence), drone \(none.confidence)")
        #expect(beat.confidence > none.confidence + 0.1, "kicks \(beat.confidence), drone \(none.confidence)")
        #expect(TempoBeats.unavailable() == nil)
    }

    @Test func aMissingOrNonAudioFileCannotBeOpened() throws {
        let dir = try AudioTools.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("not a song\n".utf8).write(to: URL(fileURLWithPath: "\(dir)/notes.flac"))
        for source in ["\(dir)/missing.flac", "\(dir)/notes.flac"] {
            #expect {
                try TempoBeats.track(source: source)
            } throws: { error in
                guard case .cannotOpen(let path, let reason)? = error as? TempoRenderError else { return false }
                return path == source && !reason.isEmpty
            }
        }
    }

    @Test func aTrackLongerThanTheLimitIsRefused() throws {
        let dir = try AudioTools.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = try Self.musicTrack(bpm: 120, seconds: 12, in: dir)
        #expect(throws: TempoRenderError.tooLong(seconds: 12, limit: 10)) {
            try TempoBeats.track(source: source, maxSeconds: 10)
        }
    }

    @Test func clicksAreBeatsOnTheRendersClock() {
        #expect(TempoBeats.clicks(for: [0, 1.05, 2.1], ratio: 1.05) == [0, 1, 2])
        #expect(TempoBeats.clicks(for: [1, 2], ratio: 0.5) == [2, 4])
        #expect(TempoBeats.clicks(for: [-1, .nan, .infinity, 3], ratio: 1.5) == [2])
        #expect(TempoBeats.clicks(for: [1], ratio: 0).isEmpty && TempoBeats.clicks(for: [1], ratio: .nan).isEmpty)
        #expect(TempoBeats.clicks(for: [], ratio: 1.05).isEmpty)
    }

    @Test func aFittedTempoSkipsMissedBeats() {
        let missed: Set<Int> = [7, 20, 21]
        let beats: [Double] = (0..<40).filter { !missed.contains($0) }.map { (n: Int) -> Double in 1 + Double(n) * 0.5 }
        #expect(abs((TempoBeats.fittedBPM(beats) ?? 0) - 120) < 1e-9)
        #expect(TempoBeats.fittedBPM([2.0, 2.4]).map { abs($0 - 150) < 1e-9 } == true)
        #expect(TempoBeats.fittedBPM([]) == nil && TempoBeats.fittedBPM([1]) == nil)
    }

    // MARK: - End to end

    /// Tracked at 120 bpm, rendered at ×1.05 with the clicks: the render's onsets (its kicks
    /// and clicks) fall on the clicks, and the clicks alone, heard through a band-pass around
    /// their 1.5 kHz where the kick and chord are silent, are there at those times too.
    @Test func renderedClicksLandOnTheStretchedBeats() throws {
        let dir = try AudioTools.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = try Self.musicTrack(bpm: 120, in: dir)
        let ratio = 1.05
        let beats = try TempoBeats.track(source: source).beats
        let clicks = TempoBeats.clicks(for: beats, ratio: ratio)
        #expect(clicks.count >= 50, "\(clicks.count) clicks")

        let out = "\(dir)/out.flac"
        try TempoRenderer.render(source: source, destination: out, tempoRatio: ratio, clicks: clicks)
        let heard = try AudioTools.onsets(out)
        let landed = clicks.filter { click in heard.contains { abs($0 - click) <= 0.03 } }
        #expect(Double(landed.count) >= 0.9 * Double(clicks.count), "\(landed.count) of \(clicks.count) clicks on an onset; onsets \(heard)")

        try AudioTools.run(["sox", out, "\(dir)/band.wav", "sinc", "1200-1800"])
        let clicksHeard = try AudioTools.onsets("\(dir)/band.wav")
        let found = clicks.filter { click in clicksHeard.contains { abs($0 - click) <= 0.03 } }
        #expect(Double(found.count) >= 0.9 * Double(clicks.count), "\(found.count) of \(clicks.count) clicks in the band; onsets \(clicksHeard)")
        // The clicks sit on the stretched kicks: the kicks were every 0.5 s from 0.
        let onKicks = clicks.filter { Self.offGrid($0, period: 0.5 / ratio) <= 0.03 }
        #expect(Double(onKicks.count) >= 0.9 * Double(clicks.count), "\(onKicks.count) of \(clicks.count) clicks on the kicks")
    }
}
