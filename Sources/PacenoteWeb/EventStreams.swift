import CMicroHTTPD
import Foundation
import Metrics
import PacenoteCore
import PacenoteStore

/// One client of `GET /api/v1/events` (Server-Sent Events).
///
/// No thread waits for events: when nothing is queued, libmicrohttpd's content reader
/// suspends the connection (`MHD_suspend_connection`, from inside the reader as the manual
/// requires) and returns 0; a publisher queues bytes and resumes it. Idle subscribers cost
/// a socket and a few bytes each.
final class EventStream: @unchecked Sendable {
    // @unchecked Sendable: every mutable field is guarded by `lock`, and libmicrohttpd's
    // suspend/resume calls are made while holding it, so "suspended" is always true state.
    let id: Int
    private let lock = NSLock()
    private var pending: [UInt8] = []
    private var suspended = false
    private var closed = false
    /// The connection, set when the response is queued (before libmicrohttpd can call
    /// the reader); used under `lock` after that.
    var connection: OpaquePointer?
    /// Called once when libmicrohttpd frees the response (the client went away).
    var onFinished: (@Sendable (EventStream) -> Void)?

    /// A client that lets this much pile up is not reading: it is dropped.
    static let maxPending = 1 << 20

    init(id: Int, initial: [UInt8]) {
        self.id = id
        self.pending = initial
    }

    func push(_ bytes: [UInt8]) {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { return }
        pending += bytes
        if pending.count > Self.maxPending { closed = true; pending = [] }
        wake()
    }

    func close() {
        lock.lock()
        defer { lock.unlock() }
        closed = true
        wake()
    }

    var isClosed: Bool { lock.withLock { closed } }

    /// Under `lock`: resumes the connection if the reader suspended it.
    private func wake() {
        if suspended, let connection {
            suspended = false
            MHD_resume_connection(connection)
        }
    }

    /// libmicrohttpd's content reader, on its thread.
    func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        if !pending.isEmpty {
            let n = min(max, pending.count)
            pending.withUnsafeBytes { raw in
                UnsafeMutableRawPointer(buffer).copyMemory(from: raw.baseAddress!, byteCount: n)
            }
            pending.removeFirst(n)
            return n
        }
        if closed { return -1 }  // MHD_CONTENT_READER_END_OF_STREAM
        if let connection {
            suspended = true
            MHD_suspend_connection(connection)
        }
        return 0
    }
}

/// Turns events on the bus into Server-Sent Events for every subscriber, keeps the last
/// `replay` events so a client reconnecting with `Last-Event-ID` misses nothing, and sends
/// a comment every `heartbeat` seconds so dead connections are noticed and proxies keep
/// the stream open.
public final class EventStreamHub: @unchecked Sendable {
    // @unchecked Sendable: `streams`, `ring`, `nextID`, `nextStream` and `closing` are guarded by `lock`.
    private let lock = NSLock()
    private var streams: [Int: EventStream] = [:]
    private var ring: [(id: Int, frame: [UInt8])] = []
    private var nextID = 1
    private var nextStream = 1
    private let replay: Int
    private let heartbeatInterval: Double
    private let timer: DispatchSourceTimer
    private var subscription: EventBus.Subscription?
    private let bus: EventBus?

