import ArgumentParser
import Dispatch
import Foundation
import Logging
import Metrics
import PacenoteApp
import Prometheus
import PacenoteCore
import PacenoteStore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@main
struct Pacenote: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pacenote",
        abstract: "Logs what MPD plays, with your heart rate, and serves a dashboard.",
        discussion: """
            Configuration is read from defaults, then the TOML file (--config, $PACENOTE_CONFIG, \
            or $XDG_CONFIG_HOME/pacenote/config.toml), then environment variables, then flags. \
            Every key is documented in docs/pacenote.example.toml.
            """,
        version: PacenoteVersion.current,
        subcommands: [Serve.self, Migrate.self, ShowConfig.self, Key.self, HRFeed.self, Import.self, Export.self, Analyze.self,
                      Recommend.self, Demo.self],
        defaultSubcommand: Serve.self
    )
}

/// `--config` and `--db`: taken by every subcommand that touches the database.
struct StorageOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Configuration file (TOML).", valueName: "path"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("SQLite database file. Default: $XDG_DATA_HOME/pacenote/pacenote.sqlite.", valueName: "path"))
    var db: String?
}

struct ServerOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Address to serve HTTP on. Default: 127.0.0.1:6680.", valueName: "host:port"))
    var http: String?

    @Option(name: .long, help: ArgumentHelp("MPD to follow: host, password@host or a socket path. Default: $MPD_HOST or localhost:6600.", valueName: "host[:port]"))
    var mpd: String?

    @Option(name: .customLong("base-path"), help: ArgumentHelp("URL prefix when behind a reverse proxy, e.g. /pacenote.", valueName: "path"))
    var basePath: String?

    @Option(name: .long, help: ArgumentHelp("IANA time zone for days and charts. Default: the system's.", valueName: "zone"))
    var timezone: String?

    @Option(name: .customLong("trusted-networks"),
            help: ArgumentHelp("Networks that read history and heart rate without the key (CIDR, comma-separated, or none). Default: loopback and private ranges.", valueName: "cidrs"))
    var trustedNetworks: String?
}

struct LogOptions: ParsableArguments {
    @Option(name: .customLong("log-level"), help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level"))
    var logLevel: String?
}

extension Pacenote {
    /// Loads the configuration; a problem is one line on stderr and exit status 1.
    static func loadConfig(_ flags: ConfigFlags) throws -> Config {
        do {
            return try ConfigLoader.load(flags: flags, environment: ProcessInfo.processInfo.environment)
        } catch {
            fail("config error: \(error.description)")
        }
    }

    static func warn(_ message: String) {
        FileHandle.standardError.write(Data("pacenote: \(message)\n".utf8))
    }

    /// The one way a command's error becomes its last line: startup problems as they are,
    /// the database's under `database.path`, anything else as it describes itself.
    static func fail(_ error: any Error) -> Never {
        switch error {
        case let error as StartupError: fail(error.description)
        case let error as StoreError: fail("database.path: \(error.description)")
        default: fail("\(error)")
        }
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("pacenote: \(message)\n".utf8))
        Foundation.exit(1)
    }

    static func makeLogger(level: Logger.Level) -> Logger {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        return Logger(label: "pacenote")
    }
}

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Follow MPD, log every play and serve the dashboard and API (the default).")

    @OptionGroup var storage: StorageOptions
    @OptionGroup var server: ServerOptions
    @OptionGroup var log: LogOptions

    func run() throws {
        let config = try Pacenote.loadConfig(ConfigFlags(
            config: storage.config, db: storage.db, http: server.http, mpd: server.mpd,
            basePath: server.basePath, timeZone: server.timezone, logLevel: log.logLevel,
            trustedNetworks: server.trustedNetworks))
        let logger = Pacenote.makeLogger(level: config.logLevel)
        Pacenote.serve(config: config, logger: logger)
    }
}

