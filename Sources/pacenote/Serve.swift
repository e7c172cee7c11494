import ArgumentParser
import Logging
import Metrics
import PacenoteApp
import Prometheus
#if canImport(Glibc)
import Glibc
#endif

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Follow MPD, log every play and serve the dashboard and API (the default).")

    @OptionGroup var options: ServerOptions

    func run() throws {
        let config = try options.loadConfig()
        let logger = makeLogger(level: config.logLevel)
        try Self.serve(config: config, logger: logger)
    }

    /// Runs the daemon until SIGINT or SIGTERM (from `ProcessSignals`, the process's one
    /// owner of them); `started` sees it once it serves. `stopping` runs before the daemon
    /// stops (it still serves), `stopped` after, also when it could not start.
    static func serve(config: Config, logger: Logger, started: (PacenoteServer) -> Void = { _ in },
                      stopping: () -> Void = {}, stopped: () -> Void = {}) throws {
        let signals = ProcessSignals.shared
        signals.install()
        tuneMalloc()
        // libmpdclient writes without MSG_NOSIGNAL: a write to an MPD that just went away
        // must be an error to handle (EPIPE), not a signal that ends the process.
        signal(SIGPIPE, SIG_IGN)

        // Metrics for /metrics, in Prometheus's text format.
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))

        let daemon: PacenoteServer
        do {
            daemon = try PacenoteServer.start(config: config, logger: logger, metrics: registry)
        } catch {
            stopping()
            stopped()
            throw error
        }
        started(daemon)
        signals.wait()
        stopping()
        daemon.stop()
        stopped()
    }

    /// glibc gives every thread that allocates its own malloc arena; with libmicrohttpd's
    /// workers that is memory a home server would rather keep (measured by scripts/bench/api).
    /// Fixed thresholds (glibc raises them as it goes otherwise): blocks of 64 KiB and up
    /// (response bodies, SQLite's buffers) go back to the system when freed, and free memory
    /// at the top of the heap above 128 KiB is returned: ~4 MiB less resident after a burst
    /// of requests, with no change in throughput (scripts/bench/api).
    private static func tuneMalloc() {
        _ = glibcMallopt(-8 /* M_ARENA_MAX, <malloc.h> */, 2)
        _ = glibcMallopt(-3 /* M_MMAP_THRESHOLD */, 64 * 1024)
        _ = glibcMallopt(-1 /* M_TRIM_THRESHOLD */, 128 * 1024)
    }
}
