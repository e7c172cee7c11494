import ArgumentParser
import Foundation
import Logging
import PacenoteApp

/// `--config` and `--db`: taken by every subcommand that touches the database.
struct StorageOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Configuration file (TOML).", valueName: "path"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("SQLite database file. Default: $XDG_DATA_HOME/pacenote/pacenote.sqlite.", valueName: "path"))
    var db: String?

    /// The configuration: defaults, the file, the environment, then these flags (and `--mpd`
    /// for commands that talk to MPD).
    func loadConfig(mpd: String? = nil) throws -> Config {
        try loadConfiguration(ConfigFlags(config: config, db: db, mpd: mpd))
    }
}

/// The daemon's options (`serve`, and `config`, which prints what `serve` would use).
struct ServerOptions: ParsableArguments {
    @OptionGroup var storage: StorageOptions

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

    @OptionGroup var log: LogOptions

    /// The daemon's configuration: defaults, the file, the environment, then these flags.
    func loadConfig() throws -> Config {
        try loadConfiguration(ConfigFlags(
            config: storage.config, db: storage.db, http: http, mpd: mpd, basePath: basePath, timeZone: timezone,
            logLevel: log.logLevel, trustedNetworks: trustedNetworks))
    }
}

struct LogOptions: ParsableArguments {
    @Option(name: .customLong("log-level"), help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level"))
    var logLevel: String?

    /// The configuration of a command that serves on `http` without a database of the user's
    /// (`demo`).
    func loadConfig(http: String) throws -> Config {
        try loadConfiguration(ConfigFlags(http: http, logLevel: logLevel))
    }
}

/// The configuration for `flags`, over the file and the environment; a problem is a
/// `ConfigError` (`Failure.exit` prints it as `config error: …`).
func loadConfiguration(_ flags: ConfigFlags) throws -> Config {
    try ConfigLoader.load(flags: flags, environment: ProcessInfo.processInfo.environment)
}

/// The process's logger, on stderr at `level`: bootstrapped once, by the command that runs.
/// Under systemd, with stderr going to the journal, lines carry no timestamp of their own
/// (journald adds one) and their level as a syslog priority (`JournalLogHandler`).
func makeLogger(level: Logger.Level) -> Logger {
    let journal = JournalLogHandler.standardErrorIsJournal(ProcessInfo.processInfo.environment)
    LoggingSystem.bootstrap { label in
        if journal {
            var handler = JournalLogHandler(label: label)
            handler.logLevel = level
            return handler
        }
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = level
        return handler
    }
    return Logger(label: "pacenote")
}

/// glibc's `mallopt` (declared in <malloc.h>, which the Glibc module does not import).
@_silgen_name("mallopt")
func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