extension Pacenote {
    /// Runs the daemon until SIGINT or SIGTERM; `started` sees it once it serves.
    /// `stopping` runs before the daemon stops (it still serves), `stopped` after.
    static func serve(config: Config, logger: Logger, started: (PacenoteServer) -> Void = { _ in },
                      stopping: () -> Void = {}, stopped: () -> Void = {}) {
        // glibc gives every thread that allocates its own malloc arena; with libmicrohttpd's
        // workers that is memory a home server would rather keep (measured by scripts/bench/api).
        _ = glibcMallopt(-8 /* M_ARENA_MAX, <malloc.h> */, 2)
        // Fixed thresholds (glibc raises them as it goes otherwise): blocks of 64 KiB and up
        // (response bodies, SQLite's buffers) go back to the system when freed, and free memory
        // at the top of the heap above 128 KiB is returned: ~4 MiB less resident after a burst
        // of requests, with no change in throughput (scripts/bench/api).
        _ = glibcMallopt(-3 /* M_MMAP_THRESHOLD */, 64 * 1024)
        _ = glibcMallopt(-1 /* M_TRIM_THRESHOLD */, 128 * 1024)
        // libmpdclient writes without MSG_NOSIGNAL: a write to an MPD that just went away
        // must be an error to handle (EPIPE), not a signal that ends the process.
        signal(SIGPIPE, SIG_IGN)

        // Signals are turned into a semaphore signal; the main thread waits on it.
        let done = DispatchSemaphore(value: 0)
        var sources: [DispatchSourceSignal] = []
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { done.signal() }
            source.resume()
            sources.append(source)
        }

        // Metrics for /metrics, in Prometheus's text format.
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))

        let daemon: PacenoteServer
        do {
            daemon = try PacenoteServer.start(config: config, logger: logger, metrics: registry)
        } catch {
            stopping()
            stopped()
            Pacenote.fail(error.description)
        }
        started(daemon)
        done.wait()
        stopping()
        daemon.stop()
        stopped()
        withExtendedLifetime(sources) {}
    }
}

struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Try Pacenote with a generated library: a private MPD, songs, covers and a simulated workout.",
        discussion: """
            Generates a small library with sox (titles, artists, albums, BPMs, covers), starts a private MPD \
            that plays it on repeat, feeds a simulated workout's heart rate, and serves the site. Within a \
            minute the dashboard, a workout and the song of the day fill in. Everything lives in a temporary \
            folder that is removed on exit; your own database and MPD are not touched. Needs mpd and sox.
            """)

    @Option(help: ArgumentHelp("Where to serve the site.", valueName: "host:port"))
    var http: String = "127.0.0.1:6680"
    @OptionGroup var log: LogOptions

    func run() throws {
        let flags = ConfigFlags(http: http, logLevel: log.logLevel)
        var config = try Pacenote.loadConfig(flags)
        let logger = Pacenote.makeLogger(level: config.logLevel)
        // A Ctrl-C while sox generates the songs or MPD starts: the demo removes its folder
        // and MPD, instead of the process dying with them left behind.
        let interrupted = SignalFlag()
        let early = [SIGINT, SIGTERM].map { sig in
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { interrupted.raised.store(true, ordering: .relaxed) }
            source.resume()
            return source
        }
        let demo: PacenoteApp.Demo
        do {
            demo = try PacenoteApp.Demo(logger: logger) { interrupted.raised.load(ordering: .relaxed) }
        } catch is PacenoteApp.Demo.Interrupted {
            logger.info("demo: stopped before it started")
            Foundation.exit(130)
        } catch {
            Pacenote.fail("\(error)")
        }
        for source in early { source.cancel() }
        if interrupted.raised.load(ordering: .relaxed) {
            demo.stop()
            Foundation.exit(130)
        }
        demo.configure(&config)
        Pacenote.serve(config: config, logger: logger, started: { server in
            demo.feedHeartRate(into: server.heartRate, logger: logger)
            let host = config.http.host.contains(":") ? "[\(config.http.host)]" : config.http.host
            print("Pacenote demo: open http://\(host):\(server.port)/ (MPD on 127.0.0.1:\(demo.mpdPort)); Ctrl-C stops it.")
        }, stopping: { demo.stopFeeding() }, stopped: { demo.stop() })
    }
}

/// A signal seen by a dispatch source, for code that polls.
final class SignalFlag: Sendable {
    let raised = Atomic<Bool>(false)
}

struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create or upgrade the database, then list the migrations it has.")

    @OptionGroup var storage: StorageOptions

    func run() throws {
        let config = try Pacenote.loadConfig(ConfigFlags(config: storage.config, db: storage.db))
        do {
            let store = try PacenoteServer.openStore(config: config)
            let applied = try store.appliedMigrations()
            try store.close()
            print("database: \(config.databasePath)")
            for name in applied { print("  applied  \(name)") }
        } catch let error as StartupError {
            Pacenote.fail(error.description)
        } catch let error as StoreError {
            Pacenote.fail("database.path: \(error.description)")
        }
    }
}

struct ShowConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Print the effective configuration and where each value came from.")

    @OptionGroup var storage: StorageOptions
    @OptionGroup var server: ServerOptions
    @OptionGroup var log: LogOptions

    func run() throws {
        let config = try Pacenote.loadConfig(ConfigFlags(
            config: storage.config, db: storage.db, http: server.http, mpd: server.mpd,
            basePath: server.basePath, timeZone: server.timezone, logLevel: log.logLevel,
            trustedNetworks: server.trustedNetworks))
        print(ConfigPrinter.toml(config))
    }
}

struct Key: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the API key that writes need (created on first use, mode 0600).",
        discussion: """
            Send it as 'Authorization: Token KEY' or 'X-API-Key: KEY'. PACENOTE_API_KEY overrides the stored key. \
            --new replaces the key and --revoke withdraws it; a running server notices within a second.
            """)

    @OptionGroup var storage: StorageOptions

    @Flag(name: .customLong("new"), help: "Replace the key with a new one and print it.")
    var rotate = false

    @Flag(help: "Withdraw the key: no write is accepted until 'pacenote key --new'.")
    var revoke = false

    func run() throws {
        let config = try Pacenote.loadConfig(ConfigFlags(config: storage.config, db: storage.db))
        do {
            if config.databaseIsDefault {
                // Create the data directory the same way serve does.
                try PacenoteServer.openStore(config: config).close()
            }
            if rotate && revoke { Pacenote.fail("--new and --revoke: choose one") }
            if revoke {
                try APIKey.revoke(database: config.databasePath)
                print("the API key is revoked; 'pacenote key --new' creates another")
            } else if rotate {
                print(try APIKey.rotate(database: config.databasePath))
            } else {
                let key = try APIKey.load(database: config.databasePath, environment: ProcessInfo.processInfo.environment)
                if key == "revoked" { Pacenote.fail("the API key is revoked; 'pacenote key --new' creates another") }
                print(key)
            }
        } catch let error as StartupError {
            Pacenote.fail(error.description)
        } catch {
            Pacenote.fail("database.path: \(error)")
        }
    }
}

