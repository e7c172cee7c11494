import Dispatch
import PacenoteStore
import Synchronization

/// Values kept until this process commits anything to the database (`Store.commitCount`:
/// every writer of ours, announced or not — plays, imports, deletes, pins, feelings,
/// heart-rate tagging, the library mirror) or `maxAge` passes (another process, such as
/// `pacenote import`, wrote: its commits do not move our count).
///
/// Why: `/api/v1/listens` spent nearly all of its time building and writing the same 50
/// listens again (perf: the JSON tree and its allocations, ISO 8601, SQLite), 11 % of the
/// server's `/healthz` rate; the dashboard read the same seven things from SQLite per view.
final class CommitCache<Value: Sendable>: Sendable {
    private struct Entry {
        var commits: UInt64
        var at: UInt64
        var value: Value
    }

    /// A value being computed, for the requests that want it meanwhile: they wait for it
    /// rather than each computing it again (`value`).
    private final class Flight: @unchecked Sendable {
        // @unchecked Sendable: `value` is written once by the computing thread before it
        // leaves `done`, and read by the others only after `done` lets them through.
        let commits: UInt64
        let done = DispatchGroup()
        var value: Value?

        init(commits: UInt64) {
            self.commits = commits
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
    let maxAgeNanoseconds: UInt64
    let capacity: Int

    init(maxAge seconds: Double = 1, capacity: Int = 128) {
        maxAgeNanoseconds = UInt64(seconds * 1e9)
        self.capacity = capacity
    }

    /// The kept value for `key` if nothing was committed since it was computed, else
    /// `compute()`'s, kept when it says so. While one request computes it, the others that
    /// ask for it with the same commits wait for that value: when a page's data went stale,
    /// every request in flight read it again at once, and they queued for the database's
    /// readers (the dashboard under wrk, two readers: p99 646 ms). If the computing one
    /// throws or does not keep its value, each of them computes its own.
    func value(_ key: String, store: Store, compute: () throws -> (Value, keep: Bool)) rethrows -> Value {
        // Read before `compute` reads: a commit meanwhile makes the entry stale at once.
        let commits = store.commitCount
        let now = DispatchTime.now().uptimeNanoseconds
        let role = state.withLock { state -> Role in
            if let hit = state.entries[key], hit.commits == commits, now &- hit.at < maxAgeNanoseconds { return .kept(hit.value) }
            if let flight = state.flights[key], flight.commits == commits { return .wait(flight) }
            let flight = Flight(commits: commits)
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
            let entry = Entry(commits: commits, at: now, value: value)
            state.withLock { state in
                if state.entries.count >= capacity, state.entries[key] == nil { state.entries.removeAll(keepingCapacity: true) }
                state.entries[key] = entry
            }
            return value
        }
    }
}

/// Whole responses of handlers whose answer depends only on the request's query and the
/// database (behind the access decision): a 200 is kept with its ETag, so it is hashed once.
final class ResponseCache: Sendable {
    private let cache = CommitCache<HTTPResponse>()

    func response(_ key: String, store: Store, render: () throws -> HTTPResponse) rethrows -> HTTPResponse {
        try cache.value(key, store: store) {
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
/// whole), for at most `maxAge`: a page of live figures asked for many times a second is
/// made once. Why: the dashboard spent seven tenths of its time building and writing the
/// same 4 KiB of markup (perf under wrk), which held it to a third of `/healthz`'s rate.
final class PageCache<Key: Equatable & Sendable>: Sendable {
    private struct Entry {
        var key: Key
        var at: UInt64
        var response: HTTPResponse
    }

    private let entries = Mutex<[Entry]>([])
    let maxAgeNanoseconds: UInt64
    let capacity: Int

    init(maxAge seconds: Double = 1, capacity: Int = 8) {
        maxAgeNanoseconds = UInt64(seconds * 1e9)
        self.capacity = capacity
    }

    func response(_ key: Key, render: () throws -> HTTPResponse) rethrows -> HTTPResponse {
        let now = DispatchTime.now().uptimeNanoseconds
        if let hit = entries.withLock({ $0.last { $0.key == key && now &- $0.at < maxAgeNanoseconds } }) { return hit.response }
        let response = try render()
        guard response.status == 200, response.stream == nil else { return response }
        entries.withLock { entries in
            entries.removeAll { $0.key == key || now &- $0.at >= maxAgeNanoseconds }
            if entries.count >= capacity { entries.removeFirst() }
            entries.append(Entry(key: key, at: now, response: response))
        }
        return response
    }
}
