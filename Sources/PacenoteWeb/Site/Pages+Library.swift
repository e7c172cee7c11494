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
                albumList(albums)
                if albums.isEmpty { Node.el("p", ["class": "muted"]) { "None of \(artist.name)'s albums is in the library." } }
            }
        }
        let search = request.query["q"].flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 }
        if let search, search.count > 200 { throw APIError.badRequest("the search is at most 200 characters", code: "invalid_q") }
        let offset = try Self.boundedInt(request.query["offset"], name: "offset", default: 0, range: 0...10_000_000)
        let artists = try context.store.libraryArtists(search: search, limit: 101, offset: offset)
        // A search also finds albums and tracks (the first page only: the artists page on).
        let found = try search.flatMap { offset == 0 ? try context.store.librarySearch($0, limit: 50, artists: false) : nil }
        let feelings = try context.store.feelings(of: found?.tracks.compactMap(\.track?.id) ?? [])
        return html(title: search.map { "Library: \($0)" } ?? "Library", request: request, nav: "library") {
            Node.el("h1") { "Library" }
            Node.el("p", ["class": "small"]) {
                Node.el("a", ["href": url("/player")]) { "Player and queue" }
                " · "
                Node.el("a", ["href": url("/playlists")]) { "Playlists, smart playlists and moods" }
            }
            Node.el("form", ["method": "get", "action": url("/library"), "class": "inline library-search", "role": "search"]) {
                Node.el("label", ["for": "library-q"]) { "Search " }
                Node.el("input", ["id": "library-q", "type": "search", "name": "q", "value": search ?? "", "maxlength": "200",
                                  "placeholder": "Artist, album or title"])
                Node.el("button", ["type": "submit"]) { "Search" }
                if search != nil { Node.el("a", ["href": url("/library")]) { " All artists" } }
            }
            if search != nil { Node.el("h2") { "Artists" } }
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
            if let found {
                Node.el("h2") { "Albums" }
                albumList(found.albums)
                if found.albums.isEmpty { Node.el("p", ["class": "muted"]) { "No album matches." } }
                Node.el("h2") { "Tracks" }
                if found.tracks.isEmpty {
                    Node.el("p", ["class": "muted"]) { "No track matches." }
                } else {
                    Node.el("table", ["class": "library-tracks library-found"]) {
                        Node.el("thead") {
                            Node.el("tr") { for h in ["Title", "Artist", "Album", "BPM", "", "Plays", "Length", ""] { Node.el("th", ["scope": "col"]) { h } } }
                        }
                        Node.el("tbody") {
                            for e in found.tracks {
                                if let t = e.track {
                                    libraryRow(t, plays: e.plays, feeling: feelings[t.id ?? 0] ?? .none, mayWrite: mayWrite, back: back, withAlbum: true)
                                }
                            }
                        }
                    }
                    if found.tracks.count == 50 { Node.el("p", ["class": "small muted"]) { "The 50 most played; more words narrow the search." } }
                }
            }
        }
    }

    /// Albums with their covers, each opening in the library.
    func albumList(_ albums: [Store.LibraryEntry]) -> Node {
        .el("ul", ["class": "albums"]) {
            for a in albums {
                Node.el("li") {
                    Node.el("a", ["href": url("/library?album=\(a.id)")]) {
                        Node.el("img", ["class": "cover", "src": a.firstTrackID.map { url("/covers/\($0)") } ?? url("/static/cover.svg"), "alt": "", "width": "64", "height": "64"])
                        a.name
                    }
                    if let artist = a.artist, !artist.isEmpty { Node.el("span", ["class": "muted"]) { " · \(artist)" } }
                    Node.el("span", ["class": "count"]) { " \(SiteFormat.plural(a.tracks, "track")) · \(SiteFormat.plural(a.plays, "play"))" }
                }
            }
        }
    }

    /// A track of the library browser with its BPM, like, plays, length and queue buttons.
    /// `withAlbum`: a search's row, with the artist and the album in place of the number.
    func libraryRow(_ t: Track, plays: Int, feeling: Feeling, mayWrite: Bool, back: String, withAlbum: Bool = false) -> Node {
        .el("tr", ["data-track-id": t.id.map(String.init)]) {
            if !withAlbum { Node.el("td", ["class": "num"]) { t.trackNumber.map(String.init) ?? "" } }
            Node.el("td") { trackLink(t) }
            if withAlbum {
                Node.el("td") { t.artist ?? "" }
                Node.el("td") {
                    if let album = t.album, let id = t.albumID { Node.el("a", ["href": url("/library?album=\(id)")]) { album } } else { t.album ?? "" }
                }
            }
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

    /// `GET /api/v1/library/search?q=`: the library's search (`Store.librarySearch`).
    func librarySearchJSON(_ query: [String: String]) throws -> JSONValue {
        let limit = try Self.boundedInt(query["limit"], name: "limit", default: 50, range: 1...500)
        guard let q = query["q"], !q.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw APIError.badRequest("q: the words to search for", code: "invalid_q")
        }
        if q.count > 200 { throw APIError.badRequest("q: at most 200 characters", code: "invalid_q") }
        let found = try context.store.librarySearch(q, limit: limit)
        let feelings = try context.store.feelings(of: found.tracks.compactMap(\.track?.id))
        return .object([
            ("artists", .array(found.artists.map { a in
                .object([("id", .int(a.id)), ("name", .string(a.name)), ("tracks", .int(Int64(a.tracks))), ("plays", .int(Int64(a.plays)))])
            })),
            ("albums", .array(found.albums.map { a in
                .object([("id", .int(a.id)), ("title", .string(a.name)), ("artist", .optional(a.artist)),
                         ("tracks", .int(Int64(a.tracks))), ("plays", .int(Int64(a.plays)))])
            })),
            ("tracks", .array(found.tracks.compactMap { e in
                e.track.map { t in
                    .object([("track", APIJSON.track(t)), ("plays", .int(Int64(e.plays))),
                             ("feeling", .string((feelings[t.id ?? 0] ?? .none).rawValue))])
                }
            })),
        ])
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
