import Foundation
import PacenoteCore
import PacenoteStore

extension APIJSON {
    /// One `[[forward]]` target in the status: its queue, what it took, its last error.
    /// Never its token or session, nor a credential in its address.
    static func forwardTarget(_ target: (state: ForwardTargetState, nextAttempt: Date?)) -> JSONValue {
        let state = target.state
        var fields: [(String, JSONValue)] = [
            ("name", .string(state.name)),
            ("kind", .string(state.kind.rawValue)),
            ("url", .string(URLSecrets.masked(state.url))),
            ("queued", .int(Int64(state.queued))),
            ("parked", .int(Int64(state.parked))),
            ("sent", .int(Int64(state.sent))),
            ("last_success_at", timestamp(state.lastSuccessAt)),
            ("last_error", .optional(state.lastError.map(URLSecrets.maskedInText))),
            ("last_error_at", timestamp(state.lastErrorAt)),
            ("next_attempt_at", timestamp(target.nextAttempt)),
        ]
        if state.kind == .lastfm { fields.append(("logged_in_as", .optional(state.sessionUser))) }
        return .object(fields)
    }
}
