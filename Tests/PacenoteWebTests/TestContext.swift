import Foundation
import PacenoteCore
import PacenoteStore
@testable import PacenoteWeb

/// The players and what they play, from the test's closures.
struct TestPlayers: PlayerSource {
    let list: @Sendable () -> [PlayerStatus]
    let playing: @Sendable () -> [NowPlaying]
    func players() -> [PlayerStatus] { list() }
    func nowPlaying() -> [NowPlaying] { playing() }
    /// No MPD behind these players: their controls answer as an unreachable MPD's.
    func controls(player: String) throws -> PlayerControls? {
        guard list().contains(where: { $0.name == player }) else { return nil }
        throw APIError.unavailable("MPD \(player) is not connected")
    }
    func control(player: String, _ command: PlayerCommand) throws -> PlayerControls? { try controls(player: player) }
    func queue(player: String) throws -> PlayerQueue? { _ = try controls(player: player); return nil }
    func editQueue(player: String, _ edit: QueueEdit) throws -> Bool { try controls(player: player) != nil }
    func playlists(player: String) throws -> [StoredPlaylist]? { _ = try controls(player: player); return nil }
    func playlistSongs(player: String, name: String) throws -> [SongInfo]? { _ = try controls(player: player); return nil }
    func editPlaylist(player: String, name: String, _ edit: StoredPlaylistEdit) throws -> Bool { try controls(player: player) != nil }
}

/// One admin key, and named keys by the test's rule.
struct TestKeys: KeySource {
    let key: String?
    let named: @Sendable (String) -> KeyScope?
    func currentKey() -> String? { key }
    func scope(of sent: String) -> KeyScope? { named(sent) }
}

/// Plays waiting for a full disk, as the test says.
struct TestWaitingPlays: WaitingPlaysSource {
    let count: Int
    let lastError: String?
    let since: Date?
    func waiting() -> (count: Int, lastError: String?, since: Date?) { (count, lastError, since) }
}

extension APIContext {
    /// A context as the composition root makes one, for a test: `apiKey` is the admin key,
    /// no players unless given, the system's clock unless given; `configure` and `provide`
    /// change settings and services before it is made.
    static func forTests(version: String = "t", store: Store, timeZone: TimeZone = .current, apiKey: String,
                         players: @escaping @Sendable () -> [PlayerStatus] = { [] },
                         nowPlaying: @escaping @Sendable () -> [NowPlaying] = { [] },
                         namedKey: @escaping @Sendable (String) -> KeyScope? = { _ in nil },
                         events: EventBus? = nil, clock: WebClock = WebClock { Date() },
                         configure: (inout Settings) -> Void = { _ in },
                         provide: (inout Services) -> Void = { _ in }) -> APIContext {
        var settings = Settings(version: version, startedAt: clock.now(), timeZone: timeZone)
        configure(&settings)
        var services = Services(players: TestPlayers(list: players, playing: nowPlaying), keys: TestKeys(key: apiKey, named: namedKey))
        provide(&services)
        return APIContext(settings: settings, store: store, events: events, services: services, clock: clock)
    }

    /// The same parts with other settings (a new context: its sessions start empty).
    func with(_ configure: (inout Settings) -> Void) -> APIContext {
        var changed = settings
        configure(&changed)
        return APIContext(settings: changed, store: store, events: events, services: services, clock: clock, logger: logger)
    }
}
