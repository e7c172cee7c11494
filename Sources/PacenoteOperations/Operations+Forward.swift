import Foundation
import PacenoteCore
import PacenoteStore

/// Forwarding (issue 20): what the site and the CLI may change in the outbox. The sender
/// sees it at its next look at the targets (within 5 s); nothing derived from plays changes.
extension Operations {
    /// Queues again the plays targets refused (of one target, or all); returns how many.
    @discardableResult
    public func retryParkedForwards(target: String? = nil) throws -> Int {
        do { return try store.retryParked(target: target) } catch { throw OperationError.from(error) }
    }
}
