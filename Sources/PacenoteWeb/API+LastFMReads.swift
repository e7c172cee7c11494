import Foundation
import PacenoteCore
import PacenoteStore

/// Last.fm 2.0's reads and loves at `/apis/audioscrobbler/2.0/`, which apps that scrobble
/// also call (pylast's `get_recent_tracks`, `get_top_artists`, `get_loved_tracks`,
/// `Track.love()`, `get_userplaycount()`; Pano Scrobbler): `user.getInfo`,
/// `user.getRecentTracks`, `user.getTopArtists`, `user.getTopAlbums`, `user.getTopTracks`,
/// `user.getLovedTracks`, `user.getFriends`, `track.getInfo`, `track.love`, `track.unlove`
/// (https://www.last.fm/api). Answered from what Pacenote has: recent tracks are counted
/// plays, charts come from the rollups, loves are likes (`track_feelings`) both ways.
/// Pacenote has one user: any `user` answers and is echoed back.
///
/// Who may call them (`Authorization.lastFMReader`): the history is private, so a read needs
/// a session key (`sk`) opened with a key that may read, a Pacenote key that may read as
/// `api_key`, or a trusted network; a love needs a session and `api_sig` (signed, as
/// Last.fm's write calls are; the signature is not checked: the secret is the client's own).
extension API {
    /// The read methods, lower-cased.
    static let lastFMReadMethods: Set<String> = [
        "user.getinfo", "user.getrecenttracks", "user.gettopartists", "user.gettopalbums", "user.gettoptracks",
        "user.getlovedtracks", "user.getfriends", "track.getinfo",
    ]

    /// A read method's answer, the caller already let in.
    func lastFMRead(_ method: String, _ fields: [String: String], _ request: HTTPRequest, json: Bool) throws -> HTTPResponse {
        let user = fields["user"].flatMap { $0.isEmpty ? nil : $0 } ?? "pacenote"
        let root = siteRoot(request)
        let element: LastFMElement = switch method {
        case "user.getinfo": try lastFMUserInfo(user, root: root)
        case "user.getrecenttracks": try lastFMRecentTracks(user, fields, root: root)
        case "user.gettopartists": try lastFMTop(.artist, user, fields, root: root)
        case "user.gettopalbums": try lastFMTop(.album, user, fields, root: root)
        case "user.gettoptracks": try lastFMTop(.track, user, fields, root: root)
        case "user.getlovedtracks": try lastFMLovedTracks(user, fields, root: root)
        case "user.getfriends": try lastFMFriends(user, fields)
        default: try lastFMTrackInfo(fields, root: root)
        }
        return Self.lastFM(json, xml: element.node, object: (element.name, element.json))
    }

    // MARK: Paging

