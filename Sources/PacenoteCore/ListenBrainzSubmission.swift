import Foundation

/// A `submit-listens` request as ListenBrainz defines it
/// (https://listenbrainz.readthedocs.io/en/latest/users/json.html), read with the same
/// limits and the same error messages ListenBrainz gives, so that its clients behave the
/// same against Pacenote.
public struct ListenBrainzSubmission: Equatable, Sendable {
    public enum ListenType: String, Sendable { case single, playingNow = "playing_now", `import` }

    public struct Listen: Equatable, Sendable {
        /// When playback began (`listened_at`); nil for `playing_now`.
        public var listenedAt: Date?
        public var track: Track
        /// The player or client that sent it (`media_player`, `submission_client`, `listening_from`).
        public var client: String?
        /// How long it was actually played, in seconds (`additional_info.duration_played`), when sent.
        public var playedSeconds: Double?

        /// The play this listen is: counted, unless `duration_played` says it was played for
        /// less than the play rule asks of its length (then a skip, with the seconds played).
        public func play(rule: PlayRule, now: Date) -> ReportedPlay {
            let startedAt = listenedAt ?? now
            guard let playedSeconds else { return .listen(track, startedAt: startedAt, player: client) }
            return .judged(track, startedAt: startedAt, player: client, played: playedSeconds, rule: rule)
        }
    }

    public var type: ListenType
    public var listens: [Listen]

    /// ListenBrainz's limits (listenbrainz.webserver.views.api_tools).
    public static let maxListensPerRequest = 1000
    public static let maxListenBytes = 10_240
    public static let maxPayloadBytes = 10_240 * 1000
    /// The earliest accepted `listened_at`: 2002-10-01, before which no scrobbling existed.
    public static let minimumTimestamp = 1_033_430_400
    /// The longest accepted duration: 24 days, in seconds.
    public static let maxDurationSeconds = 2_073_600

    public struct Rejection: Error, Equatable, Sendable {
        public var message: String
    }

