import Foundation
import PacenoteCore
import PacenoteStore

/// ListenBrainz-compatible submissions, so that phones and other players (Pano Scrobbler,
/// Navidrome, Jellyfin's plugin, any `liblistenbrainz` script) can log into Pacenote: point
/// their ListenBrainz URL at `http://HOST:6680/apis/listenbrainz/` (or the root) and use
/// a submit key (`pacenote key add phone --scope submit`) as the user token.
extension API {
    /// `POST …/1/submit-listens`: `single` and `import` are stored as counted plays that
    /// began at `listened_at`; `playing_now` is announced, not stored.
    func submitListens(_ request: HTTPRequest) throws -> HTTPResponse {
        let submission: ListenBrainzSubmission
        do {
            submission = try ListenBrainzSubmission.parse(request.body)
        } catch {
            throw APIError.badRequest(error.message, code: "invalid_listens").inListenBrainzStyle
        }
        if submission.type == .playingNow, let listen = submission.listens.first {
            let player = listen.client ?? "listenbrainz"
            context.events?.publish(.nowPlaying(player: player, NowPlaying(
                player: player, state: .play, track: listen.track, startedAt: Date(), playedSeconds: 0,
                elapsed: 0, duration: listen.track.durationSeconds, at: Date())))
        }
        if submission.type != .playingNow {
            try context.operations.recordListens(
                submission.listens.map { ($0.track, $0.listenedAt ?? Date(), $0.client) }, source: "listenbrainz")
        }
        var response = HTTPResponse.json(.object([("status", .string("ok"))]))
        // ListenBrainz sends its rate limits with every answer; its clients read them.
        response.headers += [("X-RateLimit-Limit", "1000"), ("X-RateLimit-Remaining", "999"),
                             ("X-RateLimit-Reset-In", "10"), ("X-RateLimit-Reset", String(Int(Date().timeIntervalSince1970) + 10))]
        return response
    }

    /// `GET …/1/validate-token`: the token in `Authorization: Token …` or `?token=`; valid
    /// when it may submit (the admin key or a submit key).
    func validateToken(_ request: HTTPRequest) -> JSONValue {
        let sent = Authorization.sentKey(in: request) ?? request.query["token"]
        guard let sent, let scope = Authorization.scope(of: sent, in: context), scope == .admin || scope == .submit else {
            return .object([("code", .int(200)), ("message", .string("Token invalid.")), ("valid", .bool(false))])
        }
        return .object([
            ("code", .int(200)), ("message", .string("Token valid.")), ("valid", .bool(true)), ("user_name", .string("pacenote")),
        ])
    }
}
