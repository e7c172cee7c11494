import Foundation
import PacenoteCore
import PacenoteStore

/// `/playlists` and `/playlists/NAME` (issue 57): MPD's stored playlists, the smart playlists
/// and moods Pacenote keeps among them, and the forms that make, change and play them.
extension API {
    func playlistsPage(_ request: HTTPRequest, mayWrite: Bool) throws -> HTTPResponse {
        let player = context.players().first?.name
        var stored: [StoredPlaylist] = []
        var problem: String?
        if let player {
            do { stored = try context.services.players.playlists(player: player) ?? [] } catch { problem = APIError(error).message }
        } else {
            problem = "No MPD is followed."
        }
        let smart = try context.store.smartPlaylists()
        let states = context.services.smartPlaylists?.states() ?? [:]
        let smartNames = Set(smart.map(\.name))
        let plain = stored.filter { !smartNames.contains($0.name) }.sorted { $0.name.localizedCaseInsensitiveCompare($1.name) == .orderedAscending }
        return html(title: "Playlists", request: request, nav: "library") {
            Node.el("h1") { "Playlists" }
            if let problem { Node.el("p", ["class": "notice"]) { problem } }
            for kind in SmartPlaylist.Kind.allCases {
                let list = smart.filter { $0.kind == kind }
                Node.el("section", ["class": "card", "aria-labelledby": "\(kind.rawValue)-h"]) {
                    Node.el("h2", ["id": "\(kind.rawValue)-h"]) { kind == .mood ? "Moods" : "Smart playlists" }
                    Node.el("p", ["class": "muted small"]) {
                        kind == .mood ? "A mood is a smart playlist over tempo, energy, genre and likes; two moods combine into one."
                            : "Chosen by rules over what Pacenote knows, kept in MPD under the same name and refreshed as you listen."
                    }
                    Node.el("ul", ["class": "playlists", "data-smart-kind": kind.rawValue]) {
                        for p in list {
                            Node.el("li", ["data-smart-id": String(p.id)]) {
                                Node.el("a", ["href": url("/playlists/" + URLText.component(p.name))]) { p.name }
                                Node.el("span", ["class": "muted small"]) { " — " + p.rules.summary }
                                Node.el("span", ["class": "count"]) { states[p.id].map { " " + SiteFormat.plural($0.songs, "song") + " · " + SiteFormat.span($0.seconds) } ?? "" }
                                if let error = states[p.id]?.error { Node.el("span", ["class": "notice small"]) { " MPD: \(error)" } }
                                playlistButtons(p.name, mayWrite: mayWrite)
                            }
                        }
                    }
                    if list.isEmpty { Node.el("p", ["class": "muted"]) { kind == .mood ? "No mood yet." : "No smart playlist yet." } }
                    if mayWrite { smartForm(kind, moods: smart.filter { $0.kind == .mood }.map(\.name)) }
                }
            }
            Node.el("section", ["class": "card", "aria-labelledby": "stored-h"]) {
                Node.el("h2", ["id": "stored-h"]) { "In MPD" }
                Node.el("ul", ["class": "playlists", "data-stored": ""]) {
                    for p in plain {
                        Node.el("li") {
                            Node.el("a", ["href": url("/playlists/" + URLText.component(p.name))]) { p.name }
                            playlistButtons(p.name, mayWrite: mayWrite)
                        }
                    }
                }
                if plain.isEmpty && problem == nil { Node.el("p", ["class": "muted"]) { "MPD has no other stored playlist." } }
                if mayWrite {
                    Node.el("form", ["method": "post", "action": url("/playlists"), "class": "inline"]) {
                        Node.el("input", ["type": "hidden", "name": "op", "value": "create"])
                        Node.el("label", ["for": "new-playlist"]) { "New playlist " }
                        Node.el("input", ["id": "new-playlist", "name": "name", "required": "", "maxlength": "100"])
                        Node.el("button", ["type": "submit"]) { "Create" }
                    }
                }
            }
        }
    }

    func playlistButtons(_ name: String, mayWrite: Bool, back: String = "/playlists") -> Node {
        guard mayWrite else { return .empty }
        return .el("form", ["method": "post", "action": url("/player/queue"), "class": "inline queue-buttons"]) {
            Node.el("input", ["type": "hidden", "name": "kind", "value": "playlist"])
            Node.el("input", ["type": "hidden", "name": "name", "value": name])
            Node.el("input", ["type": "hidden", "name": "back", "value": back])
            Node.el("button", ["type": "submit", "name": "at", "value": "now", "class": "secondary", "aria-label": "Play \(name) now"]) { "Play" }
            Node.el("button", ["type": "submit", "name": "at", "value": "end", "class": "secondary", "aria-label": "Add \(name) to the queue"]) { "Add" }
        }
    }

