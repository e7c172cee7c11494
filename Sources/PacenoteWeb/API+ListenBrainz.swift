import Foundation
import PacenoteCore
import PacenoteStore

/// ListenBrainz-compatible submissions, so that phones and other players (Pano Scrobbler,
/// Navidrome, Jellyfin's plugin, any `liblistenbrainz` script) can log into Pacenote: point
/// their ListenBrainz URL at `http://HOST:6680/apis/listenbrainz/` (or the root) and use
/// a submit key (`pacenote key add phone --scope submit`) as the user token. The same
/// clients read the history back and delete a listen (below).
extension API {
    /// `POST …/1/submit-listens`: `single` and `import` are stored as plays that began at
    /// `listened_at`, counted unless `additional_info.duration_played` is under what the play
    /// rule asks (then a skip, with those seconds); `playing_now` is announced, not stored.
    func submitListens(_ request: HTTPRequest) throws -> HTTPResponse {
        let submission: ListenBrainzSubmission
        do {
            submission = try ListenBrainzSubmission.parse(request.body)
        } catch {
            logScrobble("listenbrainz", "submit", client: nil, user: nil, outcome: "refused", reason: error.message)
            throw APIError.badRequest(error.message, code: "invalid_listens").inListenBrainzStyle
        }
        let client = submission.listens.first?.client
        if submission.type == .playingNow, let listen = submission.listens.first {
            let player = listen.client ?? "listenbrainz"
            let playing = NowPlaying(player: player, state: .play, track: listen.track, startedAt: context.clock.now(), playedSeconds: 0,
                                     elapsed: 0, duration: listen.track.durationSeconds, at: context.clock.now())
            context.scrobbles.nowPlaying(playing)
            context.events?.publish(.nowPlaying(player: player, playing))
            logScrobble("listenbrainz", "now_playing", client: client, user: nil, outcome: "ok", accepted: 1)
        }
        if submission.type != .playingNow {
            do {
                let now = context.clock.now()
                try context.operations.recordReported(submission.listens.map { $0.play(rule: context.playRule, now: now) },
                                                      source: "listenbrainz", sameWithin: 0)
            } catch {
                logScrobble("listenbrainz", "submit", client: client, user: nil, outcome: "failed", reason: "the database could not store them")
                throw error
            }
            if let client { context.scrobbles.played(player: client) }
            logScrobble("listenbrainz", "submit", client: client, user: nil, outcome: "ok", accepted: submission.listens.count)
        }
        var response = HTTPResponse.json(.object([("status", .string("ok"))]))
        // ListenBrainz sends its rate limits with every answer; its clients read them.
        response.headers += [("X-RateLimit-Limit", "1000"), ("X-RateLimit-Remaining", "999"),
                             ("X-RateLimit-Reset-In", "10"), ("X-RateLimit-Reset", String(Int(context.clock.now().timeIntervalSince1970) + 10))]
        return response
    }

    /// `GET …/1/validate-token`: the token in `Authorization: Token …` or `?token=`; valid
    /// when it may submit (the admin key, a submit or a client key).
    func validateToken(_ request: HTTPRequest) -> JSONValue {
        let sent = Authorization.sentKey(in: request) ?? request.query["token"]
        guard let sent, let scope = Authorization.scope(of: sent, in: context), scope.maySubmit else {
            return .object([("code", .int(200)), ("message", .string("Token invalid.")), ("valid", .bool(false))])
        }
        return .object([
            ("code", .int(200)), ("message", .string("Token valid.")), ("valid", .bool(true)), ("user_name", .string("pacenote")),
        ])
    }
}

/// ListenBrainz's reads of the history and its delete-listen
/// (https://listenbrainz.readthedocs.io/en/latest/users/api/core.html). A listen is a
/// counted play: ListenBrainz keeps listens only, and Pacenote's skips stay out of these
/// answers. Pacenote has one user: any user name answers, and is echoed back.
extension API {
    /// ListenBrainz's `DEFAULT_ITEMS_PER_GET` and `MAX_ITEMS_PER_GET`.
    static let listenBrainzDefaultCount = 25
    static let listenBrainzMaxCount = 1000
    /// The largest `min_ts`/`max_ts` taken: 9999-12-31T23:59:59Z.
    static let listenBrainzMaxTimestamp = 253_402_300_799

    /// `GET …/1/user/{name}/listens`: counted plays that began after `min_ts` and before
    /// `max_ts` (Unix seconds, both exclusive), newest first. As ListenBrainz does, with
    /// `min_ts` the `count` listens just after it are answered (paging forward), otherwise
    /// the `count` newest; a `count` above 1000 is answered with 1000.
    func listenBrainzListens(user: String, _ query: [String: String]) throws -> JSONValue {
        let range = 0...Self.listenBrainzMaxTimestamp
        let minTS = try Query.int(query, "min_ts", in: range)
        let maxTS = try Query.int(query, "max_ts", in: range)
        let count = min(try Query.int(query, "count", default: Self.listenBrainzDefaultCount, in: 0...Int.max), Self.listenBrainzMaxCount)
        if let minTS, let maxTS, minTS >= maxTS {
            throw APIError.badRequest("min_ts should be less than max_ts", code: "invalid_range").inListenBrainzStyle
        }
        // listened_at is the start's whole second: after min_ts is from the next second on.
        let plays = try context.store.plays(
            limit: count, from: minTS.map { Date(timeIntervalSince1970: Double($0 + 1)) },
            to: maxTS.map { Date(timeIntervalSince1970: Double($0)) }, countedOnly: true, oldestFirst: minTS != nil)
        let span = try context.store.countedPlaysSpan()
        return .object([("payload", .object([
            ("count", .int(Int64(plays.count))),
            ("latest_listen_ts", .int(span.map { ListenBrainzJSON.seconds($0.newest) } ?? 0)),
            ("listens", .array((minTS != nil ? plays.reversed() : plays).map { ListenBrainzJSON.listen($0, user: user) })),
            ("oldest_listen_ts", .int(span.map { ListenBrainzJSON.seconds($0.oldest) } ?? 0)),
            ("user_id", .string(user)),
        ]))])
    }