struct HRFeed: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hr-feed",
        abstract: "Send heart rate read from standard input to a running pacenote.",
        discussion: """
            Each line is a reading: a number, `heartRate:72`, a JSON object as POST /api/v1/hr takes, or \
            (with --format ble) Heart Rate Measurement bytes in hex as `gatttool --listen` prints them:
              gatttool -b MAC --char-write-req --handle=0x0010 --value=0100 --listen | pacenote hr-feed --format ble
            While the server cannot be reached, readings are kept in a file (--buffer) and sent when it answers.
            """)

    @OptionGroup var storage: StorageOptions

    @Option(help: ArgumentHelp("The server. Default: the configured server.http.", valueName: "url"))
    var url: String?

    @Option(help: ArgumentHelp("auto, number, json, text or ble.", valueName: "format"))
    var format: String = "auto"

    @Option(help: ArgumentHelp("Name of this source (samples are unique per source and time).", valueName: "name"))
    var source: String = "feed"

    @Option(help: ArgumentHelp("Readings per request at most.", valueName: "n"))
    var batch: Int = 100

    @Option(help: ArgumentHelp("Where to keep readings while the server is away. Default: beside the database.", valueName: "path"))
    var buffer: String?

    func run() throws {
        let config = try Pacenote.loadConfig(ConfigFlags(config: storage.config, db: storage.db))
        guard let lineFormat = HeartRateInput.LineFormat(rawValue: format) else {
            Pacenote.fail("--format: '\(format)' is not one of \(HeartRateInput.LineFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard (1...10_000).contains(batch) else { Pacenote.fail("--batch: 1 to 10000") }
        let host = config.http.host == "0.0.0.0" || config.http.host == "::" ? "127.0.0.1" : config.http.host
        let defaultURL = "http://\(host.contains(":") ? "[\(host)]" : host):\(config.http.port)\(config.basePath)/"
        guard let server = URL(string: url ?? defaultURL), server.scheme == "http" || server.scheme == "https" else {
            Pacenote.fail("--url: '\(url ?? "")' is not an http(s) URL")
        }
        let key: String
        do {
            key = try APIKey.load(database: config.databasePath, environment: ProcessInfo.processInfo.environment)
        } catch {
            Pacenote.fail(error.description)
        }
        let bufferPath = buffer ?? ((config.databasePath as NSString).deletingLastPathComponent + "/hr-feed-buffer.jsonl")
        let feed = HeartRateFeed(
            settings: .init(url: server, key: key, format: lineFormat, source: source, batchSize: batch, bufferPath: bufferPath),
            log: { FileHandle.standardError.write(Data("pacenote hr-feed: \($0)\n".utf8)) })
        do {
            let left = try feed.run(input: FileHandle.standardInput)
            if left > 0 {
                Pacenote.fail("\(left) readings kept in \(bufferPath); the next hr-feed sends them")
            }
        } catch {
            Pacenote.fail("\(error)")
        }
    }
}

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import listening history (ListenBrainz, Last.fm, Spotify, Maloja) or workouts (TCX, GPX).",
        discussion: """
            The format is told from each file's content: a ListenBrainz export (JSON lines, a JSON array, \
            or the export zip), a Last.fm CSV (with or without a header), Spotify's streaming history \
            (plays under 30 s become skips; podcasts are left out), Maloja's export, or a TCX/GPX workout \
            (a workout with its heart-rate samples). Importing a file twice adds nothing, and a play already \
            logged from MPD is recognised. Rows that cannot be read are reported as FILE:LINE; the rest is \
            imported. Stopping an import and running it again is safe.
            """)

    @OptionGroup var storage: StorageOptions

    @Option(help: ArgumentHelp("auto, listenbrainz, lastfm, spotify or maloja.", valueName: "format"))
    var format: String = "auto"

    @Option(name: .customLong("batch-size"), help: ArgumentHelp("Plays per transaction.", valueName: "n"))
    var batchSize: Int = 100_000

    @Argument(help: ArgumentHelp("Export or workout files.", valueName: "file"))
    var files: [String]

    func run() throws {
        let config = try Pacenote.loadConfig(ConfigFlags(config: storage.config, db: storage.db))
        var forced: ImportFormat?
        if format != "auto" {
            guard let f = ImportFormat(rawValue: format) else {
                Pacenote.fail("--format: '\(format)' is not one of auto, \(ImportFormat.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            forced = f
        }
        guard batchSize >= 1 else { Pacenote.fail("--batch-size: at least 1") }
        let logger = Pacenote.makeLogger(level: .warning)
        // Two threads (reading, storing) need no more than two malloc arenas (as in serve).
        _ = glibcMallopt(-8 /* M_ARENA_MAX */, 2)
        var failed = 0
        var total = ImportSummary()
        var listenFiles = 0
        do {
            let store = try PacenoteServer.openStore(config: config)
            defer { try? store.close() }
            var workouts: HeartRateService?
            defer { workouts?.stop() }
            let bar = ProgressDisplay(terminal: isatty(STDERR_FILENO) == 1)
            for path in files {
                let kind: ImportFileKind?
                do {
                    kind = try ListenImporter.kind(ofFileAt: path, forced: forced)
                } catch {
                    Pacenote.warn("\(path): \(error.description)")
                    failed += 1
                    continue
                }
                if kind == .tcx || kind == .gpx {
                    if workouts == nil {
                        workouts = try HeartRateService(store: store, events: EventBus(), settings: config.heartRate, logger: logger)
                    }
                    if !importWorkout(path, service: workouts!) { failed += 1 }
                    continue
                }
                let importer = ListenImporter(store: store, format: forced, batchSize: batchSize, progress: bar.update)
                do {
                    let summary = try importer.importFile(at: path)
                    bar.finish()
                    for problem in summary.problems { Pacenote.warn(problem.description) }
                    if summary.errors > summary.problems.count {
                        Pacenote.warn("\(path): \(summary.errors - summary.problems.count) more unreadable rows")
                    }
                    print("\(path): \(summary.line)")
                    total.add(summary)
                    listenFiles += 1
                } catch let error as ListenImporter.FileError {
                    bar.finish()
                    Pacenote.warn("\(path): \(error.description)")
                    failed += 1
                } catch let error as StoreError {
                    bar.finish()
                    Pacenote.warn("\(path): \(error.description) (the batches before were kept; importing again continues)")
                    failed += 1
                }
            }
            if listenFiles > 1 { print("total: \(total.line)") }
        } catch {
            Pacenote.fail(error)
        }
        if failed > 0 { throw ExitCode.failure }
    }

    /// A TCX or GPX file: a workout with its heart-rate samples.
    func importWorkout(_ path: String, service: HeartRateService) -> Bool {
        guard let data = FileManager.default.contents(atPath: path) else {
            Pacenote.warn("\(path): cannot read the file")
            return false
        }
        do {
            let file = try WorkoutFile.parse(data)
            let result = try service.importWorkout(file, source: "import:\(file.format.rawValue)")
            let what = result.id.map { "workout \($0)" } ?? "already imported"
            print("\(path): \(file.samples.count) samples (\(result.stored) new), \(what)")
            return true
        } catch let error as WorkoutFile.ParseError {
            Pacenote.warn("\(path): \(error.description)")
        } catch {
            Pacenote.warn("\(path): \(error)")
        }
        return false
    }
}

/// Import progress on stderr: a bar redrawn in place on a terminal, a plain line every
/// few seconds otherwise (logs, pipes).
final class ProgressDisplay: @unchecked Sendable {
    // @unchecked Sendable: used from the importing thread only.
    let terminal: Bool
    private var lastPlain = Date.distantPast
    private var lastFile = ""
    private var drawn = false
    private let started = Date()

    init(terminal: Bool) { self.terminal = terminal }

    func update(_ p: ListenImporter.Progress) {
        let s = p.summary
        let rate = Double(s.read) / max(Date().timeIntervalSince(started), 0.001)
        let counts = "\(s.read) read, \(s.imported) imported, \(s.duplicates) duplicates, \(s.errors) errors, \(Int(rate))/s"
        if terminal {
            var bar = ""
            if let total = p.bytesTotal, total > 0 {
                let fraction = min(1, Double(p.bytesRead) / Double(total))
                let width = 30
                let filled = Int(fraction * Double(width))
                bar = "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
                    + String(format: "%3.0f%% ", fraction * 100)
            }
            FileHandle.standardError.write(Data("\r\u{1B}[K\(bar)\(counts)".utf8))
            drawn = true
        } else if p.file != lastFile || Date().timeIntervalSince(lastPlain) >= 2 {
            // At least one line per file, then one every 2 s.
            lastFile = p.file
            lastPlain = Date()
            let percent = p.bytesTotal.flatMap { $0 > 0 ? " \(Int(Double(p.bytesRead) * 100 / Double($0)))%" : nil } ?? ""
            FileHandle.standardError.write(Data("import \(p.file):\(percent) \(counts)\n".utf8))
        }
    }

    func finish() {
        if drawn { FileHandle.standardError.write(Data("\n".utf8)) }
        drawn = false
    }
}

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write plays as ListenBrainz JSON lines or CSV.",
        discussion: """
            listenbrainz: one listen per line, as ListenBrainz exports them (importable into ListenBrainz and \
            back into Pacenote, exactly). csv: Last.fm exporter columns plus Pacenote's own. --from and --to are \
            days (YYYY-MM-DD, in the display time zone; --to is included) or ISO 8601 times.
            """)

    @OptionGroup var storage: StorageOptions

    @Option(help: ArgumentHelp("listenbrainz or csv.", valueName: "format"))
    var format: String

    @Option(help: ArgumentHelp("First day or time.", valueName: "date"))
    var from: String?

    @Option(help: ArgumentHelp("Last day (included) or time (excluded).", valueName: "date"))
    var to: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
    var output: String?

    func run() throws {
        let config = try Pacenote.loadConfig(ConfigFlags(config: storage.config, db: storage.db))
        guard let exportFormat = ListenExport.Format(rawValue: format) else {
            Pacenote.fail("--format: '\(format)' is not one of listenbrainz, csv")
        }
        func date(_ text: String?, endOfDay: Bool) -> Date? {
            guard let text else { return nil }
            if text.count == 10, let ms = ImportTime.parse(text) {
                // A day in the display time zone.
                var calendar = Calendar(identifier: .gregorian)
                calendar.timeZone = TimeZone(identifier: "UTC")!
                let utcMidnight = Date(timeIntervalSince1970: Double(ms) / 1000)
                let parts = calendar.dateComponents([.year, .month, .day], from: utcMidnight)
                calendar.timeZone = config.timeZone
                guard let start = calendar.date(from: parts) else { Pacenote.fail("'\(text)' is not a day") }
                return endOfDay ? calendar.date(byAdding: .day, value: 1, to: start) : start
            }
            guard let ms = ImportTime.parse(text) else { Pacenote.fail("'\(text)' is not a day (YYYY-MM-DD) or an ISO 8601 time") }
            return Date(timeIntervalSince1970: Double(ms) / 1000)
        }
        let fromDate = date(from, endOfDay: false)
        let toDate = date(to, endOfDay: true)
        let handle: FileHandle
        if let output {
            guard FileManager.default.createFile(atPath: output, contents: nil, attributes: [.posixPermissions: 0o600]),
                  let h = FileHandle(forWritingAtPath: output) else { Pacenote.fail("\(output): cannot write the file") }
            handle = h
        } else {
            handle = FileHandle.standardOutput
        }
        var pending = ""
        var count = 0
        func emit(_ line: String) {
            pending += line
            pending += "\n"
            if pending.utf8.count > 1 << 16 {
                handle.write(Data(pending.utf8))
                pending = ""
            }
        }
        do {
            let store = try PacenoteServer.openStore(config: config)
            defer { try? store.close() }
            if exportFormat == .csv { emit(ListenExport.csvHeader) }
            try store.forEachPlay(from: fromDate, to: toDate) { item in
                count += 1
                emit(exportFormat == .csv ? ListenExport.csvLine(play: item.play, track: item.track)
                                          : ListenExport.listenBrainzLine(play: item.play, track: item.track))
            }
            handle.write(Data(pending.utf8))
            if output != nil { try handle.close() }
        } catch {
            Pacenote.fail(error)
        }
        if let output { FileHandle.standardError.write(Data("\(output): \(count) plays\n".utf8)) }
    }
}

