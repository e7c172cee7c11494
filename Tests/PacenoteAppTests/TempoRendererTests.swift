import Foundation
import PacenoteTempo
import PacenoteTestSupport
import Testing

/// Tempo-matched renders (issue 56): the tempo and length change by the ratio, the pitch does
/// not, failures leave nothing, clicks land on the given beats, and the cache keeps its order.
/// Measured with the tools a listener would trust: sox makes the tracks, aubio hears them.
/// Without sox and aubio they fail (`AudioTools`): `scripts/test` installs them.
@Suite struct TempoRendererTests {
    // MARK: - Tracks

    /// 30 s of 20 ms 1 kHz clicks every 0.5 s (120 bpm), stereo 44.1 kHz FLAC.
    static func clickTrack(in dir: String) throws -> String {
        try AudioTools.run(["sox", "-n", "-r", "44100", "-c", "2", "\(dir)/click.wav", "synth", "0.02", "sine", "1000", "pad", "0", "0.48"])
        try AudioTools.run(["sox", "\(dir)/click.wav", "\(dir)/clicks.flac", "repeat", "59"])
        return "\(dir)/clicks.flac"
    }

    static func tone(in dir: String, name: String, hertz: Int, volume: Double, seconds: Int = 10) throws -> String {
        let path = "\(dir)/\(name).flac"
        try AudioTools.run(["sox", "-n", "-r", "44100", "-c", "2", "-b", "16", path, "synth", "\(seconds)", "sine", "\(hertz)", "vol", "\(volume)"])
        return path
    }

    static func duration(_ path: String) throws -> Double {
        Double(try AudioTools.run(["sox", "--i", "-D", path]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? .nan
    }

    /// sox's "Maximum amplitude" of `path`, from `start` for `length` seconds.
    static func peak(_ path: String, start: Double, length: Double) throws -> Double {
        let report = try AudioTools.run(["sox", path, "-n", "trim", "\(start)", "\(length)", "stat"], stderr: true)
        let line = report.split(whereSeparator: \.isNewline).first { $0.hasPrefix("Maximum amplitude") } ?? ""
        return Double(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? .nan
    }

    static func names(in dir: String) -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [])
    }

    // MARK: - Renders

    @Test func clicksAt120BecomeClicksAt126() throws {
        let dir = try AudioTools.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = try Self.clickTrack(in: dir)
        for quality in TempoQuality.allCases {
            let out = "\(dir)/out-\(quality).flac"
            let result = try TempoRenderer.render(source: source, destination: out, tempoRatio: 1.05, quality: quality,
                                                  tags: ["title": "Clicks", "artist": "sox", "album": "Tests"])
            // The R3 engine (best) splits many 20 ms clicks into two attacks 16 ms apart: one beat.
            let beats = try AudioTools.onsets(out).reduce(into: [Double]()) { beats, onset in
                if let last = beats.last, onset - last < 0.1 { return }
                beats.append(onset)
            }
            let bpm = 60 / AudioTools.median(zip(beats, beats.dropFirst()).map { $1 - $0 })
            #expect(abs(bpm - 126) <= 1.26, "\(quality): \(bpm) bpm")
            #expect(abs(result.secondsOut - 30 / 1.05) <= 0.3, "\(quality): \(result)")
            #expect(abs(try Self.duration(out) - 30 / 1.05) <= 0.3)
            #expect(result.framesIn == 1_323_000 && result.sampleRate == 44_100 && result.channels == 2)
            let tags = try AudioTools.run(["sox", "--i", "-a", out])
            #expect(tags.contains("title=Clicks") && tags.contains("artist=sox") && tags.contains("album=Tests"), "\(tags)")
        }
        #expect(Self.names(in: dir) == ["click.wav", "clicks.flac", "out-fast.flac", "out-balanced.flac", "out-best.flac"])
    }

    @Test func aStretchedToneKeepsItsPitch() throws {
        let dir = try AudioTools.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = try Self.tone(in: dir, name: "a440", hertz: 440, volume: 0.5)
        for quality in TempoQuality.allCases {
            let out = "\(dir)/out-\(quality).flac"
            let result = try TempoRenderer.render(source: source, destination: out, tempoRatio: 1.05, quality: quality)
            let pitches = try AudioTools.run(["aubio", "pitch", "-i", out]).split(whereSeparator: \.isNewline).compactMap { line in
                line.split(whereSeparator: \.isWhitespace).last.flatMap { Double($0) }
            }.filter { $0 > 0 }
            let pitch = AudioTools.median(pitches)
            #expect(abs(pitch - 440) <= 4.4, "\(quality): \(pitch) Hz")
            #expect(abs(result.secondsOut - 10 / 1.05) <= 0.1, "\(quality): \(result)")
        }
    }

    @Test func aMissingOrNonAudioFileCannotBeOpenedAndLeavesNothing() throws {
        let dir = try AudioTools.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("not a song\n".utf8).write(to: URL(fileURLWithPath: "\(dir)/notes.flac"))
        for source in ["\(dir)/missing.flac", "\(dir)/notes.flac"] {
            #expect {
                try TempoRenderer.render(source: source, destination: "\(dir)/out.flac", tempoRatio: 1.05)
            } throws: { error in
                guard case .cannotOpen(let path, let reason)? = error as? TempoRenderError else { return false }
                return path == source && !reason.isEmpty
            }
        }
        #expect(Self.names(in: dir) == ["notes.flac"])
    }

