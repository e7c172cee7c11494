import Dispatch
import Foundation
import PacenoteCore
import PacenoteStore
import PacenoteTestSupport
import Synchronization
import Testing
@testable import PacenoteWeb

/// A kept value is computed once for the requests that want it at the same time (they wait
/// for it), and again after a commit; a computation that fails or is not kept leaves each
/// waiting request to compute its own.
@Suite struct CommitCacheTests {
    final class Fixture {
        let dir: TemporaryDirectory
        let store: Store
        init() throws {
            dir = try TemporaryDirectory("commit-cache")
            store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        }
        func commit() throws {
            try store.insertSamples([HeartRateSample(at: Date(), bpm: 120)], source: "test")
        }
    }

    /// `threads` requests at once, each on a thread of its own (as libmicrohttpd's workers
    /// are); returns what each got (nil: it threw).
    static func together(_ threads: Int, _ body: @escaping @Sendable (Int) throws -> Int) -> [Int?] {
        let results = Mutex<[Int?]>(Array(repeating: nil, count: threads))
        let done = DispatchGroup()
        for i in 0..<threads {
            done.enter()
            Thread.detachNewThread {
                let value = try? body(i)
                results.withLock { $0[i] = value }
                done.leave()
            }
        }
        done.wait()
        return results.withLock { $0 }
    }

    @Test func requestsAtTheSameTimeShareOneComputation() throws {
        let fixture = try Fixture()
        let cache = CommitCache<Int>(signal: CacheSignal(store: fixture.store, bus: nil), maxAge: 60)
        let computed = Atomic<Int>(0)
        let compute: @Sendable () -> (Int, keep: Bool) = {
            // Long enough for the others to arrive (the cache shows no waiter to wait on). The
            // outcome does not hang on it: one arriving after the computation finds it kept.
            Thread.sleep(forTimeInterval: 0.2)
            return (computed.add(1, ordering: .relaxed).newValue, true)
        }
        let first = Self.together(8) { _ in cache.value("k", compute: compute) }
        #expect(computed.load(ordering: .relaxed) == 1)
        #expect(first == Array(repeating: 1, count: 8))
        #expect(cache.value("k", compute: compute) == 1, "kept")

        try fixture.commit()
        let afterCommit = Self.together(8) { _ in cache.value("k", compute: compute) }
        #expect(computed.load(ordering: .relaxed) == 2, "a commit: computed again, once")
        #expect(afterCommit == Array(repeating: 2, count: 8))
        // Another key is its own computation.
        #expect(cache.value("other", compute: compute) == 3)
    }

    struct Failure: Error {}

    @Test func whenTheComputationFailsOrIsNotKeptEachComputesItsOwn() throws {
        let fixture = try Fixture()
        for keep in [false, true] {
            let cache = CommitCache<Int>(signal: CacheSignal(store: fixture.store, bus: nil), maxAge: 60)
            let computed = Atomic<Int>(0)
            // The first computation fails (keep: true) or is not kept (keep: false).
            let answers = Self.together(6) { _ in
                try cache.value("k") {
                    let n = computed.add(1, ordering: .relaxed).newValue
                    // Long enough for the others to arrive while it runs (no waiter to wait on);
                    // each computes its own either way.
                    Thread.sleep(forTimeInterval: 0.2)
                    if n == 1 {
                        if keep { throw Failure() }
                        return (-1, false)
                    }
                    return (n, false)
                }
            }
            #expect(computed.load(ordering: .relaxed) == 6, "each request computed its own (keep: \(keep))")
            #expect(answers.compactMap { $0 }.count == (keep ? 5 : 6))
            #expect(Set(answers.compactMap { $0 }).count == (keep ? 5 : 6))
        }
    }
}
