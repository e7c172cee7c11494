import Dispatch
import Foundation
import Synchronization

/// The one owner of SIGINT and SIGTERM in the process. `serve`, `demo` (while it sets up
/// and while it serves), `hr-feed` and `import` ask it instead of making signal sources of their own:
/// a dispatch source that is cancelled and made again for the same signal leaves the signal
/// ignored for good on Linux (`shared/PLATFORM.md`), so each signal gets one source, made
/// on first use and never cancelled.
public final class ProcessSignals: Sendable {
    /// SIGINT and SIGTERM for the life of the process; the first use installs them.
    public static let shared = ProcessSignals(signals: [SIGINT, SIGTERM])

    private struct State {
        var received: Int32?
        var handlers: [@Sendable (Int32) -> Void] = []
        var again: [@Sendable (Int32) -> Void] = []
    }

    private let state = Mutex(State())
    private let condition = NSCondition()
    // nonisolated(unsafe): dispatch sources are thread-safe; they are resumed here and
    // kept, never cancelled, for the life of the process.
    private nonisolated(unsafe) let sources: [any DispatchSourceSignal]

    private init(signals: [Int32]) {
        let queue = DispatchQueue(label: "pacenote.signals")
        var sources: [any DispatchSourceSignal] = []
        for sig in signals {
            // Ignored first, so that the default action (ending the process) never runs;
            // the source still sees every delivery.
            signal(sig, SIG_IGN)
            sources.append(DispatchSource.makeSignalSource(signal: sig, queue: queue))
        }
        self.sources = sources
        for (sig, source) in zip(signals, sources) {
            // Signals that came before the handler ran are one event: `data` counts them (two
            // quick Ctrl-Cs are two, the second of which stops at once what the first stops cleanly).
            // (The source holds itself through its handler: it lives as long as the process anyway.)
            source.setEventHandler { [unowned self, source] in
                for _ in 0..<max(1, Int(source.data)) { self.deliver(sig) }
            }
            source.resume()
        }
    }

    /// Makes sure the signals are handled (the first call installs them).
    public func install() {}

    /// The first signal received, if any: for work that checks between steps.
    public var received: Int32? { state.withLock { $0.received } }

    /// Blocks until a signal arrives (returns at once if one already did) and returns it.
    @discardableResult
    public func wait() -> Int32 {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let sig = received { return sig }
            condition.wait()
        }
    }

    /// Calls `handler` once, on the signal queue, with the first signal (at once if one
    /// already arrived).
    public func onSignal(_ handler: @escaping @Sendable (Int32) -> Void) {
        let already: Int32? = state.withLock { s in
            if s.received == nil { s.handlers.append(handler) }
            return s.received
        }
        if let already { handler(already) }
    }

    /// Calls `handler`, on the signal queue, with each signal after the first (a second
    /// Ctrl-C: stop at once what the first asked to stop cleanly).
    public func onAnotherSignal(_ handler: @escaping @Sendable (Int32) -> Void) {
        state.withLock { $0.again.append(handler) }
    }

    private func deliver(_ sig: Int32) {
        let handlers: [@Sendable (Int32) -> Void] = state.withLock { s in
            guard s.received == nil else { return s.again }
            s.received = sig
            defer { s.handlers = [] }
            return s.handlers
        }
        condition.lock()
        condition.broadcast()
        condition.unlock()
        for handler in handlers { handler(sig) }
    }
}
