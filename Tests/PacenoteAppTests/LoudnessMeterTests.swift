import Foundation
import PacenoteCore
import PacenoteTempo
import PacenoteTestSupport
import Testing

/// A track's energy, measured (issue 57, point 5): libebur128's EBU R 128 meter on tones sox
/// makes at known levels. EBU Tech 3341's first case is the reference: a stereo 1 kHz sine at
/// -23 dBFS reads -23.0 LUFS; a stereo sine at L dBFS reads L LUFS (the K-weighting's +0.69 dB
/// at 1 kHz and BS.1770's -0.691 cancel). EBU Tech 3342's cases give the loudness range: 20 s
/// at -20 dBFS then 20 s at -30 dBFS is 10 LU. Done when each reads within 0.5 LU (the range
/// within 1 LU). Without sox they fail (`AudioTools`): `scripts/test` installs it.
@Suite struct LoudnessMeterTests {
    /// A 1 kHz sine at `dBFS` (peak) for `seconds`: 16-bit, `channels` at `rate` Hz.
    static func tone(_ dBFS: Double, seconds: Double = 20, channels: Int = 2, rate: Int = 48000, to path: String) throws {
        try AudioTools.run(["sox", "-n", "-r", "\(rate)", "-c", "\(channels)", "-b", "16", path,
                            "synth", "\(seconds)", "sine", "1000", "vol", "\(dBFS)dB"])
    }

    /// Tones at each level in turn, `seconds` each, joined into one file.
    static func steps(_ levels: [Double], seconds: Double, in dir: String, name: String) throws -> String {
        var parts: [String] = []
        for (i, level) in levels.enumerated() {
            let part = "\(dir)/\(name)-\(i).wav"
            try tone(level, seconds: seconds, to: part)
            parts.append(part)
        }
        let path = "\(dir)/\(name).wav"
        try AudioTools.run(["sox"] + parts + [path])
        return path
    }

    @Test(arguments: [(-23.0, "wav", 48000), (-14.0, "wav", 48000), (-23.0, "flac", 44100), (-30.0, "flac", 44100)])
    func aStereoSineReadsItsLevel(dBFS: Double, format: String, rate: Int) throws {
        let dir = try AudioTools.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = "\(dir)/sine.\(format)"
        try Self.tone(dBFS, rate: rate, to: path)
        let measured = try LoudnessMeter.measure(path: path)
        print(String(format: "LOUDNESS stereo 1 kHz %.0f dBFS %@ %d Hz: expected %.1f LUFS, measured %.2f LUFS, range %.2f LU",
                     dBFS, format, rate, dBFS, measured.lufs, measured.rangeLU))
        #expect(abs(measured.lufs - dBFS) <= 0.5, "\(measured.lufs) LUFS for a \(dBFS) dBFS sine")
        // A steady tone hardly varies.
        #expect(measured.rangeLU >= 0 && measured.rangeLU <= 1, "range \(measured.rangeLU) LU")
    }

    /// A mono file is measured as dual mono (as heard on two speakers): the same as the same
    /// sine in stereo, not 3 LU under it as a lone left channel would read.
    @Test func aMonoSineReadsAsTheSameSineInStereo() throws {
        let dir = try AudioTools.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.tone(-23, channels: 1, to: "\(dir)/mono.wav")
        try Self.tone(-23, channels: 2, to: "\(dir)/stereo.wav")
        let mono = try LoudnessMeter.measure(path: "\(dir)/mono.wav")
        let stereo = try LoudnessMeter.measure(path: "\(dir)/stereo.wav")
        print(String(format: "LOUDNESS mono 1 kHz -23 dBFS: expected -23.0 LUFS (dual mono), measured %.2f LUFS; stereo %.2f", mono.lufs, stereo.lufs))
        #expect(abs(mono.lufs + 23) <= 0.5, "mono \(mono.lufs)")
        #expect(abs(mono.lufs - stereo.lufs) <= 0.1, "mono \(mono.lufs), stereo \(stereo.lufs)")
    }

    /// EBU Tech 3342 case 1 (-20 then -30 dBFS: 10 LU), and a tone alternating -36 and -16 dBFS
    /// every 10 s (20 LU). The relative gate of the range is 20 LU under the loudness, so
    /// both levels count.
    @Test(arguments: [([-20.0, -30.0], 20.0, 10.0), ([-36.0, -16.0, -36.0, -16.0], 10.0, 20.0)])
    func aToneThatStepsHasTheRangeOfItsSteps(levels: [Double], seconds: Double, expected: Double) throws {
        let dir = try AudioTools.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try Self.steps(levels, seconds: seconds, in: dir, name: "steps")
        let measured = try LoudnessMeter.measure(path: path)
        print(String(format: "LOUDNESS RANGE %@ dBFS, %.0f s each: expected %.1f LU, measured %.2f LU (loudness %.2f LUFS)",
                     levels.map { String(format: "%.0f", $0) }.joined(separator: "/"), seconds, expected, measured.rangeLU, measured.lufs))
        #expect(abs(measured.rangeLU - expected) <= 1, "range \(measured.rangeLU) LU, expected \(expected)")
    }

    /// Nothing above the meter's -70 LUFS gate, or less than one 400 ms block: the meter says
    /// -∞, stored as the floor (`Track.silentLUFS`) with no range, so it counts as measured.
    @Test func silenceAndAClickReadAsSilent() throws {
        let dir = try AudioTools.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try AudioTools.run(["sox", "-n", "-r", "48000", "-c", "2", "-b", "16", "\(dir)/silence.wav", "trim", "0", "5"])
        try Self.tone(-14, seconds: 0.2, to: "\(dir)/click.wav")
        for name in ["silence", "click"] {
            let measured = try LoudnessMeter.measure(path: "\(dir)/\(name).wav")
            #expect(measured.lufs == LoudnessMeter.silent && measured.rangeLU == 0, "\(name): \(measured)")
        }
        #expect(LoudnessMeter.silent == Track.silentLUFS)
    }

    @Test func aMissingOrNonAudioFileIsAClearError() throws {
        let dir = try AudioTools.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("not a song\n".utf8).write(to: URL(fileURLWithPath: "\(dir)/notes.flac"))
        for path in ["\(dir)/missing.flac", "\(dir)/notes.flac"] {
            #expect {
                try LoudnessMeter.measure(path: path)
            } throws: { error in
                guard let error = error as? LoudnessError, case .cannotOpen(let named, let reason) = error else { return false }
                return named == path && !reason.isEmpty && error.description.hasPrefix("Cannot read \(path) as audio: ")
            }
        }
    }

    @Test func aTrackLongerThanTheLimitIsRefused() throws {
        let dir = try AudioTools.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.tone(-23, seconds: 12, to: "\(dir)/long.wav")
        #expect(throws: LoudnessError.tooLong(path: "\(dir)/long.wav", seconds: 12, limit: 10)) {
            try LoudnessMeter.measure(path: "\(dir)/long.wav", maxSeconds: 10)
        }
    }

    /// Without the library the words say which package to install; here it loads.
    @Test func aMissingLibraryNamesItsPackage() {
        #expect(LoudnessMeter.unavailable() == nil)
        let missing = LoudnessError.unavailable(library: "libebur128", package: "libebur128-1",
                                                reason: "libebur128.so.1: cannot open shared object file: No such file or directory")
        #expect(missing.description.hasPrefix("loudness needs libebur128 (Debian package libebur128-1): libebur128.so.1: cannot open"))
    }
}
