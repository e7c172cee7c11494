import Logging
import PacenoteApp
import Synchronization
import Testing

/// The daemon's parts start in order, stop in reverse, and a failed start undoes the rest.
@Suite struct ServiceGroupTests {
    /// What the parts did, in order.
    final class Journal: Sendable {
        let entries = Mutex<[String]>([])
        func note(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    struct Refused: Error {}

    let logger = Logger(label: "test")

    @Test func partsStartInOrderAndStopInReverseOnce() throws {
        let journal = Journal()
        let group = ServiceGroup(logger: logger)
        for name in ["database", "heart rate", "http"] {
            let value = try group.start(name, { journal.note("start \(name)"); return name.count },
                                        stop: { count in journal.note("stop \(name) \(count)") })
            #expect(value == name.count)
        }
        #expect(group.names == ["database", "heart rate", "http"])
        group.stop()
        group.stop()
        #expect(journal.all == ["start database", "start heart rate", "start http",
                                "stop http 4", "stop heart rate 10", "stop database 8"])
        #expect(group.names.isEmpty)
    }

    @Test func aFailedStartStopsWhatStartedInReverseAndRethrows() throws {
        let journal = Journal()
        let group = ServiceGroup(logger: logger)
        try group.start("database", { journal.note("start database") }, stop: { _ in journal.note("stop database") })
        try group.start("recommender", { journal.note("start recommender") }, stop: { _ in journal.note("stop recommender") })
        #expect(throws: Refused.self) {
            try group.start("http", { () throws -> Void in
                journal.note("start http")
                throw Refused()
            }, stop: { _ in journal.note("stop http") })
        }
        #expect(journal.all == ["start database", "start recommender", "start http", "stop recommender", "stop database"])
        #expect(group.names.isEmpty)
        group.stop()
        #expect(journal.all.count == 5, "nothing is stopped twice")
    }

    /// A part that cannot stop (a watcher stuck in a call to MPD) may still use the parts
    /// started before it: they are left as they are.
    @Test func aPartThatCannotStopKeepsThePartsBeforeIt() throws {
        let journal = Journal()
        let group = ServiceGroup(logger: logger)
        try group.start("database", {}, stop: { _ in journal.note("stop database") })
        try group.start("mpd watchers", {}, stop: { _ in
            journal.note("stop mpd watchers")
            throw Refused()
        })
        try group.start("http", {}, stop: { _ in journal.note("stop http") })
        group.stop()
        #expect(journal.all == ["stop http", "stop mpd watchers"])
    }
}
