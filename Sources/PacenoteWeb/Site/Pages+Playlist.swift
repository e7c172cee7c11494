import Foundation
import PacenoteCore
import PacenoteStore

/// `/playlists/NAME` (issue 57): one stored playlist's songs with their BPM and zone fit; for
/// the owner, buttons to play it, move and remove songs, rename and delete it. A smart
/// playlist shows its rules instead of the editing buttons (its rules choose its songs).
extension API {
    func playlistPage(_ name: String, _ request: HTTPRequest, mayWrite: Bool) throws -> HTTPResponse {
        let player = try playlistPlayer([:])
        let smart = try context.store.smartPlaylist(named: name)
        let songs: [SongInfo]
        do { songs = try context.services.players.playlistSongs(player: player, name: name) ?? [] } catch let error as APIError {
            // A smart playlist MPD does not hold yet (or refused) is still shown.
            guard smart != nil, error.kind == .notFound else { throw error.kind == .notFound ? APIError.notFound("There is no playlist \(name).") : error }
            songs = []
        }
        let tracks = try context.store.tracks(uris: songs.map(\.uri))
        let back = "/playlists/" + URLText.component(name)
        let editable = mayWrite && smart == nil
        return html(title: name, request: request, nav: "library") {
            Node.el("p", ["class": "small"]) { Node.el("a", ["href": url("/playlists")]) { "Playlists" } }
            Node.el("h1", ["data-playlist": name]) { name }
            if let smart {
                Node.el("p", ["class": "muted"]) { (smart.kind == .mood ? "Mood: " : "Smart playlist: ") + smart.rules.summary }
            }
            let seconds = songs.reduce(0) { $0 + ($1.durationSeconds ?? 0) }
            Node.el("p", ["class": "muted small"]) { SiteFormat.plural(songs.count, "song") + " · " + SiteFormat.span(seconds) }
            playlistButtons(name, mayWrite: mayWrite, back: back)
            Node.el("table", ["class": "playlist"]) {
                Node.el("thead") {
                    Node.el("tr") { for h in ["#", "Song", "BPM", "Fits", "Length", ""] { Node.el("th", ["scope": "col"]) { h } } }
                }
                Node.el("tbody") {
                    for (i, song) in songs.enumerated() {
                        let track = tracks[song.uri]
                        let bpm = track?.bpm?.value
                        let fits = APIJSON.zoneFit(bpm, context.tempo)
                        Node.el("tr", ["data-position": String(i)]) {
                            Node.el("td", ["class": "num"]) { String(i + 1) }
                            Node.el("td") {
                                if let track { trackLink(track) } else { song.track.title }
                                Node.el("span", ["class": "by"]) { " — " + (track?.artist ?? song.track.artist ?? "Unknown artist") }
                            }
                            Node.el("td", ["class": "num"]) { bpm.map { String(Int($0.rounded())) } ?? "–" }
                            Node.el("td") { fits.isEmpty ? "–" : fits.map { "Z\($0)" }.joined(separator: " ") }
                            Node.el("td", ["class": "num"]) { (song.durationSeconds ?? track?.durationSeconds).map(SiteFormat.clock) ?? "" }
                            Node.el("td") {
                                if editable {
                                    Node.el("form", ["method": "post", "action": url(back), "class": "inline"]) {
                                        Node.el("input", ["type": "hidden", "name": "position", "value": String(i)])
                                        for (op, text, label) in [("up", "↑", "Move up"), ("down", "↓", "Move down"), ("remove", "Remove", "Remove from the playlist")] {
                                            Node.el("button", ["type": "submit", "name": "op", "value": op, "class": "secondary", "title": label,
                                                               "aria-label": label]) { text }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            if editable {
                Node.el("form", ["method": "post", "action": url(back), "class": "inline"]) {
                    Node.el("input", ["type": "hidden", "name": "op", "value": "rename"])
                    Node.el("label", ["for": "rename"]) { "Rename to " }
                    Node.el("input", ["id": "rename", "name": "to", "required": "", "maxlength": "100", "value": name])
                    Node.el("button", ["type": "submit", "class": "secondary"]) { "Rename" }
                }
                Node.el("form", ["method": "post", "action": url(back), "class": "inline"]) {
                    Node.el("button", ["type": "submit", "name": "op", "value": "delete", "class": "danger"]) { "Delete the playlist" }
                }
            } else if mayWrite, let smart {
                Node.el("form", ["method": "post", "action": url("/playlists"), "class": "inline"]) {
                    Node.el("input", ["type": "hidden", "name": "op", "value": "delete_smart"])
                    Node.el("input", ["type": "hidden", "name": "id", "value": String(smart.id)])
                    Node.el("button", ["type": "submit", "class": "danger"]) { smart.kind == .mood ? "Delete the mood" : "Delete the smart playlist" }
                }
            }
        }
    }

    // MARK: POST /playlists/NAME

    func playlistForm(_ name: String, _ request: HTTPRequest) throws -> HTTPResponse {
        if try context.store.smartPlaylist(named: name) != nil {
            throw APIError(kind: .conflict, code: "smart_playlist", message: "'\(name)' is a smart playlist: its rules choose its songs")
        }
        let player = try playlistPlayer([:])
        let field = { (key: String) in Self.formField(key, in: request.body) }
        var location = "/playlists/" + URLText.component(name)
        let edit: StoredPlaylistEdit
        switch field("op") ?? "" {
        case "rename":
            let to = try Self.newPlaylistName(field("to"))
            if try context.store.smartPlaylist(named: to) != nil {
                throw APIError(kind: .conflict, code: "name_taken", message: "a smart playlist is named '\(to)'")
            }
            edit = .rename(to: to)
            location = "/playlists/" + URLText.component(to)
        case "delete":
            edit = .delete
            location = "/playlists"
        case let op where ["remove", "up", "down"].contains(op):
            guard let position = field("position").flatMap(Int.init), (0..<1_000_000).contains(position) else {
                throw APIError.badRequest("position: a song's place in the playlist", code: "invalid_position")
            }
            switch op {
            case "remove": edit = .remove(position: position)
            case "up": edit = .move(from: position, to: max(position - 1, 0))
            default: edit = .move(from: position, to: position + 1)
            }
        default:
            throw APIError.badRequest("op: rename, delete, remove, up or down", code: "invalid_action")
        }
        _ = try context.services.players.editPlaylist(player: player, name: name, edit)
        return HTTPResponse(status: 303, headers: [("Location", url(location)), ("Cache-Control", "no-store")])
    }
}
