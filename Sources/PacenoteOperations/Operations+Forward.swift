import Foundation
import PacenoteCore
import PacenoteStore

/// Forwarding (issue 20): what the site, the CLI and the configuration may change in the
/// outbox. The sender (`ForwardService`) owns the rest of it — deliveries, parking, retries
/// — as its bookkeeping; it hears of these changes (`.forwarding`) and looks at once.
/// Nothing derived from plays changes.
extension Operations {
    /// Makes the stored targets those of the configuration file; returns their ids by name.
    @discardableResult
    public func syncForwardTargets(_ specs: [ForwardTargetSpec], at now: Date = Date()) throws -> [String: Int64] {
        let ids = try store.syncForwardTargets(specs, at: now)
        announce(.forwarding)
        return ids
    }

    /// Queues again the plays targets refused (of one target, or all); returns how many.
    @discardableResult
    public func retryParkedForwards(target: String? = nil) throws -> Int {
        let count = try store.retryParked(target: target)
        if count > 0 { announce(.forwarding) }
        return count
    }

    /// Queues a target's counted plays started in [`from`, `to`) that it has not taken yet;
    /// returns how many.
    @discardableResult
    public func backfillForward(target: String, from: Date, to: Date?, at now: Date = Date()) throws -> Int {
        guard to.map({ $0 > from }) ?? true else {
            throw OperationError.invalid("invalid_range", "'to' must be after 'from'")
        }
        guard let count = try store.backfill(target: target, from: from, to: to, at: now) else {
            throw OperationError.notFound("no forward target '\(target)'")
        }
        if count > 0 { announce(.forwarding) }
        return count
    }

    /// Keeps the session a login to a target obtained (nil: forgets it).
    public func setForwardSession(target: String, key: String?, user: String?) throws {
        guard try store.setForwardSession(target: target, key: key, user: user) else {
            throw OperationError.notFound("no forward target '\(target)'")
        }
        announce(.forwarding)
    }
}
