import Foundation
import PacenoteCore
import PacenoteStore

/// What the API reads from the running app. PacenoteApp fills it in; tests build their own.
public struct APIContext: Sendable {
    public var version: String
    public var startedAt: Date
    public var store: Store
    /// The configured players (MPDs), the first being the default one.
    public var players: @Sendable () -> [PlayerStatus]

    public init(version: String, startedAt: Date, store: Store, players: @escaping @Sendable () -> [PlayerStatus]) {
        self.version = version
        self.startedAt = startedAt
        self.store = store
        self.players = players
    }
}

/// The JSON API: routes in, responses out, every error through `HTTPResponse(apiError:)`.
public struct API: Sendable {
    let context: APIContext

    public init(context: APIContext) { self.context = context }

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        do {
            switch try Route.match(method: request.method, path: request.path).get() {
            case .status: return .json(try status())
            }
        } catch let error as APIError {
            return HTTPResponse(apiError: error)
        } catch let error as StoreError {
            return HTTPResponse(apiError: .unavailable(error.description))
        } catch {
            return HTTPResponse(apiError: .internal(String(describing: error)))
        }
    }

    func status() throws -> StatusBody {
        let players = context.players().map(StatusBody.Player.init)
        let counts = try context.store.counts()
        return StatusBody(
            version: context.version,
            uptime_s: Int(Date().timeIntervalSince(context.startedAt)),
            mpd: players.first ?? StatusBody.Player(name: "default", endpoint: "", connected: false, server_version: nil, error: nil, since: nil),
            players: players,
            database: .init(plays: counts.plays, tracks: counts.tracks))
    }
}

/// `GET /api/v1/status`. Field names are the API's (snake_case), documented in docs/API.md.
struct StatusBody: Encodable {
    struct Player: Encodable {
        var name: String
        var endpoint: String
        var connected: Bool
        var server_version: String?
        var error: String?
        var since: String?

        init(name: String, endpoint: String, connected: Bool, server_version: String?, error: String?, since: String?) {
            self.name = name
            self.endpoint = endpoint
            self.connected = connected
            self.server_version = server_version
            self.error = error
            self.since = since
        }

        init(_ s: PlayerStatus) {
            self.init(name: s.name, endpoint: s.endpoint, connected: s.connected, server_version: s.serverVersion,
                      error: s.lastError, since: ISO8601.string(s.since))
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(name, forKey: .name)
            try c.encode(endpoint, forKey: .endpoint)
            try c.encode(connected, forKey: .connected)
            // Absent values are explicit nulls, so clients can rely on every key.
            try c.encode(server_version, forKey: .server_version)
            try c.encode(error, forKey: .error)
            try c.encode(since, forKey: .since)
        }
        enum CodingKeys: String, CodingKey { case name, endpoint, connected, server_version, error, since }
    }
    struct Database: Encodable {
        var plays: Int
        var tracks: Int
    }
    var version: String
    var uptime_s: Int
    var mpd: Player
    var players: [Player]
    var database: Database
}
