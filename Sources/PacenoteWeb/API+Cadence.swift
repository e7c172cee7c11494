import Foundation
import PacenoteCore

/// Live cadence and cadence mode (issue 56): `GET /api/v1/cadence` says what the music follows,
/// `POST /api/v1/cadence` changes it, and the dashboard's card does the same with plain forms.
extension API {
    var cadenceBackend: any HeartRateBackend {
        get throws(APIError) {
            guard let backend = context.heartRate else { throw APIError.unavailable("heart rate is not enabled") }
            return backend
        }
    }

    func cadenceJSON() throws -> JSONValue {
        APIJSON.cadence(try cadenceBackend.cadenceState(now: context.clock.now()))
    }

    // MARK: POST /api/v1/cadence

    /// `{"mode": "cadence" | "zone"}`, `{"target": 175}` (null: follow the live cadence) or
    /// `{"step": 5}` (−5 / +5 from the cadence followed): one change a request.
    func changeCadence(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any] else {
            throw APIError.badRequest(#"body: expected {"mode": "cadence"}, {"target": 175}, {"target": null} or {"step": 5}"#, code: "invalid_body")
        }
        let change = try Self.cadenceChange(object)
        return .json(APIJSON.cadence(try cadenceBackend.changeCadence(change, now: context.clock.now())))
    }

    static func cadenceChange(_ object: [String: Any]) throws(APIError) -> CadenceChange {
        let keys = Set(object.keys).intersection(["mode", "target", "step"])
        guard keys.count == 1, let key = keys.first else {
            throw APIError.badRequest("give one of mode, target or step", code: "invalid_body")
        }
        switch key {
        case "mode":
            switch object["mode"] as? String {
            case "cadence": return .mode(on: true)
            case "zone": return .mode(on: false)
            default: throw APIError.badRequest("mode: cadence or zone", code: "invalid_mode")
            }
        case "target":
            if object["target"] is NSNull { return .follow }
            guard let value = HeartRateInput.number(object["target"] as Any), CadenceState.range.contains(value) else {
                throw APIError.badRequest("target: 60 to 240 steps a minute, or null to follow the live cadence", code: "invalid_target")
            }
            return .target(value)
        default:
            guard let value = HeartRateInput.number(object["step"] as Any), value != 0, abs(value) <= 30 else {
                throw APIError.badRequest("step: −30 to 30 steps a minute (the dashboard's −5 / +5)", code: "invalid_step")
            }
            return .step(value)
        }
    }

    // MARK: POST / (the dashboard's cadence card)

    func cadenceForm(_ request: HTTPRequest) throws -> HTTPResponse {
        let change: CadenceChange
        switch Self.formField("cadence", in: request.body) {
        case "minus": change = .step(-CadenceState.step)
        case "plus": change = .step(CadenceState.step)
        case "follow": change = .follow
        case "on": change = .mode(on: true)
        case "off": change = .mode(on: false)
        default: throw APIError.badRequest("cadence: minus, plus, follow, on or off", code: "invalid_action")
        }
        _ = try cadenceBackend.changeCadence(change, now: context.clock.now())
        return HTTPResponse(status: 303, headers: [("Location", url("/#cadence-h")), ("Cache-Control", "no-store")])
    }
}

extension APIJSON {
    static func cadence(_ state: CadenceState) -> JSONValue {
        let following = state.following
        return .object([
            ("mode", .string(state.on ? "cadence" : "zone")),
            ("following", .double(following.stepsPerMinute.rounded())),
            ("source", .string(following.source)),
            ("target", .optional(state.target)),
            ("live", state.live.map { live in
                .object([("steps_per_min", .double((live.stepsPerMinute * 10).rounded() / 10)), ("at", timestamp(live.at)),
                         ("source", .string(live.source))])
            } ?? .null),
            ("window_s", .double(CadenceSmoother.window)),
        ])
    }
}
