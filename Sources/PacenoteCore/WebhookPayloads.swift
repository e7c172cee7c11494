import Foundation

/// What a webhook said, read from its payload.
public enum WebhookEvent: Equatable, Sendable {
    case playback(PlaybackReport)
    /// Loved (or no longer) in the source (Web Scrobbler's `loved`).
    case love(Track, loved: Bool)
    /// Understood, and nothing to do with music plays (a video, a library scan, a test).
    case ignored(String)
}

/// The payloads media servers and extensions push, read into `WebhookEvent`s. Each reader
/// takes only what its source documents and refuses a body that is no such payload
/// (`Rejection`: a 400, nothing stored).
public enum WebhookPayloads {
    public struct Rejection: Error, Equatable, Sendable {
        public var message: String
        public init(_ message: String) { self.message = message }
    }

    // MARK: Jellyfin

    /// Jellyfin's webhook plugin (github.com/jellyfin/jellyfin-plugin-webhook), a "Generic"
    /// destination with "Send All Properties": the data object of
    /// `Helpers/DataObjectHelpers.cs` as JSON — `NotificationType`, `ItemType`, `Name`,
    /// `Artist`, `Album`, `RunTimeTicks` and `PlaybackPositionTicks` (100 ns ticks),
    /// `PlayedToCompletion`, `IsPaused`, `DeviceName`, `Provider_musicbrainztrack`, ….
    /// The plugin's keys are case-insensitive, so they are read so. The plugin sends it as
    /// `text/plain` unless told otherwise: the content type is not looked at.
    public static func jellyfin(_ body: [UInt8]) throws(Rejection) -> WebhookEvent {
        let raw = try object(body)
        let o = Dictionary(raw.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        guard let type = text(o["notificationtype"]) else { throw Rejection("a Jellyfin webhook needs NotificationType") }
        let kind: PlaybackReport.Kind
        switch type {
        case "PlaybackStart": kind = .start
        case "PlaybackProgress": kind = (o["ispaused"] as? Bool) == true ? .pause : .progress
        case "PlaybackStop": kind = .stop(completed: (o["playedtocompletion"] as? Bool) == true)
        default: return .ignored("Jellyfin \(type): not a playback")
        }
        guard text(o["itemtype"]) == "Audio" else { return .ignored("Jellyfin \(text(o["itemtype"]) ?? "item"): not music") }
        func ticks(_ key: String) -> Double? { number(o[key]).map { $0 / 10_000_000 } }
        let duration = ticks("runtimeticks").flatMap { $0 > 0 ? $0 : nil }
        let track = try song(title: text(o["name"]), artist: text(o["artist"]), album: text(o["album"]), duration: duration,
                             musicBrainz: MusicBrainzIDs(recording: text(o["provider_musicbrainztrack"]),
                                                         release: text(o["provider_musicbrainzalbum"]),
                                                         artist: text(o["provider_musicbrainzartist"]),
                                                         albumArtist: text(o["provider_musicbrainzalbumartist"])),
                             source: "Jellyfin")
        let device = text(o["devicename"]) ?? text(o["clientname"]) ?? "jellyfin"
        return .playback(PlaybackReport(kind, track: track, source: "jellyfin:" + device, player: device,
                                        position: try seconds(ticks("playbackpositionticks"), "PlaybackPositionTicks")))
    }

    // MARK: Plex

    /// Plex's webhooks (support.plex.tv/articles/115002267687-webhooks): `multipart/form-data`
    /// whose `payload` part is JSON — `event` (`media.play`, `media.pause`, `media.resume`,
    /// `media.stop`, `media.scrobble`: played past 90 %), `Player.title`, and `Metadata` with
    /// `type` `track`, `title`, `grandparentTitle` (the album artist), `originalTitle` (the
    /// track's artist when it differs), `parentTitle` (the album) and, when Plex sends it,
    /// `duration` in milliseconds. A thumbnail part may come along; it is not read.
    public static func plex(_ body: [UInt8], contentType: String?) throws(Rejection) -> WebhookEvent {
        let json: [UInt8]
        if let contentType, contentType.lowercased().hasPrefix("multipart/") {
            guard let parts = Multipart.parts(body, contentType: contentType) else { throw Rejection("the multipart body cannot be read") }
            guard let payload = parts.first(where: { $0.name == "payload" }) else { throw Rejection("a Plex webhook needs a payload part") }
            json = payload.body
        } else {
            json = body
        }
        let o = try object(json)
        guard let event = text(o["event"]) else { throw Rejection("a Plex webhook needs an event") }
        let kind: PlaybackReport.Kind
        switch event {
        case "media.play": kind = .start
        case "media.pause": kind = .pause
        case "media.resume": kind = .resume
        case "media.stop": kind = .stop(completed: false)
        case "media.scrobble": kind = .passed(fraction: 0.9)
        default: return .ignored("Plex \(event): not a playback")
        }
        guard let metadata = o["Metadata"] as? [String: Any] else { throw Rejection("a Plex playback event needs Metadata") }
        guard text(metadata["type"]) == "track" else { return .ignored("Plex \(text(metadata["type"]) ?? "item"): not music") }
        let duration = number(metadata["duration"]).flatMap { $0 > 0 ? $0 / 1000 : nil }
        var track = try song(title: text(metadata["title"]), artist: text(metadata["originalTitle"]) ?? text(metadata["grandparentTitle"]),
                             album: text(metadata["parentTitle"]), duration: duration, musicBrainz: .init(), source: "Plex")
        track.albumArtist = text(metadata["grandparentTitle"])
        let player = text((o["Player"] as? [String: Any])?["title"]) ?? "plex"
        return .playback(PlaybackReport(kind, track: track, source: "plex:" + player, player: player,
                                        position: try seconds(number(metadata["viewOffset"]).map { $0 / 1000 }, "viewOffset")))
    }

    // MARK: Web Scrobbler

    /// Web Scrobbler's webhook connector (github.com/web-scrobbler/web-scrobbler,
    /// `src/core/scrobbler/webhook-scrobbler.ts`): `{"eventName", "time" (ms), "data": {"song",
    /// "songs", "isLoved"}}` with `eventName` `nowplaying`, `paused`, `resumedplaying`,
    /// `scrobble` or `loved`; a song is `BaseSong` as JSON (`src/core/object/song.ts`):
    /// `processed` (the user's corrections) over `parsed`, `metadata.startTimestamp` (Unix
    /// seconds), `connector.label`. Web Scrobbler sends `scrobble` once its own threshold is
    /// passed; Pacenote judges the time from the song's start to that moment by its rule.
    public static func webScrobbler(_ body: [UInt8]) throws(Rejection) -> [WebhookEvent] {
        let o = try object(body)
        guard let name = text(o["eventName"]) else { throw Rejection("a Web Scrobbler webhook needs eventName") }
        guard let data = o["data"] as? [String: Any] else { throw Rejection("a Web Scrobbler webhook needs data") }
        let time = try instant(number(o["time"]).map { $0 / 1000 }, "time")
        func report(_ kind: PlaybackReport.Kind, _ raw: Any?) throws(Rejection) -> PlaybackReport {
            guard let s = raw as? [String: Any] else { throw Rejection("a Web Scrobbler \(name) needs data.song") }
            let parsed = s["parsed"] as? [String: Any] ?? [:], processed = s["processed"] as? [String: Any] ?? [:]
            let metadata = s["metadata"] as? [String: Any] ?? [:]
            func field(_ key: String) -> String? { text(processed[key]) ?? text(parsed[key]) }
            let duration = (number(parsed["duration"]) ?? number(processed["duration"])).flatMap { $0 > 0 ? $0 : nil }
            var track = try song(title: field("track"), artist: field("artist"), album: field("album"), duration: duration,
                                 musicBrainz: MusicBrainzIDs(release: text(metadata["albumMbId"])), source: "Web Scrobbler")
            track.albumArtist = field("albumArtist")
            let started = try instant(number(metadata["startTimestamp"]), "metadata.startTimestamp")
            let player = text((s["connector"] as? [String: Any])?["label"]) ?? text(metadata["label"]) ?? "webscrobbler"
            var position: Double?
            if case .stop = kind, let started, let time {
                position = min(max(0, time.timeIntervalSince(started)), duration ?? Double(ListenBrainzSubmission.maxDurationSeconds))
            }
            return PlaybackReport(kind, track: track, source: "webscrobbler", player: player, position: position, startedAt: started)
        }
        switch name {
        case "nowplaying": return [.playback(try report(.start, data["song"]))]
        case "paused": return [.playback(try report(.pause, data["song"]))]
        case "resumedplaying": return [.playback(try report(.resume, data["song"]))]
        case "scrobble":
            guard time != nil else { throw Rejection("a Web Scrobbler scrobble needs time") }
            let songs = (data["songs"] as? [Any]).flatMap { $0.isEmpty ? nil : $0 } ?? [data["song"] as Any]
            guard songs.count <= 50 else { throw Rejection("at most 50 songs in one scrobble") }
            var events: [WebhookEvent] = []
            for s in songs { events.append(.playback(try report(.stop(completed: false), s))) }
            return events
        case "loved":
            let r = try report(.start, data["song"])
            return [.love(r.track, loved: (data["isLoved"] as? Bool) ?? true)]
        default: return [.ignored("Web Scrobbler \(name)")]
        }
    }

    // MARK: Maloja

    /// A scrobble for Maloja's `POST /apis/mlj_1/newscrobble` (github.com/krateng/maloja,
    /// `maloja/apis/native_v1.py` `post_scrobble`), as Web Scrobbler's Maloja connector sends
    /// it (`src/core/scrobbler/maloja/maloja-scrobbler.ts`: `artist`, `title`, `album`,
    /// `albumartists`, `time`, `key`): `artist` (one or a list) or `artists`, `title`,
    /// `album`, `albumartists`, `duration` (seconds actually listened), `length` (the
    /// track's seconds), `time` (Unix seconds), and the key as `key` or `apikey`.
    public struct MalojaScrobble: Equatable, Sendable {
        public var key: String?
        public var track: Track
        public var time: Date?
        /// Seconds listened (`duration`), when sent.
        public var played: Double?
    }

    /// `fields`: the JSON body's object, or a form's or query's fields (strings).
    public static func maloja(_ fields: [String: Any]) throws(Rejection) -> MalojaScrobble {
        func list(_ value: Any?) -> [String] {
            if let one = text(value) { return [one] }
            return (value as? [Any] ?? []).compactMap { text($0) }
        }
        let artists = list(fields["artist"]) + list(fields["artists"])
        guard !artists.isEmpty, let title = text(fields["title"]) else {
            throw Rejection("The scrobble is missing needed parameters: artist (or artists) and title")
        }
        func seconds(_ key: String) throws(Rejection) -> Double? {
            guard let value = fields[key], !(value is NSNull) else { return nil }
            guard let n = number(value) ?? text(value).flatMap(Double.init), n.isFinite, n >= 0,
                  n <= (key == "time" ? latest : Double(ListenBrainzSubmission.maxDurationSeconds)) else {
                throw Rejection("\(key) must be a number of seconds")
            }
            return n
        }
        let length = try seconds("length"), played = try seconds("duration")
        let time = try instant(try seconds("time"), "time")
        let albumArtists = list(fields["albumartists"])
        let track = Track(title: title, artist: artists.joined(separator: ", "), album: text(fields["album"]),
                          albumArtist: albumArtists.isEmpty ? nil : albumArtists.joined(separator: ", "),
                          durationSeconds: length.flatMap { $0 > 0 ? $0 : nil },
                          listedCredit: artists.count > 1 ? ArtistCredit(listed: artists, mbids: []) : nil)
        return MalojaScrobble(key: text(fields["key"]) ?? text(fields["apikey"]), track: track, time: time, played: played)
    }

    // MARK: Reading

    static func object(_ body: [UInt8]) throws(Rejection) -> [String: Any] {
        guard !body.isEmpty else { throw Rejection("the body is empty: a JSON object was expected") }
        guard let value = try? JSONSerialization.jsonObject(with: Data(body)) else { throw Rejection("the body is no JSON") }
        guard let object = value as? [String: Any] else { throw Rejection("the body must be a JSON object") }
        return object
    }

    public static func text(_ value: Any?) -> String? {
        guard let s = value as? String else { return nil }
        let trimmed = s.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// A JSON number (not a boolean), or a string of one: Jellyfin may write numbers as strings.
    static func number(_ value: Any?) -> Double? {
        if let n = HeartRateInput.number(value), n.isFinite { return n }
        return text(value).flatMap(Double.init).flatMap { $0.isFinite ? $0 : nil }
    }

    /// The latest time taken (2100-01-01): beyond it a time is no time.
    static let latest: Double = 4_102_444_800

    /// A time in Unix seconds, from ListenBrainz's earliest (2002-10-01) to `latest`.
    static func instant(_ seconds: Double?, _ name: String) throws(Rejection) -> Date? {
        guard let seconds else { return nil }
        guard seconds >= Double(ListenBrainzSubmission.minimumTimestamp), seconds <= latest else {
            throw Rejection("\(name) is no time between 2002 and 2100")
        }
        return Date(timeIntervalSince1970: seconds)
    }

    /// A position in a track: at most 24 days, as ListenBrainz's longest duration.
    static func seconds(_ value: Double?, _ name: String) throws(Rejection) -> Double? {
        guard let value else { return nil }
        guard value >= 0, value <= Double(ListenBrainzSubmission.maxDurationSeconds) else { throw Rejection("\(name) is out of range") }
        return value
    }

    static func song(title: String?, artist: String?, album: String?, duration: Double?, musicBrainz: MusicBrainzIDs,
                     source: String) throws(Rejection) -> Track {
        guard let title else { throw Rejection("a \(source) song needs a title") }
        guard let artist else { throw Rejection("a \(source) song needs an artist") }
        let limit = 1000
        guard title.count <= limit, artist.count <= limit, (album?.count ?? 0) <= limit else {
            throw Rejection("a title, artist or album longer than \(limit) characters")
        }
        guard (duration ?? 0) <= Double(ListenBrainzSubmission.maxDurationSeconds) else { throw Rejection("the song's length is beyond 24 days") }
        return Track(title: title, artist: artist, album: album, durationSeconds: duration, musicBrainz: musicBrainz)
    }
}