    public init(bus: EventBus?, replay: Int = 500, heartbeat: Double = 15) {
        self.bus = bus
        self.replay = replay
        self.heartbeatInterval = heartbeat
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "pacenote.sse-heartbeat"))
        // Armed only while someone listens: an idle server never wakes up for it.
        timer.schedule(deadline: .distantFuture)
        timer.setEventHandler { [weak self] in self?.heartbeat() }
        timer.resume()
        subscription = bus?.subscribe { [weak self] event in self?.publish(event) }
    }

    deinit {
        timer.cancel()
        if let subscription { bus?.unsubscribe(subscription) }
    }

    public var subscriberCount: Int { lock.withLock { streams.count } }

    /// Queues an event for every subscriber.
    public func publish(_ event: PacenoteEvent) {
        guard let (name, data) = EventStreamHub.encode(event) else { return }
        lock.lock()
        let id = nextID
        nextID += 1
        let frame = Array("id: \(id)\nevent: \(name)\ndata: ".utf8) + data.serialized() + Array("\n\n".utf8)
        ring.append((id, frame))
        if ring.count > replay { ring.removeFirst(ring.count - replay) }
        // Pushed while holding the hub's lock, so every subscriber gets the frames in id
        // order. (A stream's lock is only ever taken inside this one, never around it.)
        for stream in streams.values { stream.push(frame) }
        lock.unlock()
    }

    /// A new subscriber; with `lastEventID`, the events it missed come first. Once the
    /// server is closing, the stream is born closed: it ends after its first bytes.
    func open(lastEventID: Int?) -> EventStream {
        lock.lock()
        defer { lock.unlock() }
        if closing {
            let stream = EventStream(id: 0, initial: Array(": closing\n\n".utf8))
            stream.close()
            return stream
        }
        var initial = Array("retry: 3000\n: connected\n\n".utf8)
        if let lastEventID {
            for entry in ring where entry.id > lastEventID { initial += entry.frame }
        }
        let stream = EventStream(id: nextStream, initial: initial)
        stream.onFinished = { [weak self] stream in self?.remove(stream) }
        nextStream += 1
        streams[stream.id] = stream
        if streams.count == 1 { timer.schedule(deadline: .now() + heartbeatInterval, repeating: heartbeatInterval) }
        Gauge(label: "pacenote_sse_subscribers").record(streams.count)
        return stream
    }

    func remove(_ stream: EventStream) {
        let count = lock.withLock { () -> Int in
            streams.removeValue(forKey: stream.id)
            if streams.isEmpty { timer.schedule(deadline: .distantFuture) }
            return streams.count
        }
        Gauge(label: "pacenote_sse_subscribers").record(count)
    }

    /// Ends every stream and refuses new ones (before the server stops: libmicrohttpd
    /// must not be stopped with a suspended connection).
    public func closeAll() {
        let all = lock.withLock { () -> [EventStream] in
            closing = true
            return Array(streams.values)
        }
        for stream in all { stream.close() }
    }

    private var closing = false

    private func heartbeat() {
        lock.withLock {
            for stream in streams.values { stream.push(Array(": keep-alive\n\n".utf8)) }
        }
    }

    /// The event's name and data on the stream; nil for what the page has no use for.
    static func encode(_ event: PacenoteEvent) -> (String, JSONValue)? {
        switch event {
        case .changed:
            // Bookkeeping for caches: the page already hears of new plays as play_logged.
            return nil
        case .nowPlaying(let player, let now):
            return ("now_playing", .object([("player", .string(player)), ("now_playing", now.map(APIJSON.nowPlaying) ?? .null)]))
        case .playLogged(let id, var play, let track):
            play.id = id
            return ("play_logged", APIJSON.listen(PlayWithTrack(play: play, track: track)))
        case .playerConnection(let status):
            return ("player", APIJSON.player(status, nowPlaying: nil))
        case .heartRate(let bpm, let zone, let at):
            return ("heart_rate", .object([("bpm", .int(Int64(bpm.rounded()))), ("zone", .int(Int64(zone.rawValue))),
                                           ("at", APIJSON.timestamp(at))]))
        case .zoneChanged(let from, let to):
            return ("zone_changed", .object([("from", .optional(from?.rawValue)), ("to", .int(Int64(to.rawValue)))]))
        case .workoutStarted(let id, let at):
            return ("workout_started", .object([("id", .int(id)), ("at", APIJSON.timestamp(at))]))
        case .workoutEnded(let id, let at):
            return ("workout_ended", .object([("id", .int(id)), ("at", APIJSON.timestamp(at))]))
        }
    }
}
