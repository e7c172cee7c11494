import Foundation
import Logging
import PacenoteCore
import PacenoteStore
import Synchronization

/// The daemon's own backups (`[backup]`): on its own queue, it looks at the newest backup in
/// the folder and takes one when it is older than the interval, then removes the oldest
/// beyond `keep`. A backup reads one snapshot through a pool reader, so the writer (MPD
/// plays, submitted listens) is never held up; `stop()` aborts one in progress.
public final class BackupScheduler: @unchecked Sendable {
    // @unchecked Sendable: `timer` is set up in `init` and then used only on `queue`
    // (and cancelled from `stop`, which DispatchSource allows from any thread).
    private let store: Store
    private let directory: String
    private let interval: BackupInterval
    private let keep: Int
    private let logger: Logger
    private let queue = DispatchQueue(label: "pacenote.backup", qos: .utility)
    /// Nil when backups are off. (A dispatch source must be resumed before it is released.)
    private let timer: DispatchSourceTimer?
    private let stopping = Atomic<Bool>(false)

    public init(store: Store, settings: Config.Backup, directory: String, logger: Logger) {
        self.store = store
        self.directory = directory
        self.interval = settings.interval
        self.keep = settings.keep
        self.logger = logger
        timer = settings.interval == .off ? nil : DispatchSource.makeTimerSource(queue: queue)
        timer?.setEventHandler { [weak self] in self?.check() }
        timer?.resume()
    }

    /// Looks soon after start (the last backup may be old already) — after the start-up's
    /// own work, `startDelay` or the interval if shorter — then whenever the next one is due.
    public func start() {
        guard let timer, let seconds = interval.seconds else {
            logger.info("backup: off ([backup] interval)")
            return
        }
        timer.schedule(deadline: .now() + min(seconds, Self.startDelay))
    }

    static let startDelay = 10.0

    /// Cancels the timer and waits for a backup in progress to give up.
    public func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        timer?.cancel()
        queue.sync {}
    }

    private func check() {
        let now = Date()
        let last = Backups.latest(in: directory)?.date
        var next = BackupPolicy.nextCheck(last: last, now: now, interval: interval)
        if BackupPolicy.isDue(last: last, now: now, interval: interval) {
            do {
                let summary = try Backups.take(store, into: directory, date: now) { [self] in
                    stopping.load(ordering: .sequentiallyConsistent)
                }
                logger.info("backup: wrote \(summary.path) (\(ByteCountFormatter.string(fromByteCount: summary.bytes, countStyle: .file)), \(summary.plays) plays) in \(String(format: "%.2f", Date().timeIntervalSince(now))) s")
                let removed = Backups.prune(in: directory, keep: keep)
                if !removed.isEmpty {
                    logger.info("backup: removed \(removed.count) old backup(s), keeping \(keep): \(removed.map { ($0 as NSString).lastPathComponent }.joined(separator: ", "))")
                }
                next = BackupPolicy.nextCheck(last: now, now: Date(), interval: interval)
            } catch {
                if stopping.load(ordering: .sequentiallyConsistent) { return }
                logger.error("backup into \(directory) failed: \(error)")
                next = min(interval.seconds ?? 600, 600)
            }
        }
        if !stopping.load(ordering: .sequentiallyConsistent) { timer?.schedule(deadline: .now() + next) }
    }
}
