import Foundation
import Logging
import PacenoteCore
import PacenoteNet
import PacenoteStore
import Synchronization

/// Sends the outbox to each `[[forward]]` target, on a thread of its own: the oldest queued
/// plays first, in batches; a target that is down, busy or refusing our credentials waits
/// with growing delays (or as long as it asks) while the others go on; a play a target
/// refuses is parked with the reason. The song playing now is sent live, never queued.
///
/// Delivery is at least once: a play is marked sent after the service answered, so a crash
/// between its answer and the mark sends it again — which ListenBrainz, Maloja, Last.fm and
/// Pacenote take as the same listen (same song, same start), so it is stored once.
public final class ForwardService: Sendable {
    struct Target: Sendable {
        let config: Config.Forward
        let id: Int64
        var backoff = Backoff(initial: 2, maximum: 600)
        var waitUntil = Date.distantPast
        var nowPlaying: Track?
        var lastNowPlayingKey: String?
    }

    /// What the status shows beside the stored counts.
    public struct Live: Sendable {
        public var nextAttempt: Date?
    }

    private let store: Store
    private let client: HTTPClient
    private let events: EventBus?
    private let logger: Logger
    private let targets: Mutex<[Target]>
    private let worker = WorkerThread(name: "pacenote.forward")
    /// How long the thread sleeps when nothing is due: a play, a login or `forward retry`
    /// from another process is seen within this.
    private let idleCheck: Double

    public init(store: Store, targets: [Config.Forward], ids: [String: Int64], events: EventBus?,
                client: HTTPClient = HTTPClient(userAgent: ForwardService.userAgent), logger: Logger, idleCheck: Double = 5) {
        self.store = store
        self.client = client
        self.events = events
        self.logger = logger
        self.idleCheck = idleCheck
        self.targets = Mutex(targets.compactMap { config in ids[config.name].map { Target(config: config, id: $0) } })
    }

    /// Every request names itself: services block clients that do not.
    public static let userAgent = "Pacenote/\(PacenoteVersion.current) (+https://github.com/pacenote/pacenote)"

    public func start() {
        worker.start(events: events, wakeOn: { [weak self] event in
            switch event {
            case .playLogged(_, let play, _) where play.counted: return true
            case .changed(.playsAdded, _), .changed(.forwarding, _): return true
            case .nowPlaying(let player, let now): return self?.playing(player: player, now) ?? false
            default: return false
            }
        }, round: { [weak self] in self?.round() ?? .distantFuture })
    }

    /// Stops after the request in flight (waiting for it at most `timeout` seconds).
    public func stop(timeout: Double = 5) {
        worker.stop(events: events, timeout: timeout)
    }

    public func live() -> [String: Live] {
        let now = Date()
        return targets.withLock { targets in
            Dictionary(targets.map { ($0.config.name, Live(nextAttempt: $0.waitUntil > now ? $0.waitUntil : nil)) },
                       uniquingKeysWith: { a, _ in a })
        }
    }

    private var stopping: Bool { worker.stopping }

    /// MPD's song changed: each target that takes this player's plays hears of it once.
    /// Whether there is something to send.
    private func playing(player: String, _ now: NowPlaying?) -> Bool {
        guard let now, now.state == .play else { return false }
        // A private session keeps what plays to itself: no target hears of it (its plays are
        // hidden, so never queued either).
        if (try? store.privateSession())?.isOn(at: Date()) == true { return false }
        let key = "\(player)\u{1F}\(Int(now.startedAt.timeIntervalSince1970))\u{1F}\(now.track.uri ?? now.track.title)"
        var any = false
        targets.withLock { targets in
            for i in targets.indices where targets[i].config.nowPlaying && targets[i].lastNowPlayingKey != key {
                let config = targets[i].config
                if let sources = config.sources, !sources.contains("mpd") { continue }
                if let players = config.players, !players.contains(player) { continue }
                targets[i].lastNowPlayingKey = key
                targets[i].nowPlaying = now.track
                any = true
            }
        }
        return any
    }

    /// One round: now playing, then a batch per target; returns when the next is due.
    private func round() -> Date {
        var worked = false
        var soonest = Date().addingTimeInterval(idleCheck)
        let stored = (try? store.forwardTargets()) ?? []
        for index in targets.withLock({ Array($0.indices) }) {
            guard !stopping else { break }
            let target = targets.withLock { $0[index] }
            if let track = target.nowPlaying {
                targets.withLock { $0[index].nowPlaying = nil }
                sendNowPlaying(track, to: target, session: stored.first { $0.id == target.id }?.sessionKey)
            }
            if target.waitUntil > Date() {
                soonest = min(soonest, target.waitUntil)
                continue
            }
            let state = stored.first { $0.id == target.id }
            guard let state, state.queued > 0 else { continue }
            if target.config.kind == .lastfm, state.sessionKey == nil {
                // Waits for `forward login` (seen at the next look at the targets).
                let reason = "not logged in: run `pacenote forward login \(target.config.name)`"
                if state.lastError != reason { try? store.forwardFailed(target: target.id, plays: [], reason: reason) }
                continue
            }
            if deliver(target: index, session: state.sessionKey) { worked = true }
            let waitUntil = targets.withLock { $0[index].waitUntil }
            if waitUntil > Date() { soonest = min(soonest, waitUntil) }
        }
        return worked ? Date() : soonest
    }

