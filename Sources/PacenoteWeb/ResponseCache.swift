import Dispatch
import PacenoteCore
import PacenoteStore
import Synchronization

/// The one rule every cache of the web layer keeps: a value is kept until the data it was
/// made from may have changed, or its cache's `maxAge` passes. "May have changed" is told
/// by one signal, two parts: the changes announced on the bus after their commit (`.changed`,
/// each cache following the set it derives from), and the store's commit count, which every
/// writer of this process moves, announced or not. A kept value goes stale when a change it
/// follows is announced, or when the count moved past the last announcement (a writer that
/// did not announce: anything may have changed). `maxAge` is for other processes (such as
/// `pacenote import`), whose commits move neither.
final class CacheSignal: Sendable {
    /// Where the data stood when a value was made, or stands now.
    struct Stamp: Equatable, Sendable {
        /// `Store.commitCount`.
        var commits: UInt64
        /// How many followed changes were announced.
        var followed: UInt64
        /// The commit count when the last change (followed or not) was announced.
        var announced: UInt64
    }

    private let store: Store
    private let state = Mutex<(followed: UInt64, announced: UInt64)>((0, 0))

    /// Follows every change announced (`.changed`).
    static let everyChange: @Sendable (PacenoteEvent) -> Bool = { if case .changed = $0 { true } else { false } }
    /// Follows the changes to plays (charts, counts, history figures).
    static let playChanges: @Sendable (PacenoteEvent) -> Bool = { if case .changed(let change, _) = $0 { change.touchesPlays } else { false } }

    init(store: Store, bus: EventBus?, follows: @escaping @Sendable (PacenoteEvent) -> Bool = CacheSignal.everyChange) {
        self.store = store
        bus?.subscribe { [weak self, store] event in
            var announcedAt: UInt64?
            if case .changed(_, let commit) = event {
                // The commit the change was announced with (Operations reads it after the
                // commit); 0 from a publisher that gave none: read it now.
                announcedAt = commit != 0 ? commit : store.commitCount
            }
            let isChange = announcedAt != nil
            let follow = follows(event)
            guard isChange || follow else { return }
            let commits = announcedAt ?? 0
            self?.state.withLock { state in
                if follow { state.followed &+= 1 }
                if isChange { state.announced = max(state.announced, commits) }
            }
        }
    }

    /// Now's stamp. Taken before a value is computed: a change meanwhile makes it stale at once.
    func stamp() -> Stamp {
        let (followed, announced) = state.withLock { ($0.followed, $0.announced) }
        return Stamp(commits: store.commitCount, followed: followed, announced: announced)
    }

    /// Whether a value made at `kept` still shows the data as it is at `now`.
    func isFresh(_ kept: Stamp, now: Stamp) -> Bool {
        guard kept.followed == now.followed else { return false }
        return kept.commits == now.commits || now.announced >= now.commits
    }
}

/// A moment for a cache's `maxAge` (monotonic: the time of day may jump).
enum CacheClock {
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Whether `then` is less than `maxAge` before `now`; an entry another thread stamped
    /// after `now` is fresh (the unsigned difference must not be taken the wrong way round).
    static func isYoung(_ then: UInt64, now: UInt64, maxAge: UInt64) -> Bool {
        then >= now || now - then < maxAge
    }
}

/// Values kept by `CacheSignal`'s rule, with the requests that want one while it is being
/// computed waiting for it.
///
/// Why: `/api/v1/listens` spent nearly all of its time building and writing the same 50
/// listens again (perf: the JSON tree and its allocations, ISO 8601, SQLite), 11 % of the
/// server's `/healthz` rate; the dashboard read the same seven things from SQLite per view.
final class CommitCache<Value: Sendable>: Sendable {
    private struct Entry {
        var stamp: CacheSignal.Stamp
        var at: UInt64
        var value: Value
    }

    /// A value being computed, for the requests that want it meanwhile: they wait for it
    /// rather than each computing it again (`value`).
    private final class Flight: @unchecked Sendable {
        // @unchecked Sendable: `value` is written once by the computing thread before it
        // leaves `done`, and read by the others only after `done` lets them through.
        let stamp: CacheSignal.Stamp
        let done = DispatchGroup()
        var value: Value?

        init(stamp: CacheSignal.Stamp) {
            self.stamp = stamp
            done.enter()
        }
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var flights: [String: Flight] = [:]
    }

    private enum Role {
        case kept(Value)
        case wait(Flight)
        case compute(Flight)
    }

    private let state = Mutex(State())
    let signal: CacheSignal
    let maxAgeNanoseconds: UInt64
    let capacity: Int

    init(signal: CacheSignal, maxAge seconds: Double = 1, capacity: Int = 128) {
        self.signal = signal
        maxAgeNanoseconds = UInt64(seconds * 1e9)
        self.capacity = capacity
    }