struct Analyze: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Detect the tempo of library files that have no BPM, from their audio.",
        discussion: """
            Runs sox and bpm-tools' bpm on each file of MPD's library that has no BPM yet (tag, sticker or \
            manual), several at a time, and stores the value with source 'analysis' and a confidence. \
            Interrupted, it resumes where it stopped. Files are found under mpd.music_directory, or \
            where MPD's `config` command says (over MPD's local socket only). The daemon must have \
            mirrored the library first.
            """)

    @OptionGroup var storage: StorageOptions

    @Option(name: .long, help: ArgumentHelp("MPD (for --write-stickers and the music directory): host, password@host or a socket path.", valueName: "host[:port]"))
    var mpd: String?

    @Option(name: .long, help: ArgumentHelp("Files analysed at a time. Default: the number of cores.", valueName: "n"))
    var jobs: Int?

    @Flag(name: .customLong("write-stickers"), help: "Also store each result as an MPD `bpm` sticker (needs MPD's sticker_file).")
    var writeStickers = false

    func run() throws {
        let config = try Pacenote.loadConfig(ConfigFlags(config: storage.config, db: storage.db, mpd: mpd))
        let player = config.mpd
        let analyzer: BPMAnalyzer
        let endpoint: MPDEndpoint
        do {
            analyzer = try BPMAnalyzer()
            endpoint = try player.endpoint
        } catch let error as StartupError {
            Pacenote.fail(error.description)
        } catch {
            Pacenote.fail("\(error)")
        }
        guard let directory = BPMAnalyzer.musicDirectory(player) else {
            Pacenote.fail("cannot find the music files: set mpd.music_directory, or connect to MPD over its local socket")
        }
        let tty = isatty(2) == 1
        let bar = ProgressBar(tty: tty)
        do {
            let store = try PacenoteServer.openStore(config: config)
            defer { try? store.close() }
            let summary = try analyzer.analyseLibrary(
                store: store, musicDirectory: directory, jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount,
                stickers: writeStickers ? endpoint : nil, progress: { done, total in bar.show(done, total) })
            bar.finish()
            for failure in summary.failed {
                FileHandle.standardError.write(Data("pacenote: \(failure.uri): \(failure.reason)\n".utf8))
            }
            print(String(format: "analysed %d files in %.1f s, %d failed%@", summary.analysed, summary.seconds, summary.failed.count,
                         writeStickers ? ", \(summary.stickersWritten) stickers written" : ""))
            if !summary.failed.isEmpty { throw ExitCode.failure }
        } catch let error as StartupError {
            Pacenote.fail(error.description)
        } catch let error as StoreError {
            Pacenote.fail("database.path: \(error.description)")
        }
    }
}

