import Foundation
import PacenoteCore
import PacenoteStore

/// `/library` (issue 57): the player's library from the mirror Pacenote keeps — artists,
/// an artist's albums, an album's tracks — with the search, covers from MPD, and BPM, likes
/// and plays beside each track; `GET /api/v1/library/…` gives the same as JSON.
extension API {
    func libraryPage(_ request: HTTPRequest, mayWrite: Bool) throws -> HTTPResponse {
        let back = pageAddress(request)
        if let raw = request.query["album"] {
            guard let id = Int64(raw), let album = try context.store.album(id: id) else { throw APIError.notFound("There is no album \(raw).") }
            let tracks = try context.store.libraryTracks(albumID: id)
            let feelings = try context.store.feelings(of: tracks.compactMap(\.track?.id))
            return html(title: album.title, request: request, nav: "library") {
                Node.el("p", ["class": "small"]) { Node.el("a", ["href": url("/library")]) { "Library" } }
                Node.el("div", ["class": "np"]) {
                    Node.el("img", ["class": "cover", "src": coverURL(tracks.first?.track), "alt": "", "width": "120", "height": "120"])
                    Node.el("div") {
                        Node.el("h1") { album.title }
                        Node.el("p") { artistLink(album.artist, id: album.artistID) }
                        queueButtons("album", id, mayWrite: mayWrite, back: back)
                    }
                }
                Node.el("section", ["class": "card"]) {
                    Node.el("table", ["class": "library-tracks"]) {
                        Node.el("thead") {
                            Node.el("tr") { for h in ["#", "Title", "BPM", "", "Plays", "Length", ""] { Node.el("th", ["scope": "col"]) { h } } }
                        }
                        Node.el("tbody") {
                            for e in tracks { if let t = e.track { libraryRow(t, plays: e.plays, feeling: feelings[t.id ?? 0] ?? .none, mayWrite: mayWrite, back: back) } }
                        }
                    }
                }
            }
        }
        if let raw = request.query["artist"] {
            guard let id = Int64(raw), let artist = try context.store.artist(id: id) else { throw APIError.notFound("There is no artist \(raw).") }
            let albums = try context.store.libraryAlbums(artistID: id)
            return html(title: artist.name, request: request, nav: "library") {
                Node.el("p", ["class": "small"]) { Node.el("a", ["href": url("/library")]) { "Library" } }
                Node.el("h1") { artist.name }
                queueButtons("artist", id, mayWrite: mayWrite, back: back)
                Node.el("ul", ["class": "albums"]) {
                    for a in albums {
                        Node.el("li") {
                            Node.el("a", ["href": url("/library?album=\(a.id)")]) {
                                Node.el("img", ["class": "cover", "src": a.firstTrackID.map { url("/covers/\($0)") } ?? url("/static/cover.svg"), "alt": "", "width": "64", "height": "64"])
                                a.name
                            }
                            Node.el("span", ["class": "count"]) { " \(SiteFormat.plural(a.tracks, "track")) · \(SiteFormat.plural(a.plays, "play"))" }
                        }
                    }
                }
                if albums.isEmpty { Node.el("p", ["class": "muted"]) { "None of \(artist.name)'s albums is in the library." } }
            }
        }
        let search = request.query["q"].flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
        if let search, search.count > 200 { throw APIError.badRequest("the search is at most 200 characters", code: "invalid_q") }
        let offset = try Self.boundedInt(request.query["offset"], name: "offset", default: 0, range: 0...10_000_000)
        let artists = try context.store.libraryArtists(search: search, limit: 101, offset: offset)
        return html(title: "Library", request: request, nav: "library") {
            Node.el("h1") { "Library" }
            Node.el("form", ["method": "get", "action": url("/library"), "class": "inline", "role": "search"]) {
                Node.el("label", ["for": "library-q"]) { "Artist " }
                Node.el("input", ["id": "library-q", "type": "search", "name": "q", "value": search ?? "", "maxlength": "200"])
                Node.el("button", ["type": "submit"]) { "Search" }
            }
            Node.el("ul", ["class": "library-artists"]) {
                for a in artists.prefix(100) {
                    Node.el("li") {
                        Node.el("a", ["href": url("/library?artist=\(a.id)")]) { a.name }
                        Node.el("span", ["class": "count"]) { " \(SiteFormat.plural(a.tracks, "track")) · \(SiteFormat.plural(a.plays, "play"))" }
                    }
                }
            }
            if artists.isEmpty {
                Node.el("p", ["class": "muted"]) { search == nil ? "The library is empty: Pacenote mirrors MPD's once it has connected." : "No artist matches." }
            }
            if artists.count > 100 {
                Node.el("p") {
                    Node.el("a", ["href": url("/library?" + (search.map { "q=\(URLText.component($0))&" } ?? "") + "offset=\(offset + 100)")]) { "More artists" }
                }
            }
        }
    }

