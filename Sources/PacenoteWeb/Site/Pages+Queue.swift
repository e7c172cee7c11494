import Foundation
import PacenoteCore
import PacenoteStore

/// The queue on `/player`, and the **Play now / Play next / Add** buttons of every track,
/// album and artist page, history row, chart row and suggestion (issue 57): plain forms to
/// `POST /player/queue`, which puts the songs in the first MPD's queue and comes back.
extension API {
    /// The three buttons for a track, an album or an artist (`kind`), for the owner only.
    /// `compact` (rows of a list): shorter words, the full ones in the label.
    func queueButtons(_ kind: String, _ id: Int64?, mayWrite: Bool, back: String, compact: Bool = false) -> Node {
        guard mayWrite, let id, !context.players().isEmpty else { return .empty }
        return .el("form", ["method": "post", "action": url("/player/queue"), "class": compact ? "queue-buttons compact" : "inline queue-buttons",
                            "data-queue-kind": kind]) {
            Node.el("input", ["type": "hidden", "name": "kind", "value": kind])
            Node.el("input", ["type": "hidden", "name": "id", "value": String(id)])
            Node.el("input", ["type": "hidden", "name": "back", "value": back])
            for (at, long, short) in [("now", "Play now", "Play"), ("next", "Play next", "Next"), ("end", "Add to the queue", "Add")] {
                Node.el("button", ["type": "submit", "name": "at", "value": at, "class": "secondary", "title": long,
                                   "aria-label": "\(long): this \(kind)"]) { compact ? short : (at == "end" ? "Add" : long) }
            }
        }
    }

    // MARK: POST /player/queue

    /// Adds a track, an album, an artist or a stored playlist (`kind`, `id` or `name`, `at`),
    /// or edits one queued song (`song` = MPD's id, `op` = play, remove, up, down), or clears
    /// the queue (`op` = clear); then back to `back`.
    func queueForm(_ request: HTTPRequest) throws -> HTTPResponse {
        let field = { (name: String) in Self.formField(name, in: request.body) }
        let players = context.players().map(\.name)
        guard let player = field("player") ?? players.first, players.contains(player) else {
            throw APIError.badRequest("player: one of \(players.joined(separator: ", "))", code: "invalid_player")
        }
        let back = Self.localPath(field("back") ?? "/player")
        let edit: QueueEdit
        if let op = field("op") {
            if op == "clear" {
                edit = .clear
            } else {
                guard let song = field("song").flatMap(Int.init), (0...Int(UInt32.max)).contains(song) else {
                    throw APIError.badRequest("song: a queued song's id", code: "invalid_id")
                }
                switch op {
                case "play": edit = .play(id: song)
                case "remove": edit = .remove(id: song)
                case "up", "down":
                    guard let queue = try context.services.players.queue(player: player),
                          let entry = queue.entries.first(where: { $0.id == song }) else {
                        throw APIError.notFound("that song is no longer in the queue")
                    }
                    let to = min(max(entry.position + (op == "up" ? -1 : 1), 0), max(queue.entries.count - 1, 0))
                    edit = .move(id: song, to: to)
                default:
                    throw APIError.badRequest("op: play, remove, up, down or clear", code: "invalid_action")
                }
            }
        } else {
            let place = try Self.queuePlace(field("at"))
            switch field("kind") ?? "" {
            case "playlist":
                edit = .load(playlist: try Self.newPlaylistName(field("name")), place)
            case let kind where ["track", "album", "artist"].contains(kind):
                guard let id = field("id").flatMap(Int64.init), id > 0 else { throw APIError.badRequest("id: a \(kind)'s id", code: "invalid_id") }
                edit = .add(uris: try playableURIs([kind == "track" ? "track_ids" : "\(kind)_id": kind == "track" ? [id] : id]), place)
            default:
                throw APIError.badRequest("kind: track, album, artist or playlist", code: "invalid_kind")
            }
        }
        _ = try context.services.players.editQueue(player: player, edit)
        return HTTPResponse(status: 303, headers: [("Location", url(back)), ("Cache-Control", "no-store")])
    }

