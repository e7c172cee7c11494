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
    /// Who opened it (`Authorization.client`), for the per-client cap.
    let client: String
    let openedAt = DispatchTime.now()
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

    init(id: Int, client: String, initial: [UInt8]) {
        self.id = id
        self.client = client
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
///
/// Streams are capped overall and per client (so that they never take every connection and
/// `/healthz` always answers) and end after `Limits.lifetime` (the browser reconnects with
/// `Last-Event-ID`, missing nothing); a client that stops reading is dropped once 1 MiB
/// waits for it, or by libmicrohttpd's inactivity timeout once nothing can be sent.
public final class EventStreamHub: @unchecked Sendable {
    // @unchecked Sendable: `streams`, `perClient`, `ring`, `nextID`, `nextStream` and
    // `closing` are guarded by `lock`.
    public struct Limits: Sendable {
        /// Streams open at once (`server.max_event_streams`).
        public var streams: Int
        /// Streams one client may have open (`server.max_event_streams_per_client`).
        public var perClient: Int
        /// Seconds before a stream is ended, to be opened again (`server.event_stream_max_s`).
        public var lifetime: Double

        public init(streams: Int = 256, perClient: Int = 16, lifetime: Double = 3600) {
            self.streams = streams
            self.perClient = perClient
            self.lifetime = lifetime
        }
    }

    private let lock = NSLock()
    private var streams: [Int: EventStream] = [:]
    private var perClient: [String: Int] = [:]
    private let limits: Limits
    private var ring: [(id: Int, frame: [UInt8])] = []
    private var nextID = 1
    private var nextStream = 1
    private let replay: Int
    private let heartbeatInterval: Double
    private let timer: DispatchSourceTimer
    private var subscription: EventBus.Subscription?
    private let bus: EventBus?

    private let clock: WebClock

    public init(bus: EventBus?, clock: WebClock, replay: Int = 500, heartbeat: Double = 15, limits: Limits = Limits()) {
        self.bus = bus
        self.clock = clock
        self.limits = limits
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

    /// The id of the last event published (0 before the first): a page made now has seen
    /// everything up to it, and follows the stream from there (`last_event_id`).
    public var lastEventID: Int { lock.withLock { nextID - 1 } }

    /// Queues an event for every subscriber.
    public func publish(_ event: PacenoteEvent) {
        guard let (name, data) = EventStreamHub.encode(event, at: clock.now()) else { return }
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

    /// `GET /api/v1/events` for `client`: the stream, or a refusal with `Retry-After` when
    /// the client (429) or everyone (503) has as many streams as allowed.
    func response(lastEventID: Int?, client: String) -> HTTPResponse {
        let stream: EventStream
        switch open(lastEventID: lastEventID, client: client) {
        case .success(let opened): stream = opened
        case .failure(let refusal): return HTTPServer.busy(refusal, retryAfter: 30)
        }
        var response = HTTPResponse(status: 200, headers: [
            ("Content-Type", "text/event-stream; charset=utf-8"),
            ("Cache-Control", "no-cache"),
            // nginx would otherwise buffer the stream.
            ("X-Accel-Buffering", "no"),
        ])
        response.stream = stream
        return response
    }

    /// A new subscriber; with `lastEventID`, the events it missed come first. Once the
    /// server is closing, the stream is born closed: it ends after its first bytes.
    func open(lastEventID: Int?, client: String) -> Result<EventStream, APIError> {
        lock.lock()
        defer { lock.unlock() }
        if closing {
            let stream = EventStream(id: 0, client: client, initial: Array(": closing\n\n".utf8))
            stream.close()
            return .success(stream)
        }
        guard perClient[client, default: 0] < limits.perClient else {
            Counter(label: "pacenote_sse_refused_total", dimensions: [("reason", "client")]).increment()
            return .failure(APIError(kind: .tooManyRequests, code: "too_many_streams",
                                     message: "this client has \(limits.perClient) event streams open already"))
        }
        guard streams.count < limits.streams else {
            Counter(label: "pacenote_sse_refused_total", dimensions: [("reason", "server")]).increment()
            return .failure(APIError(kind: .unavailable, code: "too_many_streams",
                                     message: "the server has as many event streams open as it allows"))
        }
        var initial = Array("retry: 3000\n: connected\n\n".utf8)
        if let lastEventID {
            for entry in ring where entry.id > lastEventID { initial += entry.frame }
        }
        let stream = EventStream(id: nextStream, client: client, initial: initial)
        stream.onFinished = { [weak self] stream in self?.remove(stream) }
        nextStream += 1
        streams[stream.id] = stream
        perClient[client, default: 0] += 1
        if streams.count == 1 {
            // Ticks often enough to end streams on time when their lifetime is short.
            let tick = min(heartbeatInterval, max(0.5, limits.lifetime))
            timer.schedule(deadline: .now() + tick, repeating: tick)
        }
        Gauge(label: "pacenote_sse_subscribers").record(streams.count)
        return .success(stream)
    }

    func remove(_ stream: EventStream) {
        let count = lock.withLock { () -> Int in
            if streams.removeValue(forKey: stream.id) != nil {
                let left = perClient[stream.client, default: 1] - 1
                perClient[stream.client] = left > 0 ? left : nil
            }
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

    /// A comment for every stream; streams past their lifetime end instead.
    private func heartbeat() {
        let now = DispatchTime.now().uptimeNanoseconds
        let lifetime = UInt64(limits.lifetime * 1e9)
        lock.withLock {
            for stream in streams.values {
                if now &- stream.openedAt.uptimeNanoseconds >= lifetime {
                    stream.close()
                } else {
                    stream.push(Array(": keep-alive\n\n".utf8))
                }
            }
        }
    }

    /// The event's name and data on the stream; nil for what the page has no use for.
    static func encode(_ event: PacenoteEvent, at now: Date) -> (String, JSONValue)? {
        switch event {
        case .changed(.curated(let id, let undone), _):
            // The history was corrected: the page reads its figures again.
            return ("curated", .object([("id", .int(id)), ("undone", .bool(undone))]))
        case .changed(.workout(let id), _):
            // A workout was amended or its plan pressed (next, pause, resume) or given: a page
            // following it reads it again (the dashboard's plan card).
            return ("workout_changed", .object([("id", .int(id))]))
        case .changed:
            // Bookkeeping for caches: the page already hears of new plays as play_logged.
            return nil
        case .nowPlaying(let player, let playing):
            return ("now_playing", .object([("player", .string(player)), ("now_playing", playing.map { APIJSON.nowPlaying($0, at: now) } ?? .null)]))
        case .playLogged(let id, var play, let track):
            play.id = id
            return ("play_logged", APIJSON.listen(PlayWithTrack(play: play, track: track)))
        case .playerConnection(let status):
            return ("player", APIJSON.player(status, nowPlaying: nil, at: now))
        case .playerControls(let player, let controls):
            // Played, paused, another song, the volume or a mode: every open page's controls.
            return ("player_state", APIJSON.playerControls(player, controls, at: now))
        case .heartRate(let bpm, let zone, let at):
            return ("heart_rate", .object([("bpm", .int(Int64(bpm.rounded()))), ("zone", .int(Int64(zone.rawValue))),
                                           ("at", APIJSON.timestamp(at))]))
        case .zoneChanged(let from, let to):
            return ("zone_changed", .object([("from", .optional(from?.rawValue)), ("to", .int(Int64(to.rawValue)))]))
        case .workoutStarted(let id, let at):
            return ("workout_started", .object([("id", .int(id)), ("at", APIJSON.timestamp(at))]))
        case .workoutProgress(let progress):
            return ("workout_progress", APIJSON.workoutProgress(progress))
        case .workoutEnded(let id, let at):
            return ("workout_ended", .object([("id", .int(id)), ("at", APIJSON.timestamp(at))]))
        case .cadence(let state):
            // The cadence the music follows moved: the page finds its suggestions again.
            return ("cadence_changed", APIJSON.cadence(state))
        }
    }
}
