import Foundation
import PacenoteCore
import PacenoteStore
import Synchronization

/// The plays in progress that webhooks report (`PendingPlays`), behind a lock: kept in memory
/// only. A restart forgets an open play; the stop that ends it is then judged on what it
/// says itself (Jellyfin's position), or counts only as far as the rule allows without one.
public final class WebhookPlays: Sendable {
    private let pending = Mutex(PendingPlays())

    public init() {}

    func report(_ r: PlaybackReport, now: Date, rule: PlayRule) -> [ReportedPlay] {
        pending.withLock { $0.report(r, now: now, rule: rule) }
    }
}

/// Webhooks from media servers and extensions, and Maloja's scrobble API, so that what plays
/// in Jellyfin, Plex or a browser tab is logged like MPD's plays: each source's payload is
/// read by `WebhookPayloads`, its start, pauses and stop add up to a play in `PendingPlays`,
/// and the play rule decides whether it counts. Plays are stored through
/// `Operations.recordReported` with the source's name (`jellyfin:DEVICE`, `plex:PLAYER`,
/// `webscrobbler`, `maloja`), once however often they are sent and whichever route brings
/// them first.
///
/// Credentials: a submit key (or the admin key) in the URL's last segment
/// (`/webhooks/jellyfin/KEY`: Plex and Web Scrobbler can set nothing but a URL) or in the
/// headers (`Authorization: Token KEY`, `X-API-Key`: Jellyfin's plugin can add headers);
/// Maloja's `key` in the body or the query, as Maloja takes it.
extension API {
    /// `POST /webhooks/jellyfin[/KEY]`.
    func jellyfinWebhook(_ request: HTTPRequest) throws -> JSONValue {
        try webhook("jellyfin", request) { () throws(WebhookPayloads.Rejection) in [try WebhookPayloads.jellyfin(request.body)] }
    }

    /// `POST /webhooks/plex[/KEY]`.
    func plexWebhook(_ request: HTTPRequest) throws -> JSONValue {
        try webhook("plex", request) { () throws(WebhookPayloads.Rejection) in
            [try WebhookPayloads.plex(request.body, contentType: request.header("Content-Type"))]
        }
    }

    /// `POST /webhooks/webscrobbler[/KEY]`.
    func webScrobblerWebhook(_ request: HTTPRequest) throws -> JSONValue {
        try webhook("webscrobbler", request) { () throws(WebhookPayloads.Rejection) in try WebhookPayloads.webScrobbler(request.body) }
    }

    /// Reads a webhook's events and applies them: now-playing, plays ended, loves. Answers
    /// how many plays were stored and what was ignored.
    private func webhook(_ name: String, _ request: HTTPRequest,
                         read: () throws(WebhookPayloads.Rejection) -> [WebhookEvent]) throws -> JSONValue {
        let events: [WebhookEvent]
        do {
            events = try read()
        } catch {
            logScrobble("webhook:" + name, "event", client: nil, user: nil, outcome: "refused", reason: error.message)
            throw APIError.badRequest(error.message, code: "invalid_webhook")
        }
        let now = context.clock.now()
        var stored: [LoggedPlay] = []
        var ignored: [String] = []
        for event in events {
            switch event {
            case .playback(let report):
                announce(report, now: now)
                let ended = context.webhooks.report(report, now: now, rule: context.playRule)
                guard !ended.isEmpty else { continue }
                do {
                    stored += try context.operations.recordReported(ended, source: report.source, now: now)
                } catch {
                    logScrobble("webhook:" + name, "submit", client: report.player, user: nil, outcome: "failed",
                                reason: "the database could not store it")
                    throw error
                }
            case .love(let track, let loved):
                guard let artist = track.artist, let id = try context.store.trackID(artist: artist, title: track.title) else {
                    ignored.append("no track \(track.artist ?? "") - \(track.title) to love yet")
                    continue
                }
                try context.operations.setFeeling(trackID: id, loved ? .like : .none, source: name)
            case .ignored(let reason):
                ignored.append(reason)
            }
        }
        let counted = stored.filter(\.play.counted).count
        logScrobble("webhook:" + name, "event", client: events.lazy.compactMap(\.player).first, user: nil,
                    outcome: ignored.isEmpty ? "ok" : "ignored", accepted: stored.count, ignored: ignored.count,
                    reason: ignored.isEmpty ? nil : ignored.joined(separator: "; "))
        return .object([
            ("status", .string("ok")),
            ("stored", .int(Int64(stored.count))), ("counted", .int(Int64(counted))), ("skipped", .int(Int64(stored.count - counted))),
            ("ignored", .array(ignored.map { .string($0) })),
        ])
    }

    /// What plays elsewhere: a start, a progress or a resume is now playing; a pause shows
    /// paused; a stop ends it.
    private func announce(_ r: PlaybackReport, now: Date) {
        switch r.kind {
        case .start, .progress, .resume, .pause:
            let position = r.position ?? 0
            let playing = NowPlaying(player: r.player, state: r.kind == .pause ? .pause : .play, track: r.track,
                                     startedAt: r.startedAt ?? now.addingTimeInterval(-position), playedSeconds: position,
                                     elapsed: r.position, duration: r.track.durationSeconds, at: now)
            context.scrobbles.nowPlaying(playing)
            context.events?.publish(.nowPlaying(player: r.player, playing))
        case .stop:
            context.scrobbles.played(player: r.player)
        case .passed:
            break
        }
    }
}

