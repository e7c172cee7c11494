import Dispatch
import Foundation
import Glibc
import PacenoteCore
import PacenoteOperations
import PacenoteMPD
import PacenoteStore
import PacenoteTempo
import Synchronization

/// `pacenote analyze`: tempo from the audio for library files without a BPM, with
/// bpm-tools' `bpm` fed raw samples by `sox` (`sox FILE -t raw -r 44100 -e float -c 1 - |
/// bpm -m 60 -x 200`; PLATFORM.md: aubio 0.4.9 was wrong on real beat patterns). The whole
/// file gives the value; its two halves, analysed apart, give the confidence (how well they
/// agree once half/double time is allowed for). Then how clear each file's beat is: aubio's
/// beat tracker's confidence (`TempoBeats`, loaded on first use), which the recommender ranks
/// on. Then each file's energy: its EBU R 128 loudness and loudness range (`LoudnessMeter`,
/// libebur128, loaded on first use). Each result is stored as it comes, so an interrupted run
/// resumes where it stopped.
public struct BPMAnalyzer: Sendable {
    public struct Result: Sendable, Equatable {
        public var bpm: Double
        public var confidence: Double
    }

    public struct Summary: Sendable {
        public var analysed = 0
        public var failed: [(uri: String, reason: String)] = []
        public var stickersWritten = 0
        /// Files whose beat was measured (aubio's confidence, `Track.beatConfidence`).
        public var beatsMeasured = 0
        /// Files whose beat could not be measured (a format libsndfile does not read, over an
        /// hour): warned about, tried again next time, and no failure of the command.
        public var beatsFailed: [(uri: String, reason: String)] = []
        /// Why no beat was measured on this machine (aubio cannot be loaded), if so.
        public var beatsUnavailable: String?
        /// Files whose loudness was measured (`Track.loudnessLUFS`, `loudnessRangeLU`).
        public var loudnessMeasured = 0
        /// Files whose loudness could not be measured: warned about, tried again next time,
        /// and no failure of the command.
        public var loudnessFailed: [(uri: String, reason: String)] = []
        /// Why no loudness was measured on this machine (libebur128 cannot be loaded), if so.
        public var loudnessUnavailable: String?
        public var seconds = 0.0
    }

    public let sox: String
    public let bpm: String
    public var minBPM = 60.0
    public var maxBPM = 200.0

