import Logging
import Synchronization

// Why not swift-service-lifecycle's `ServiceGroup`: it runs every service's `run()` at once
// in an async task group and has no notion of "started", while our parts are blocking
// threads (libmpdclient, libmicrohttpd, SQLite) that must start one after another — the
// database before the watchers that write to it, the HTTP port bound before `start` returns
// it — and whose failed start must be reported synchronously to `serve` and the tests.
// What we take from it is the shape: parts in order, stopped in reverse, one signal owner
// (`ProcessSignals`).

/// The daemon's parts (database, heart rate, recommender, MPD watchers, HTTP; later the
/// outbox and the scheduler), each with a start and a stop. Parts start in the order they
/// are added; when a start fails, the parts already started are stopped, last first, and the
/// error goes to the caller. `stop()` stops everything, last started first.
public final class ServiceGroup: Sendable {
    struct Part: Sendable {
        var name: String
        var stop: @Sendable () throws -> Void
    }

    private let logger: Logger
    /// The parts started so far, in start order; emptied by `stop()`.
    private let running = Mutex<[Part]>([])

    public init(logger: Logger) {
        self.logger = logger
    }

    /// The names of the running parts, in start order.
    public var names: [String] { running.withLock { $0.map(\.name) } }

    /// Starts a part and returns what `start` made (the database, the web server, …);
    /// `stop` gets that value back. When `start` throws, the parts already started are
    /// stopped in reverse and the error is rethrown.
    @discardableResult
    public func start<Value: Sendable>(_ name: String, _ start: () throws -> Value,
                                       stop: @escaping @Sendable (Value) throws -> Void) throws -> Value {
        let value: Value
        do {
            value = try start()
        } catch {
            logger.debug("\(name) did not start: \(error)")
            self.stop()
            throw error
        }
        running.withLock { $0.append(Part(name: name, stop: { try stop(value) })) }
        return value
    }

    /// Stops the running parts, the last started first. A part whose stop throws may still
    /// be using the parts started before it (a watcher stuck in a call to MPD can still
    /// write to the database), so those are left running and the process exits without them.
    /// Calling it again does nothing.
    public func stop() {
        var parts = running.withLock { parts in
            defer { parts = [] }
            return parts
        }
        while let part = parts.popLast() {
            do {
                try part.stop()
            } catch {
                let left = parts.reversed().map(\.name)
                logger.error("\(part.name) did not stop: \(error)\(left.isEmpty ? "" : "; left running: \(left.joined(separator: ", "))")")
                return
            }
        }
    }
}