    /// `limit` (default 50, 1…`max`) and `page` (default 1): Last.fm's paging; a number out
    /// of range is error 6. What is no number at all is the default, as Last.fm takes it:
    /// pylast's `get_top_tracks()` sends `limit=None`.
    static func lastFMPaging(_ fields: [String: String], max: Int) throws -> (limit: Int, page: Int, offset: Int) {
        func number(_ name: String, _ value: Int, _ range: ClosedRange<Int>) throws -> Int {
            guard let text = fields[name]?.trimmingCharacters(in: .whitespaces), let n = Int(text) else { return value }
            guard range.contains(n) else {
                throw APIError.lastFMInvalidParameters("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return n
        }
        let limit = try number("limit", 50, 1...max)
        let page = try number("page", 1, 1...1_000_000)
        return (limit, page, (page - 1) * limit)
    }

    static func pagingAttributes(_ user: String, limit: Int, page: Int, total: Int) -> [(String, String)] {
        [("user", user), ("page", String(page)), ("perPage", String(limit)),
         ("totalPages", String((total + limit - 1) / limit)), ("total", String(total))]
    }

    /// Last.fm's four image sizes, empty: Pacenote's covers are private (they need a key).
    static let lastFMImages: [LastFMElement] = ["small", "medium", "large", "extralarge"].map {
        LastFMElement("image", [("size", $0)], text: "")
    }

    /// `9 Jun 2008, 17:16` (UTC), with `uts`: how Last.fm dates a scrobble or a love.
    static func lastFMDate(_ date: Date) -> LastFMElement {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = Int(seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
        let c = CivilDate.civil(days: days)
        let inDay = Int(seconds - Int64(days) * 86_400)
        let month = String(ListeningActivity.monthNames[c.month - 1].prefix(3))
        func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }
        return LastFMElement("date", [("uts", String(seconds))], text: "\(c.day) \(month) \(c.year), \(pad(inDay / 3600)):\(pad(inDay % 3600 / 60))")
    }

    // MARK: user.*

    /// `user.getInfo`: the counted plays, the tracks, artists and albums played, and when
    /// the first play was (`registered`).
    func lastFMUserInfo(_ user: String, root: String) throws -> LastFMElement {
        let store = context.store
        let plays = try store.countedPlays()
        let first = try store.countedPlaysSpan()?.oldest ?? context.clock.now()
        let all = ("0000-01-01", "9999-12-31")
        let counts = try [Store.ChartEntity.track, .artist, .album].map { try store.chartedCount($0, fromDay: all.0, toDay: all.1) }
        let seconds = Int64(first.timeIntervalSince1970.rounded(.down))
        return LastFMElement("user", listOf: ["image"], [
            LastFMElement("name", text: user), LastFMElement("realname", text: ""),
        ] + Self.lastFMImages + [
            LastFMElement("url", text: root + "/"), LastFMElement("country", text: "None"), LastFMElement("age", text: "0"),
            LastFMElement("gender", text: "n"), LastFMElement("subscriber", text: "0"), LastFMElement("playcount", text: String(plays)),
            LastFMElement("artist_count", text: String(counts[1])), LastFMElement("track_count", text: String(counts[0])),
            LastFMElement("album_count", text: String(counts[2])), LastFMElement("playlists", text: "0"),
            LastFMElement("bootstrap", text: "0"),
            LastFMElement("registered", [("unixtime", String(seconds))], text: String(seconds)),
            LastFMElement("type", text: "user"),
        ])
    }

    /// `user.getRecentTracks`: counted plays, newest first, `from`/`to` (Unix seconds: after
    /// `from`, before `to`) and paging; on the first page what plays now comes first with
    /// `nowplaying="true"` (an MPD player, else a scrobbler's now-playing). `extended=1`
    /// gives the artist as an element with its name and whether the track is loved.
    func lastFMRecentTracks(_ user: String, _ fields: [String: String], root: String) throws -> LastFMElement {
        let (limit, page, offset) = try Self.lastFMPaging(fields, max: 1000)
        func seconds(_ name: String) throws -> Date? {
            guard let text = fields[name], !text.isEmpty else { return nil }
            guard let n = Int64(text), n >= 0, n <= Int64(Self.listenBrainzMaxTimestamp) else {
                throw APIError.lastFMInvalidParameters("\(name) must be a Unix time in seconds")
            }
            return Date(timeIntervalSince1970: Double(n))
        }
        // Last.fm's `from` is exclusive of its second as ListenBrainz's min_ts is.
        let from = try seconds("from").map { $0.addingTimeInterval(1) }, to = try seconds("to")
        let extended = fields["extended"] == "1"
        let store = context.store
        let total = try store.countedPlayCount(from: from, to: to)
        let plays = try store.countedPlays(from: from, to: to, limit: limit, offset: offset)
        let liked = extended ? try store.feelings().filter { $0.value == .like } : [:]
        var items: [LastFMElement] = []
        if page == 1, from == nil, to == nil, let now = nowPlayingAnywhere() {
            items.append(lastFMRecentTrack(now, date: nil, loved: extended ? (now.id.map { liked[$0] != nil } ?? false) : nil, root: root))
        }
        items += plays.map { p in
            lastFMRecentTrack(p.track, date: p.play.startedAt, loved: extended ? liked[p.play.trackID] != nil : nil, root: root)
        }
        return LastFMElement("recenttracks", Self.pagingAttributes(user, limit: limit, page: page, total: total), listOf: ["track"], items)
    }

    /// What plays now: the first MPD player that plays, else a scrobbler's now-playing.
    func nowPlayingAnywhere() -> Track? {
        if let mpd = context.nowPlaying().first(where: { $0.state == .play }) { return mpd.track }
        return context.scrobbles.playingElsewhere(now: context.clock.now()).first { $0.state == .play }?.track
    }

    func lastFMRecentTrack(_ t: Track, date: Date?, loved: Bool?, root: String) -> LastFMElement {
        let artist = t.artist ?? t.albumArtist ?? ""
        let artistMBID = Self.mbids(t.musicBrainz.artist).first ?? ""
        var children: [LastFMElement] = [
            loved != nil
                ? LastFMElement("artist", [
                    LastFMElement("url", text: Self.artistURL(root, artist)), LastFMElement("name", text: artist),
                    LastFMElement("mbid", text: artistMBID),
                ])
                : LastFMElement("artist", [("mbid", artistMBID)], text: artist),
            LastFMElement("streamable", text: "0"),
        ] + Self.lastFMImages + [
            LastFMElement("mbid", text: t.musicBrainz.recording ?? ""),
            LastFMElement("album", [("mbid", t.musicBrainz.release ?? "")], text: t.album ?? ""),
            LastFMElement("name", text: t.title),
            LastFMElement("url", text: t.id.map { root + "/tracks/\($0)" } ?? ""),
        ]
        if let loved { children.append(LastFMElement("loved", text: loved ? "1" : "0")) }
        if let date { children.append(Self.lastFMDate(date)) }
        return LastFMElement("track", date == nil ? [("nowplaying", "true")] : [], listOf: ["image"], children)
    }

    static func artistURL(_ root: String, _ name: String) -> String {
        root + "/artist?name=" + (name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
    }

    /// Last.fm's `period`: all time, or the last 7, 30, 90, 180 or 365 days (today among them).
    static func lastFMPeriodDays(_ period: String) -> Int?? {
        switch period {
        case "overall": .some(nil)
        case "7day": 7
        case "1month": 30
        case "3month": 90
        case "6month": 180
        case "12month": 365
        default: nil
        }
    }

    /// `user.getTopArtists`, `getTopAlbums`, `getTopTracks`: the chart of `period` (default
    /// `overall`) by counted plays, from the rollups, paged.
    func lastFMTop(_ entity: Store.ChartEntity, _ user: String, _ fields: [String: String], root: String) throws -> LastFMElement {
        let period = fields["period"].flatMap { $0.isEmpty ? nil : $0 } ?? "overall"
        guard let days = Self.lastFMPeriodDays(period) else {
            throw APIError.lastFMInvalidParameters("period must be overall, 7day, 1month, 3month, 6month or 12month")
        }
        let (limit, page, offset) = try Self.lastFMPaging(fields, max: 1000)
        let today = localTime.day(of: context.clock.now())
        let fromDay = days.flatMap { n in CivilDate.days(of: today).map { CivilDate.text(days: $0 - n + 1) } } ?? "0000-01-01"
        let toDay = days == nil ? "9999-12-31" : today
        let store = context.store
        let chart = try store.countedChart(entity, fromDay: fromDay, toDay: toDay, limit: offset + limit)
        let entries = offset < chart.entries.count ? Array(chart.entries[offset...]) : []
        let attributes = [("user", user), ("type", period)] + Self.pagingAttributes(user, limit: limit, page: page, total: chart.total).dropFirst()
        func rank(_ i: Int) -> [(String, String)] { [("rank", String(offset + i + 1))] }
        switch entity {
        case .artist:
            let mbids = try store.artistMBIDs(entries.compactMap(\.artistID))
            return LastFMElement("topartists", Array(attributes), listOf: ["artist"], entries.enumerated().map { i, e in
                LastFMElement("artist", rank(i), listOf: ["image"], [
                    LastFMElement("name", text: e.artist ?? ""), LastFMElement("playcount", text: String(e.plays)),
                    LastFMElement("mbid", text: e.artistID.flatMap { mbids[$0] } ?? ""),
                    LastFMElement("url", text: e.artistID.map { root + "/artists/\($0)" } ?? ""),
                    LastFMElement("streamable", text: "0"),
                ] + Self.lastFMImages)
            })
        case .album:
            let releases = try store.releaseMBIDs(entries.compactMap(\.albumID))
            return LastFMElement("topalbums", Array(attributes), listOf: ["album"], entries.enumerated().map { i, e in
                LastFMElement("album", rank(i), listOf: ["image"], [
                    LastFMElement("name", text: e.album ?? ""), LastFMElement("playcount", text: String(e.plays)),
                    LastFMElement("mbid", text: e.albumID.flatMap { releases[$0] } ?? ""),
                    LastFMElement("url", text: e.albumID.map { root + "/albums/\($0)" } ?? ""),
                    LastFMElement("artist", [
                        LastFMElement("name", text: e.artist ?? ""), LastFMElement("mbid", text: ""),
                        LastFMElement("url", text: Self.artistURL(root, e.artist ?? "")),
                    ]),
                ] + Self.lastFMImages)
            })
        case .track:
            return LastFMElement("toptracks", Array(attributes), listOf: ["track"], entries.enumerated().map { i, e in
                let t = e.track!
                let artist = t.artist ?? t.albumArtist ?? ""
                return LastFMElement("track", rank(i), listOf: ["image"], [
                    LastFMElement("name", text: t.title),
                    LastFMElement("duration", text: String(Int((t.durationSeconds ?? 0).rounded()))),
                    LastFMElement("playcount", text: String(e.plays)),
                    LastFMElement("mbid", text: t.musicBrainz.recording ?? ""),
                    LastFMElement("url", text: t.id.map { root + "/tracks/\($0)" } ?? ""),
                    LastFMElement("streamable", [("fulltrack", "0")], text: "0"),
                    LastFMElement("artist", [
                        LastFMElement("name", text: artist), LastFMElement("mbid", text: Self.mbids(t.musicBrainz.artist).first ?? ""),
                        LastFMElement("url", text: Self.artistURL(root, artist)),
                    ]),
                ] + Self.lastFMImages)
            })
        case .genre:
            // Last.fm's charts are of artists, albums and tracks only (no route asks this).
            throw APIError.lastFMInvalidParameters("no chart of genres")
        }
    }

    /// `user.getLovedTracks`: the liked tracks, the latest like first, paged.
    func lastFMLovedTracks(_ user: String, _ fields: [String: String], root: String) throws -> LastFMElement {
        let (limit, page, offset) = try Self.lastFMPaging(fields, max: 1000)
        let store = context.store
        let total = try store.feelingCount(.like)
        let loved = try store.feelingTracks(.like, limit: limit, offset: offset)
        return LastFMElement("lovedtracks", Self.pagingAttributes(user, limit: limit, page: page, total: total), listOf: ["track"],
                             loved.map { f in
            let t = f.track
            let artist = t.artist ?? t.albumArtist ?? ""
            // The track's name before its artist's: pylast reads the first `name` as the title.
            return LastFMElement("track", listOf: ["image"], [
                LastFMElement("name", text: t.title), LastFMElement("mbid", text: t.musicBrainz.recording ?? ""),
                LastFMElement("url", text: t.id.map { root + "/tracks/\($0)" } ?? ""),
                Self.lastFMDate(f.updatedAt),
                LastFMElement("artist", [
                    LastFMElement("name", text: artist), LastFMElement("mbid", text: Self.mbids(t.musicBrainz.artist).first ?? ""),
                    LastFMElement("url", text: Self.artistURL(root, artist)),
                ]),
            ] + Self.lastFMImages + [LastFMElement("streamable", [("fulltrack", "0")], text: "0")])
        })
    }

    /// `user.getFriends`: the friends this Pacenote follows (`[[friends]]` and those added
    /// on the site, as ListenBrainz's `following`), by name, each with its feed's address.
    func lastFMFriends(_ user: String, _ fields: [String: String]) throws -> LastFMElement {
        let (limit, page, offset) = try Self.lastFMPaging(fields, max: 1000)
        let friends = try context.store.friends()
        return LastFMElement("friends", Self.pagingAttributes(user, limit: limit, page: page, total: friends.count), listOf: ["user"],
                             friends.dropFirst(offset).prefix(limit).map { f in
            LastFMElement("user", listOf: ["image"], [
                LastFMElement("name", text: f.name), LastFMElement("realname", text: ""),
            ] + Self.lastFMImages + [
                LastFMElement("url", text: f.url), LastFMElement("country", text: "None"),
                LastFMElement("subscriber", text: "0"), LastFMElement("type", text: "user"),
            ])
        })
    }

    // MARK: track.*

    /// The stored tracks a Last.fm call names: `mbid` (a recording), else `artist` and
    /// `track` (`MatchKey`: case, accents and a leading "The" aside). Error 6 without them.
    func lastFMSong(_ fields: [String: String]) throws -> [Track] {
        if let mbid = fields["mbid"], !mbid.isEmpty {
            return try context.store.tracks(recordingMBID: mbid)
        }
        guard let artist = fields["artist"], !artist.isEmpty, let title = fields["track"], !title.isEmpty else {
            throw APIError.lastFMInvalidParameters("artist and track (or mbid) are required")
        }
        return try context.store.songTracks(artist: artist, title: title)
    }

    /// `track.getInfo`: the song's stored track, its counted plays (`playcount`, every stored
    /// track of the song together) and, with `username`, `userplaycount` and `userloved`.
    /// Error 6 "Track not found" for a song never stored.
    func lastFMTrackInfo(_ fields: [String: String], root: String) throws -> LastFMElement {
        let tracks = try lastFMSong(fields)
        guard let t = tracks.first else { throw APIError.lastFM(6, "Track not found", .notFound) }
        let store = context.store
        let plays = try store.countedPlays(trackIDs: tracks.compactMap(\.id))
        let feelings = try tracks.compactMap(\.id).map { try store.feeling(trackID: $0) }
        let artist = t.artist ?? t.albumArtist ?? ""
        var children: [LastFMElement] = [
            LastFMElement("id", text: t.id.map(String.init) ?? ""),
            LastFMElement("name", text: t.title), LastFMElement("mbid", text: t.musicBrainz.recording ?? ""),
            LastFMElement("url", text: t.id.map { root + "/tracks/\($0)" } ?? ""),
            LastFMElement("duration", text: String(Int(((t.durationSeconds ?? 0) * 1000).rounded()))),
            LastFMElement("streamable", [("fulltrack", "0")], text: "0"),
            LastFMElement("listeners", text: plays > 0 ? "1" : "0"), LastFMElement("playcount", text: String(plays)),
            LastFMElement("artist", [
                LastFMElement("name", text: artist), LastFMElement("mbid", text: Self.mbids(t.musicBrainz.artist).first ?? ""),
                LastFMElement("url", text: Self.artistURL(root, artist)),
            ]),
        ]
        if let album = t.album {
            children.append(LastFMElement("album", t.trackNumber.map { [("position", String($0))] } ?? [], listOf: ["image"], [
                LastFMElement("artist", text: t.albumArtist ?? artist), LastFMElement("title", text: album),
                LastFMElement("mbid", text: t.musicBrainz.release ?? ""),
                LastFMElement("url", text: t.albumID.map { root + "/albums/\($0)" } ?? ""),
            ] + Self.lastFMImages))
        }
        if let username = fields["username"], !username.isEmpty {
            children.append(LastFMElement("userplaycount", text: String(plays)))
            children.append(LastFMElement("userloved", text: feelings.contains(.like) ? "1" : "0"))
        }
        children.append(LastFMElement("toptags", listOf: ["tag"], []))
        return LastFMElement("track", children)
    }

    /// `track.love` / `track.unlove`: the song's stored track is liked, or its like taken
    /// away (a dislike stays), through `Operations.setFeeling` as every like is. A session
    /// (`sk`) of a key that may send likes, and a signature (`api_sig`), are required;
    /// error 6 for a song never stored (Pacenote likes stored tracks only).
    func lastFMLove(_ fields: [String: String], love: Bool, json: Bool, client: String) throws -> HTTPResponse {
        guard let sig = fields["api_sig"], sig.count == 32, sig.allSatisfy(\.isHexDigit) else {
            throw APIError.lastFM(13, "Invalid method signature supplied", .forbidden)
        }
        guard let session = Authorization.scrobblerSession(fields["sk"], client: client, in: context) else {
            throw APIError.lastFMInvalidSession
        }
        guard let scope = Authorization.scope(of: session, in: context), Authorization.lastFMMayLove(scope) else {
            throw APIError.lastFMAuthenticationFailed
        }
        guard let track = try lastFMSong(fields).first, let id = track.id else {
            throw APIError.lastFM(6, "Track not found", .notFound)
        }
        do {
            if love {
                try context.operations.setFeeling(trackID: id, .like, source: "audioscrobbler")
            } else if try context.store.feeling(trackID: id) == .like {
                try context.operations.setFeeling(trackID: id, .none, source: "audioscrobbler")
            }
        } catch let error as APIError {
            throw error
        } catch {
            context.logger.error("audioscrobbler \(love ? "love" : "unlove"): \(error)")
            throw APIError.lastFM(16, "There was a temporary error processing your request. Please try again", .unavailable)
        }
        if json { return .json(.object([])) }
        return HTTPResponse(status: 200, headers: [("Content-Type", "text/xml; charset=utf-8")],
                            body: Node.el("lfm", ["status": "ok"]).xmlDocument())
    }

    /// This server's address as the client reached it: `server.public_url`, else the `Host`
    /// it was asked by (with the base path).
    func siteRoot(_ request: HTTPRequest) -> String {
        if let publicURL = context.publicURL {
            return publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        }
        return "http://" + (request.header("Host") ?? "127.0.0.1") + context.basePath
    }
}