    /// The kept value for `key` if it is fresh (`CacheSignal`), else `compute()`'s, kept when
    /// it says so. While one request computes it, the others that ask for it at the same
    /// stamp wait for that value: when a page's data went stale, every request in flight read
    /// it again at once, and they queued for the database's readers (the dashboard under wrk,
    /// two readers: p99 646 ms). If the computing one throws or does not keep its value, each
    /// of them computes its own.
    func value(_ key: String, compute: () throws -> (Value, keep: Bool)) rethrows -> Value {
        // Read before `compute` reads: a commit meanwhile makes the entry stale at once.
        let stamp = signal.stamp()
        let now = CacheClock.now()
        let role = state.withLock { state -> Role in
            if let hit = state.entries[key], signal.isFresh(hit.stamp, now: stamp),
               CacheClock.isYoung(hit.at, now: now, maxAge: maxAgeNanoseconds) { return .kept(hit.value) }
            if let flight = state.flights[key], flight.stamp == stamp { return .wait(flight) }
            let flight = Flight(stamp: stamp)
            state.flights[key] = flight
            return .compute(flight)
        }
        switch role {
        case .kept(let value):
            return value
        case .wait(let flight):
            flight.done.wait()
            if let value = flight.value { return value }
            return try compute().0
        case .compute(let flight):
            defer {
                state.withLock { state in
                    if state.flights[key] === flight { state.flights[key] = nil }
                }
                flight.done.leave()
            }
            let (value, keep) = try compute()
            guard keep else { return value }
            flight.value = value
            let entry = Entry(stamp: stamp, at: now, value: value)
            state.withLock { state in
                if state.entries.count >= capacity, state.entries[key] == nil { state.entries.removeAll(keepingCapacity: true) }
                state.entries[key] = entry
            }
            return value
        }
    }

    /// The kept value, or `compute()`'s, always kept.
    func kept(_ key: String, _ compute: () throws -> Value) rethrows -> Value {
        try value(key) { (try compute(), keep: true) }
    }
}

/// Whole responses of handlers whose answer depends only on the request's query and the
/// database (behind the access decision): a 200 is kept with its ETag, so it is hashed once.
final class ResponseCache: Sendable {
    private let cache: CommitCache<HTTPResponse>

    init(signal: CacheSignal) {
        cache = CommitCache(signal: signal)
    }

    func response(_ key: String, render: () throws -> HTTPResponse) rethrows -> HTTPResponse {
        try cache.value(key) {
            var response = try render()
            guard response.status == 200, response.stream == nil else { return (response, false) }
            response.headers.append(("ETag", HTTPServer.entityTag(response.body)))
            return (response, true)
        }
    }

    /// A key for a query: its parameters in order, so `a=1&b=2` and `b=2&a=1` share one entry.
    static func key(_ route: String, _ query: [String: String]) -> String {
        var key = route
        for (name, value) in query.sorted(by: { $0.key < $1.key }) {
            key += "\u{0}" + name + "\u{1}" + value
        }
        return key
    }
}

/// Whole pages kept by everything they show (`Key`: what the page was made of, compared
/// whole) and by `CacheSignal`'s rule, for at most `maxAge`: a page of live figures asked for
/// many times a second is made once. Why: the dashboard spent seven tenths of its time
/// building and writing the same 4 KiB of markup (perf under wrk), which held it to a third
/// of `/healthz`'s rate.
final class PageCache<Key: Equatable & Sendable>: Sendable {
    private struct Entry {
        var key: Key
        var stamp: CacheSignal.Stamp
        var at: UInt64
        var response: HTTPResponse
    }

    private let entries = Mutex<[Entry]>([])
    let signal: CacheSignal
    let maxAgeNanoseconds: UInt64
    let capacity: Int

    init(signal: CacheSignal, maxAge seconds: Double = 1, capacity: Int = 8) {
        self.signal = signal
        maxAgeNanoseconds = UInt64(seconds * 1e9)
        self.capacity = capacity
    }

    /// `stamp`: taken before the page's data was read.
    func response(_ key: Key, stamp: CacheSignal.Stamp, render: () throws -> HTTPResponse) rethrows -> HTTPResponse {
        let now = CacheClock.now()
        func isFresh(_ entry: Entry) -> Bool {
            signal.isFresh(entry.stamp, now: stamp) && CacheClock.isYoung(entry.at, now: now, maxAge: maxAgeNanoseconds)
        }
        if let hit = entries.withLock({ $0.last { $0.key == key && isFresh($0) } }) { return hit.response }
        let response = try render()
        guard response.status == 200, response.stream == nil else { return response }
        entries.withLock { entries in
            entries.removeAll { $0.key == key || !isFresh($0) }
            if entries.count >= capacity { entries.removeFirst() }
            entries.append(Entry(key: key, stamp: stamp, at: now, response: response))
        }
        return response
    }
}