    // MARK: The queue on /player

    /// A player's queue: the song that plays marked, each song's BPM and zone fit, and for
    /// the owner buttons to play, move and remove songs and to clear the queue.
    func queueSection(_ player: String, mayWrite: Bool) -> Node {
        let queue: PlayerQueue
        do {
            guard let found = try context.services.players.queue(player: player) else { return .empty }
            queue = found
        } catch {
            return .el("p", ["class": "notice small"]) { APIError(error).message }
        }
        let tracks = (try? context.store.tracks(uris: queue.entries.map(\.song.uri))) ?? [:]
        return .el("section", ["class": "card", "aria-labelledby": "queue-\(player)", "data-queue": player]) {
            Node.el("h2", ["id": "queue-\(player)"]) { "Queue" }
            if queue.entries.isEmpty {
                Node.el("p", ["class": "muted"]) { "The queue is empty. Add songs from a track, album or artist page, or from the library." }
            } else {
                Node.el("table", ["class": "queue"]) {
                    Node.el("thead") {
                        Node.el("tr") {
                            for h in ["#", "Song", "BPM", "Fits", "Length", ""] { Node.el("th", ["scope": "col"]) { h } }
                        }
                    }
                    Node.el("tbody") {
                        for entry in queue.entries {
                            queueRow(player, entry, track: tracks[entry.song.uri], current: entry.id == queue.currentID, mayWrite: mayWrite)
                        }
                    }
                }
                if mayWrite {
                    Node.el("form", ["method": "post", "action": url("/player/queue"), "class": "inline"]) {
                        Node.el("input", ["type": "hidden", "name": "player", "value": player])
                        Node.el("button", ["type": "submit", "name": "op", "value": "clear", "class": "secondary"]) { "Clear the queue" }
                    }
                }
            }
        }
    }

    private func queueRow(_ player: String, _ entry: PlayerQueue.Entry, track: Track?, current: Bool, mayWrite: Bool) -> Node {
        let bpm = track?.bpm?.value
        let fits = APIJSON.zoneFit(bpm, context.tempo)
        return .el("tr", ["data-song-id": String(entry.id), "class": current ? "current" : nil, "aria-current": current ? "true" : nil]) {
            Node.el("td") { String(entry.position + 1) }
            Node.el("td") {
                if let id = track?.id { Node.el("a", ["href": url("/tracks/\(id)")]) { track?.title ?? entry.song.track.title } } else {
                    entry.song.track.title
                }
                Node.el("span", ["class": "by"]) { " — " + (track?.artist ?? entry.song.track.artist ?? "Unknown artist") }
                if current { Node.el("span", ["class": "badge"]) { "playing" } }
            }
            Node.el("td", ["class": "num"]) { bpm.map { String(Int($0.rounded())) } ?? "–" }
            Node.el("td") { fits.isEmpty ? "–" : fits.map { "Z\($0)" }.joined(separator: " ") }
            Node.el("td", ["class": "num"]) { (entry.song.durationSeconds ?? track?.durationSeconds).map(SiteFormat.clock) ?? "" }
            Node.el("td") {
                if mayWrite {
                    Node.el("form", ["method": "post", "action": url("/player/queue"), "class": "inline queue-song"]) {
                        Node.el("input", ["type": "hidden", "name": "player", "value": player])
                        Node.el("input", ["type": "hidden", "name": "song", "value": String(entry.id)])
                        for (op, text, label) in [("play", "Play", "Play this song"), ("up", "↑", "Move up"), ("down", "↓", "Move down"),
                                                  ("remove", "Remove", "Remove from the queue")] {
                            Node.el("button", ["type": "submit", "name": "op", "value": op, "class": "secondary", "title": label,
                                               "aria-label": label]) { text }
                        }
                    }
                }
            }
        }
    }
}
