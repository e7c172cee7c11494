import Foundation
import Logging
import PacenoteStore
import Synchronization

/// Builds the charts' indexes that an import in another process set aside and did not build
/// again (`pacenote import` killed, or stopped at once with a second Ctrl-C) while this
/// daemon runs: without them the charts stay right, but each sorts its period's rows, and the
/// daemon would otherwise wait for its next start. Every `interval` it reads one row of
/// `meta`; it builds only when the process that set them aside is gone (`Store.buildAbandonedIndexes`).
public final class AbandonedIndexes: @unchecked Sendable {
    // @unchecked Sendable: `timer` is set up in `init` and then used only on `queue`
    // (and cancelled from `stop`, which DispatchSource allows from any thread).
    private let store: Store
    private let logger: Logger
    private let interval: Double
    private let queue = DispatchQueue(label: "pacenote.abandoned-indexes", qos: .utility)
    private let timer: DispatchSourceTimer
    private let stopping = Atomic<Bool>(false)
    private let told = Mutex(Told())

    /// What the checks have said. A build that keeps failing the same way (a full disk) is
    /// told once, not every minute: after a failure, what a check says is held back
    /// (`quiet`), and told at its end only if it changed (another failure, or built at last).
    struct Told {
        /// The failure the last check ended with.
        var failure: String?
        var quiet: Bool { failure != nil }

        /// A check's messages that were held back and are to be told now; remembers how it ended.
        mutating func heldBack(after messages: [String], built: Bool) -> [String] {
            let ended = built ? nil : messages.last { $0.contains("could not be built") }
            defer { failure = ended }
            return quiet && ended != failure ? messages : []
        }
    }

    /// A minute: an import's indexes are built within a minute of its process's end.
    public static let interval = 60.0

    public init(store: Store, interval: Double = AbandonedIndexes.interval, logger: Logger) {
        self.store = store
        self.logger = logger
        self.interval = interval
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [weak self] in self?.check() }
        timer.resume()
    }

    public func start() { timer.schedule(deadline: .now() + interval) }

    /// Cancels the timer and waits for the index being built, if one is (each is one
    /// transaction, the largest ~2 s at 5M plays): the rest stay recorded for the next start.
    public func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        timer.cancel()
        queue.sync {}
    }

    private func check() {
        let began = Date()
        let quiet = told.withLock { $0.quiet }
        let said = Mutex<[String]>([])
        let built = store.buildAbandonedIndexes(announce: { [logger] message in
            said.withLock { $0.append(message) }
            if !quiet { logger.notice("\(message)") }
        }, stopping: { stopping.load(ordering: .sequentiallyConsistent) })
        let messages = said.withLock { $0 }
        for message in told.withLock({ $0.heldBack(after: messages, built: built) }) { logger.notice("\(message)") }
        if built { logger.notice("built the charts' indexes in \(String(format: "%.1f", Date().timeIntervalSince(began))) s") }
        if !stopping.load(ordering: .sequentiallyConsistent) { timer.schedule(deadline: .now() + interval) }
    }

    /// How often to look: every minute. Only the end-to-end tests make it shorter
    /// (`PACENOTE_TEST_INDEX_CHECK_S`, at least 0.2 s).
    static func interval(environment: [String: String] = ProcessInfo.processInfo.environment) -> Double {
        guard let text = environment["PACENOTE_TEST_INDEX_CHECK_S"], let seconds = Double(text), seconds.isFinite else {
            return interval
        }
        return min(max(seconds, 0.2), interval)
    }
}
