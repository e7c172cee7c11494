import Foundation
import PacenoteCore
import PacenoteStore

/// The private session (`PrivateSession`) and showing a hidden play again: the owner's
/// switches, from the dashboard or the API.
extension Operations {
    /// Turns a private session on from `now`, for `seconds` (nil: until turned off). A
    /// session already on is replaced: the new duration counts from now.
    @discardableResult
    public func startPrivateSession(lasting seconds: TimeInterval?, now: Date = Date()) throws -> PrivateSession {
        if let seconds, !(seconds >= 1 && seconds <= PrivateSession.longestSeconds) {
            throw OperationError.invalid("invalid_duration", "a private session lasts from 1 second to a week, or until it is turned off")
        }
        let session = PrivateSession.starting(at: now, lasting: seconds)
        try store.setPrivateSession(session)
        announce(.privateSession)
        return session
    }

    /// Ends the private session now; nothing happens when none is on.
    @discardableResult
    public func endPrivateSession(now: Date = Date()) throws -> PrivateSession? {
        guard var session = try store.privateSession(), session.isOn(at: now) else { return nil }
        // To the whole millisecond below, as it is stored: off from now, not from a moment later.
        session.until = Date(timeIntervalSince1970: (now.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        try store.setPrivateSession(session)
        announce(.privateSession)
        return session
    }

    /// Shows a hidden play again: it counts in the charts, and is forwarded if counted, as a
    /// new play would be.
    public func unhidePlay(id: Int64) throws {
        let (found, logged) = try store.unhidePlay(id: id)
        guard found else { throw OperationError.notFound("no hidden play \(id)") }
        if let logged { announce(logged: [logged]) } else { announce(.playsRewritten(.imported)) }
    }
}
