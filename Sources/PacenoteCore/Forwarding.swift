import Foundation

/// Forwarding plays to other services (`[[forward]]`): what is sent, and what each answer
/// means for the queue. No I/O here; the outbox is in the store, the sending in the app.
///
/// Two protocols: ListenBrainz's `submit-listens` (ListenBrainz itself, Maloja, Koito,
/// another Pacenote) and Audioscrobbler 2.0 (Last.fm, Libre.fm, Maloja). Skips and heart
/// rate never leave: only a counted play's song, start and length are sent.
public enum Forwarding {
    public enum Kind: String, Sendable, CaseIterable {
        case listenbrainz
        case lastfm

        /// The service a target of this kind talks to when its `url` is not given.
        public var defaultURL: String {
            switch self {
            case .listenbrainz: "https://api.listenbrainz.org"
            case .lastfm: "https://ws.audioscrobbler.com/2.0/"
            }
        }

        /// Plays per request when there is a backlog: ListenBrainz takes up to 1,000 listens a
        /// request (within a payload limit), Audioscrobbler 2.0 up to 50. 500 drains a backlog
        /// to another Pacenote at ~2,900 plays/s where 100 gave ~2,200 (scripts/bench/forward-drain):
        /// the receiver's cost is per request as much as per listen.
        public var defaultBatchSize: Int {
            switch self {
            case .listenbrainz: 500
            case .lastfm: 50
            }
        }

        public var maxBatchSize: Int {
            switch self {
            case .listenbrainz: 1000
            case .lastfm: 50
            }
        }
    }

    /// One play on its way out.
    public struct Listen: Equatable, Sendable {
        public var playID: Int64
        public var track: Track
        public var startedAt: Date
        public var playedSeconds: Double
        public var source: String
        public var player: String?
        /// Requests for it that failed so far.
        public var attempts: Int

        public init(playID: Int64, track: Track, startedAt: Date, playedSeconds: Double, source: String, player: String?,
                    attempts: Int = 0) {
            self.attempts = attempts
            self.playID = playID
            self.track = track
            self.startedAt = startedAt
            self.playedSeconds = playedSeconds
            self.source = source
            self.player = player
        }
    }

    /// Why a play cannot be sent at all, before asking: both protocols need an artist and a
    /// title. Such a play is parked with this reason.
    public static func unsendable(_ track: Track) -> String? {
        if (track.artist ?? "").trimmingCharacters(in: .whitespaces).isEmpty { return "no artist name: the service needs one" }
        if track.title.trimmingCharacters(in: .whitespaces).isEmpty { return "no title: the service needs one" }
        return nil
    }

    // MARK: ListenBrainz

    public enum ListenType: String, Sendable { case single, `import`, playingNow = "playing_now" }

    /// The `submit-listens` body: one listen as `single`, a backlog as `import`, or the song
    /// playing now (no `listened_at`). Never more than the song: no player, skip or heart rate.
    public static func listenBrainzBody(_ tracks: [(track: Track, startedAt: Date?)], type: ListenType) -> [UInt8] {
        var payload: [[String: Any]] = []
        for (track, startedAt) in tracks {
            var info: [String: Any] = [
                "submission_client": "Pacenote",
                "submission_client_version": PacenoteVersion.current,
            ]
            if let duration = track.durationSeconds, duration > 0 { info["duration_ms"] = Int((duration * 1000).rounded()) }
            if let id = Scrobble.validMBID(track.musicBrainz.recording) { info["recording_mbid"] = id }
            if let id = Scrobble.validMBID(track.musicBrainz.release) { info["release_mbid"] = id }
            if let id = Scrobble.validMBID(track.musicBrainz.artist) { info["artist_mbids"] = [id] }
            if let number = track.trackNumber { info["tracknumber"] = number }
            var metadata: [String: Any] = [
                "artist_name": track.artist ?? "",
                "track_name": track.title,
                "additional_info": info,
            ]
            if let album = track.album, !album.isEmpty { metadata["release_name"] = album }
            var listen: [String: Any] = ["track_metadata": metadata]
            if let startedAt { listen["listened_at"] = Int(startedAt.timeIntervalSince1970) }
            payload.append(listen)
        }
        let body: [String: Any] = ["listen_type": type.rawValue, "payload": payload]
        let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return Array(data)
    }

    // MARK: Audioscrobbler 2.0

