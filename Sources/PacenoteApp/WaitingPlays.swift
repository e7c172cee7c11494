import Dispatch
import Foundation
import Logging
import PacenoteCore
import PacenoteOperations
import PacenoteStore
import Synchronization

/// Plays from MPD that the database could not take yet (a full disk, a file locked too
/// long), per player, in the order they ended. Every player's writes go through here:
///
/// - a failed write keeps its plays in memory and appends them to the spool (`PlaySpool`,
///   flushed to disk), so a stop or a reboot before space returns loses none;
/// - they are retried on a timer (5 s, doubling to 60 s) and before the player's next
///   write, always ahead of newer plays, so they land in order;
/// - at start-up the spool of the last run is replayed first (`replaySpool`). The store
///   keeps one play per (track, start), so a play replayed after it was stored is not
///   stored twice.
///
/// All writes are `Operations.recordPlayer`, one player's plays per transaction.
public final class WaitingPlays: Sendable {
    /// What `/api/v1/status` and `pacenote doctor` show.
    public struct Summary: Equatable, Sendable {
        public var count: Int
        public var lastError: String?
        /// When the oldest waiting play first failed to be stored.
        public var since: Date?
    }

    /// What became of a player's write.
    public enum Outcome: Sendable {
        /// Stored: the plays that were new; and the rows the database refuses (a clock that
        /// ran backwards): retrying would block every later play behind them, so they alone
        /// are dropped (and logged by the caller) — the others are stored one by one.
        case stored([LoggedPlay], refused: [(FinishedPlay, String)] = [])
        /// Not stored: this many of the player's plays wait, for this reason.
        case waiting(Int, String)
    }

    private struct State {
        var queues: [String: [FinishedPlay]] = [:]
        /// Players in the order their first waiting play arrived (retries keep it).
        var order: [String] = []
        var lastError: String?
        var since: Date?
        var backoff: Backoff
        /// A retry is scheduled.
        var retryArmed = false
        var stopped = false
        var count: Int { queues.values.reduce(0) { $0 + $1.count } }
    }

    private let operations: Operations
    private let spool: PlaySpool?
    private let logger: Logger
    /// Writes and retries, one at a time.
    private let queue = DispatchQueue(label: "pacenote.waiting-plays")
    private let state: Mutex<State>

    /// - Parameters:
    ///   - spoolPath: the spool file (`InstanceFiles.spool`); nil keeps waiting plays in
    ///     memory only.
    ///   - retry: delays between retries.
    public init(operations: Operations, spoolPath: String?, logger: Logger,
                retry: Backoff = Backoff(initial: 5, maximum: 60)) {
        self.operations = operations
        self.logger = logger
        var spool: PlaySpool?
        if let spoolPath {
            do {
                spool = try PlaySpool(path: spoolPath)
                if let problem = spool?.reservationProblem { logger.warning("\(problem)") }
            } catch {
                logger.error("plays that cannot be stored will wait in memory only: \(error.description)")
            }
        }
        self.spool = spool
        state = Mutex(State(backoff: retry))
    }

    public var summary: Summary {
        state.withLock { Summary(count: $0.count, lastError: $0.count > 0 ? $0.lastError : nil, since: $0.since) }
    }

    /// Stores the plays the spool kept from the last run, each player's in order, before
    /// anything new. Those that still cannot be stored wait (and stay in the spool).
    public func replaySpool() {
        guard let spool, !spool.found.plays.isEmpty || spool.found.damaged > 0 else { return }
        queue.sync {
            let found = spool.found
            if found.damaged > 0 {
                logger.warning("\(found.damaged) damaged line(s) in \(spool.path) skipped (a write cut short)")
            }
            state.withLock { s in
                for entry in found.plays {
                    if s.queues[entry.player] == nil { s.order.append(entry.player) }
                    s.queues[entry.player, default: []].append(entry.play)
                }
                s.lastError = found.plays.last?.error
            }
            if !found.plays.isEmpty { logger.info("replaying \(found.plays.count) play(s) kept in \(spool.path)") }
            storeWaiting()
            if found.plays.isEmpty, spool.used > 0 {
                do { try spool.clear() } catch { logger.warning("emptying the spool: \(error)") }
            }
        }
    }

    /// Stores `finished` (after the player's waiting plays) and the play in progress in one
    /// transaction.
    public func record(player: String, finished: [FinishedPlay], open: OpenPlayUpdate) -> Outcome {
        queue.sync { store(player: player, finished: finished, open: open) }
    }

    /// No more retries (the daemon stops): what waits stays in the spool.
    public func stop() {
        queue.sync { state.withLock { $0.stopped = true } }
    }

    // MARK: On the queue

