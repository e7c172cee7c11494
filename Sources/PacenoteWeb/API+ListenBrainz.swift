import Foundation
import PacenoteCore
import PacenoteStore

/// ListenBrainz-compatible submissions, so that phones and other players (Pano Scrobbler,
/// Navidrome, Jellyfin's plugin, any `liblistenbrainz` script) can log into Pacenote: point
/// their ListenBrainz URL at `http://HOST:6680/apis/listenbrainz/` (or the root) and use
/// Pacenote's API key as the user token.
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

    /// `GET …/1/validate-token`: the token in `Authorization: Token …` or `?token=`.
    func validateToken(_ request: HTTPRequest) -> JSONValue {
        let sent = ListenBrainzAuthorization.token(in: request) ?? request.query["token"]
        guard let sent, let key = context.currentKey(), Authorization.constantTimeEquals(Array(sent.utf8), Array(key.utf8)) else {
            return .object([("code", .int(200)), ("message", .string("Token invalid.")), ("valid", .bool(false))])
        }
        return .object([
            ("code", .int(200)), ("message", .string("Token valid.")), ("valid", .bool(true)), ("user_name", .string("pacenote")),
        ])
    }
}

/// ListenBrainz's token check, with its messages.
enum ListenBrainzAuthorization {
    static func token(in request: HTTPRequest) -> String? {
        guard let header = request.header("Authorization") else { return request.header("X-API-Key") }
        for scheme in ["Token ", "Bearer "] where header.lowercased().hasPrefix(scheme.lowercased()) {
            return String(header.dropFirst(scheme.count)).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    static func require(_ key: String?, in request: HTTPRequest) throws(APIError) {
        guard let sent = token(in: request) else {
            throw APIError(kind: .unauthorized, code: "unauthorized", message: "You need to provide an Authorization header.")
                .inListenBrainzStyle
        }
        guard let key, Authorization.constantTimeEquals(Array(sent.utf8), Array(key.utf8)) else {
            throw APIError(kind: .unauthorized, code: "invalid_key", message: "Invalid authorization token.").inListenBrainzStyle
        }
    }
}