    /// `track.scrobble`'s fields for a batch (indexed `artist[0]`…, up to 50).
    /// A single scrobble goes un-numbered (`artist`, `track`, `timestamp`), which every
    /// server takes (Maloja takes nothing else).
    public static func scrobbleFields(_ listens: [Listen]) -> [(String, String)] {
        var fields: [(String, String)] = [("method", "track.scrobble")]
        if listens.count == 1, let listen = listens.first {
            return fields + songFields(listen.track, suffix: "")
                + [("timestamp", String(Int(listen.startedAt.timeIntervalSince1970)))]
        }
        for (i, listen) in listens.enumerated() {
            fields += songFields(listen.track, suffix: "[\(i)]")
            fields.append(("timestamp[\(i)]", String(Int(listen.startedAt.timeIntervalSince1970))))
        }
        return fields
    }

    /// `track.updateNowPlaying`'s fields.
    public static func nowPlayingFields(_ track: Track) -> [(String, String)] {
        [("method", "track.updateNowPlaying")] + songFields(track, suffix: "")
    }

    private static func songFields(_ track: Track, suffix: String) -> [(String, String)] {
        var fields = [("artist\(suffix)", track.artist ?? ""), ("track\(suffix)", track.title)]
        if let album = track.album, !album.isEmpty { fields.append(("album\(suffix)", album)) }
        if let albumArtist = track.albumArtist, !albumArtist.isEmpty { fields.append(("albumArtist\(suffix)", albumArtist)) }
        if let duration = track.durationSeconds, duration > 0 { fields.append(("duration\(suffix)", String(Int(duration.rounded())))) }
        if let number = track.trackNumber { fields.append(("trackNumber\(suffix)", String(number))) }
        if let id = Scrobble.validMBID(track.musicBrainz.recording) { fields.append(("mbid\(suffix)", id)) }
        return fields
    }

