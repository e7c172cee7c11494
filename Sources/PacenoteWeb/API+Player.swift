import Foundation
import PacenoteCore

/// A player's controls (issue 57): `GET /api/v1/players/{name}` reads them, `POST
/// /api/v1/players/{name}/{action}` presses them, and the dashboard's and `/player`'s buttons
/// do the same with plain forms. Every open page hears the result as `player_state`.
extension API {
    func playerControlsJSON(_ name: String) throws -> JSONValue {
        guard let controls = try context.services.players.controls(player: name) else { throw Self.noPlayer(name) }
        return APIJSON.playerControls(name, controls, at: context.clock.now())
    }

    // MARK: POST /api/v1/players/{name}/{action}

    func controlPlayer(_ name: String, action: String, _ request: HTTPRequest) throws -> HTTPResponse {
        guard context.players().contains(where: { $0.name == name }) else { throw Self.noPlayer(name) }
        let command = try Self.playerCommand(action: action, body: request.body)
        guard let controls = try context.services.players.control(player: name, command) else { throw Self.noPlayer(name) }
        return .json(APIJSON.playerControls(name, controls, at: context.clock.now()))
    }

    static func noPlayer(_ name: String) -> APIError {
        APIError(kind: .notFound, code: "not_found", message: "no player \(name)")
    }

    /// The press an action and its body ask for: no body for play, pause, toggle, stop, next
    /// and previous; `{"position": 42.5}` to seek; `{"volume": 60}` or `{"change": -5}`;
    /// `{"random": true, "repeat": false, "single": "oneshot", "consume": false}`, any of them.
    static func playerCommand(action: String, body: [UInt8]) throws(APIError) -> PlayerCommand {
        guard PlayerCommand.actions.contains(action) else {
            throw APIError(kind: .notFound, code: "not_found",
                           message: "no action \(action): \(PlayerCommand.actions.joined(separator: ", "))")
        }
        let object: [String: Any]
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x0a || $0 == 0x0d || $0 == 0x09 }) {
            object = [:]
        } else if let parsed = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] {
            object = parsed
        } else {
            throw APIError.badRequest("body: a JSON object (or none)", code: "invalid_body")
        }
        let takes: Set<String> = switch action {
        case "seek": ["position"]
        case "volume": ["volume", "change"]
        case "modes": Set(PlayerCommand.Mode.allCases.map(\.rawValue))
        default: []
        }
        if let unknown = object.keys.sorted().first(where: { !takes.contains($0) }) {
            throw APIError.badRequest(takes.isEmpty ? "\(action) takes no body (\(unknown) given)"
                                          : "\(action) takes \(takes.sorted().joined(separator: ", ")), not \(unknown)",
                                      code: "invalid_body")
        }
        switch action {
        case "play": return .play
        case "pause": return .pause
        case "toggle": return .toggle
        case "stop": return .stop
        case "next": return .next
        case "previous": return .previous
        case "seek":
            guard let position = HeartRateInput.number(object["position"] as Any), position >= 0, position < 1e7 else {
                throw APIError.badRequest("position: seconds into the current song, 0 or more", code: "invalid_position")
            }
            return .seek(position)
        case "volume":
            if let volume = object["volume"], object["change"] == nil {
                guard let value = HeartRateInput.number(volume), value == value.rounded(), (0...100).contains(value) else {
                    throw APIError.badRequest("volume: 0 to 100", code: "invalid_volume")
                }
                return .volume(Int(value))
            }
            guard object["volume"] == nil, let change = HeartRateInput.number(object["change"] as Any), change == change.rounded(),
                  (-100...100).contains(change) else {
                throw APIError.badRequest("give volume (0 to 100) or change (-100 to 100)", code: "invalid_volume")
            }
            return .changeVolume(Int(change))
        case "modes":
            guard !object.isEmpty else {
                throw APIError.badRequest("give one or more of random, repeat, single and consume", code: "invalid_modes")
            }
            func flag(_ key: String) throws(APIError) -> Bool? {
                guard let value = object[key] else { return nil }
                guard isJSONBool(value), let bool = value as? Bool else {
                    throw APIError.badRequest("\(key): true or false", code: "invalid_modes")
                }
                return bool
            }
            var single: PlayerControls.Single?
            if let value = object["single"] {
                if let text = value as? String, let parsed = PlayerControls.Single(rawValue: text) {
                    single = parsed
                } else if isJSONBool(value), let bool = value as? Bool {
                    single = bool ? .on : .off
                } else {
                    throw APIError.badRequest(#"single: true, false, "on", "off" or "oneshot""#, code: "invalid_modes")
                }
            }
            return .modes(random: try flag("random"), repeat: try flag("repeat"), single: single, consume: try flag("consume"))
        default:
            throw APIError(kind: .notFound, code: "not_found", message: "no action \(action)")
        }
    }

    // MARK: The pages' buttons (POST / and POST /player)

    /// A button of a player's card: `player` names the player, `control` the press (the
    /// actions, `volume_down` / `volume_up`, or a mode's name to switch it).
    func playerForm(_ request: HTTPRequest, back: String) throws -> HTTPResponse {
        let players = context.players().map(\.name)
        guard let name = Self.formField("player", in: request.body) ?? players.first, players.contains(name) else {
            throw APIError.badRequest("player: one of \(players.joined(separator: ", "))", code: "invalid_player")
        }
        let command: PlayerCommand
        switch Self.formField("control", in: request.body) ?? "" {
        case "play": command = .play
        case "pause": command = .pause
        case "toggle": command = .toggle
        case "stop": command = .stop
        case "next": command = .next
        case "previous": command = .previous
        case "volume_down": command = .changeVolume(-PlayerCommand.volumeStep)
        case "volume_up": command = .changeVolume(PlayerCommand.volumeStep)
        case let mode where PlayerCommand.Mode(rawValue: mode) != nil:
            let now = try context.services.players.controls(player: name)
            switch PlayerCommand.Mode(rawValue: mode)! {
            case .random: command = .modes(random: !(now?.random ?? false), repeat: nil, single: nil, consume: nil)
            case .repeat: command = .modes(random: nil, repeat: !(now?.repeat ?? false), single: nil, consume: nil)
            case .single: command = .modes(random: nil, repeat: nil, single: (now?.single ?? .off) == .off ? .on : .off, consume: nil)
            case .consume: command = .modes(random: nil, repeat: nil, single: nil, consume: !(now?.consume ?? false))
            }
        default:
            throw APIError.badRequest("control: play, pause, toggle, stop, next, previous, volume_down, volume_up, random, repeat, single or consume",
                                      code: "invalid_action")
        }
        _ = try context.services.players.control(player: name, command)
        return HTTPResponse(status: 303, headers: [("Location", url(back)), ("Cache-Control", "no-store")])
    }
}

extension APIJSON {
    /// The controls as of `now` (the position moved on while playing).
    static func playerControls(_ name: String, _ c: PlayerControls, at now: Date) -> JSONValue {
        .object([
            ("player", .string(name)),
            ("state", .string(c.state.rawValue)),
            ("volume", .optional(c.volume)),
            ("random", .bool(c.random)),
            ("repeat", .bool(c.repeat)),
            ("single", .string(c.single.rawValue)),
            ("consume", .bool(c.consume)),
            ("queue_length", .int(Int64(c.queueLength))),
            ("song_id", .optional(c.songID)),
            ("elapsed_s", .optional(c.elapsed(at: now).map { ($0 * 10).rounded() / 10 })),
            ("duration_s", .optional(c.duration)),
            ("error", .optional(c.error)),
        ])
    }
}