extension WebhookEvent {
    var player: String? {
        if case .playback(let r) = self { return r.player }
        return nil
    }
}

/// Maloja's native API as scrobblers use it (github.com/krateng/maloja, `maloja/apis/native_v1.py`):
/// `POST /apis/mlj_1/newscrobble` and the two calls clients make to check a server,
/// `GET /apis/mlj_1/serverinfo` and `GET /apis/mlj_1/test`. The key is Maloja's: `key` (or
/// `apikey`) in the JSON body, a form or the query; a submit key or the admin key.
extension API {
    /// The Maloja version whose API this follows (`serverinfo`).
    static let malojaVersion = "3.2.9"

    /// `POST /apis/mlj_1/newscrobble`: one scrobble. With `duration` (seconds listened) the
    /// play rule decides, on the `length` when sent; without it the scrobble counts.
    /// It began at `time`, else `duration` (or `length`) seconds ago.
    func malojaNewScrobble(_ request: HTTPRequest, client: String) throws -> JSONValue {
        let fields = try Self.malojaFields(request)
        let scrobble: WebhookPayloads.MalojaScrobble
        do {
            scrobble = try WebhookPayloads.maloja(fields)
        } catch {
            // Maloja checks the key before the scrobble's fields: so does Pacenote.
            try malojaKey(WebhookPayloads.text(fields["key"]) ?? WebhookPayloads.text(fields["apikey"]), client: client)
            logScrobble("maloja", "submit", client: nil, user: nil, outcome: "refused", reason: error.message)
            throw APIError.badRequest(error.message, code: "missing_scrobble_data")
        }
        try malojaKey(scrobble.key, client: client)
        let now = context.clock.now()
        let track = scrobble.track
        let seconds = scrobble.played ?? track.durationSeconds ?? 0
        let startedAt = scrobble.time ?? now.addingTimeInterval(-seconds)
        let play = scrobble.played.map { ReportedPlay.judged(track, startedAt: startedAt, player: nil, played: $0, rule: context.playRule) }
            ?? .listen(track, startedAt: startedAt, player: nil)
        do {
            _ = try context.operations.recordReported([play], source: "maloja", now: now)
        } catch {
            logScrobble("maloja", "submit", client: nil, user: nil, outcome: "failed", reason: "the database could not store it")
            throw error
        }
        logScrobble("maloja", "submit", client: nil, user: nil, outcome: "ok", accepted: 1)
        let artists = track.listedCredit?.artists.map(\.name) ?? [track.artist ?? ""]
        return .object([
            ("status", .string("success")),
            ("track", .object([("artists", .array(artists.map { .string($0) })), ("title", .string(track.title))])),
            ("desc", .string("Scrobbled \(track.title) by \(artists.joined(separator: ", "))")),
            ("counted", .bool(play.counted)),
        ])
    }

    /// `GET /apis/mlj_1/serverinfo`, in Maloja's shape (Maloja's own keys, and Pacenote's version).
    func malojaServerInfo() -> JSONValue {
        .object([
            ("name", .string("Pacenote")),
            ("version", .array(Self.malojaVersion.split(separator: ".").map { .string(String($0)) })),
            ("versionstring", .string(Self.malojaVersion)),
            ("db_status", .object([("healthy", .bool(true)), ("rebuildinprogress", .bool(false)), ("complete", .bool(true))])),
            ("pacenote_version", .string(context.version)),
        ])
    }

    /// `GET /apis/mlj_1/test?key=KEY`: `{"status": "ok"}`, or 403 for a key that may not scrobble.
    func malojaTest(_ request: HTTPRequest, client: String) throws -> JSONValue {
        if let key = request.query["key"] ?? request.query["apikey"] { try malojaKey(key, client: client) }
        return .object([("status", .string("ok"))])
    }

    /// The key a Maloja call brings, judged as `Authorization` judges keys: a wrong one counts
    /// toward the client's lockout.
    private func malojaKey(_ key: String?, client: String) throws {
        guard let key else {
            context.sessions.recordFailure(from: client)
            logScrobble("maloja", "submit", client: nil, user: nil, outcome: "refused", reason: "no key")
            throw APIError(kind: .unauthorized, code: "unauthorized", message: "send the API key as key (a submit key)")
        }
        guard let scope = Authorization.scope(of: key, in: context), scope == .admin || scope == .submit || scope == .client else {
            context.sessions.recordFailure(from: client)
            logScrobble("maloja", "submit", client: nil, user: nil, outcome: "refused", reason: "wrong key")
            throw APIError(kind: .forbidden, code: "wrong_key", message: "Wrong API key")
        }
    }

    /// Maloja's fields: a JSON object body, or a form body, and the query (bottle merges them).
    static func malojaFields(_ request: HTTPRequest) throws -> [String: Any] {
        var fields: [String: Any] = request.query
        let type = request.header("Content-Type")?.lowercased() ?? ""
        if type.hasPrefix("application/x-www-form-urlencoded") {
            fields.merge(Scrobble.formFields(request.body)) { _, body in body }
        } else if !request.body.isEmpty {
            guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any] else {
                throw APIError.badRequest("the body must be a JSON object (or a form)", code: "invalid_body")
            }
            fields.merge(object) { _, body in body }
        }
        return fields
    }
}
