import Foundation
import PacenoteTestSupport
import Testing

/// Webhooks from Jellyfin, Plex and Web Scrobbler, and Maloja's scrobble API as Web
/// Scrobbler's Maloja connector calls it, over HTTP against the real daemon: payloads in the
/// shapes each source documents or was recorded sending (the source of each is cited where it
/// is built), giving the plays the play rule says — counted or a skip with its seconds, with
/// the source's name — and malformed ones refused with a 4xx and nothing stored.
@Suite struct WebhookTests {
    static func key(_ daemon: PacenoteDaemon, _ name: String, scope: String = "submit") throws -> String {
        let r = try PacenoteProcess.run(["key", "add", name, "--scope", scope, "--config", daemon.dir.file("config.toml"), "--db", daemon.db])
        guard r.status == 0 else { throw HarnessError("pacenote key add: \(r.stderr)") }
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func post(_ url: String, _ body: String, headers: [String: String] = [:]) throws -> HTTPResult {
        try HTTP.request("POST", url, headers: headers, body: Data(body.utf8))
    }

    static func json(_ object: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    // MARK: Jellyfin

    /// A Jellyfin webhook plugin payload ("Generic" destination, "Send All Properties"): the
    /// data object of github.com/jellyfin/jellyfin-plugin-webhook
    /// `Jellyfin.Plugin.Webhook/Helpers/DataObjectHelpers.cs` (GetBaseDataObject,
    /// AddBaseItemData for an `Audio` item, AddPlaybackProgressData, and PlaybackStopNotifier's
    /// `PlayedToCompletion`), in the shape Jellyfin 10.8.10 was recorded sending in
    /// github.com/FoxxMD/multi-scrobbler `src/backend/tests/jellyfin/playbackProgressSample.json`.
    static func jellyfin(_ type: String, title: String, seconds: Double, position: Double, completed: Bool? = nil,
                         item: String = "Audio", device: String = "Pixel 8") -> String {
        var o: [String: Any] = [
            "ServerId": "5f0c2b7a9d3e4c1b8a6f2e0d9c8b7a61", "ServerName": "den", "ServerVersion": "10.9.11",
            "ServerUrl": "http://jellyfin.lan:8096", "NotificationType": type,
            "Timestamp": "2026-12-02T12:00:00.0000000+01:00", "UtcTimestamp": "2026-12-02T11:00:00.0000000Z",
            "Name": title, "Overview": "", "Tagline": "", "ItemId": "a1b2c3d4e5f60718293a4b5c6d7e8f90", "ItemType": item,
            "RunTimeTicks": Int64(seconds * 10_000_000), "RunTime": "00:03:20", "Year": 2019,
            "Album": "Summerland", "Artist": "Dool",
            "Provider_musicbrainzartist": "f59c5520-5f46-4d2c-b2c4-822eabf53419",
            "Provider_musicbrainzalbum": "0b3a5e0c-7d2f-4c1e-9c55-6f0d6bbd2f10",
            "Audio_0_Title": "FLAC - Stereo", "Audio_0_Type": "Audio", "Audio_0_Codec": "flac", "Audio_0_Channels": 2,
            "PlaybackPositionTicks": Int64(position * 10_000_000), "PlaybackPosition": "00:00:00",
            "MediaSourceId": "a1b2c3d4e5f60718293a4b5c6d7e8f90", "IsPaused": false, "IsAutomated": false,
            "DeviceId": "TW96aWxsYS81LjAgKFgxMTsgTGludXg", "DeviceName": device, "ClientName": "Jellyfin Android",
            "NotificationUsername": "runner", "UserId": "6d23c30c5e9d4ec6a66db6b05b63e516",
        ]
        if let completed { o["PlayedToCompletion"] = completed }
        // The recording's id, for one song only (the same id would make two songs one track).
        if title == "Vantablack" { o["Provider_musicbrainztrack"] = "e225fb84-dc9a-419e-adcd-9890f59ec432" }
        return json(o)
    }

    /// Start, progress and stop of one song that played past half, and of one skipped early;
    /// the same stop sent again adds nothing; the key in the URL or in a header; a film is
    /// understood and ignored. Real time passes between start and stop, so the rule's
    /// shortest track is 1 s here (`[plays] min_track_s`): a 6-second song; the other tests
    /// run on the default rule.
    @Test func jellyfinPlaybackGivesThePlaysTheRuleSays() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: "[plays]\nmin_track_s = 1\n")
        let key = try Self.key(daemon, "jellyfin")
        let url = daemon.base + "/webhooks/jellyfin/" + key
        // The plugin sends text/plain unless a Content-Type header is added.
        let plain = ["Content-Type": "text/plain; charset=utf-8"]
        #expect(try Self.post(url, Self.jellyfin("PlaybackStart", title: "Vantablack", seconds: 6, position: 0), headers: plain).status == 200)
        let playing = try daemon.status()
        #expect("\(playing)".contains("Vantablack"), "now playing elsewhere: \(playing)")
        usleep(1_500_000)  // real time between start and stop: the play's seconds
        #expect(try Self.post(url, Self.jellyfin("PlaybackProgress", title: "Vantablack", seconds: 6, position: 1.5), headers: plain).status == 200)
        usleep(2_000_000)  // real time: 3.5 s played in all
        let stop = Self.jellyfin("PlaybackStop", title: "Vantablack", seconds: 6, position: 3.5, completed: false)
        let stopped = try Self.post(url, stop, headers: plain)
        #expect(stopped.status == 200 && stopped.json?["counted"] as? Int == 1, "\(stopped.text)")
        #expect(try Self.post(url, stop, headers: plain).json?["stored"] as? Int == 0, "the same stop again")

        // The key in a header (the plugin can add one) instead of the URL.
        let header = ["Content-Type": "application/json", "X-API-Key": key]
        #expect(try Self.post(daemon.base + "/webhooks/jellyfin", Self.jellyfin("PlaybackStart", title: "Dust", seconds: 10, position: 0),
                              headers: header).status == 200)
        usleep(1_000_000)  // real time: a second played, a skip
        let skipped = try Self.post(daemon.base + "/webhooks/jellyfin",
                                    Self.jellyfin("PlaybackStop", title: "Dust", seconds: 10, position: 1, completed: false), headers: header)
        #expect(skipped.json?["skipped"] as? Int == 1, "\(skipped.text)")
        let film = try Self.post(url, Self.jellyfin("PlaybackStop", title: "A Film", seconds: 6000, position: 5000, item: "Movie"))
        #expect(film.status == 200 && (film.json?["ignored"] as? [String])?.count == 1, "\(film.text)")

        let listens = try daemon.listens()
        #expect(listens.map(\.description) == ["Vantablack counted 3.50 s on Pixel 8", "Dust skip 1.00 s on Pixel 8"])
        #expect(Set(listens.map { $0.json["source"] as? String }) == ["jellyfin:Pixel 8"])
        #expect(listens.first?.track["musicbrainz_recording_id"] as? String == "e225fb84-dc9a-419e-adcd-9890f59ec432")
        // The key in the URL never reaches the log.
        #expect(!daemon.process.stderr.contains(key))
    }

    // MARK: Plex

    /// A Plex webhook as Plex sends it: multipart/form-data, the JSON in the `payload` part and
    /// a JPEG in `thumb` for media.play (support.plex.tv/articles/115002267687-webhooks:
    /// "Top-level: event, user, owner … Account, Server, Player, Metadata"); the music fields
    /// of `Metadata` (`type` track, `title`, `parentTitle`, `grandparentTitle`, no duration) as
    /// listed for music in github.com/hekmon/plexwebhooks `metadata.go`.
    static func plex(_ event: String, title: String, type: String = "track", player: String = "Living Room",
                     thumb: Bool = false) -> (body: Data, contentType: String) {
        let payload = json([
            "event": event, "user": true, "owner": true,
            "Account": ["id": 1, "thumb": "https://plex.tv/users/1022b120ffbaa/avatar?c=1465525047", "title": "runner"],
            "Server": ["title": "Office", "uuid": "54664a3d8acc39983675640ec9ce00b70af9cc36"],
            "Player": ["local": true, "publicAddress": "200.200.200.200", "title": player, "uuid": "r6yfkdnfggbh2bdnvkffwbms"],
            "Metadata": [
                "librarySectionType": "artist", "ratingKey": "1936", "key": "/library/metadata/1936",
                "parentRatingKey": "1935", "grandparentRatingKey": "1934", "guid": "plex://track/5d07cdb6403c640290f5b9b1",
                "librarySectionID": 3, "type": type, "title": title, "grandparentKey": "/library/metadata/1934",
                "parentKey": "/library/metadata/1935", "grandparentTitle": "Dool", "parentTitle": "Summerland",
                "summary": "", "index": 2, "parentIndex": 1, "ratingCount": 140, "thumb": "/library/metadata/1935/thumb/1715112523",
                "addedAt": 1_715_112_500, "updatedAt": 1_715_112_523,
            ] as [String: Any],
        ])
        let boundary = "------------------------c2f8ff39e1f8f8c1"
        var body = "--\(boundary)\r\nContent-Disposition: form-data; name=\"payload\"\r\nContent-Type: application/json\r\n\r\n\(payload)\r\n"
        var data = Data(body.utf8)
        if thumb {
            data += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"thumb\"; filename=\"thumb.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
            data += Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x0D, 0x0A, 0x2D, 0x2D, 0xFF, 0xD9])
            data += Data("\r\n".utf8)
        }
        body = "--\(boundary)--\r\n"
        data += Data(body.utf8)
        return (data, "multipart/form-data; boundary=\(boundary)")
    }

    /// media.play, media.scrobble (past 90 %) and media.stop are one counted play; a song
    /// stopped at once is a skip; pause and resume move the stopwatch; a film and media.rate
    /// are ignored.
    @Test func plexWebhooksGiveThePlaysTheRuleSays() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let url = daemon.base + "/webhooks/plex/" + (try Self.key(daemon, "plex"))
        func send(_ event: String, _ title: String, type: String = "track", thumb: Bool = false) throws -> HTTPResult {
            let (body, contentType) = Self.plex(event, title: title, type: type, thumb: thumb)
            return try HTTP.request("POST", url, headers: ["Content-Type": contentType], body: body)
        }
        #expect(try send("media.play", "Oweynagat", thumb: true).status == 200)
        #expect(try send("media.pause", "Oweynagat").status == 200)
        #expect(try send("media.resume", "Oweynagat").status == 200)
        let scrobbled = try send("media.scrobble", "Oweynagat")
        #expect(scrobbled.json?["counted"] as? Int == 1, "\(scrobbled.text)")
        #expect(try send("media.stop", "Oweynagat").json?["stored"] as? Int == 0, "the stop after the scrobble adds nothing")
        #expect(try send("media.play", "Summerland", thumb: true).status == 200)
        let stopped = try send("media.stop", "Summerland")
        #expect(stopped.json?["skipped"] as? Int == 1, "\(stopped.text)")
        #expect(try send("media.play", "A Film", type: "movie").json?["stored"] as? Int == 0)
        #expect(try send("media.rate", "Oweynagat").json?["stored"] as? Int == 0)

        let listens = try daemon.listens()
        #expect(listens.map(\.title) == ["Oweynagat", "Summerland"] && listens.map(\.counted) == [true, false], "\(listens)")
        #expect(Set(listens.map { $0.json["source"] as? String }) == ["plex:Living Room"])
        #expect(listens.allSatisfy { $0.player == "Living Room" && $0.artist == "Dool" })
        #expect((listens.last?.playedSeconds ?? 99) < 5, "stopped at once: \(listens)")
    }

    // MARK: Web Scrobbler and Maloja

    /// A song as Web Scrobbler's webhook connector sends it: `BaseSong` serialised
    /// (github.com/web-scrobbler/web-scrobbler `src/core/object/song.ts`: parsed, processed,
    /// noRegex, flags, metadata with `startTimestamp` in Unix seconds, connector) inside
    /// `{eventName, time, data: {song}}` (`src/core/scrobbler/webhook-scrobbler.ts`).
    static func webScrobbler(_ event: String, title: String, duration: Double, startedAt: Int, time: Date,
                             extra: [String: Any] = [:]) -> String {
        let song: [String: Any] = [
            "parsed": ["track": title, "artist": "Dool", "album": "Summerland", "albumArtist": NSNull(), "duration": duration,
                       "uniqueID": "dQw4w9WgXcQ", "currentTime": 12, "isPlaying": true, "trackArt": NSNull(),
                       "originUrl": "https://www.youtube.com/watch?v=dQw4w9WgXcQ", "isPodcast": false] as [String: Any],
            "processed": ["track": title, "artist": "Dool", "album": NSNull(), "albumArtist": NSNull(), "duration": NSNull()] as [String: Any],
            "noRegex": ["track": NSNull(), "artist": NSNull(), "album": NSNull(), "albumArtist": NSNull(), "duration": NSNull()] as [String: Any],
            "flags": ["isScrobbled": false, "isCorrectedByUser": false, "isValid": true, "isMarkedAsPlaying": true,
                      "isSkipped": false, "isReplaying": false, "hasBlockedTag": false, "isLovedInService": NSNull(),
                      "finishedProcessing": true] as [String: Any],
            "metadata": ["label": "YouTube", "startTimestamp": startedAt] as [String: Any],
            "connector": ["label": "YouTube", "matches": ["*://www.youtube.com/*"], "js": "youtube.js", "id": "youtube"] as [String: Any],
        ]
        var data: [String: Any] = ["song": song]
        for (k, v) in extra { data[k] = v }
        if event == "scrobble" { data["songs"] = [song]; data["currentlyPlaying"] = true }
        return json(["eventName": event, "time": Int64(time.timeIntervalSince1970 * 1000), "data": data])
    }

    /// Web Scrobbler's nowplaying and scrobble (played past half: counted; scrobbled 30 s into a
    /// 200 s song: a skip), its loved (a like); the same play through Web Scrobbler's Maloja
    /// connector (`POST /apis/mlj_1/newscrobble`, the key in the body) stored once; a wrong
    /// Maloja key refused; serverinfo answering as Maloja's does.
    @Test func webScrobblerAndItsMalojaConnectorGiveThePlaysTheRuleSays() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let key = try Self.key(daemon, "browser")
        let url = daemon.base + "/webhooks/webscrobbler/" + key
        let json = ["Content-Type": "application/json"]
        // Whole seconds, as Web Scrobbler's startTimestamp is: the time from start to scrobble is exact.
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let start = Int(now.timeIntervalSince1970) - 100
        #expect(try Self.post(url, Self.webScrobbler("nowplaying", title: "Wolf Moon", duration: 180, startedAt: start, time: now.addingTimeInterval(-100)),
                              headers: json).status == 200)
        let counted = try Self.post(url, Self.webScrobbler("scrobble", title: "Wolf Moon", duration: 180, startedAt: start, time: now), headers: json)
        #expect(counted.json?["counted"] as? Int == 1, "\(counted.text)")
        let early = try Self.post(url, Self.webScrobbler("scrobble", title: "Sulphur", duration: 200, startedAt: start + 70, time: now),
                                  headers: json)
        #expect(early.json?["skipped"] as? Int == 1, "\(early.text)")
        let loved = try Self.post(url, Self.webScrobbler("loved", title: "Wolf Moon", duration: 180, startedAt: start, time: now,
                                                         extra: ["isLoved": true]), headers: json)
        #expect(loved.status == 200, "\(loved.text)")
        #expect(try daemon.sql("SELECT feeling, source FROM track_feelings") == "like|webscrobbler\n")

        // Web Scrobbler's Maloja connector: {artist, title, album, time, key} (maloja-scrobbler.ts
        // makeTrackMetadata), POSTed as JSON to the URL the user gives (Maloja's newscrobble).
        let info = try HTTP.get(daemon.base + "/apis/mlj_1/serverinfo")
        #expect(info.status == 200 && info.json?["versionstring"] is String && info.json?["db_status"] is [String: Any], "\(info.text)")
        let maloja = daemon.base + "/apis/mlj_1/newscrobble"
        let same = try Self.post(maloja, Self.json(["artist": "Dool", "title": "Wolf Moon", "album": "Summerland", "time": start, "key": key]),
                                 headers: json)
        #expect(same.status == 200 && same.json?["status"] as? String == "success", "\(same.text)")
        let fresh = try Self.post(maloja, Self.json(["artist": "Dool", "title": "Be Your Own God", "albumartists": ["Dool"],
                                                     "time": start - 600, "key": key]), headers: json)
        #expect(fresh.status == 200, "\(fresh.text)")
        let wrong = try Self.post(maloja, Self.json(["artist": "Dool", "title": "Oweynagat", "time": start, "key": "pn_wrong_key"]),
                                  headers: json)
        #expect(wrong.status == 403, "\(wrong.text)")

        let listens = try daemon.listens()
        #expect(listens.map(\.description) == ["Be Your Own God counted 0.00 s on -", "Wolf Moon counted 100.00 s on YouTube",
                                               "Sulphur skip 30.00 s on YouTube"], "the Maloja scrobble of Wolf Moon is the same play")
        #expect(listens.map { $0.json["source"] as? String } == ["maloja", "webscrobbler", "webscrobbler"])
    }

    // MARK: ListenBrainz duration_played

    /// `additional_info.duration_played` (seconds actually listened, ListenBrainz's
    /// docs/users/json.rst): under the rule's threshold a skip with those seconds, over it
    /// counted; without it, a listen counts as ever.
    @Test func listenBrainzDurationPlayedDecidesCountedOrSkip() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let t = Int(Date().timeIntervalSince1970) - 3600
        func listen(_ title: String, _ at: Int, _ played: Int?) -> String {
            var info: [String: Any] = ["duration": 200, "media_player": "Pano Scrobbler"]
            if let played { info["duration_played"] = played }
            return Self.json(["listen_type": "single", "payload": [[
                "listened_at": at, "track_metadata": ["artist_name": "Dool", "track_name": title, "additional_info": info] as [String: Any],
            ]]])
        }
        for (title, at, played) in [("Skipped", t, 60), ("Listened", t + 300, 150)] as [(String, Int, Int?)] {
            let r = try daemon.post("/1/submit-listens", body: listen(title, at, played))
            #expect(r.status == 200, "\(r.text)")
        }
        #expect(try daemon.post("/1/submit-listens", body: listen("Whole", t + 600, nil)).status == 200)
        let bad = try daemon.post("/1/submit-listens", body: listen("Bad", t + 900, -3))
        #expect(bad.status == 400 && bad.json?["error"] is String, "\(bad.text)")
        let listens = try daemon.listens()
        #expect(listens.map(\.description) == ["Skipped skip 60.00 s on Pano Scrobbler", "Listened counted 150.00 s on Pano Scrobbler",
                                               "Whole counted 200.00 s on Pano Scrobbler"])
        // ListenBrainz's own reads show listens only: the skip is not one.
        let count = try HTTP.get(daemon.base + "/1/user/pacenote/listen-count", headers: ["Authorization": "Token \(daemon.apiKey)"])
        #expect((count.json?["payload"] as? [String: Any])?["count"] as? Int == 2, "\(count.text)")
    }

    // MARK: Refusals

    /// Malformed payloads, missing and wrong keys, a read key and a huge body: each a 4xx with a
    /// JSON error, and nothing stored.
    @Test func malformedPayloadsAndWrongKeysAreRefusedAndStoreNothing() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let key = try Self.key(daemon, "hooks")
        let readKey = try Self.key(daemon, "reader", scope: "read")
        let base = daemon.base
        let stop = Self.jellyfin("PlaybackStop", title: "Vantablack", seconds: 200, position: 150, completed: false)
        let cases: [(String, String, String, [String: String], Int)] = [
            ("jellyfin", "/webhooks/jellyfin/\(key)", "", [:], 400),
            ("jellyfin", "/webhooks/jellyfin/\(key)", "not json", [:], 400),
            ("jellyfin", "/webhooks/jellyfin/\(key)", "[1, 2]", [:], 400),
            ("jellyfin", "/webhooks/jellyfin/\(key)", #"{"NotificationType": "PlaybackStop", "ItemType": "Audio", "Artist": "Dool"}"#, [:], 400),
            ("jellyfin", "/webhooks/jellyfin", stop, [:], 401),
            ("jellyfin", "/webhooks/jellyfin/pn_not_a_key", stop, [:], 401),
            ("jellyfin", "/webhooks/jellyfin/\(readKey)", stop, [:], 403),
            ("plex", "/webhooks/plex/\(key)", "--b\r\nContent-Disposition: form-data; name=\"thumb\"\r\n\r\nx\r\n--b--\r\n",
             ["Content-Type": "multipart/form-data; boundary=b"], 400),
            ("plex", "/webhooks/plex/\(key)", "--b\r\nno end", ["Content-Type": "multipart/form-data; boundary=b"], 400),
            ("plex", "/webhooks/plex/\(key)", #"{"event": "media.stop"}"#, ["Content-Type": "application/json"], 400),
            ("webscrobbler", "/webhooks/webscrobbler/\(key)", #"{"eventName": "scrobble", "time": 1, "data": {}}"#, [:], 400),
            ("webscrobbler", "/webhooks/webscrobbler/\(key)", #"{"eventName": "scrobble", "data": {"song": {"parsed": {"track": "T"}}}}"#, [:], 400),
            ("maloja", "/apis/mlj_1/newscrobble", #"{"title": "T", "key": "\#(key)"}"#, ["Content-Type": "application/json"], 400),
            ("maloja", "/apis/mlj_1/newscrobble", #"{"artist": "A", "title": "T"}"#, ["Content-Type": "application/json"], 401),
            ("maloja", "/apis/mlj_1/newscrobble", #"{"artist": "A", "title": "T", "key": "\#(readKey)"}"#, ["Content-Type": "application/json"], 403),
            ("maloja", "/apis/mlj_1/newscrobble", "{not json", ["Content-Type": "application/json"], 400),
        ]
        for (name, path, body, headers, status) in cases {
            let r = try Self.post(base + path, body, headers: headers)
            #expect(r.status == status, "\(name) \(body.prefix(60)): \(r.status) \(r.text)")
            #expect(r.json?["error"] != nil, "\(name): a JSON error body: \(r.text)")
        }
        // A body over server.max_body_bytes (1 MiB) is refused before it is read.
        let huge = "{\"Name\": \"" + String(repeating: "x", count: 2 << 20) + "\"}"
        let tooBig = try Self.post(base + "/webhooks/jellyfin/\(key)", huge)
        #expect(tooBig.status == 413, "\(tooBig.status) \(tooBig.text.prefix(200))")
        #expect(try daemon.sql("SELECT count(*) FROM plays") == "0\n")
        #expect(try daemon.sql("SELECT count(*) FROM tracks") == "0\n")
    }
}