    /// A signed call's form body: the fields with `api_key`, the session key (`sk`) when
    /// there is one, `api_sig` — the MD5 of every field but `format` and `callback`, sorted
    /// by name, names and values run together, then the secret
    /// (https://www.last.fm/api/authspec section 8) — and `format=json`.
    public static func signedForm(_ fields: [(String, String)], apiKey: String, secret: String, sessionKey: String?) -> [UInt8] {
        var all = fields + [("api_key", apiKey)]
        if let sessionKey { all.append(("sk", sessionKey)) }
        let signed = all.sorted { Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8)) }
        let signature = MD5.hex(signed.map { $0.0 + $0.1 }.joined() + secret)
        all += [("api_sig", signature), ("format", "json")]
        return Array(formEncode(all).utf8)
    }

    /// `auth.getMobileSession`'s fields: the password goes to the service once, never stored.
    public static func mobileSessionFields(username: String, password: String) -> [(String, String)] {
        [("method", "auth.getMobileSession"), ("username", username), ("password", password)]
    }

    public static func formEncode(_ fields: [(String, String)]) -> String {
        fields.map { "\(URLText.component($0.0))=\(URLText.component($0.1))" }.joined(separator: "&")
    }


    // MARK: Answers

    /// How often a play sent on its own may meet an unexplained failure before it is parked.
    public static let maxUnexplainedFailures = 5

    /// What an answer means for the plays sent in one request.
    public enum Outcome: Equatable, Sendable {
        /// Taken (or, for Last.fm, some ignored: those are parked with their reason).
        case delivered(ignored: [Int: String])
        /// Try again later, the whole queue waits: the service is down, busy or limiting us.
        /// `after` is what it asked for (`Retry-After`, rate-limit reset), if anything.
        case retry(reason: String, after: Double?)
        /// The service refuses these plays (a 4xx other than 429): with several, send them
        /// one by one to find the one at fault; a single one is parked with the reason.
        case refused(reason: String)
        /// The service answered that storing failed, without saying why (Audioscrobbler's
        /// error 8, which Maloja also gives for a scrobble it has already): retried, but a
        /// play that fails so `Forwarding.maxUnexplainedFailures` times on its own is parked.
        case failed(reason: String)
        /// The service refuses us, whatever we send (bad token, session or signature): nothing
        /// is parked, the queue waits for the configuration to be fixed.
        case unauthorized(reason: String)
    }

    /// Reads a ListenBrainz-protocol answer.
    public static func listenBrainzOutcome(status: Int, body: [UInt8], headers: [String: String]) -> Outcome {
        let message = errorMessage(body) ?? "HTTP \(status)"
        switch status {
        case 200..<300:
            return .delivered(ignored: [:])
        case 401, 403:
            return .unauthorized(reason: "\(status): \(message)")
        case 429:
            return .retry(reason: "429: \(message)", after: retryAfter(headers))
        case 400..<500:
            return .refused(reason: "\(status): \(message)")
        default:
            return .retry(reason: "\(status): \(message)", after: retryAfter(headers))
        }
    }

    /// Reads an Audioscrobbler 2.0 answer to `track.scrobble` for `count` scrobbles.
    /// Error codes (https://www.last.fm/api/errorcodes): 9 bad session, 4/10/14/15/26 bad
    /// credentials or suspended key, 13 bad signature → unauthorized; 11, 16, 29 (offline,
    /// unavailable, rate limit) → retry; others refuse the request.
    public static func scrobbleOutcome(status: Int, body: [UInt8], headers: [String: String], count: Int) -> Outcome {
        let json = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
        if let code = json?["error"].flatMap(intValue) {
            let reason = "error \(code): \(json?["message"] as? String ?? "")"
            switch code {
            case 9, 4, 10, 13, 14, 15, 26: return .unauthorized(reason: reason)
            case 11, 16, 29: return .retry(reason: reason, after: retryAfter(headers))
            case 8: return .failed(reason: reason)
            default: return status >= 500 ? .retry(reason: reason, after: retryAfter(headers)) : .refused(reason: reason)
            }
        }
        guard (200..<300).contains(status) else {
            let reason = "HTTP \(status)"
            if status == 429 || status >= 500 { return .retry(reason: reason, after: retryAfter(headers)) }
            return status == 401 || status == 403 ? .unauthorized(reason: reason) : .refused(reason: reason)
        }
        guard let scrobbles = json?["scrobbles"] as? [String: Any] else {
            return .retry(reason: "an answer without scrobbles: \(String(decoding: body.prefix(200), as: UTF8.self))", after: nil)
        }
        // One scrobble comes back as an object, several as a list.
        let items: [[String: Any]] = (scrobbles["scrobble"] as? [[String: Any]])
            ?? (scrobbles["scrobble"] as? [String: Any]).map { [$0] } ?? []
        var ignored: [Int: String] = [:]
        for (i, item) in items.enumerated() where i < count {
            guard let message = item["ignoredMessage"] as? [String: Any],
                  let code = message["code"].flatMap(intValue), code != 0 else { continue }
            let text = message["#text"] as? String ?? ""
            ignored[i] = "ignored (\(code))" + (text.isEmpty ? ": " + ignoredReason(code) : ": \(text)")
        }
        return .delivered(ignored: ignored)
    }

    /// The session key and user name in an `auth.getMobileSession` answer, or its error.
    public enum SessionAnswer: Equatable, Sendable {
        case session(key: String, name: String)
        case refused(String)
    }

    public static func mobileSession(status: Int, body: [UInt8]) -> SessionAnswer {
        let json = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
        if let session = json?["session"] as? [String: Any], let key = session["key"] as? String, !key.isEmpty {
            return .session(key: key, name: session["name"] as? String ?? "")
        }
        if let code = json?["error"].flatMap(intValue) {
            return .refused("error \(code): \(json?["message"] as? String ?? "")")
        }
        return .refused("HTTP \(status): \(String(decoding: body.prefix(200), as: UTF8.self))")
    }

    private static func ignoredReason(_ code: Int) -> String {
        switch code {
        case 1: "artist ignored"
        case 2: "track ignored"
        case 3: "timestamp too old"
        case 4: "timestamp too new"
        case 5: "daily scrobble limit exceeded"
        default: "ignored"
        }
    }

    /// `Retry-After` in seconds (an HTTP date is not used by these services), or
    /// ListenBrainz's `X-RateLimit-Reset-In` when it says nothing is left.
    public static func retryAfter(_ headers: [String: String]) -> Double? {
        if let value = headers["retry-after"], let seconds = Double(value.trimmingCharacters(in: .whitespaces)), seconds >= 0 {
            return seconds
        }
        if headers["x-ratelimit-remaining"].flatMap({ Int($0) }) == 0,
           let reset = headers["x-ratelimit-reset-in"].flatMap({ Double($0) }), reset >= 0 {
            return reset
        }
        return nil
    }

    /// Before the next request when ListenBrainz says the window is nearly used up: its
    /// reset time spread over what is left, so a backlog never runs into 429.
    public static func pace(_ headers: [String: String]) -> Double? {
        guard let remaining = headers["x-ratelimit-remaining"].flatMap({ Int($0) }),
              let reset = headers["x-ratelimit-reset-in"].flatMap({ Double($0) }), remaining < 5 else { return nil }
        return remaining <= 0 ? reset : reset / Double(remaining)
    }

    private static func errorMessage(_ body: [UInt8]) -> String? {
        guard let json = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            let text = String(decoding: body.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return text.isEmpty ? nil : text
        }
        return (json["error"] as? String) ?? (json["message"] as? String) ?? (json["detail"] as? String)
    }

    private static func intValue(_ value: Any) -> Int? {
        if let number = value as? Int { return number }
        if let text = value as? String { return Int(text) }
        if let number = value as? Double { return Int(number) }
        return nil
    }
}
