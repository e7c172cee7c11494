import Foundation
import PacenoteCore
import PacenoteMPD
import PacenoteStore
import PacenoteWeb
import Prometheus

// The app's running parts as the web layer sees them (`APIContext.Services`): each a small
// value the composition root (`PacenoteServer.makeContext`) makes once.

/// The configured players (MPDs), the first being the default one.
struct WatchedPlayers: PlayerSource {
    let services: [PlayerService]
    func players() -> [PlayerStatus] { services.map(\.watcher.status) }
    func nowPlaying() -> [NowPlaying] { services.compactMap(\.nowPlaying) }

    func controls(player: String) throws -> PlayerControls? {
        guard let service = services.first(where: { $0.name == player }) else { return nil }
        guard service.watcher.status.connected else { throw APIError.unavailable("MPD \(player) is not connected") }
        if let seen = service.controls { return seen }
        do { return try MPDControl.controls(endpoint: service.watcher.settings.endpoint) } catch {
            throw Self.apiError(error, player: player)
        }
    }

    func control(player: String, _ command: PlayerCommand) throws -> PlayerControls? {
        guard let service = services.first(where: { $0.name == player }) else { return nil }
        let controls: PlayerControls
        do { controls = try MPDControl.run(command, endpoint: service.watcher.settings.endpoint) } catch {
            throw Self.apiError(error, player: player)
        }
        // Kept and announced at once: the page a press redirects to is drawn from it, without
        // waiting for the watcher's look.
        service.remember(controls)
        return controls
    }

    func queue(player: String) throws -> PlayerQueue? {
        try onMPD(player) { endpoint throws(MPDError) in try MPDQueue.queue(endpoint: endpoint) }
    }

    func editQueue(player: String, _ edit: QueueEdit) throws -> Bool {
        try onMPD(player) { endpoint throws(MPDError) in try MPDQueue.edit(endpoint: endpoint, queue: edit) } != nil
    }

    func playlists(player: String) throws -> [StoredPlaylist]? {
        try onMPD(player) { endpoint throws(MPDError) in try MPDQueue.playlists(endpoint: endpoint) }
    }

    func playlistSongs(player: String, name: String) throws -> [SongInfo]? {
        try onMPD(player) { endpoint throws(MPDError) in try MPDQueue.playlistSongs(endpoint: endpoint, name: name) }
    }

    func editPlaylist(player: String, name: String, _ edit: StoredPlaylistEdit) throws -> Bool {
        try onMPD(player) { endpoint throws(MPDError) in try MPDQueue.edit(endpoint: endpoint, playlist: name, edit) } != nil
    }

    /// `body` on the player's MPD (nil: no such player), MPD's failure as the API's error.
    private func onMPD<T>(_ player: String, _ body: (MPDEndpoint) throws(MPDError) -> T) throws -> T? {
        guard let service = services.first(where: { $0.name == player }) else { return nil }
        do { return try body(service.watcher.settings.endpoint) } catch { throw Self.apiError(error, player: player) }
    }

    /// MPD's refusal in MPD's words: a command it answered with an error is a conflict with
    /// the player's state (409: "Not playing"), a permission it lacks is 403, and a player out
    /// of reach is 503.
    static func apiError(_ error: MPDError, player: String) -> APIError {
        switch error.kind {
        case .server(code: 50): APIError(kind: .notFound, code: "not_found", message: "MPD \(player): \(error.message)")
        case .server: APIError(kind: .conflict, code: "mpd_refused", message: "MPD \(player): \(error.message)")
        case .permission: APIError(kind: .forbidden, code: "mpd_permission", message: "MPD \(player): \(error.message)")
        default: .unavailable("MPD \(player) cannot be reached: \(error.message)")
        }
    }
}

/// The admin key from its file (read on each use) and the named keys from the database.
struct InstanceKeys: KeySource {
    let keys: APIKeySource
    let named: NamedKeys
    func currentKey() -> String? { keys.current() }
    func scope(of sent: String) -> KeyScope? { named.scope(of: sent) }
}

/// Uploads imported as `pacenote import` imports files.
struct UploadImports: ImportService {
    let store: Store
    let events: EventBus
    let heartRate: HeartRateService
    let stopping: StopFlag

    // The upload is a private file the HTTP server wrote and removes (InstanceFiles.temporary).
    func importListens(path: String, format: ImportFormat?, name: String) throws -> ImportSummary {
        // Stopping ends an import between two batches (each is whole), so that the service
        // stops within its time limit; importing again continues.
        try ListenImporter(store: store, events: events, format: format, cancelled: { stopping.raised.load(ordering: .relaxed) })
            .importFile(at: path, name: name)
    }

    func importWorkout(path: String) throws -> WorkoutImport {
        let file: WorkoutFile
        do { file = try WorkoutFile.read(path: path) } catch { throw WorkoutFileRejected("\(error)") }
        let result = try heartRate.importWorkout(file, source: "import:\(file.format.rawValue)")
        var imported = WorkoutImport(format: file.format.rawValue, samples: file.samples.count, stored: result.heartRate,
                                     workoutID: result.newWorkoutID, name: file.name, sport: file.sport)
        imported.motion = file.motion.count
        imported.motionStored = result.motion
        imported.laps = result.laps
        imported.cleaned = file.cleaning.lines
        return imported
    }
}

extension CoverArtCache: CoverArtSource {}

struct PrometheusText: MetricsSource {
    let registry: PrometheusCollectorRegistry
    func prometheusText() -> [UInt8] { registry.emitToBuffer() }
}

/// The newest backup in the configured folder (`Backups`).
struct BackupFolder: BackupSource {
    let config: Config
    func lastBackup() -> (at: Date, bytes: Int64)? { Backups.latest(config: config).map { (at: $0.date, bytes: $0.bytes) } }
}

extension WaitingPlays: WaitingPlaysSource {
    public func waiting() -> (count: Int, lastError: String?, since: Date?) {
        let summary = self.summary
        return (summary.count, summary.lastError, summary.since)
    }
}

/// The active `[[forward]]` targets, with the sender's next attempt for each.
struct ForwardTargets: ForwardingSource {
    let store: Store
    let forwarder: ForwardService
    func targets() throws -> [(state: ForwardTargetState, nextAttempt: Date?)] {
        let live = forwarder.live()
        return try store.forwardTargets().filter(\.active).map { ($0, live[$0.name]?.nextAttempt) }
    }
}

extension StrapService: HeartRateSourceList {}
