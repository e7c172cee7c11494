import Foundation
import PacenoteBluetooth
import PacenoteCore
import PacenoteNet
import Synchronization

/// `pacenote hr-feed`: heart rate (and, on JSON lines, motion: `speed`, `cadence`, …, as
/// `POST /api/v1/hr` takes them) from standard input (a strap bridge, `gatttool`, a script)
/// to a running server. A reading is sent as soon as it is read when no request is
/// on its way (a strap's 1–4 readings a second reach the live value within milliseconds,
/// issue 21); readings read meanwhile go together in the next request, so a fast input is
/// sent in batches. While the server cannot be reached, samples go to a bounded file on
/// disk and are sent, oldest first, when it answers again: nothing is lost across a server
/// restart, or across a restart of hr-feed itself.
public final class HeartRateFeed: @unchecked Sendable {
    public typealias Reading = HeartRateInput.Reading

    // @unchecked Sendable: `pending`, `previous`, `flushScheduled` and `fatal` are guarded by
    // `lock`; the buffer file, `reachable`, `stopped` and the counters are only touched on `queue`.
    public struct Settings: Sendable {
        public var url: URL
        public var key: String
        public var format: HeartRateInput.LineFormat
        public var source: String
        /// Readings per request at most.
        public var batchSize: Int
        /// How often what waits is sent (or, with the server away, kept in the buffer file)
        /// when no reading came to send it.
        public var flushInterval: Double
        public var bufferPath: String
        public var bufferLimit: Int

        public init(url: URL, key: String, format: HeartRateInput.LineFormat, source: String, batchSize: Int = 100,
                    flushInterval: Double = 1, bufferPath: String, bufferLimit: Int = 1_000_000) {
            self.url = url
            self.key = key
            self.format = format
            self.source = source
            self.batchSize = batchSize
            self.flushInterval = flushInterval
            self.bufferPath = bufferPath
            self.bufferLimit = bufferLimit
        }
    }

    public enum FeedError: Error, CustomStringConvertible {
        /// The server refuses the key: nothing can be sent until it is fixed.
        case keyRefused(String)
        /// The server refuses these samples (400, 413): sending them again cannot help.
        case refused(String)
        public var description: String {
            switch self { case .keyRefused(let m), .refused(let m): m }
        }
        var isKeyProblem: Bool { if case .keyRefused = self { true } else { false } }
    }

    struct BufferError: Error, CustomStringConvertible {
        var description: String
    }

    let settings: Settings
    let log: @Sendable (String) -> Void
    /// libcurl through PacenoteNet, as the forwarder and the friends' poller send (not
    /// URLSession: FoundationNetworking would link a second HTTP stack into every command).
    private let client = HTTPClient(userAgent: ForwardService.userAgent)
    /// Sending (network and the buffer file) happens here, never on the reading path, so
    /// readings are timestamped as they arrive even while the server is slow.
    private let queue = DispatchQueue(label: "pacenote.hr-feed")
    /// Guards `pending`, `previous`, `flushScheduled`, `fatal` and the counters.
    private let lock = NSLock()
    private var pending: [Reading] = []
    private var flushScheduled = false
    /// The time of the previous reading, in ms: readings are unique per source and
    /// millisecond, so lines read within the same millisecond are spread 1 ms apart.
    private var previous: Double?
    /// Only on `queue`.
    private var lastAttempt = Date.distantPast
    private var reachable = true
    /// Under `lock`: the reading path checks it without waiting for a request on its way.
    private var fatal: FeedError?
    /// Set by `stop()`: nothing is sent or written after it.
    private var stopped = false
    private(set) public var sent = 0
    private(set) public var rejected = 0  // lines that were not readings

    public init(settings: Settings, log: @escaping @Sendable (String) -> Void) {
        self.settings = settings
        self.log = log
    }

    /// Reads `input` to its end, sending as it goes, then sends what is left. Returns the
    /// number of samples still buffered on disk (0 when everything reached the server).
    /// Returns nil when a signal stopped it (`drain`): the signal's handler has the last word.
    public func run(input: FileHandle, drain: InputDrain) throws -> Int? {
        // libcurl is loaded at the first send here, not before reading: lines waiting in the
        // pipe are read (and kept, if a signal comes) first.
        let timer = startTimer()
        defer { timer.cancel() }
        var lineNumber = 0
        for line in LineReader(input, drain: drain) {
            lineNumber += 1
            take(HeartRateInput.readings(line, format: settings.format, now: Date()), where: "line \(lineNumber)")
            if let fatal = lock.withLock({ self.fatal }) { throw keepPending(fatal) }
        }
        if drain.wasStopped { return nil }
        // End of input: send everything, retrying for a while if the server is away.
        let deadline = Date().addingTimeInterval(10)
        var left = 0
        repeat {
            queue.sync { lastAttempt = .distantPast; flush() }
            if let fatal = lock.withLock({ self.fatal }) { throw keepPending(fatal) }
            left = lock.withLock { pending.count } + queue.sync { (try? readBuffer().count) ?? 0 }
            if left > 0 { Thread.sleep(forTimeInterval: 0.5) }
        } while left > 0 && Date() < deadline
        return left
    }

