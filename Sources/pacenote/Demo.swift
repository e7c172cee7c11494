import ArgumentParser
import Foundation
import Logging
import PacenoteApp

struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Try Pacenote with a generated library: a private MPD, songs, covers and a simulated workout.",
        discussion: """
            Generates a small library with sox (titles, artists, albums, BPMs, covers), starts a private MPD \
            that plays half of it on repeat, feeds a simulated workout's heart rate, and serves the site; its \
            address is the first line printed. Within a minute the dashboard, a workout and the song of the \
            day fill in; the demo likes a few songs (MPD's "Liked" playlist follows) and, after a few plays, \
            publishes this month's review and prints its address. "Up next" keeps suggesting songs for as \
            long as it runs. Everything lives in a temporary folder that is removed on exit; your own \
            database and MPD are not touched. Needs mpd and sox.
            """)

    @Option(help: ArgumentHelp("Where to serve the site.", valueName: "host:port"))
    var http: String = "127.0.0.1:6680"
    @Option(help: ArgumentHelp("The port of the demo's own MPD on 127.0.0.1 (default: a free one).", valueName: "port"))
    var mpdPort: UInt16?
    @OptionGroup var log: LogOptions

    func run() throws {
        // From here on a Ctrl-C or SIGTERM is the demo's to handle: while sox generates the
        // songs or MPD starts, the demo removes its folder and MPD and exits 130 instead of
        // dying with them left behind; once it serves, it stops like `serve` and cleans up.
        let signals = ProcessSignals.shared
        signals.install()
        var config = try log.loadConfig(http: http)
        let logger = makeLogger(level: config.logLevel)
        let demo: PacenoteApp.Demo
        do {
            demo = try PacenoteApp.Demo(logger: logger, mpdPort: mpdPort) { signals.received != nil }
        } catch is PacenoteApp.Demo.Interrupted {
            logger.info("demo: stopped before it started")
            throw ExitCode(130)
        }
        if signals.received != nil {
            demo.stop()
            throw ExitCode(130)
        }
        demo.configure(&config)
        try Serve.serve(config: config, logger: logger, started: { server in
            // The address first, and at once: with standard output a pipe or a file it would
            // otherwise wait in the buffer until exit.
            let host = config.http.host.contains(":") ? "[\(config.http.host)]" : config.http.host
            Self.say("Pacenote demo: open http://\(host):\(server.port)\(config.basePath)/ (MPD on 127.0.0.1:\(demo.mpdPort)); Ctrl-C stops it.")
            demo.play(with: server, logger: logger, announce: Self.say)
        }, stopping: { demo.stopFeeding() }, stopped: { demo.stop() })
    }

    /// A line on standard output, flushed.
    @Sendable static func say(_ line: String) {
        print(line)
        fflush(nil)  // every stream: stdout is buffered when it is not a terminal
    }
}