    /// The form of a new smart playlist or mood: the common rules as fields.
    private func smartForm(_ kind: SmartPlaylist.Kind, moods: [String]) -> Node {
        let p = kind.rawValue
        func field(_ name: String, _ label: String, _ type: String = "number", _ extra: [(String, String)] = []) -> Node {
            .el("label") {
                label + " "
                Node.el("input", attributes: ([("name", name), ("type", type), ("id", "\(p)-\(name)")] + extra).map {
                    Attribute(name: $0.0, value: $0.1)
                })
            }
        }
        return .el("details") {
            Node.el("summary") { kind == .mood ? "New mood" : "New smart playlist" }
            Node.el("form", ["method": "post", "action": url("/playlists"), "class": "smart-form", "data-smart-form": p]) {
                Node.el("input", ["type": "hidden", "name": "op", "value": "smart"])
                Node.el("input", ["type": "hidden", "name": "kind", "value": p])
                field("name", "Name", "text", [("required", ""), ("maxlength", "100")])
                field("liked", "Liked only", "checkbox", [("value", "1")])
                field("bpm_min", "BPM from", "number", [("min", "20"), ("max", "300")])
                field("bpm_max", "to", "number", [("min", "20"), ("max", "300")])
                field("zone", "Tempo for zone", "number", [("min", "1"), ("max", "5")])
                field("loudness_min", "Loudness from (LUFS)", "number", [("min", "-70"), ("max", "5"), ("step", "0.1")])
                field("loudness_max", "to", "number", [("min", "-70"), ("max", "5"), ("step", "0.1")])
                field("genres", "Genres (comma-separated)", "text")
                if kind == .smart {
                    field("played_from", "Played from", "date")
                    field("played_to", "to", "date")
                    field("top", "Top", "number", [("min", "1"), ("max", "10000")])
                    field("not_played_months", "Not played for (months)", "number", [("min", "1"), ("max", "240")])
                    field("power_zone", "Power songs of zone", "number", [("min", "1"), ("max", "5")])
                    field("faster", "Made me faster", "checkbox", [("value", "1")])
                }
                if moods.count >= 2 {
                    field("moods", "Combine moods (comma-separated)", "text")
                    Node.el("label") {
                        "as "
                        Node.el("select", ["name": "combine"]) {
                            Node.el("option", ["value": ""]) { "—" }
                            Node.el("option", ["value": "union"]) { "any of them (union)" }
                            Node.el("option", ["value": "intersection"]) { "all of them (intersection)" }
                        }
                    }
                }
                field("minutes", "Length (minutes)", "number", [("min", "1"), ("max", "1440")])
                Node.el("button", ["type": "submit"]) { "Save" }
            }
        }
    }

    // MARK: POST /playlists

    func playlistsForm(_ request: HTTPRequest) throws -> HTTPResponse {
        let field = { (name: String) -> String? in
            Self.formField(name, in: request.body).flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
        }
        switch field("op") ?? "" {
        case "create":
            let name = try Self.newPlaylistName(field("name"))
            let player = try playlistPlayer([:])
            if try context.store.smartPlaylist(named: name) != nil {
                throw APIError(kind: .conflict, code: "name_taken", message: "a smart playlist is named '\(name)'")
            }
            _ = try context.services.players.editPlaylist(player: player, name: name, .create(uris: []))
            return HTTPResponse(status: 303, headers: [("Location", url("/playlists/" + URLText.component(name))), ("Cache-Control", "no-store")])
        case "smart":
            var rules: [String: Any] = [:]
            for key in ["bpm_min", "bpm_max", "zone", "loudness_min", "loudness_max", "top", "not_played_months", "power_zone"] {
                guard let text = field(key) else { continue }
                guard let n = Double(text), n.isFinite, abs(n) < 1e6 else { throw APIError.badRequest("\(key): a number", code: "invalid_rules") }
                rules[key] = ["zone", "top", "not_played_months", "power_zone"].contains(key) ? (Int(exactly: n).map { $0 as Any } ?? n as Any) : n
            }
            for key in ["played_from", "played_to", "combine", "order"] { if let text = field(key) { rules[key] = text } }
            for key in ["liked", "faster"] where field(key) != nil { rules[key] = true }
            for key in ["genres", "moods"] {
                if let text = field(key) { rules[key] = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
            }
            if let text = field("minutes") {
                guard let n = Double(text), n > 0, n <= 1440 else { throw APIError.badRequest("length: 1 to 1440 minutes", code: "invalid_rules") }
                rules["length_s"] = Int((n * 60).rounded())
            }
            let kind = SmartPlaylist.Kind(rawValue: field("kind") ?? "smart") ?? .smart
            _ = try defineSmartPlaylist(name: field("name") ?? "", kind: kind, rules: try Self.rules(rules))
        case "delete_smart":
            guard let id = field("id").flatMap(Int64.init) else { throw APIError.badRequest("id: a smart playlist", code: "invalid_id") }
            try context.operations.deleteSmartPlaylist(id: id)
        default:
            throw APIError.badRequest("op: create, smart or delete_smart", code: "invalid_action")
        }
        return HTTPResponse(status: 303, headers: [("Location", url("/playlists")), ("Cache-Control", "no-store")])
    }
}