    /// Reads a Bluetooth strap through BlueZ (`hr-feed --ble`), sending each reading as it
    /// comes, until `stop()` (a signal) ends the process, or the server refuses the key.
    public func run(strap: HeartRateStrap.Settings) throws {
        // libcurl loaded before the strap is joined: its first reading is sent as fast as the rest.
        try HTTPClient.load()
        let timer = startTimer()
        defer { timer.cancel() }
        let lastProblem = Mutex<String?>(nil), lastRejection = Mutex<String?>(nil)
        let strap = HeartRateStrap(settings: strap, log: log, onState: { [log] state in
            let changed = lastProblem.withLock { last -> Bool in
                defer { last = state.problem }
                return last != state.problem
            }
            if changed, let problem = state.problem { log(problem) }
        }, onNotification: { [self] bytes, at in
            // A strap without skin contact says so several times a second: told once.
            let result = HeartRateInput.sample(fromBLE: bytes, at: at)
            let reason: String? = if case .failure(let r) = result { "\(r.field): \(r.message)" } else { nil }
            let changed = lastRejection.withLock { last -> Bool in
                defer { last = reason }
                return last != reason
            }
            if case .success = result {
                if changed { log("readings again") }
                take([result.map { Reading(heartRate: $0) }], where: "notification")
            } else if changed, let reason {
                log("notification: \(reason)")
            }
        })
        strap.start()
        defer { strap.stop() }
        while true {
            if let fatal = lock.withLock({ self.fatal }) { throw keepPending(fatal) }
            Thread.sleep(forTimeInterval: 0.5)
        }
    }