    /// Sends one batch to a target; true when plays left the queue (sent or parked).
    private func deliver(target index: Int, session: String?) -> Bool {
        let target = targets.withLock { $0[index] }
        let config = target.config
        let batch: [Forwarding.Listen]
        do { batch = try store.forwardBatch(target: target.id, limit: config.effectiveBatchSize) } catch {
            logger.error("forward \(config.name): reading the outbox: \(error)")
            wait(index, reason: "reading the outbox: \(error)", after: nil)
            return false
        }
        guard !batch.isEmpty else { return false }
        var unsendable: [(id: Int64, reason: String)] = []
        var sendable: [Forwarding.Listen] = []
        for listen in batch {
            if let reason = Forwarding.unsendable(listen.track) { unsendable.append((listen.playID, reason)) } else { sendable.append(listen) }
        }
        if !unsendable.isEmpty { park(index, unsendable) }
        guard !sendable.isEmpty else { return true }
        let (outcome, headers) = send(sendable, to: config, session: session)
        switch outcome {
        case .delivered(let ignored):
            delivered(index, sendable, ignored: ignored, headers: headers)
            return true
        case .retry(let reason, let after):
            fail(index, plays: sendable.map(\.playID), reason: reason, after: after)
            return false
        case .unauthorized(let reason):
            fail(index, plays: sendable.map(\.playID), reason: reason, after: 60)
            return false
        case .failed(let reason) where sendable.count == 1:
            if sendable[0].attempts + 1 >= Forwarding.maxUnexplainedFailures {
                park(index, [(sendable[0].playID, "\(reason) (\(Forwarding.maxUnexplainedFailures) times)")])
                return true
            }
            fail(index, plays: sendable.map(\.playID), reason: reason, after: nil)
            return false
        case .refused(let reason) where sendable.count == 1:
            park(index, [(sendable[0].playID, reason)])
            return true
        case .refused, .failed:
            // One of them is at fault, or all: each on its own finds out.
            for listen in sendable {
                guard !stopping else { break }
                let (single, singleHeaders) = send([listen], to: config, session: session)
                switch single {
                case .delivered(let ignored): delivered(index, [listen], ignored: ignored, headers: singleHeaders)
                case .refused(let reason): park(index, [(listen.playID, reason)])
                case .retry(let reason, let after):
                    fail(index, plays: [listen.playID], reason: reason, after: after)
                    return true
                case .failed(let reason):
                    if listen.attempts + 1 >= Forwarding.maxUnexplainedFailures {
                        park(index, [(listen.playID, "\(reason) (\(Forwarding.maxUnexplainedFailures) times)")])
                        continue
                    }
                    fail(index, plays: [listen.playID], reason: reason, after: nil)
                    return true
                case .unauthorized(let reason):
                    fail(index, plays: [listen.playID], reason: reason, after: 60)
                    return true
                }
            }
            return true
        }
    }

    private func send(_ listens: [Forwarding.Listen], to config: Config.Forward,
                      session: String?) -> (Forwarding.Outcome, [String: String]) {
        let request: HTTPClient.Request
        switch config.kind {
        case .listenbrainz:
            let body = Forwarding.listenBrainzBody(listens.map { ($0.track, $0.startedAt) },
                                                   type: listens.count == 1 ? .single : .import)
            request = listenBrainzRequest(config, body: body)
        case .lastfm:
            request = lastfmRequest(config, fields: Forwarding.scrobbleFields(listens), session: session)
        }
        do {
            let response = try client.sendBlocking(request)
            switch config.kind {
            case .listenbrainz:
                return (Forwarding.listenBrainzOutcome(status: response.status, body: response.body, headers: response.headers),
                        response.headers)
            case .lastfm:
                return (Forwarding.scrobbleOutcome(status: response.status, body: response.body, headers: response.headers,
                                                   count: listens.count), response.headers)
            }
        } catch {
            return (.retry(reason: error.description, after: nil), [:])
        }
    }

    private func sendNowPlaying(_ track: Track, to target: Target, session: String?) {
        guard Forwarding.unsendable(track) == nil else { return }
        let request: HTTPClient.Request
        switch target.config.kind {
        case .listenbrainz:
            request = listenBrainzRequest(target.config, body: Forwarding.listenBrainzBody([(track, nil)], type: .playingNow))
        case .lastfm:
            guard let session else { return }
            request = lastfmRequest(target.config, fields: Forwarding.nowPlayingFields(track), session: session)
        }
        do {
            let response = try client.sendBlocking(request)
            if !(200..<300).contains(response.status) {
                logger.debug("forward \(target.config.name): now playing answered \(response.status)")
            }
        } catch {
            logger.debug("forward \(target.config.name): now playing: \(URLSecrets.maskedInText(error.description))")
        }
    }

