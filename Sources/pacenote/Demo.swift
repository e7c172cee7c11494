import ArgumentParser
import Logging
import PacenoteApp

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
        // From here on a Ctrl-C or SIGTERM is the demo's to handle: while sox generates the
        // songs or MPD starts, the demo removes its folder and MPD and exits 130 instead of
        // dying with them left behind; once it serves, it stops like `serve` and cleans up.
        let signals = ProcessSignals.shared
        signals.install()
        var config = try log.loadConfig(http: http)
        let logger = makeLogger(level: config.logLevel)
        let demo: PacenoteApp.Demo
        do {
            demo = try PacenoteApp.Demo(logger: logger) { signals.received != nil }
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
            demo.feedHeartRate(into: server.heartRate, logger: logger)
            let host = config.http.host.contains(":") ? "[\(config.http.host)]" : config.http.host
            print("Pacenote demo: open http://\(host):\(server.port)/ (MPD on 127.0.0.1:\(demo.mpdPort)); Ctrl-C stops it.")
        }, stopping: { demo.stopFeeding() }, stopped: { demo.stop() })
    }
}
