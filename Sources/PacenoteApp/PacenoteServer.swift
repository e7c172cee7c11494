import Foundation
import Logging
import Metrics
import PacenoteCore
import Prometheus
import PacenoteMPD
import PacenoteStore
import PacenoteWeb

/// Why `pacenote serve` could not start, in one line that names the setting.
public struct StartupError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The running daemon: the database, one watcher per MPD and the web server, wired from a
/// `Config`. `pacenote serve` and the end-to-end tests start it the same way.
public final class PacenoteServer: Sendable {
    public let config: Config
    public let store: Store
    public let events: EventBus
    /// One per configured MPD, the default player first.
    public let players: [PlayerService]
    public let heartRate: HeartRateService
    private let web: WebServer
    /// The port the site is served on.
    public var port: UInt16 { web.port }
    private let logger: Logger

    /// The port the HTTP server is bound to (useful with `--http 127.0.0.1:0`).
    public var httpPort: UInt16 { web.port }

    private init(config: Config, store: Store, events: EventBus, players: [PlayerService], heartRate: HeartRateService,
                 web: WebServer, logger: Logger) {
        self.config = config
        self.store = store
        self.events = events
        self.players = players
        self.heartRate = heartRate
        self.web = web
        self.logger = logger
    }

    /// Opens and migrates the database, starts watching MPD (retrying in the background
    /// while it is down) and starts serving HTTP. Nothing is left running on failure.
    /// `metrics`: where the process's metrics are collected (bootstrapped by the caller,
    /// once per process); served at `/metrics`.
    public static func start(config: Config, logger: Logger, metrics: PrometheusCollectorRegistry? = nil) throws(StartupError) -> PacenoteServer {
        let started = Date()
        let store = try openStore(config: config)
        let events = EventBus()
        var players: [PlayerService] = []
        do {
            for player in config.players {
                let watcher = MPDWatcher(
                    settings: .init(
                        name: player.name, endpoint: try player.endpoint,
                        connectTimeoutMs: UInt32(player.connectTimeoutSeconds * 1000),
                        reconnectInitial: player.reconnectInitialSeconds,
                        reconnectMaximum: max(player.reconnectMaxSeconds, player.reconnectInitialSeconds),
                        tickInterval: player.saveIntervalSeconds),
                    logger: logger)
                let connected = Gauge(label: "pacenote_mpd_connected", dimensions: [("player", player.name)])
                connected.record(0)
                watcher.onStatusChange { status in
                    connected.record(status.connected ? 1 : 0)
                    events.publish(.playerConnection(status))
                }
                players.append(try PlayerService(
                    name: player.name, watcher: watcher, rule: config.playRule, store: store, events: events, logger: logger))
            }
        } catch let error as ConfigError {
            try? store.close()
            throw StartupError(error.description)
        } catch {
            try? store.close()
            throw StartupError("database.path: \(error)")
        }
        let heartRate: HeartRateService
        let keys: APIKeySource
        do {
            keys = try APIKeySource(database: config.databasePath, environment: ProcessInfo.processInfo.environment)
            heartRate = try HeartRateService(store: store, events: events, settings: config.heartRate, logger: logger)
        } catch {
            try? store.close()
            throw (error as? StartupError) ?? StartupError("heart_rate: \(error)")
        }
        var context = APIContext(
            version: PacenoteVersion.current, startedAt: started, store: store, timeZone: config.timeZone,
            apiKey: "", heartRate: heartRate,
            players: { [players] in players.map(\.watcher.status) },
            nowPlaying: { [players] in players.compactMap(\.nowPlaying) })
        context.currentKey = { keys.current() }
        context.trustedNetworks = config.trustedNetworks
        context.trustedProxies = config.trustedProxies
        context.events = events
        context.eventHub = EventStreamHub(bus: events)
        context.basePath = WebServer.normalise(config.basePath)
        if let metrics { context.metricsText = { metrics.emitToBuffer() } }
        context.publicURL = config.publicURL
        let covers = CoverArtCache(databasePath: config.databasePath, players: config.players.compactMap { try? $0.endpoint },
                                   logger: logger)
        context.coverArt = { covers.image(for: $0) }
        let recommender = RecommenderService(
            store: store, settings: config.recommender, heartRate: heartRate, players: players,
            endpoint: try? config.players.first?.endpoint, playerName: config.players.first?.name ?? "default",
            events: events, logger: logger)
        context.recommender = recommender
        events.subscribe { event in
            if case .playLogged(_, let play, _) = event {
                Counter(label: "pacenote_plays_logged_total",
                        dimensions: [("source", play.source), ("counted", play.counted ? "true" : "false")]).increment()
            }
        }
        context.staticFiles = StaticFiles(root: config.publicDirectory)
        context.importListens = { [store] body, format, name in
            try ListenImporter(store: store, events: events, format: format).importBytes(body, name: name)
        }
        let api = API(context: context)
        let web = WebServer(
            settings: .init(address: config.http, maxBodyBytes: config.maxBodyBytes, takesLargeBody: Route.takesLargeBody,
                            bodyLimit: { [limit = config.maxImportBytes] path in Route.isImport(path) ? limit : nil },
                           threads: config.httpThreads),
            basePath: config.basePath, api: api, logger: logger)
        do {
            try web.start()
        } catch {
            heartRate.stop()
            try? store.close()
            throw StartupError(error.description)
        }
        for player in players { player.start() }
        let server = PacenoteServer(config: config, store: store, events: events, players: players, heartRate: heartRate,
                                    web: web, logger: logger)
        let shownHost = config.http.host.contains(":") ? "[\(config.http.host)]" : config.http.host
        logger.info("serving http://\(shownHost):\(web.port)\(config.basePath)/ (database \(config.databasePath))")
        return server
    }

    /// Opens the configured database, creating the default data directory (mode 0700:
    /// heart rate is health data) when the path is the default one.
    public static func openStore(config: Config) throws(StartupError) -> Store {
        if config.databaseIsDefault {
            let directory = (config.databasePath as NSString).deletingLastPathComponent
            do {
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw StartupError("database.path: cannot create \(directory): \(error.localizedDescription)")
            }
        }
        do {
            return try Store.open(path: config.databasePath, timeZone: config.timeZone)
        } catch {
            throw StartupError("database.path (\(config.origins["database.path"] ?? "default")): \(error.description)")
        }
    }

    /// Stops serving, stops the watchers, then closes the database: in that order, so no
    /// request or play is cut off half-way.
    public func stop() {
        logger.info("shutting down")
        web.stop()
        // Wake every watcher first, then wait for each: they stop in parallel.
        for player in players { player.requestStop() }
        let stuck = players.filter { !$0.waitUntilStopped(timeout: 10) }
        heartRate.stop()
        guard stuck.isEmpty else {
            // A watcher still inside a call to MPD may yet write: leave the database open
            // (SQLite's WAL keeps it consistent when the process exits).
            logger.error("players \(stuck.map(\.name)) did not stop within 10 s; exiting without closing the database")
            return
        }
        do {
            try store.close()
        } catch {
            logger.error("closing the database: \(error.description)")
        }
        logger.info("stopped")
    }
}
