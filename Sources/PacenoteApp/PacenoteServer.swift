import Foundation
import Logging
import Metrics
import PacenoteCore
import Prometheus
import PacenoteMPD
import PacenoteOperations
import PacenoteStore
import PacenoteWeb
import Synchronization

/// Raised when the daemon begins to stop, for work that checks it between steps.
final class StopFlag: Sendable {
    let raised = Atomic<Bool>(false)
}

/// The instance lock, and which of the instance's files were there before it was taken
/// (what a start that fails removes: `InstanceFiles.removeCreated`).
struct HeldLock: Sendable {
    let lock: InstanceLock
    let before: Set<String>
}

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
    private let api: API
    private let services: ServiceGroup
    /// The port the site is served on.
    public var port: UInt16 { web.port }
    private let logger: Logger

    /// The port the HTTP server is bound to (useful with `--http 127.0.0.1:0`).
    public var httpPort: UInt16 { web.port }

    /// Publishes the review of `range` (`month`, `year`, …) as the site's "Publish" does;
    /// returns the public page's path under the base path.
    public func publishReview(range: String) throws -> String {
        config.basePath + (try api.publishReview(range: range))
    }

    private init(config: Config, store: Store, events: EventBus, players: [PlayerService], heartRate: HeartRateService,
                 web: WebServer, api: API, services: ServiceGroup, logger: Logger) {
        self.config = config
        self.store = store
        self.events = events
        self.players = players
        self.heartRate = heartRate
        self.web = web
        self.api = api
        self.services = services
        self.logger = logger
    }

    /// Opens and migrates the database, starts watching MPD (retrying in the background
    /// while it is down) and starts serving HTTP. Nothing is left running on failure.
    /// `metrics`: where the process's metrics are collected (bootstrapped by the caller,
    /// once per process); served at `/metrics`.
    ///
    /// The parts start in this order and stop in reverse (`stop()`): the HTTP port (bound,
    /// served on later), the instance lock, the database, forwarding, waiting plays, heart
    /// rate, Bluetooth straps, the recommender, HTTP, likes and smart playlists in MPD, the MPD watchers, the
    /// friends' poller, the watch for set-aside indexes, the backup scheduler (the list in
    /// docs/ARCHITECTURE.md). The port is bound first, so a port in use creates no file; the
    /// watchers start after HTTP; the database closes last, so no request or play is cut off
    /// half-way.
    public static func start(config: Config, logger: Logger, metrics: PrometheusCollectorRegistry? = nil) throws(StartupError) -> PacenoteServer {
        let started = Date()
        let services = ServiceGroup(logger: logger)
        // Raised once every part started: parts stopped before that undo a failed start.
        let completed = StopFlag()
        do {
            let endpoints = try config.players.map { try $0.endpoint }
            // The port first, then the lock: a port in use or a second `serve` ends the start
            // before anything is created (issue 52).
            let port = try services.start("port", { () throws(StartupError) -> ListeningSocket in
                do { return try ListeningSocket(address: config.http) } catch { throw StartupError("\(error)") }
            }, stop: { $0.close() })
            // Held while the daemon runs: `restore` refuses to replace the database under it.
            // A start that fails removes, with it still held, what it made (`removeCreated`).
            let files = InstanceFiles(config: config)
            try services.start("instance lock", { () throws(StartupError) -> HeldLock in
                let before = files.existing()
                try prepareDirectory(config: config)
                do { try Store.checkLocation(config.databasePath) } catch { throw databaseError(config, error) }
                do { return HeldLock(lock: try InstanceLock.acquire(files), before: before) } catch {
                    files.removeCreatedFolder(since: before)
                    guard case InstanceLock.Problem.held = error else { throw StartupError("database.path: \(error)") }
                    throw StartupError("database.path: \(config.databasePath) is in use by another pacenote serve (\(error))")
                }
            }, stop: { held in
                let failed = !completed.raised.load(ordering: .acquiring)
                if failed { files.removeCreated(since: held.before) }
                held.lock.release()
                if failed { files.removeCreatedFolder(since: held.before) }
            })
            let store = try services.start("database", { try openStore(config: config) }, stop: { (store: Store) in
                do { try store.close() } catch { logger.error("closing the database: \(error)") }
            })
            // Uploads a crashed daemon was receiving.
            InstanceFiles(config: config).removeStaleTemporaryFiles()
            let events = EventBus()
            events.subscribe { event in
                if case .playLogged(_, let play, _) = event {
                    Counter(label: "pacenote_plays_logged_total",
                            dimensions: [("source", play.source), ("counted", play.counted ? "true" : "false")]).increment()
                }
            }
            // Credits split as `[credits] separators` says: split again when it changed.
            do {
                if try store.creditSeparators() != config.credits.separators {
                    let changes = try Operations(store: store, events: events).setCreditSeparators(config.credits.separators)
                    logger.info("credits: split \(changes.count) tracks' artists again with the separators of credits.separators")
                }
            } catch {
                throw StartupError("credits.separators: \(error)")
            }
            // The file's `[[rules]]` in place of those it gave before, before any play arrives.
            try storeConfigRules(config: config, store: store, logger: logger)
            // The file's `[[friends]]` in place of those it gave before (the site's stay).
            try storeConfigFriends(config: config, store: store, logger: logger)
            // The file's `[[forward]]` targets: plays stored from now on enter their outbox.
            let forwardIDs: [String: Int64]
            do { forwardIDs = try Operations(store: store, events: events).syncForwardTargets(config.forward.map(\.spec)) } catch {
                throw StartupError("forward: \(error)")
            }
            let forwarder = config.forward.isEmpty ? nil : try services.start("forwarding", {
                let forwarder = ForwardService(store: store, targets: config.forward, ids: forwardIDs, events: events,
                                               logger: logger)
                forwarder.start()
                return forwarder
            }, stop: { $0.stop() })
            // Plays the last run could not store come first, before any player writes.
            let waiting = try services.start("waiting plays", {
                let waiting = WaitingPlays(operations: Operations(store: store, events: events),
                                           spoolPath: InstanceFiles(config: config).spool, logger: logger)
                waiting.replaySpool()
                return waiting
            }, stop: { $0.stop() })
            let keys = try APIKeySource(database: config.databasePath, environment: ProcessInfo.processInfo.environment)
            let scrobblerSecret = try ScrobblerSecret.load(database: config.databasePath)
            // Keys made before v25 kept md5(key) in the clear; sealed now that the secret is at hand.
            do {
                let sealed = try Operations(store: store, events: events).sealScrobblerMD5s { md5, sha in
                    ScrobblerCredentials.seal(md5Hex: md5, keySHA256: sha, secret: scrobblerSecret)
                }
                if sealed > 0 { logger.info("keys: sealed the stored MD5 of \(sealed) named keys (Last.fm protocols)") }
            } catch {
                throw StartupError("keys: sealing their MD5: \(error)")
            }
            let heartRate = try services.start("heart rate", {
                do {
                    return try HeartRateService(store: store, events: events, settings: config.heartRate, workouts: config.workouts,
                                                athlete: config.athlete, cadence: config.recommender.cadence, logger: logger)
                }
                catch { throw (error as? StartupError) ?? StartupError("heart_rate: \(error)") }
            }, stop: { $0.stop() })
            // Bluetooth straps (`[[heart_rate.ble]]`), read straight from BlueZ.
            let straps = config.straps.isEmpty ? nil : try services.start("bluetooth straps", {
                let straps = StrapService(configs: config.straps, heartRate: heartRate, logger: logger)
                straps.start()
                return straps
            }, stop: { $0.stop() })
            // Tempo-matched playback renders for the default player (`[tempo]`, issue 56).
            let tempo = try makeTempo(config: config, endpoint: endpoints.first, logger: logger)
            let players = try makePlayers(config: config, endpoints: endpoints, store: store, events: events, waiting: waiting,
                                          tempo: tempo, logger: logger)
            let recommender = try services.start("recommender", {
                RecommenderService(
                    store: store, settings: config.recommender, heartRate: heartRate, players: players,
                    endpoint: endpoints.first, playerName: config.players.first?.name ?? "default",
                    events: events, logger: logger, transitionDirectory: InstanceFiles(config: config).temporary, tempo: tempo)
            }, stop: { $0.stop() })
            let stopping = StopFlag()
            let smartPlaylists = endpoints.first.map {
                SmartPlaylistSync(store: store, endpoint: $0, tempo: config.recommender.tempo, events: events, logger: logger)
            }
            let api = API(context: makeContext(
                config: config, started: started, store: store, events: events, keys: keys, players: players, waiting: waiting,
                heartRate: heartRate, recommender: recommender, forwarder: forwarder, straps: straps, metrics: metrics,
                smartPlaylists: smartPlaylists, stopping: stopping, scrobblerSecret: scrobblerSecret, logger: logger))
            let web = try services.start("http", {
                var settings = WebServer.Settings(address: config.http, maxBodyBytes: config.maxBodyBytes,
                                                  maxImportBytes: config.maxImportBytes, threads: config.httpThreads)
                settings.http.connectionsPerAddress = config.maxConnectionsPerClient
                settings.http.headerTimeoutSeconds = config.headerTimeoutSeconds
                settings.http.uploadsPerAddress = config.maxUploadsPerClient
                settings.http.bodyMemoryBytes = config.maxBodyMemoryBytes
                settings.http.keylessBodySeconds = config.keylessBodyTimeoutSeconds
                settings.http.minBodyBytesPerSecond = config.minBodyBytesPerSecond
                settings.http.uploadDirectory = InstanceFiles(config: config).temporary
                settings.http.listeningSocket = port
                settings.acknowledgeDurably = config.syncedAcknowledgements
                settings.trustedProxies = config.trustedProxies
                let web = WebServer(settings: settings, basePath: config.basePath, api: api, logger: logger)
                do { try web.start() } catch let error as HTTPServerError { throw StartupError(error.description) }
                return web
            }, stop: { (web: WebServer) in
                stopping.raised.store(true, ordering: .relaxed)
                web.stop()
            })
            if let endpoint = endpoints.first {
                try services.start("likes in mpd", {
                    let likes = LikesSync(store: store, endpoint: endpoint, settings: config.likes, events: events, logger: logger)
                    likes.start()
                    return likes
                }, stop: { $0.stop() })
            }
            if let smartPlaylists {
                try services.start("smart playlists in mpd", { smartPlaylists.start() }, stop: { _ in smartPlaylists.stop() })
            }
            try services.start("mpd watchers", { for player in players { player.start() } }, stop: { _ in
                try stopWatchers(players)
            })
            // Friends' feeds, after HTTP: a friend may be this very server (a test, a demo).
            try services.start("friends", {
                let poller = FriendsPoller(store: store, events: events, interval: friendsPollInterval(),
                                           treatedAsPublic: friendsPublicAddresses(), logger: logger)
                poller.start()
                return poller
            }, stop: { $0.stop() })
            try services.start("indexes an import left", {
                let watch = AbandonedIndexes(store: store, interval: AbandonedIndexes.interval(), logger: logger)
                watch.start()
                return watch
            }, stop: { $0.stop() })
            try services.start("backups", {
                let scheduler = BackupScheduler(store: store, settings: config.backup, directory: config.backupDirectory, logger: logger)
                scheduler.start()
                return scheduler
            }, stop: { $0.stop() })
            let shownHost = config.http.host.contains(":") ? "[\(config.http.host)]" : config.http.host
            completed.raised.store(true, ordering: .releasing)
            logger.info("serving http://\(shownHost):\(web.port)\(config.basePath)/ (database \(config.databasePath))")
            return PacenoteServer(config: config, store: store, events: events, players: players, heartRate: heartRate,
                                  web: web, api: api, services: services, logger: logger)
        } catch {
            // Whatever failed between the starts (a player's address, the key file): undo.
            services.stop()
            switch error {
            case let error as StartupError: throw error
            case let error as ConfigError: throw StartupError(error.description)
            default: throw StartupError("database.path: \(error)")
            }
        }
    }

    /// Puts the configuration's `[[rules]]` in the database in place of those it gave
    /// before (the site's stay): what `serve` and `import` do at start. Logs how many there
    /// are, unless the file gives none and gave none before.
    public static func storeConfigRules(config: Config, store: Store, logger: Logger) throws(StartupError) {
        let before: Int
        do {
            before = try store.rules().filter(\.fromConfig).count
            try store.replaceConfigRules(config.rules)
        } catch {
            throw StartupError("rules: \(error)")
        }
        guard before > 0 || !config.rules.isEmpty else { return }
        let enabled = config.rules.filter(\.enabled).count
        logger.info("rules: \(config.rules.count) from the configuration (\(enabled) enabled; \(before) before)")
        // As saving one on the site does: a pattern that comes near its step budget on text
        // made to be slow is said once, at start.
        for (i, rule) in config.rules.enumerated() where rule.enabled {
            if let warning = RuleStress.of(rule)?.warning { logger.warning("rules[\(i + 1)]: \(warning)") }
        }
    }

    /// Puts the configuration's `[[friends]]` in the database in place of those it gave
    /// before (the site's stay). Logs how many there are, unless the file gives none and gave
    /// none before.
    public static func storeConfigFriends(config: Config, store: Store, logger: Logger) throws(StartupError) {
        let before: Int
        do { before = try store.replaceConfigFriends(config.friends.map { ($0.name, $0.url) }) } catch {
            throw StartupError("friends: \(error)")
        }
        guard before > 0 || !config.friends.isEmpty else { return }
        logger.info("friends: \(config.friends.count) from the configuration (\(before) before)")
    }

    /// How often a friend's feed is asked: every 15 minutes. Only the end-to-end tests make
    /// it shorter (`PACENOTE_TEST_FRIENDS_POLL_S`, at least 0.2 s): a real friend's server is
    /// never asked more often than that by a configuration.
    /// Addresses the friends poller takes as public (`FriendsPoller.treatedAsPublic`): only
    /// the end-to-end tests set `PACENOTE_TEST_FRIENDS_PUBLIC_ADDRESSES` (comma-separated).
    static func friendsPublicAddresses(environment: [String: String] = ProcessInfo.processInfo.environment) -> [[UInt8]] {
        (environment["PACENOTE_TEST_FRIENDS_PUBLIC_ADDRESSES"] ?? "").split(separator: ",").compactMap {
            IPNetwork.parseAddress($0.trimmingCharacters(in: .whitespaces))
        }
    }

    static func friendsPollInterval(environment: [String: String] = ProcessInfo.processInfo.environment) -> Double {
        guard let text = environment["PACENOTE_TEST_FRIENDS_POLL_S"], let seconds = Double(text), seconds.isFinite else {
            return FriendPolling.interval
        }
        return min(max(seconds, 0.2), FriendPolling.interval)
    }

    /// One `PlayerService` per configured MPD, made but not started (the recommender and the
    /// API follow them before their watchers run).
    private static func makePlayers(config: Config, endpoints: [MPDEndpoint], store: Store, events: EventBus,
                                    waiting: WaitingPlays, tempo: TempoService?, logger: Logger) throws -> [PlayerService] {
        try zip(config.players, endpoints).map { player, endpoint in
            let watcher = MPDWatcher(
                settings: .init(
                    name: player.name, endpoint: endpoint,
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
            return try PlayerService(name: player.name, watcher: watcher, rule: config.playRule, store: store, events: events,
                                     waiting: waiting, logger: logger, tempo: player.name == config.players.first?.name ? tempo : nil)
        }
    }

    /// The renderer of tempo-matched playback, when `[tempo] enabled` and an MPD is configured.
    private static func makeTempo(config: Config, endpoint: MPDEndpoint?, logger: Logger) throws -> TempoService? {
        guard config.tempo.enabled, let endpoint, let player = config.players.first else { return nil }
        do {
            let tempo = try TempoService(settings: config.tempo, databasePath: config.databasePath, endpoint: endpoint,
                                         musicDirectory: player.musicDirectory, logger: logger)
            logger.info("tempo: copies in \(tempo.folder), at most ±\(Int((config.tempo.maxChange * 100).rounded())) %, \(config.tempo.quality)")
            return tempo
        } catch {
            throw StartupError("tempo: cannot keep copies in \(config.tempo.cacheFolder(databasePath: config.databasePath)): \(error)")
        }
    }

    /// Wakes every watcher first, then waits for each: they stop in parallel. One still
    /// inside a call to MPD may yet write, so it is an error the service group sees (and
    /// leaves the database open: SQLite's WAL keeps it consistent when the process exits).
    private static func stopWatchers(_ players: [PlayerService]) throws {
        for player in players { player.requestStop() }
        let stuck = players.filter { !$0.waitUntilStopped(timeout: 10) }
        guard stuck.isEmpty else { throw StartupError("players \(stuck.map(\.name)) did not stop within 10 s") }
    }

    /// What the API reads from the running parts, made once they all exist: the web layer's
    /// composition root. The context is whole when made; nothing is filled in afterwards.
    private static func makeContext(config: Config, started: Date, store: Store, events: EventBus, keys: APIKeySource,
                                    players: [PlayerService], waiting: WaitingPlays, heartRate: HeartRateService, recommender: RecommenderService,
                                    forwarder: ForwardService?, straps: StrapService?, metrics: PrometheusCollectorRegistry?,
                                    smartPlaylists: SmartPlaylistSync?, stopping: StopFlag, scrobblerSecret: [UInt8], logger: Logger) -> APIContext {
        var settings = APIContext.Settings(version: PacenoteVersion.current, startedAt: started, timeZone: config.timeZone)
        settings.weekStart = config.weekStart
        settings.units = config.units
        // Calories from heart rate need age, weight and sex (`[athlete]`): without all three, nil.
        settings.athlete = config.athlete.forCalories
        settings.scrobblerSecret = scrobblerSecret
        settings.trustedNetworks = config.trustedNetworks
        settings.trustedProxies = config.trustedProxies
        settings.corsOrigins = config.corsOrigins
        settings.nowFields = config.share.now ? config.share.nowFields : nil
        settings.ownHosts = [config.http.host] + machineNames()
        settings.basePath = WebServer.normalise(config.basePath)
        settings.publicURL = config.publicURL
        settings.sessionIdleSeconds = Double(config.sessionIdleDays) * 86_400
        settings.publicDirectory = config.publicDirectory
        settings.playRule = config.playRule
        settings.tempo = config.recommender.tempo
        settings.eventStreams = .init(streams: config.maxEventStreams, perClient: config.maxEventStreamsPerClient,
                                      lifetime: config.eventStreamMaxSeconds)
        var services = APIContext.Services(players: WatchedPlayers(services: players),
                                           keys: InstanceKeys(keys: keys, named: NamedKeys(store: store)))
        services.heartRate = heartRate
        services.recommender = recommender
        services.imports = UploadImports(store: store, events: events, heartRate: heartRate, stopping: stopping)
        services.coverArt = CoverArtCache(databasePath: config.databasePath, players: config.players.compactMap { try? $0.endpoint },
                                          logger: logger)
        services.metrics = metrics.map(PrometheusText.init)
        services.backups = BackupFolder(config: config)
        services.waitingPlays = waiting
        services.forwarding = forwarder.map { ForwardTargets(store: store, forwarder: $0) }
        services.heartRateSources = straps
        services.smartPlaylists = smartPlaylists
        // The system's clock: the web layer reads the time of day nowhere else.
        return APIContext(settings: settings, store: store, events: events, services: services, clock: WebClock { Date() }, logger: logger)
    }

    /// The machine's own name and its mDNS form (`pi`, `pi.local`): names a browser on the
    /// home network may use for this server.
    static func machineNames() -> [String] {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return [] }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard !name.isEmpty, name != "localhost" else { return [] }
        return name.hasSuffix(".local") ? [name] : [name, name + ".local"]
    }

    /// Opens the configured database, creating the default data directory (mode 0700:
    /// heart rate is health data) when the path is the default one.
    /// A backup is written to the backup folder first when a migration would change the
    /// schema of an existing database.
    public static func openStore(config: Config) throws(StartupError) -> Store {
        try prepareDirectory(config: config)
        do {
            return try Store.open(path: config.databasePath, timeZone: config.timeZone, backupsBeforeMigrating: config.backupDirectory,
                                  announce: { message in
                                      let line = Array("pacenote: \(message)\n".utf8)
                                      _ = line.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
                                  })
        } catch {
            throw databaseError(config, error)
        }
    }

    private static func databaseError(_ config: Config, _ error: any Error) -> StartupError {
        StartupError("database.path (\(config.origins["database.path"] ?? "default")): \(error)")
    }

    /// Creates the default data directory (mode 0700) when the database path is the default one.
    public static func prepareDirectory(config: Config) throws(StartupError) {
        guard config.databaseIsDefault else { return }
        let directory = InstanceFiles(config: config).directory
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StartupError("database.path: cannot create \(directory): \(error.localizedDescription)")
        }
    }

    /// Stops the watchers, HTTP, the recommender and heart rate, then closes the database:
    /// the reverse of the order they started in.
    public func stop() {
        logger.info("shutting down")
        services.stop()
        logger.info("stopped")
    }
}