    private func listenBrainzRequest(_ config: Config.Forward, body: [UInt8]) -> HTTPClient.Request {
        HTTPClient.Request(method: "POST", url: ForwardService.trimmed(config.effectiveURL) + "/1/submit-listens",
                           headers: [("Authorization", "Token \(config.token ?? "")"), ("Content-Type", "application/json")],
                           body: body, timeout: 30, maxResponseBytes: 1 << 20)
    }

    private func lastfmRequest(_ config: Config.Forward, fields: [(String, String)], session: String?) -> HTTPClient.Request {
        let body = Forwarding.signedForm(fields, apiKey: config.apiKey ?? "", secret: config.apiSecret ?? "", sessionKey: session)
        return HTTPClient.Request(method: "POST", url: config.effectiveURL,
                                  headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                  body: body, timeout: 30, maxResponseBytes: 1 << 20)
    }

    static func trimmed(_ url: String) -> String {
        var url = url
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }

    // MARK: Outcomes

    private func delivered(_ index: Int, _ listens: [Forwarding.Listen], ignored: [Int: String], headers: [String: String]) {
        let name = targets.withLock { $0[index].config.name }
        let parked = ignored.compactMap { i, reason in i < listens.count ? (listens[i].playID, reason) : nil }
        let sent = listens.enumerated().filter { ignored[$0.offset] == nil }.map(\.element.playID)
        do {
            try store.forwardDelivered(target: targets.withLock { $0[index].id }, plays: sent)
            if !parked.isEmpty { park(index, parked) }
        } catch {
            logger.error("forward \(name): marking \(sent.count) plays sent: \(error)")
        }
        logger.debug("forward \(name): sent \(sent.count) plays")
        targets.withLock { targets in
            targets[index].backoff.succeeded()
            targets[index].waitUntil = Forwarding.pace(headers).map { Date().addingTimeInterval($0) } ?? .distantPast
        }
    }

    private func park(_ index: Int, _ plays: [(id: Int64, reason: String)]) {
        let target = targets.withLock { $0[index] }
        // A reason can quote the target's address (libcurl's words); its token stays out of logs and pages.
        let plays = plays.map { (id: $0.id, reason: URLSecrets.maskedInText($0.reason)) }
        for play in plays { logger.warning("forward \(target.config.name): play \(play.id) parked: \(play.reason)") }
        do { try store.forwardParked(target: target.id, plays: plays) } catch {
            logger.error("forward \(target.config.name): parking: \(error)")
        }
    }

    private func fail(_ index: Int, plays: [Int64], reason: String, after: Double?) {
        let target = targets.withLock { $0[index] }
        let reason = URLSecrets.maskedInText(reason)
        do { try store.forwardFailed(target: target.id, plays: plays, reason: reason) } catch {
            logger.error("forward \(target.config.name): \(error)")
        }
        let delay = wait(index, reason: reason, after: after)
        logger.warning("forward \(target.config.name): \(reason); trying again in \(Int(delay.rounded())) s")
    }

    /// The target waits: as long as it asked, or the next step of its backoff, whichever is longer.
    @discardableResult
    private func wait(_ index: Int, reason: String, after: Double?) -> Double {
        targets.withLock { targets in
            let delay = max(after ?? 0, targets[index].backoff.failed())
            targets[index].waitUntil = Date().addingTimeInterval(delay)
            return delay
        }
    }
}

/// `pacenote forward login NAME`: asks an Audioscrobbler 2.0 service for a session with the
/// user's name and password (`auth.getMobileSession`), and keeps only the session.
public enum ForwardLogin {
    public static func login(target: Config.Forward, username: String, password: String,
                             client: HTTPClient = HTTPClient(userAgent: ForwardService.userAgent)) throws -> (key: String, name: String) {
        let body = Forwarding.signedForm(Forwarding.mobileSessionFields(username: username, password: password),
                                         apiKey: target.apiKey ?? "", secret: target.apiSecret ?? "", sessionKey: nil)
        let response = try client.sendBlocking(HTTPClient.Request(
            method: "POST", url: target.effectiveURL, headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: body, timeout: 30))
        switch Forwarding.mobileSession(status: response.status, body: response.body) {
        case .session(let key, let name): return (key, name.isEmpty ? username : name)
        case .refused(let reason): throw LoginRefused(reason: reason)
        }
    }

    public struct LoginRefused: Error, CustomStringConvertible {
        public var reason: String
        public var description: String { "the service refused the login: \(reason)" }
    }
}
