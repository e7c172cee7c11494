import ArgumentParser
import Foundation
import PacenoteApp
import PacenoteCore
import PacenoteOperations
import PacenoteStore

struct HRV: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hrv",
        abstract: "Measure resting heart-rate variability: two minutes still with the strap on.",
        discussion: """
            Reads the RR intervals the strap sends, as the running server stores them (a Bluetooth \
            strap in [[heart_rate.ble]], hr-feed, or pushes to POST /api/v1/hr with rr), over the next \
            two minutes (--seconds), then stores the reading and prints RMSSD and SDNN. Sit or lie \
            still and breathe normally; a morning reading each day makes the trend on /workouts. \
            --last reads the last two minutes already stored instead of waiting (a watch that synced them). \
            Artefacts are left out first: intervals outside 300–2000 ms, then any more than 20 % from \
            the one before (Malik's rule), each replaced by interpolation, as hrv-analysis does. \
            --list prints the stored readings.
            """)

    @OptionGroup var storage: StorageOptions

    @Option(help: ArgumentHelp("How long the reading lasts, 30 to 600 seconds.", valueName: "s"))
    var seconds: Double = HRVReading.standardSeconds

    @Flag(help: "Read the last --seconds already stored instead of waiting for new ones.")
    var last = false

    @Flag(help: "Print the stored resting readings, oldest first.")
    var list = false

    func validate() throws {
        guard HRVReading.allowedSeconds.contains(seconds) else {
            throw ValidationError("--seconds: 30 to 600, not \(Self.one(seconds))")
        }
    }

    func run() throws {
        let config = try storage.loadConfig()
        let store = try PacenoteServer.openStore(config: config)
        defer { try? store.close() }
        if list {
            for r in try store.hrvReadings(from: .distantPast, to: .distantFuture) { print(Self.line(r)) }
            return
        }
        let operations = Operations(store: store, events: nil)
        let now = Date()
        let start = last ? now.addingTimeInterval(-seconds) : now
        let reading = try operations.startHRVReading(at: start, ends: start.addingTimeInterval(seconds))
        if !last {
            FileHandle.standardError.write(Data("Sit still with the strap on: measuring for \(counted(Int(seconds), "second")).\n".utf8))
            // After a little while, say so if no beat has come: waiting the rest would be for nothing.
            let check = min(20, seconds / 2)
            Thread.sleep(forTimeInterval: check)
            if try store.rrIntervals(from: start, to: Date()).isEmpty {
                Failure.warn("no RR intervals have arrived in \(counted(Int(check), "second")): is the strap on, and is pacenote serve (or hr-feed) receiving it?")
            }
            // A second past the end: the last readings of the window may still be on their way.
            Thread.sleep(forTimeInterval: max(0, reading.endsAt.timeIntervalSinceNow) + 1)
        }
        let done = try operations.completeHRVReading(reading)
        guard done.figures != nil else {
            let received = try store.rrIntervals(from: reading.startedAt, to: reading.endsAt).count
            throw Failure("too few clean RR intervals (\(counted(received, "interval")) received, at least "
                          + "\(HeartRateVariability.minimumBeats) needed, at most a fifth left out): is the strap on and sending RR intervals?")
        }
        print(Self.line(done))
    }

    static func line(_ r: HRVReading) -> String {
        let when = ISO8601DateFormatter().string(from: r.startedAt)
        guard r.done else { return "\(when)  measuring until \(ISO8601DateFormatter().string(from: r.endsAt))" }
        guard let h = r.figures else { return "\(when)  too few clean beats" }
        return "\(when)  RMSSD \(Self.one(h.rmssd)) ms  SDNN \(Self.one(h.sdnn)) ms  mean RR \(Self.one(h.meanNN)) ms  "
            + "\(counted(h.beats, "beat")), \(h.outliers) outside 300–2000 ms, \(h.ectopic) ectopic"
    }

    /// One decimal, without a trailing ".0".
    static func one(_ v: Double) -> String {
        let r = (v * 10).rounded() / 10
        return r == r.rounded() ? String(Int(r)) : String(r)
    }
}