    /// Finds `sox` and `bpm` on the PATH.
    public init() throws(StartupError) {
        func find(_ name: String, package: String) throws(StartupError) -> String {
            for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
                let path = "\(dir)/\(name)"
                if access(path, X_OK) == 0 { return path }
            }
            throw StartupError("analyze needs `\(name)` (Debian package \(package))")
        }
        sox = try find("sox", package: "sox, with libsox-fmt-all for MP3 and others")
        bpm = try find("bpm", package: "bpm-tools")
    }

    /// Where the player's files are: `mpd.music_directory`, else MPD's `config` command
    /// (which MPD answers over its local socket only).
    public static func musicDirectory(_ player: Config.MPD) -> String? {
        if let configured = player.musicDirectory { return configured }
        guard let endpoint = try? player.endpoint else { return nil }
        return try? MPDQueue.musicDirectory(endpoint: endpoint)
    }

    /// The tempo of one file, or a reason it has none.
    public func analyse(_ path: String) -> Swift.Result<Result, AnalysisError> {
        let whole: Double
        switch run(path, trim: nil) {
        case .success(let v): whole = v
        case .failure(let e): return .failure(e)
        }
        guard let duration = duration(path), duration >= 8 else {
            return .success(Result(bpm: whole, confidence: 0.5))
        }
        let half = duration / 2
        guard case .success(let a) = run(path, trim: (0, half)), case .success(let b) = run(path, trim: (half, half)) else {
            return .success(Result(bpm: whole, confidence: 0.5))
        }
        // Agreement of the halves with the whole, allowing half/double time: 1 when both are
        // within 1 %, falling to 0 at 5 %.
        let spread = max(Self.relativeDistance(a, whole), Self.relativeDistance(b, whole))
        let confidence = min(1, max(0, 1 - (spread - 0.01) / 0.04))
        return .success(Result(bpm: whole, confidence: (confidence * 100).rounded() / 100))
    }

    /// |a − b| / b after moving `a` by octaves (×2, ×½) towards `b`.
    public static func relativeDistance(_ a: Double, _ b: Double) -> Double {
        [a, a * 2, a / 2].map { abs($0 - b) / b }.min()!
    }

    public struct AnalysisError: Error, Sendable, Equatable {
        public var message: String
    }

    private func duration(_ path: String) -> Double? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: sox)
        p.arguments = ["--i", "-D", path]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return nil }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    private func run(_ path: String, trim: (Double, Double)?) -> Swift.Result<Double, AnalysisError> {
        let decoder = Process()
        decoder.executableURL = URL(fileURLWithPath: sox)
        var args = ["-V1", path, "-t", "raw", "-r", "44100", "-e", "float", "-c", "1", "-"]
        if let trim { args += ["trim", String(format: "%.3f", trim.0), String(format: "%.3f", trim.1)] }
        decoder.arguments = args
        let detector = Process()
        detector.executableURL = URL(fileURLWithPath: bpm)
        detector.arguments = ["-m", String(minBPM), "-x", String(maxBPM)]
        let samples = Pipe(), out = Pipe(), soxErrors = Pipe()
        decoder.standardOutput = samples
        decoder.standardError = soxErrors
        decoder.standardInput = FileHandle.nullDevice
        detector.standardInput = samples
        detector.standardOutput = out
        detector.standardError = FileHandle.nullDevice
        do {
            try decoder.run()
            try detector.run()
        } catch {
            return .failure(AnalysisError(message: "cannot start sox or bpm: \(error)"))
        }
        // Our copies of the pipe's ends must close, or bpm never sees the end of the samples.
        try? samples.fileHandleForReading.close()
        try? samples.fileHandleForWriting.close()
        let errors = soxErrors.fileHandleForReading.readDataToEndOfFile()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        decoder.waitUntilExit()
        detector.waitUntilExit()
        guard decoder.terminationStatus == 0 else {
            let reason = String(decoding: errors, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? "sox failed"
            return .failure(AnalysisError(message: reason))
        }
        guard let value = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)), value > 0 else {
            return .failure(AnalysisError(message: "no tempo found"))
        }
        return .success(value)
    }

    /// Analyses every library file without a BPM, `jobs` at a time, storing each result
    /// (source `analysis`) and, with `stickers`, writing it to MPD as a `bpm` sticker. Then
    /// measures how clear the beat is (aubio's beat tracker, `TempoBeats`) of every library
    /// file not yet measured, BPM or not, for the recommender's `beat` reason. Then the
    /// loudness (`LoudnessMeter`) of every library file not yet measured.
    public func analyseLibrary(store: Store, musicDirectory: String, jobs: Int, stickers: MPDEndpoint?,
                               progress: @escaping @Sendable (Int, Int) -> Void) throws -> Summary {
        let started = Date()
        let todo = try store.tracksWithoutBPM()
        let beatsUnavailable = TempoBeats.unavailable()
        let beatTodo = beatsUnavailable == nil ? try store.tracksWithoutBeatConfidence() : []
        let loudnessUnavailable = LoudnessMeter.unavailable()
        let loudnessTodo = loudnessUnavailable == nil ? try store.tracksWithoutLoudness() : []
        let total = todo.count + beatTodo.count + loudnessTodo.count
        let summary = Mutex(Summary())
        summary.withLock {
            $0.beatsUnavailable = beatsUnavailable
            $0.loudnessUnavailable = loudnessUnavailable
        }
        let operations = Operations(store: store, events: nil)
        progress(0, total)
        @Sendable func record(_ failure: String?, uri: String, sticker: Bool = false, beat: Bool = false, loudness: Bool = false) {
            let done = summary.withLock { s -> Int in
                switch (failure, beat, loudness) {
                case (let failure?, _, true): s.loudnessFailed.append((uri, failure))
                case (let failure?, true, _): s.beatsFailed.append((uri, failure))
                case (let failure?, false, false): s.failed.append((uri, failure))
                case (nil, _, true): s.loudnessMeasured += 1
                case (nil, true, _): s.beatsMeasured += 1
                case (nil, false, false): s.analysed += 1
                }
                if sticker { s.stickersWritten += 1 }
                return s.analysed + s.beatsMeasured + s.loudnessMeasured + s.failed.count + s.beatsFailed.count + s.loudnessFailed.count
            }
            progress(done, total)
        }
        Self.forEach(todo, jobs: jobs) { id, uri in
            let path = (musicDirectory as NSString).appendingPathComponent(uri)
            switch analyse(path) {
            case .success(let r):
                do {
                    try operations.setBPM(trackID: id, value: (r.bpm * 100).rounded() / 100, source: .analysis, confidence: r.confidence)
                    if let stickers {
                        try MPDQueue.setSticker(endpoint: stickers, uri: uri, name: "bpm", value: String(format: "%.2f", r.bpm))
                    }
                    record(nil, uri: uri, sticker: stickers != nil)
                } catch {
                    record("\(error)", uri: uri)
                }
            case .failure(let e):
                record(e.message, uri: uri)
            }
        }
        Self.forEach(beatTodo, jobs: jobs) { id, uri in
            let path = (musicDirectory as NSString).appendingPathComponent(uri)
            do {
                let beats = try TempoBeats.track(source: path, maxSeconds: 3600)
                try operations.setBeatConfidence(trackID: id, beats.confidence)
                record(nil, uri: uri, beat: true)
            } catch let error as TempoRenderError {
                record(error.description, uri: uri, beat: true)
            } catch {
                record("\(error)", uri: uri, beat: true)
            }
        }
        Self.forEach(loudnessTodo, jobs: jobs) { id, uri in
            let path = (musicDirectory as NSString).appendingPathComponent(uri)
            do {
                let measured = try LoudnessMeter.measure(path: path, maxSeconds: 3600)
                try operations.setLoudness(trackID: id, lufs: measured.lufs, rangeLU: measured.rangeLU)
                record(nil, uri: uri, loudness: true)
            } catch let error as LoudnessError {
                record(error.description, uri: uri, loudness: true)
            } catch {
                record("\(error)", uri: uri, loudness: true)
            }
        }
        var result = summary.withLock { $0 }
        result.seconds = Date().timeIntervalSince(started)
        return result
    }

    /// Runs `body` over `items`, `jobs` at a time.
    static func forEach(_ items: [(id: Int64, uri: String)], jobs: Int, _ body: @escaping @Sendable (Int64, String) -> Void) {
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: max(1, min(jobs, items.count))) { _ in
            while true {
                let i = next.add(1, ordering: .relaxed).oldValue
                guard i < items.count else { return }
                body(items[i].id, items[i].uri)
            }
        }
    }
}