/// A progress bar on a terminal (stderr), or a line every 10 % otherwise.
final class ProgressBar: Sendable {
    let tty: Bool
    let last = Mutex<(Int, Date)>((-1, .distantPast))

    init(tty: Bool) { self.tty = tty }

    func show(_ done: Int, _ total: Int) {
        let line: String? = last.withLock { state in
            let now = Date()
            if tty {
                guard done == total || now.timeIntervalSince(state.1) > 0.1 else { return nil }
                state = (done, now)
                let width = 30
                let filled = total == 0 ? width : done * width / total
                return "\r[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] \(done)/\(total)"
            }
            let step = max(1, total / 10)
            guard done == total || done / step != state.0 / step else { return nil }
            state = (done, now)
            return "analysed \(done)/\(total)\n"
        }
        if let line { FileHandle.standardError.write(Data(line.utf8)) }
    }

    func finish() { if tty { FileHandle.standardError.write(Data("\n".utf8)) } }
}

struct Recommend: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Suggest the next tracks for a zone, or evaluate the recommender offline.",
        discussion: """
            --evaluate replays the listening history in time order, hides each next counted play and \
            reports hit-rate@10 and MRR@10 for Pacenote's scorer and for baselines (random, most-played, \
            same-artist, last-track Markov). --synthetic evaluates on a generated history instead \
            (docs/RECOMMENDER.md). --bench times suggestions over the database.
            """)

    @OptionGroup var storage: StorageOptions

    @Option(name: .long, help: ArgumentHelp("Zone 0–5 to suggest for.", valueName: "n"))
    var zone: Int?

    @Option(name: .long, help: "How many suggestions.")
    var limit = 10

    @Option(name: .long, help: ArgumentHelp("Cadence mode: steps per minute.", valueName: "spm"))
    var cadence: Double?

    @Flag(name: .long, help: "Evaluate the scorer and the baselines on the history.")
    var evaluate = false

    @Flag(name: .long, help: "With --evaluate: on a generated history, not the database.")
    var synthetic = false

    @Option(name: .long, help: "Seed of the generated history.")
    var seed: UInt64 = 7

    @Option(name: .long, help: ArgumentHelp("Share of the list kept for never-played tracks (default: recommender.exploration).", valueName: "share"))
    var exploration: Double?

    @Option(name: .long, help: ArgumentHelp("Time this many suggestions and print the latency.", valueName: "n"))
    var bench: Int?

    func run() throws {
        if evaluate && synthetic {
            let history = SyntheticHistory.generate(seed: seed)
            Self.printEvaluation(RecommenderEvaluation.run(tracks: history.tracks, events: history.events,
                                                           explorationShare: exploration ?? 0.1),
                                 what: "generated history (seed \(seed)): \(history.tracks.count) tracks, \(history.events.count) plays")
            return
        }
        let config = try Pacenote.loadConfig(ConfigFlags(config: storage.config, db: storage.db))
        do {
            let store = try PacenoteServer.openStore(config: config)
            defer { try? store.close() }
            if evaluate {
                let tracks = try store.recommenderCandidates()
                let events = try store.recommenderEvents(afterID: 0).events
                Self.printEvaluation(RecommenderEvaluation.run(tracks: tracks, events: events, tempo: config.recommender.tempo,
                                                               recentHours: config.recommender.recentHours,
                                                               explorationShare: exploration ?? config.recommender.exploration),
                                     what: "\(config.databasePath): \(tracks.count) tracks, \(events.count) plays")
                return
            }
            let started = Date()
            var model = ListeningModel()
            for t in try store.recommenderCandidates() { model.upsert(t) }
            for e in try store.recommenderEvents(afterID: 0).events { model.record(e) }
            let built = Date().timeIntervalSince(started)
            let z = zone.flatMap(Zone.init(rawValue:))
            let target: TempoTarget = cadence.map { .cadence(stepsPerMinute: $0) }
                ?? z.map { .window(config.recommender.tempo.window(for: $0)) } ?? .any
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            if let bench {
                try Self.bench(model, count: bench, zone: z, target: target, now: now, limit: limit, built: built,
                               settings: config.recommender)
                return
            }
            let list = Recommender.suggest(model, .init(zone: z, target: target, nowMs: now, recentHours: config.recommender.recentHours,
                                                        limit: limit, seed: UInt64(now / 86_400_000),
                                                        explorationShare: config.recommender.exploration))
            for (i, s) in list.enumerated() {
                print(String(format: "%2d. %6.2f  ", i + 1, s.score) + "\(s.track.artist ?? "?") – \(s.track.title)"
                      + (s.track.bpm.map { String(format: "  (%.0f bpm)", $0) } ?? ""))
                for r in s.reasons { print(String(format: "      %+6.2f  ", r.weight) + "\(r.kind): \(r.detail)") }
            }
        } catch let error as StartupError {
            Pacenote.fail(error.description)
        } catch let error as StoreError {
            Pacenote.fail("database.path: \(error.description)")
        }
    }

    static func printEvaluation(_ results: [RecommenderEvaluation.Result], what: String) {
        print("offline evaluation on \(what); \(results.first?.cases ?? 0) hidden next plays")
        print("| method | hit-rate@10 | MRR@10 |")
        print("|---|---:|---:|")
        for r in results {
            print(String(format: "| %@ | %.3f | %.3f |", r.method.rawValue, r.hitRate, r.mrr))
        }
    }

    static func bench(_ model: ListeningModel, count: Int, zone: Zone?, target: TempoTarget, now: Int64, limit: Int,
                      built: Double, settings: Config.Recommender) throws {
        var times: [Double] = []
        var rng = SyntheticHistory.RNG(seed: 1)
        for i in 0..<count {
            // A different current track each time, so the transition lookups vary.
            let current = model.candidate(at: Int(rng.next() % UInt64(model.trackCount)))
            let request = Recommender.Request(
                zone: zone, target: target, nowMs: now, current: .init(trackID: current.id, artist: current.artist, title: current.title),
                recentHours: settings.recentHours, limit: limit, seed: UInt64(i), explorationShare: settings.exploration)
            let t0 = DispatchTime.now().uptimeNanoseconds
            let list = Recommender.suggest(model, request)
            times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
            precondition(!list.isEmpty || model.trackCount == 0)
        }
        times.sort()
        func pct(_ p: Double) -> Double { times[min(times.count - 1, Int(Double(times.count) * p))] }
        print(String(format: "model: %d tracks, %d plays, built in %.2f s", model.trackCount, model.eventCount, built))
        print(String(format: "suggestion latency over %d requests (limit %d): p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms",
                     times.count, limit, pct(0.5), pct(0.9), pct(0.99), times.last ?? 0))
    }
}

/// glibc's `mallopt` (declared in <malloc.h>, which the Glibc module does not import).
@_silgen_name("mallopt")
func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