    public static func parse(_ body: [UInt8], now: Date = Date()) throws(Rejection) -> ListenBrainzSubmission {
        guard body.count <= maxPayloadBytes else { throw Rejection(message: "Payload too large.") }
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: Data(body))
        } catch {
            throw Rejection(message: "Cannot parse JSON document.")
        }
        guard let object = root as? [String: Any] else { throw Rejection(message: "Invalid JSON document submitted.") }
        guard let typeText = object["listen_type"] as? String else {
            throw Rejection(message: "JSON document must contain the key listen_type at the top level.")
        }
        guard let type = ListenType(rawValue: typeText) else {
            throw Rejection(message: "JSON document requires a valid listen_type key: 'single', 'playing_now' or 'import'.")
        }
        guard let payload = object["payload"] else {
            throw Rejection(message: "JSON document must contain the key payload at the top level.")
        }
        guard let items = payload as? [Any] else { throw Rejection(message: "The payload must be a list of listens.") }
        guard !items.isEmpty else { throw Rejection(message: "JSON document does not contain any listens in the payload.") }
        if type != .import, items.count != 1 {
            throw Rejection(message: "JSON document should contain exactly one listen in the payload for listen_type \(typeText).")
        }
        guard items.count <= maxListensPerRequest else {
            throw Rejection(message: "Too many listens. You may not submit more than \(maxListensPerRequest) listens at once.")
        }
        var listens: [Listen] = []
        for item in items {
            listens.append(try listen(item, type: type, now: now))
        }
        return ListenBrainzSubmission(type: type, listens: listens)
    }

    private static func listen(_ item: Any, type: ListenType, now: Date) throws(Rejection) -> Listen {
        guard let object = item as? [String: Any] else { throw Rejection(message: "Each listen in the payload must be a JSON object.") }
        if jsonLength(object, limit: maxListenBytes) > maxListenBytes {
            throw Rejection(message: "JSON document is too large. In aggregate, listens may not be larger than \(maxListenBytes) characters.")
        }
        var listenedAt: Date?
        switch (type, object["listened_at"]) {
        case (.playingNow, nil), (.playingNow, is NSNull): break
        case (.playingNow, _):
            throw Rejection(message: "JSON document must not contain listened_at while submitting playing_now.")
        case (_, nil), (_, is NSNull):
            throw Rejection(message: "JSON document must contain the key listened_at at the top level.")
        case (_, let value?):
            guard let seconds = HeartRateInput.number(value), let whole = Int(exactly: seconds) else {
                throw Rejection(message: "JSON document must contain an int value for listened_at.")
            }
            guard whole >= minimumTimestamp else {
                throw Rejection(message: "Value for key listened_at is too low. listened_at timestamp should be greater than \(minimumTimestamp).")
            }
            // A listen cannot begin in the future (a day of clock skew is forgiven).
            guard Double(whole) <= now.timeIntervalSince1970 + 86_400 else {
                throw Rejection(message: "Value for key listened_at is too high: it is in the future.")
            }
            listenedAt = Date(timeIntervalSince1970: seconds)
        }
        guard let metadata = object["track_metadata"] as? [String: Any] else {
            throw Rejection(message: "JSON document must contain the key track_metadata at the top level.")
        }
        func text(_ key: String, in dict: [String: Any]) -> String? {
            (dict[key] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines).nilIfEmpty
        }
        guard let artist = text("artist_name", in: metadata) else {
            throw Rejection(message: "JSON document does not contain required track_metadata.artist_name.")
        }
        guard let title = text("track_name", in: metadata) else {
            throw Rejection(message: "JSON document does not contain required track_metadata.track_name.")
        }
        var info: [String: Any] = [:]
        if let raw = metadata["additional_info"], !(raw is NSNull) {
            guard let dict = raw as? [String: Any] else {
                throw Rejection(message: "The additional_info of a listen must be a JSON object.")
            }
            info = dict
        }
        var duration: Double?
        switch (info["duration_ms"], info["duration"]) {
        case (.some, .some):
            throw Rejection(message: "JSON document should not contain both duration and duration_ms.")
        case (let ms?, nil):
            guard let value = HeartRateInput.number(ms), value == value.rounded(), value > 0,
                  value / 1000 <= Double(maxDurationSeconds) else {
                throw Rejection(message: "Value for duration_ms is invalid, should be a positive integer.")
            }
            duration = value / 1000
        case (nil, let s?):
            guard let value = HeartRateInput.number(s), value == value.rounded(), value > 0, value <= Double(maxDurationSeconds) else {
                throw Rejection(message: "Value for duration is invalid, should be a positive integer.")
            }
            duration = value
        case (nil, nil): break
        }
        // ListenBrainz's JSON documentation (docs/users/json.rst): "duration_played: the
        // duration in seconds that the user actually listened to the track".
        var played: Double?
        if let raw = info["duration_played"], !(raw is NSNull) {
            guard let value = HeartRateInput.number(raw) ?? (raw as? String).flatMap(Double.init), value.isFinite, value >= 0,
                  value <= Double(maxDurationSeconds) else {
                throw Rejection(message: "Value for duration_played is invalid, should be a positive integer.")
            }
            played = value
        }
        let artistMBIDs = info["artist_mbids"] as? [String]
        // ListenBrainz's own split of the credit, when the client sent it (`artist_names`).
        let listed = (info["artist_names"] as? [String]).flatMap { ArtistCredit(listed: $0, mbids: artistMBIDs ?? []) }
        let track = Track(
            title: title, artist: artist, album: text("release_name", in: metadata),
            trackNumber: (info["tracknumber"] as? Int) ?? (info["tracknumber"] as? String).flatMap { Int($0) },
            durationSeconds: duration,
            musicBrainz: MusicBrainzIDs(
                recording: text("recording_mbid", in: info), release: text("release_mbid", in: info),
                artist: artistMBIDs?.first),
            listedCredit: listed)
        let client = text("media_player", in: info) ?? text("submission_client", in: info) ?? text("listening_from", in: info)
        return Listen(listenedAt: listenedAt, track: track, client: client, playedSeconds: played)
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }

}

extension ListenBrainzSubmission {
    /// About how long `value` is written as compact JSON (strings counted as their UTF-8
    /// bytes, escapes aside), stopping once past `limit`: the per-listen size check without
    /// writing every listen out again (which took a tenth of a submission's time).
    static func jsonLength(_ value: Any, limit: Int) -> Int {
        var total = 0
        var stack: [Any] = [value]
        while let item = stack.popLast(), total <= limit {
            switch item {
            case let text as String: total += text.utf8.count + 2
            case let object as [String: Any]:
                total += 2 + max(0, object.count - 1)
                for (key, value) in object {
                    total += key.utf8.count + 3
                    stack.append(value)
                }
            case let array as [Any]:
                total += 2 + max(0, array.count - 1)
                stack.append(contentsOf: array)
            case is NSNull: total += 4
            case let number as NSNumber: total += number.stringValue.utf8.count
            default: total += 8
            }
        }
        return total
    }
}