    @Test func tooLongAndBadRatiosAreRefusedBeforeAnyWork() throws {
        let dir = try AudioTools.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = try Self.tone(in: dir, name: "tone", hertz: 440, volume: 0.5, seconds: 12)
        #expect(throws: TempoRenderError.tooLong(seconds: 12, limit: 10)) {
            try TempoRenderer.render(source: source, destination: "\(dir)/out.flac", tempoRatio: 1.05, maxSeconds: 10)
        }
        for ratio in [0, -1, .nan, .infinity, 5] as [Double] {
            #expect(throws: TempoRenderError.self) {
                try TempoRenderer.render(source: source, destination: "\(dir)/out.flac", tempoRatio: ratio)
            }
        }
        #expect(TempoRenderError.tooLong(seconds: 2400, limit: 1800).description
            == "The song is 40:00 long; tempo matching takes songs up to 30:00.")
        #expect(TempoRenderError.tooLong(seconds: 7205, limit: 3600).description
            == "The song is 2:00:05 long; tempo matching takes songs up to 1:00:00.")
        #expect(Self.names(in: dir) == ["tone.flac"])
    }

    @Test func clicksLandOnTheGivenBeatsWithoutClipping() throws {
        let dir = try AudioTools.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Over silence, aubio hears exactly the clicks.
        let silence = try Self.tone(in: dir, name: "silence", hertz: 440, volume: 0)
        let beats = [0.5, 1.3, 2.0, 3.75, 6.1, 8.9]
        try TempoRenderer.render(source: silence, destination: "\(dir)/clicks.flac", tempoRatio: 1.05, clicks: beats + [30])
        let heard = try AudioTools.onsets("\(dir)/clicks.flac")
        #expect(heard.count == beats.count, "\(heard)")
        for beat in beats {
            #expect(heard.contains { abs($0 - beat) <= 0.025 }, "no onset near \(beat) in \(heard)")
        }
        // Over a tone at 0.95 a click would sum past 0.98 (it adds up to 0.126): the two are
        // turned down together to the ceiling (0.977), and the clicks are still heard.
        let loud = try Self.tone(in: dir, name: "loud", hertz: 220, volume: 0.95)
        try TempoRenderer.render(source: loud, destination: "\(dir)/loud.flac", tempoRatio: 1.05)
        let everySecond = Array(stride(from: 1.0, through: 8, by: 1))
        try TempoRenderer.render(source: loud, destination: "\(dir)/loud-clicks.flac", tempoRatio: 1.05, clicks: everySecond)
        // From 0.5 s: Rubber Band overshoots the tone's hard start, clicks or not.
        let toneOnly = try Self.peak("\(dir)/loud.flac", start: 0.5, length: 8)
        let withClicks = try Self.peak("\(dir)/loud-clicks.flac", start: 0.5, length: 8)
        #expect(toneOnly > 0.94 && toneOnly < 0.96, "tone alone \(toneOnly)")
        #expect(withClicks > 0.97 && withClicks < 0.978, "with clicks \(withClicks)")
        let heardOverTone = try AudioTools.onsets("\(dir)/loud-clicks.flac")
        for beat in everySecond {
            #expect(heardOverTone.contains { abs($0 - beat) <= 0.025 }, "no onset near \(beat) in \(heardOverTone)")
        }
    }

    // MARK: - Cache

    /// A stand-in render: `bytes` bytes written as the renderer would, `.part` then rename.
    static func fakeRender(bytes: Int) -> (String) throws -> Void {
        { destination in
            try Data(repeating: 7, count: bytes).write(to: URL(fileURLWithPath: destination + ".part"))
            guard rename(destination + ".part", destination) == 0 else { throw HarnessError("rename") }
        }
    }

    @Test func cacheNamesAreStableHashes() throws {
        let dir = try AudioTools.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cache = try TempoCache(directory: "\(dir)/cache", maxBytes: 1 << 20)
        // FNV-1a 64 of "a" (the reference vectors in draft-eastlake-fnv).
        #expect(cache.fileName(forKey: "a") == "af63dc4c8601ec8c.flac")
        #expect(cache.fileName(forKey: "") == "cbf29ce484222325.flac")
        #expect(cache.fileName(forKey: "song 1 @1.05") == cache.fileName(forKey: "song 1 @1.05"))
        #expect(cache.fileName(forKey: "song 1 @1.05") != cache.fileName(forKey: "song 1 @1.06"))
    }

    @Test func cacheEvictsTheLeastRecentlyUsedAndSurvivesARestart() throws {
        let dir = try AudioTools.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cacheDir = "\(dir)/cache"
        // Room for three 1,000-byte renders with their sidecars, not four.
        let cache = try TempoCache(directory: cacheDir, maxBytes: 3_300)
        #expect(cache.lookup(key: "a") == nil)
        for key in ["a", "b", "c"] {
            let path = try cache.insert(key: key, metadata: ["song": key], render: Self.fakeRender(bytes: 1_000))
            #expect(path == "\(cacheDir)/\(cache.fileName(forKey: key))")
        }
        #expect(cache.count == 3)
        #expect(cache.lookup(key: "a")?.metadata == ["song": "a"])  // "a" is now the latest used
        try cache.insert(key: "d", metadata: ["song": "d"], render: Self.fakeRender(bytes: 1_000))
        #expect(cache.lookup(key: "b") == nil)
        #expect(cache.count == 3 && cache.totalBytes <= 3_300)

        // A new instance on the same directory keeps the entries and their order.
        let again = try TempoCache(directory: cacheDir, maxBytes: 3_300)
        #expect(again.count == 3)
        #expect(again.metadata(ofFileName: again.fileName(forKey: "d")) == ["song": "d"])
        #expect(again.metadata(ofFileName: "\(cacheDir)/\(again.fileName(forKey: "c"))") == ["song": "c"])
        #expect(again.metadata(ofFileName: "../passwd") == nil)
        try again.insert(key: "e", metadata: [:], render: Self.fakeRender(bytes: 1_000))
        #expect(again.lookup(key: "c") == nil)
        #expect(again.lookup(key: "a") != nil && again.lookup(key: "d") != nil && again.lookup(key: "e") != nil)

        // A render bigger than the whole cache is kept, alone: never the one just inserted.
        try again.insert(key: "big", metadata: [:], render: Self.fakeRender(bytes: 5_000))
        #expect(again.count == 1 && again.lookup(key: "big") != nil)
    }

    @Test func cacheInsertsFromManyThreadsAtOnce() throws {
        let dir = try AudioTools.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cache = try TempoCache(directory: dir, maxBytes: 1 << 20)
        // Two keys, four inserts each at the same time: a key's renders take turns on its
        // one `.part` name, and the other key's go ahead meanwhile.
        DispatchQueue.concurrentPerform(iterations: 8) { i in
            _ = try? cache.insert(key: "k\(i % 2)", metadata: ["i": "\(i % 2)"], render: Self.fakeRender(bytes: 10_000 + i))
        }
        #expect(cache.count == 2)
        #expect(cache.lookup(key: "k0")?.metadata == ["i": "0"] && cache.lookup(key: "k1")?.metadata == ["i": "1"])
        #expect(Self.names(in: dir).allSatisfy { !$0.hasSuffix(".part") })
    }

    @Test func cacheSweepsLeftoversAndFailedRendersLeaveNothing() throws {
        let dir = try AudioTools.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cacheDir = "\(dir)/cache"
        let cache = try TempoCache(directory: cacheDir, maxBytes: 1 << 20)
        try cache.insert(key: "kept", metadata: ["song": "kept"], render: Self.fakeRender(bytes: 100))
        let kept = cache.fileName(forKey: "kept")
        let orphan = cache.fileName(forKey: "orphan"), lonely = cache.fileName(forKey: "lonely")
        for name in ["\(orphan)", "\(lonely).json", "\(kept).part", "\(lonely).json.part", "notes.txt"] {
            try Data("x".utf8).write(to: URL(fileURLWithPath: "\(cacheDir)/\(name)"))
        }
        #expect {
            try cache.insert(key: "fails", metadata: [:]) { destination in
                try Data("half".utf8).write(to: URL(fileURLWithPath: destination + ".part"))
                unlink(destination + ".part")  // as the renderer does on its way out
                throw HarnessError("disk full")
            }
        } throws: { "\($0)".contains("disk full") }
        #expect(cache.lookup(key: "fails") == nil)

        let swept = try TempoCache(directory: cacheDir, maxBytes: 1 << 20)
        #expect(Self.names(in: cacheDir) == [kept, "\(kept).json", "notes.txt"])
        #expect(swept.lookup(key: "kept")?.path == "\(cacheDir)/\(kept)")
        var info = stat()
        #expect(stat(cacheDir, &info) == 0 && info.st_mode & 0o777 == 0o755)
    }
}
