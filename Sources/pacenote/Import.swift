import ArgumentParser
import Foundation
import Logging
import PacenoteApp
import PacenoteCore
import PacenoteOperations
import PacenoteStore
import Synchronization

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import listening history (ListenBrainz, Last.fm, Spotify, Maloja) or workouts (TCX, GPX, FIT).",
        discussion: """
            The format is told from each file's content: a ListenBrainz export (JSON lines, a JSON array, \
            or the export zip), a Last.fm CSV (with or without a header), Spotify's streaming history \
            (plays under 30 s become skips; podcasts are left out), Maloja's export, or a TCX/GPX/FIT workout \
            (a workout with its heart-rate samples). Importing a file twice adds nothing, and a play already \
            logged from MPD is recognised. Rows that cannot be read are reported as FILE:LINE (a CSV row with a \
            quote that never closes too: reading goes on at the next line); the rest is imported, and the \
            command exits with status 1 unless --keep-going is given. Stopping an import and running it again is safe. Likes: ListenBrainz's feedback.jsonl             (alone or in the export zip) is told from its content; a CSV of Last.fm loved tracks needs --loved.
            """)

    @OptionGroup var storage: StorageOptions

    @Option(help: ArgumentHelp("auto, listenbrainz, lastfm, spotify or maloja.", valueName: "format"))
    var format: String = "auto"

    @Option(name: .customLong("batch-size"), help: ArgumentHelp("Plays per transaction.", valueName: "n"))
    var batchSize: Int = ListenImporter.defaultBatchSize

    @Flag(help: "The files are Last.fm loved tracks (CSV with artist and track columns, or artist,track rows): each a like.")
    var loved = false

    @Flag(help: "The files are curation logs from `pacenote export --curation`: their merges (not undone) are made again here, after the plays are imported.")
    var curation = false

    @Flag(name: .customLong("keep-going"),
          help: "Exit with status 0 even when rows of a file could not be read (they are reported by line, and the rest is imported either way).")
    var keepGoing = false

    @Argument(help: ArgumentHelp("Export or workout files.", valueName: "file"))
    var files: [String]

    func run() throws {
        let config = try storage.loadConfig()
        var forced: ImportFormat?
        if format != "auto" {
            guard let f = ImportFormat(rawValue: format) else {
                throw Failure("--format: '\(format)' is not one of auto, \(ImportFormat.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            forced = f
        }
        guard batchSize >= 1 else { throw Failure("--batch-size: at least 1") }
        let logger = makeLogger(level: .warning)
        // Ctrl-C (or SIGTERM) while listens are imported stops the import cleanly: the plays
        // in flight are stored whole, the charts' indexes it set aside are built again, and
        // it says what it kept. Once every play read from a file is stored and its indexes
        // are being built, there is nothing left to stop in it: it finishes them (the last
        // file: and exits as if no signal had come; files after it are not begun). Another
        // Ctrl-C stops at once: what was committed stays, and the next start of Pacenote
        // builds the indexes. Anything else stops at once.
        let signals = ProcessSignals.shared
        signals.onSignal { sig in
            guard Self.importingListens.load(ordering: .acquiring) else {
                fflush(nil)  // every stream: stdout is buffered when it is not a terminal
                _exit(128 + sig)
            }
            // Every play stored already: what is left is the indexes it set aside.
            if Self.buildingIndexes.load(ordering: .acquiring) {
                Failure.warn("every play read is stored; finishing the charts' indexes it set aside (press Ctrl-C again to stop at once: they are then built when Pacenote next opens the database)", newline: true)
            } else {
                Failure.warn("stopping after the plays in flight are stored (press Ctrl-C again to stop at once)", newline: true)
            }
        }
        signals.onAnotherSignal { sig in
            Failure.warn("stopped at once: the plays stored so far are kept, and importing again continues; the charts' indexes it set aside are built when Pacenote next opens the database (or within a minute by a running daemon)", newline: true)
            fflush(nil)  // every stream: stdout is buffered when it is not a terminal
            _exit(128 + sig)
        }
        // Two threads (reading, storing) need no more than two malloc arenas (as in serve).
        _ = glibcMallopt(-8 /* M_ARENA_MAX */, 2)
        var failed = 0
        var withErrors: [String] = []
        var total = ImportSummary()
        var listenFiles = 0
        let store = try PacenoteServer.openStore(config: config)
        defer { try? store.close() }
        // Credits are split as `[credits] separators` says, as the daemon does at its start.
        if try store.creditSeparators() != config.credits.separators {
            try Operations(store: store, events: nil).setCreditSeparators(config.credits.separators)
        }
        // And the file's `[[rules]]` apply to what it imports, as in the daemon.
        try PacenoteServer.storeConfigRules(config: config, store: store, logger: logger)
        var workouts: HeartRateService?
        defer { workouts?.stop() }
        for path in files where loved {
            do {
                let summary = try ListenImporter(store: store).importLovedTracks(at: path)
                for problem in summary.problems { Failure.warn(problem.description) }
                print("\(path): \(summary.line)")
                if summary.errors > 0 { withErrors.append(path) }
            } catch {
                Failure.warn("\(path): \(error)")
                failed += 1
            }
        }
        for path in files where curation {
            if !replayCuration(path, store: store) { failed += 1 }
        }
        var interrupted = false
        let listenPaths = files.filter { _ in !loved && !curation }
        for (index, path) in listenPaths.enumerated() {
            guard signals.received == nil else {
                interrupted = true
                Failure.warn("stopped: not begun: \(listenPaths[index...].joined(separator: ", ")) (importing them again continues)")
                break
            }
            let kind: ImportFileKind?
            do {
                kind = try ListenImporter.kind(ofFileAt: path, forced: forced)
            } catch {
                Failure.warn("\(path): \(error.description)")
                failed += 1
                continue
            }
            if kind?.isWorkout == true {
                if workouts == nil {
                    workouts = try HeartRateService(store: store, events: EventBus(), settings: config.heartRate, workouts: config.workouts, logger: logger)
                }
                if !importWorkout(path, service: workouts!) { failed += 1 }
                continue
            }
            guard let summary = try importListens(path, store: store, format: forced) else {
                failed += 1
                continue
            }
            print("\(path): \(summary.line)")
            if summary.errors > 0 { withErrors.append(path) }
            total.add(summary)
            listenFiles += 1
        }
        if listenFiles > 1 { print("total: \(total.line)") }
        // Rows that could not be read end the command with status 1, unless asked to go on:
        // a script (or cron) must not take a half-read file for a whole one.
        if !withErrors.isEmpty && !keepGoing {
            Failure.warn("rows that could not be read (listed above) in \(withErrors.joined(separator: ", ")); the other rows were imported. "
                         + "Fix those rows and import the file again (what is stored already is not doubled), or pass --keep-going to accept them as lost")
            failed += 1
        }
        // 130 when a signal left something undone (a file stopped part way, files not begun);
        // one that came as the last file's indexes were built left nothing undone.
        if let sig = signals.received, interrupted || Self.stoppedPartWay.load(ordering: .relaxed) { throw ExitCode(128 + sig) }
        if failed > 0 { throw ExitCode.failure }
    }

    /// Makes an exported log's merges again (its deletes, edits and additions are in the
    /// exported plays already); a merge whose sides are not here, or merged already, is
    /// skipped. False when the file could not be read.
    func replayCuration(_ path: String, store: Store) -> Bool {
        guard let data = FileManager.default.contents(atPath: path) else {
            Failure.warn("\(path): \(FileManager.default.fileExists(atPath: path) ? "cannot read the file" : "no such file")")
            return false
        }
        var replayed = 0, skipped = 0, lineNumber = 0, rulesAdded = 0
        let operations = Operations(store: store, events: nil)
        var rules = (try? store.rules()) ?? []
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            // A rule of the site's: added unless one does the same already.
            if let rule = CurationExport.rule(String(line)) {
                guard !rules.contains(where: { CurationExport.same($0, rule) }) else { continue }
                do {
                    rules.append(try operations.addRule(rule))
                    rulesAdded += 1
                } catch {
                    Failure.warn("\(path):\(lineNumber): \(error)")
                    skipped += 1
                }
                continue
            }
            guard let entry = CurationExport.parse(String(line)) else {
                Failure.warn("\(path):\(lineNumber): not a curation entry")
                skipped += 1
                continue
            }
            guard entry.kind == .merge, !entry.undone else { continue }
            do {
                if try operations.replayMerge(request: entry.request) != nil { replayed += 1 } else { skipped += 1 }
            } catch {
                Failure.warn("\(path):\(lineNumber): \(error)")
                skipped += 1
            }
        }
        print("\(path): \(counted(replayed, "merge")) made again, \(counted(rulesAdded, "rule")) added, \(skipped) skipped")
        return true
    }

    /// Whether a file of listens is being imported (a first signal then stops it cleanly).
    static let importingListens = Atomic<Bool>(false)
    /// `PACENOTE_TEST_STOP_PAUSE_S` (the end-to-end tests only, at most 10 s): how long a clean
    /// stop waits before it stops, once.
    static let testStopPause: Double? = ProcessInfo.processInfo.environment["PACENOTE_TEST_STOP_PAUSE_S"]
        .flatMap(Double.init).flatMap { $0.isFinite && $0 > 0 ? min($0, 10) : nil }
    static let pausedOnce = Atomic<Bool>(false)
    /// Whether every play read from the file being imported is stored (not stopped, not
    /// failed), and its session builds the indexes it set aside.
    static let buildingIndexes = Atomic<Bool>(false)
    /// `PACENOTE_TEST_BUILD_PAUSE_S` (the end-to-end tests only, at most 10 s): how long an
    /// import waits before it builds the indexes it set aside (to press Ctrl-C then).
    static let testBuildPause: Double? = ProcessInfo.processInfo.environment["PACENOTE_TEST_BUILD_PAUSE_S"]
        .flatMap(Double.init).flatMap { $0.isFinite && $0 > 0 ? min($0, 10) : nil }
    /// Whether a file's import was stopped part way by a signal.
    static let stoppedPartWay = Atomic<Bool>(false)

    /// A listening-history file, with its progress on stderr; nil when it failed (reported).
    func importListens(_ path: String, store: Store, format: ImportFormat?) throws -> ImportSummary? {
        let progress = ProgressReporter("import \(path)")
        let started = Date()
        Self.importingListens.store(true, ordering: .releasing)
        defer {
            Self.importingListens.store(false, ordering: .releasing)
            Self.buildingIndexes.store(false, ordering: .releasing)
        }
        let importer = ListenImporter(store: store, format: format, batchSize: batchSize, cancelled: {
            guard ProcessSignals.shared.received != nil else { return false }
            // Only the end-to-end tests pause a clean stop, to have time to press Ctrl-C again
            // (a stop takes well under a second, and two signals sent at once are one).
            if let pause = Self.testStopPause, !Self.pausedOnce.exchange(true, ordering: .relaxed) { Thread.sleep(forTimeInterval: pause) }
            return true
        }, progress: { p in
            let s = p.summary
            if p.buildingIndexes {
                if p.storedWhole { Self.buildingIndexes.store(true, ordering: .releasing) }
                progress.update(fraction: p.bytesTotal.flatMap { $0 > 0 ? Double(p.bytesRead) / Double($0) : nil } ?? 1, "\(s.read) read, \(s.imported) imported; building the charts' indexes", always: true)
                if let pause = Self.testBuildPause { Thread.sleep(forTimeInterval: pause) }
                return
            }
            let rate = Double(s.read) / max(Date().timeIntervalSince(started), 0.001)
            progress.update(fraction: p.bytesTotal.flatMap { $0 > 0 ? Double(p.bytesRead) / Double($0) : nil },
                            "\(s.read) read, \(s.imported) imported, \(s.duplicates) duplicates, \(s.errors) errors, \(Int(rate))/s")
        })
        let summary: ImportSummary
        do {
            defer { progress.finish() }
            summary = try importer.importFile(at: path)
        } catch let error as ListenImporter.FileError {
            // Stopped part way: the rows it could not read until then are told too.
            if let stopped = error.stopped {
                Self.stoppedPartWay.store(true, ordering: .relaxed)
                for problem in stopped.problems { Failure.warn(problem.description) }
            }
            Failure.warn("\(path): \(error.description)")
            return nil
        } catch let error as StoreError {
            Failure.warn("\(path): \(error.description) (the batches before were kept; importing again continues)")
            return nil
        }
        for problem in summary.problems { Failure.warn(problem.description) }
        if summary.errors > summary.problems.count {
            Failure.warn("\(path): \(summary.errors - summary.problems.count) more unreadable rows")
        }
        return summary
    }

    /// A TCX, GPX or FIT file: a workout with its heart-rate samples.
    func importWorkout(_ path: String, service: HeartRateService) -> Bool {
        do {
            let file = try WorkoutFile.read(path: path)
            let result = try service.importWorkout(file, source: "import:\(file.format.rawValue)")
            let what = result.newWorkoutID.map { "workout \($0)" } ?? "already imported"
            var line = "\(path): \(counted(file.samples.count, "sample")) (\(result.heartRate) new), \(what)"
            if !file.motion.isEmpty { line += "; motion: \(counted(file.motion.count, "sample")) (\(result.motion) new)" }
            if result.laps > 0 { line += ", \(counted(result.laps, "lap"))" }
            print(line)
            // Told, not stored: what the reader found impossible.
            for line in file.cleaning.lines { print("\(path): \(line)") }
            return true
        } catch let error as WorkoutFile.ParseError {
            Failure.warn("\(path): \(error.description)")
        } catch {
            Failure.warn("\(path): \(error)")
        }
        return false
    }
}
