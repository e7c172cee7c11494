import ArgumentParser
import Dispatch
import Foundation
import Logging
import Metrics
import PacenoteApp
import Prometheus
import PacenoteCore
import PacenoteStore
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
        subcommands: [Serve.self, Migrate.self, ShowConfig.self, Key.self, HRFeed.self, Import.self, Demo.self],
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
    static func serve(config: Config, logger: Logger, started: (PacenoteServer) -> Void = { _ in }, stopping: () -> Void = {}) {
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
            Pacenote.fail(error.description)
        }
        started(daemon)
        done.wait()
        daemon.stop()
        stopping()
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
        let demo: PacenoteApp.Demo
        do {
            demo = try PacenoteApp.Demo(logger: logger)
        } catch {
            Pacenote.fail("\(error)")
        }
        demo.configure(&config)
        Pacenote.serve(config: config, logger: logger, started: { server in
            demo.feedHeartRate(into: server.heartRate, logger: logger)
            let host = config.http.host.contains(":") ? "[\(config.http.host)]" : config.http.host
            print("Pacenote demo: open http://\(host):\(server.port)/ (MPD on 127.0.0.1:\(demo.mpdPort)); Ctrl-C stops it.")
        }, stopping: { demo.stop() })
    }
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
        abstract: "Import workouts with heart rate (TCX, GPX) into the database.",
        discussion: """
            Each file becomes a workout with its heart-rate samples, and the plays of that time get their \
            heart rate and zone. Importing a file twice adds nothing.
            """)

    @OptionGroup var storage: StorageOptions

    @Argument(help: ArgumentHelp("TCX or GPX files.", valueName: "file"))
    var files: [String]

    func run() throws {
        let config = try Pacenote.loadConfig(ConfigFlags(config: storage.config, db: storage.db))
        let logger = Pacenote.makeLogger(level: .warning)
        var failed = 0
        do {
            let store = try PacenoteServer.openStore(config: config)
            defer { try? store.close() }
            let service = try HeartRateService(store: store, events: EventBus(), settings: config.heartRate, logger: logger)
            defer { service.stop() }
            for path in files {
                guard let data = FileManager.default.contents(atPath: path) else {
                    FileHandle.standardError.write(Data("pacenote: \(path): cannot read the file\n".utf8))
                    failed += 1
                    continue
                }
                do {
                    let file = try WorkoutFile.parse(data)
                    let result = try service.importWorkout(file, source: "import:\(file.format.rawValue)")
                    let what = result.id.map { "workout \($0)" } ?? "already imported"
                    print("\(path): \(file.samples.count) samples (\(result.stored) new), \(what)")
                } catch let error as WorkoutFile.ParseError {
                    FileHandle.standardError.write(Data("pacenote: \(path): \(error.description)\n".utf8))
                    failed += 1
                }
            }
        } catch let error as StartupError {
            Pacenote.fail(error.description)
        } catch let error as StoreError {
            Pacenote.fail("database.path: \(error.description)")
        } catch {
            Pacenote.fail("\(error)")
        }
        if failed > 0 { throw ExitCode.failure }
    }
}

/// glibc's `mallopt` (declared in <malloc.h>, which the Glibc module does not import).
@_silgen_name("mallopt")
func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
