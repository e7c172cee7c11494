import Dispatch
import Foundation
import PacenoteCore
import Synchronization

/// A thread of its own for a part that makes blocking calls (libcurl transfers): it runs a
/// round of work, then sleeps until the time the round asked for, a `wake()` or `stop()`.
/// Events from the bus wake it through `follow`. The forwarder and the friends' poller.
final class WorkerThread: Sendable {
    private let name: String
    private let condition = NSCondition()
    private struct State {
        var stopping = false
        var signalled = false
        var subscription: EventBus.Subscription?
    }
    private let state = Mutex(State())
    private let finished = DispatchSemaphore(value: 0)

    init(name: String) {
        self.name = name
    }

    var stopping: Bool { state.withLock { $0.stopping } }

    /// Runs `round` until stopped; each round returns when the next one is due (now, to go on
    /// at once).
    func start(events: EventBus?, wakeOn: @escaping @Sendable (PacenoteEvent) -> Bool, round: @escaping @Sendable () -> Date) {
        if let events {
            let token = events.subscribe { [weak self] event in
                if wakeOn(event) { self?.wake() }
            }
            state.withLock { $0.subscription = token }
        }
        let thread = Thread { [self] in
            while !stopping {
                let until = round()
                condition.lock()
                while !state.withLock({ $0.signalled || $0.stopping }) {
                    if !condition.wait(until: until) { break }
                }
                state.withLock { $0.signalled = false }
                condition.unlock()
            }
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    func wake() {
        condition.lock()
        state.withLock { $0.signalled = true }
        condition.signal()
        condition.unlock()
    }

    /// Stops after the round in progress, waiting for it at most `timeout` seconds.
    func stop(events: EventBus?, timeout: Double) {
        let token = state.withLock { state in
            state.stopping = true
            return state.subscription.take()
        }
        if let token { events?.unsubscribe(token) }
        wake()
        _ = finished.wait(timeout: .now() + timeout)
    }
}