    /// `GET …/1/user/{name}/listen-count`: how many counted plays there are.
    func listenBrainzListenCount() throws -> JSONValue {
        .object([("payload", .object([("count", .int(Int64(try context.store.countedPlays())))]))])
    }

    /// `GET …/1/user/{name}/playing-now`: what the default player (the first configured)
    /// plays now; nothing while it is paused or stopped.
    func listenBrainzPlayingNow(user: String) -> JSONValue {
        let defaultPlayer = context.players().first?.name
        let now = context.nowPlaying().first { $0.player == defaultPlayer && $0.state == .play }
        return .object([("payload", .object([
            ("count", .int(now == nil ? 0 : 1)),
            ("listens", .array(now.map { n in
                [JSONValue.object([
                    ("playing_now", .bool(true)),
                    ("track_metadata", ListenBrainzJSON.trackMetadata(n.track, player: n.player)),
                ])]
            } ?? [])),
            ("playing_now", .bool(true)),
            ("user_id", .string(user)),
        ]))])
    }

    /// `POST …/1/delete-listen` with `{"listened_at": 1763794800, "recording_msid": "…"}`:
    /// the counted play of that recording (a `recording_msid` Pacenote gave out) that began
    /// within that second is deleted through `Operations.deletePlay`. ListenBrainz answers
    /// 200 even for a listen it does not have (it deletes later, in bulk); Pacenote deletes
    /// at once and answers 404 when there is no such listen.
    func deleteListen(_ request: HTTPRequest) throws -> JSONValue {
        func bad(_ message: String) -> APIError { APIError.badRequest(message, code: "invalid_listen").inListenBrainzStyle }
        guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any] else {
            throw bad("Cannot parse JSON document.")
        }
        guard let rawTime = object["listened_at"], !(rawTime is NSNull) else { throw bad("Listen timestamp missing.") }
        // ListenBrainz takes anything Python's int() takes: a whole number or its digits.
        let listenedAt = HeartRateInput.number(rawTime).flatMap { Int64(exactly: $0) } ?? (rawTime as? String).flatMap { Int64($0) }
        guard let listenedAt else { throw bad("\(rawTime): Listen timestamp invalid.") }
        guard let rawMSID = object["recording_msid"], !(rawMSID is NSNull) else { throw bad("Recording MSID missing.") }
        guard let msid = rawMSID as? String, UUID(uuidString: msid) != nil else {
            throw bad("\(rawMSID): Recording MSID format invalid.")
        }
        guard let trackID = PacenoteMSID.trackID(msid: msid),
              let playID = try context.store.countedPlayID(trackID: trackID, startedInSecond: listenedAt) else {
            throw APIError.notFound("No listen of recording_msid \(msid) at listened_at \(listenedAt).").inListenBrainzStyle
        }
        do {
            _ = try context.operations.deletePlay(id: playID, source: "listenbrainz")
        } catch {
            throw APIError(error).inListenBrainzStyle
        }
        return .object([("status", .string("ok"))])
    }
}

/// ListenBrainz's JSON shapes for a listen (https://listenbrainz.readthedocs.io/en/latest/users/json.html).
enum ListenBrainzJSON {
    /// A time as ListenBrainz gives it: whole Unix seconds (the second the play began in).
    static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }

    /// A counted play as a listen. Pacenote keeps no insertion time: `inserted_at` is when
    /// the play ended (when a player's play is stored).
    static func listen(_ p: PlayWithTrack, user: String) -> JSONValue {
        .object([
            ("inserted_at", .int(seconds(p.play.endedAt))),
            ("listened_at", .int(seconds(p.play.startedAt))),
            ("recording_msid", .string(PacenoteMSID.msid(trackID: p.play.trackID))),
            ("track_metadata", trackMetadata(p.track, player: p.play.player, trackID: p.play.trackID)),
            ("user_name", .string(user)),
        ])
    }

    /// A track's metadata; `additional_info` carries Pacenote's `recording_msid` (the track's:
    /// what delete-listen and recording-feedback take) and the MusicBrainz ids it knows.
    static func trackMetadata(_ t: Track, player: String?, trackID: Int64? = nil) -> JSONValue {
        let id = trackID ?? t.id
        return .object([
            ("additional_info", .object([
                ("artist_mbids", .array(t.musicBrainz.artist.map { [.string($0)] } ?? [])),
                ("duration_ms", t.durationSeconds.flatMap { $0.isFinite && $0 >= 0 && $0 < 1e12 ? .int(Int64(($0 * 1000).rounded())) : nil } ?? .null),
                ("media_player", .optional(player)),
                ("recording_mbid", .optional(t.musicBrainz.recording)),
                ("recording_msid", .optional(id.map(PacenoteMSID.msid))),
                ("release_mbid", .optional(t.musicBrainz.release)),
                ("submission_client", .string("Pacenote")),
                ("track_id", .optional(id)),
                ("tracknumber", .optional(t.trackNumber)),
            ])),
            ("artist_name", .optional(t.artist)),
            ("release_name", .optional(t.album)),
            ("track_name", .string(t.title)),
        ])
    }
}