    /// A track of the library browser with its BPM, like, plays, length and queue buttons.
    func libraryRow(_ t: Track, plays: Int, feeling: Feeling, mayWrite: Bool, back: String) -> Node {
        .el("tr", ["data-track-id": t.id.map(String.init)]) {
            Node.el("td", ["class": "num"]) { t.trackNumber.map(String.init) ?? "" }
            Node.el("td") { trackLink(t) }
            Node.el("td", ["class": "num"]) { t.bpm.map { String(Int($0.value.rounded())) } ?? "–" }
            Node.el("td") { heart(t.id, feeling, mayWrite: mayWrite, back: back) }
            Node.el("td", ["class": "num"]) { String(plays) }
            Node.el("td", ["class": "num"]) { t.durationSeconds.map(SiteFormat.clock) ?? "" }
            Node.el("td") { queueButtons("track", t.id, mayWrite: mayWrite, back: back, compact: true) }
        }
    }

    // MARK: GET /api/v1/library/…

    func libraryArtistsJSON(_ query: [String: String]) throws -> JSONValue {
        let limit = try Self.boundedInt(query["limit"], name: "limit", default: 100, range: 1...1000)
        let offset = try Self.boundedInt(query["offset"], name: "offset", default: 0, range: 0...10_000_000)
        if let q = query["q"], q.count > 200 { throw APIError.badRequest("q: at most 200 characters", code: "invalid_q") }
        let artists = try context.store.libraryArtists(search: query["q"], limit: limit, offset: offset)
        return .object([("artists", .array(artists.map { a in
            .object([("id", .int(a.id)), ("name", .string(a.name)), ("tracks", .int(Int64(a.tracks))), ("plays", .int(Int64(a.plays)))])
        }))])
    }

    func libraryArtistJSON(_ id: Int64) throws -> JSONValue {
        guard let artist = try context.store.artist(id: id) else { throw APIError.notFound("no artist \(id)") }
        return .object([("id", .int(id)), ("name", .string(artist.name)), ("albums", .array(try context.store.libraryAlbums(artistID: id).map { a in
            .object([("id", .int(a.id)), ("title", .string(a.name)), ("artist", .optional(a.artist)),
                     ("tracks", .int(Int64(a.tracks))), ("plays", .int(Int64(a.plays)))])
        }))])
    }

    func libraryAlbumJSON(_ id: Int64) throws -> JSONValue {
        guard let album = try context.store.album(id: id) else { throw APIError.notFound("no album \(id)") }
        let tracks = try context.store.libraryTracks(albumID: id)
        let feelings = try context.store.feelings(of: tracks.compactMap(\.track?.id))
        return .object([("id", .int(id)), ("title", .string(album.title)), ("artist", .optional(album.artist)),
                        ("tracks", .array(tracks.compactMap { e in
            e.track.map { t in
                .object([("track", APIJSON.track(t)), ("plays", .int(Int64(e.plays))),
                         ("feeling", .string((feelings[t.id ?? 0] ?? .none).rawValue))])
            }
        }))])
    }
}