    private func startTimer() -> DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + settings.flushInterval, repeating: settings.flushInterval)
        timer.setEventHandler { [self] in flush() }
        timer.resume()
        return timer
    }

    /// Takes readings (or the reasons they are not): sent at once unless a request is on its way.
    private func take(_ results: [Result<Reading, HeartRateInput.Rejection>], where place: String) {
        let scheduleFlush = lock.withLock { () -> Bool in
            for result in results {
                switch result {
                case .success(var sample):
                    var ms = (sample.at.timeIntervalSince1970 * 1000).rounded()
                    if let previous, ms <= previous, previous - ms < 1000 { ms = previous + 1 }
                    previous = ms
                    sample.at = Date(timeIntervalSince1970: ms / 1000)  // the motion's time too
                    pending.append(sample)
                case .failure(let r):
                    rejected += 1
                    log("\(place): \(r.field): \(r.message)")
                }
            }
            guard !pending.isEmpty, !flushScheduled else { return false }
            flushScheduled = true
            return true
        }
        if scheduleFlush { queue.async { [self] in flush(onReading: true) } }
    }

    /// After a refusal that sending again cannot mend: what was read and not sent goes to
    /// the buffer file, for a run with the right key. Returns the refusal.
    private func keepPending(_ error: FeedError) -> FeedError {
        queue.sync {
            if !stopped {
                spill(lock.withLock { () -> [Reading] in
                    defer { pending = [] }
                    return pending
                })
            }
        }
        return error
    }

    /// Stops the feed from another thread (SIGINT, SIGTERM) while `run` may still be
    /// reading: what is pending is sent once more (or, with the server away or the key
    /// refused, added to the buffer file), after which nothing is sent or written — so the
    /// process can exit without cutting a write in half. Returns the number of samples
    /// left in the buffer file.
    public func stop() -> Int {
        queue.sync {
            if !stopped {
                flush()
                spill(lock.withLock { () -> [Reading] in
                    defer { pending = [] }
                    return pending
                })
                stopped = true
            }
            return (try? readBuffer().count) ?? 0
        }
    }

    /// On `queue`: sends the buffer file first (oldest first), then what is pending; what
    /// cannot be sent goes to the buffer file. Nothing is dropped on any path.
    private func flush(onReading: Bool = false) {
        let refused = lock.withLock { () -> Bool in
            flushScheduled = false
            return fatal != nil
        }
        guard !refused, !stopped else { return }
        // While the server is away, readings wait for the timer: spilling each one as it is
        // read would rewrite the buffer file at the strap's rate.
        if onReading, !reachable { return }
        let taken = lock.withLock { () -> [Reading] in
            defer { pending = [] }
            return pending
        }
        // While the server is away, try again at most every 2 s.
        if !reachable, Date().timeIntervalSince(lastAttempt) < 2 {
            spill(taken)
            return
        }
        lastAttempt = Date()
        var unsent = taken
        do {
            var buffered = try readBuffer()
            try sendChunks(&buffered, size: 10_000) { rest throws in try writeBuffer(rest) }
            try sendChunks(&unsent, size: settings.batchSize) { _ in }
            if !reachable { log("server reachable again") }
            reachable = true
        } catch let error as FeedError {
            // The key is refused: keep everything on disk for a run with the right key.
            spill(unsent)
            lock.withLock { fatal = error }
        } catch let error as BufferError {
            // The buffer file cannot be read or written: keep the samples in memory.
            log(error.description)
            lock.withLock { pending = unsent + pending }
        } catch {
            if reachable { log("server unreachable (\(error)); buffering in \(settings.bufferPath)") }
            reachable = false
            spill(unsent)
        }
    }

    /// Sends `samples` in requests of at most `size` (the server takes 10,000), removing each
    /// chunk once the server has it (then `afterChunk` sees what is left). Samples the server
    /// refuses for good are set aside; a refused key or an unreachable server stops with the
    /// rest intact.
    private func sendChunks(_ samples: inout [Reading], size: Int,
                            afterChunk: ([Reading]) throws -> Void) throws {
        while !samples.isEmpty {
            let chunk = Array(samples.prefix(min(size, 10_000)))
            do {
                try post(chunk)
            } catch let error as FeedError where !error.isKeyProblem {
                setAside(chunk, because: error)
            }
            samples.removeFirst(chunk.count)
            try afterChunk(samples)
        }
    }

    private func post(_ samples: [Reading]) throws {
        let url = settings.url.appendingPathComponent("api/v1/hr").absoluteString
        let response = try client.sendBlocking(HTTPClient.Request(
            method: "POST", url: url,
            headers: [("Content-Type", "application/json"), ("Authorization", "Token \(settings.key)")],
            body: Array(Self.encode(samples, source: settings.source)), timeout: 10))
        let body = response.text
        switch response.status {
        case 200: sent += samples.count
        case 401: throw FeedError.keyRefused("the server refused the API key (see pacenote key): \(body)")
        case 429: throw Unanswered.lockedOut  // locked out for a minute: try again later
        case 400..<500: throw FeedError.refused("the server refused the samples (\(response.status)): \(body)")
        default: throw Unanswered.status(response.status)
        }
    }

    /// The server did not take the samples this time; they stay buffered for the next try.
    enum Unanswered: Error, CustomStringConvertible {
        case lockedOut
        case status(Int)
        var description: String {
            switch self {
            case .lockedOut: "locked out for a minute"
            case .status(let status): "status \(status)"
            }
        }
    }

    static func encode(_ samples: [Reading], source: String) -> Data {
        Data(("{\"source\":\(jsonString(source)),\"samples\":[" + samples.map(\.json).joined(separator: ",") + "]}").utf8)
    }

    static func jsonString(_ s: String) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: [s])) ?? Data("[\"\"]".utf8), as: UTF8.self)
            .dropFirst().dropLast().description
    }

    // MARK: The buffer file (one JSON sample per line)

    /// On `queue`: adds samples after those already buffered (bounded, oldest dropped).
    private func spill(_ samples: [Reading]) {
        guard !samples.isEmpty else { return }
        do {
            var all = try readBuffer() + samples
            if all.count > settings.bufferLimit {
                log("buffer full: dropping the oldest \(all.count - settings.bufferLimit) samples")
                all.removeFirst(all.count - settings.bufferLimit)
            }
            try writeBuffer(all)
        } catch {
            log("cannot write the buffer \(settings.bufferPath): \(error); keeping samples in memory")
            lock.withLock { pending = samples + pending }
        }
    }

    /// Samples the server will never take go to `<buffer>.rejected`, for a person to look at.
    private func setAside(_ samples: [Reading], because error: FeedError) {
        let path = settings.bufferPath + ".rejected"
        log("\(samples.count) samples refused by the server, kept in \(path): \(error)")
        let text = samples.map(Self.line).joined()
        do {
            let handle = try PrivateFile.openForWriting(path, append: true)
            try handle.write(contentsOf: Data(text.utf8))
            try handle.close()
        } catch {
            log("cannot keep the refused samples in \(path): \(error)")
        }
    }

    /// The buffered samples; none when there is no buffer file, an error when it exists
    /// but cannot be read (so it is never overwritten by mistake).
    private func readBuffer() throws(BufferError) -> [Reading] {
        guard FileManager.default.fileExists(atPath: settings.bufferPath) else { return [] }
        guard let text = try? String(contentsOfFile: settings.bufferPath, encoding: .utf8) else {
            throw BufferError(description: "cannot read the buffer \(settings.bufferPath)")
        }
        // Each line is a reading as the server takes it, read back the same way (a line that
        // is not one, from a cut write of an older version, is passed over).
        return text.split(separator: "\n").compactMap { line in
            guard case .success(let reading)? = HeartRateInput.readings(String(line), format: .json, now: .distantFuture).first
            else { return nil }
            return reading
        }
    }

    static func line(_ s: Reading) -> String { s.json + "\n" }

    private func writeBuffer(_ samples: [Reading]) throws(BufferError) {
        if samples.isEmpty {
            try? FileManager.default.removeItem(atPath: settings.bufferPath)
            return
        }
        // Write-then-rename: a crash leaves the old buffer or the new one, never half of one.
        do {
            try PrivateFile.write(Data(samples.map(Self.line).joined().utf8), atomicallyTo: settings.bufferPath)
        } catch {
            throw BufferError(description: "cannot write the buffer \(settings.bufferPath): \(error)")
        }
    }
}