    private func store(player: String, finished: [FinishedPlay], open: OpenPlayUpdate) -> Outcome {
        let toStore = state.withLock { $0.queues[player, default: []] } + finished
        do {
            let logged = try operations.recordPlayer(player, finished: toStore, open: open)
            // A finished play is on disk before it counts as stored (the group's next sync; the
            // play in progress alone is saved again every few seconds and waits for none).
            if !toStore.isEmpty { syncStored() }
            done(player)
            return .stored(logged)
        } catch .constraint {
            do {
                let (logged, refused) = try storeSeparately(player, toStore, open: open)
                done(player)
                return .stored(logged, refused: refused)
            } catch {
                // Stored so far stays stored; the rest waits (a replay stores nothing twice).
                wait(player, finished, error: error.description)
                return .waiting(toStore.count, error.description)
            }
        } catch {
            wait(player, finished, error: error.description)
            return .waiting(toStore.count, error.description)
        }
    }

    /// After the database refused a batch: each play in a transaction of its own, so that
    /// only the rows it refuses are dropped. Another error (a full disk) ends it.
    private func storeSeparately(_ player: String, _ plays: [FinishedPlay],
                                 open: OpenPlayUpdate) throws(StoreError) -> ([LoggedPlay], [(FinishedPlay, String)]) {
        var logged: [LoggedPlay] = []
        var refused: [(FinishedPlay, String)] = []
        for (index, play) in plays.enumerated() {
            do {
                logged += try operations.recordPlayer(player, finished: [play], open: index == plays.count - 1 ? open : .keep)
            } catch .constraint(let message) {
                refused.append((play, message))
            }
        }
        return (logged, refused)
    }

    private func retry() {
        let go = state.withLock { s -> Bool in
            s.retryArmed = false
            return !s.stopped
        }
        if go { storeWaiting() }
    }

    /// Tries every player's waiting plays, oldest player first.
    private func storeWaiting() {
        for player in state.withLock({ $0.order }) {
            guard let plays = state.withLock({ $0.queues[player] }), !plays.isEmpty else { continue }
            do {
                let logged = try operations.recordPlayer(player, finished: plays, open: .keep)
                done(player)
                logger.info("stored \(plays.count) waiting play(s) of \(player), \(logged.count) new")
                for entry in logged { PlayerService.logStored(entry, logger: logger) }
            } catch .constraint {
                do {
                    let (logged, refused) = try storeSeparately(player, plays, open: .keep)
                    done(player)
                    for entry in logged { PlayerService.logStored(entry, logger: logger) }
                    for (play, message) in refused { PlayerService.logRefused(play, message, logger: logger) }
                } catch {
                    wait(player, [], error: error.description)
                    return
                }
            } catch {
                wait(player, [], error: error.description)
                logger.warning("\(plays.count) play(s) of \(player) still cannot be stored: \(error.description)")
                return
            }
        }
    }

    private func syncStored() {
        do { try operations.waitDurable() } catch {
            logger.warning("syncing the database after storing a play: \(error.description)")
        }
    }

    /// The player's plays are stored (or dropped): forget them; with nothing left, empty the
    /// spool and reset the retry delay.
    private func done(_ player: String) {
        let empty = state.withLock { s -> Bool in
            s.queues[player] = nil
            s.order.removeAll { $0 == player }
            guard s.queues.isEmpty else { return false }
            s.lastError = nil
            s.since = nil
            s.backoff.succeeded()
            return true
        }
        guard empty, let spool, spool.used > 0 else { return }
        // The spool is their other copy: the commit must be on disk before it goes.
        do { try operations.makeDurable() } catch {
            logger.warning("syncing the database before emptying the spool: \(error.description)")
            return
        }
        do { try spool.clear() } catch { logger.warning("emptying the spool: \(error.description)") }
    }

    /// Keeps `finished` behind the player's waiting plays, writes them to the spool, and
    /// arms the retry timer.
    private func wait(_ player: String, _ finished: [FinishedPlay], error: String) {
        let (all, delay) = state.withLock { s -> ([SpooledPlay], Double?) in
            // Only the play in progress failed to save: nothing waits (the next save retries).
            if s.queues[player] == nil && finished.isEmpty { return ([], nil) }
            if s.queues[player] == nil { s.order.append(player) }
            s.queues[player, default: []] += finished
            s.lastError = error
            if s.since == nil { s.since = Date() }
            var delay: Double?
            if !s.retryArmed && !s.stopped {
                s.retryArmed = true
                delay = s.backoff.failed()
            }
            let all = s.order.flatMap { name in (s.queues[name] ?? []).map { SpooledPlay(player: name, play: $0, error: error) } }
            return (all, delay)
        }
        if let delay { queue.asyncAfter(deadline: .now() + delay) { [weak self] in self?.retry() } }
        guard !finished.isEmpty, let spool else { return }
        do {
            let new = finished.map { SpooledPlay(player: player, play: $0, error: error) }
            if try spool.append(new) { return }
            // No room after lines whose plays were stored since: write only what waits.
            let written = try spool.rewrite(all)
            if written < all.count {
                logger.error("the spool \(spool.path) is full: \(all.count - written) waiting play(s) are kept in memory only")
            }
        } catch {
            logger.error("\(finished.count) play(s) kept in memory only: \(error.description)")
        }
    }
}
