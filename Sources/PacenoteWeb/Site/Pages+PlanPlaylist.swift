import Foundation
import PacenoteCore

/// `/plans/{id}/playlist` (issue 55, point 3): the pre-run playlist before the run, each song
/// with the segment it is for and its tempo; a song can be swapped for another (the songs
/// before it stay, the rest are fitted again), and the playlist saved as MPD's stored playlist
/// `Pacenote: PLAN` or queued. The playlist as it stands travels in the form (its track ids),
/// as the API's client keeps it: nothing half-made is stored, and it works without JavaScript.
extension API {
    func planPlaylistPage(_ id: Int64, _ request: HTTPRequest, mayWrite: Bool) throws -> HTTPResponse {
        guard let stored = try context.store.plan(id: id) else { throw APIError.notFound("There is no plan \(id).") }
        let answer = try recommender.planPlaylist(stored.plan, current: nil, swap: nil)
        return planPlaylistMarkup(id, plan: stored.plan, answer: answer, request: request, mayWrite: mayWrite, notice: nil)
    }

    /// The page's buttons: `swap` (the song at `index` for another), `save`, `queue`.
    func planPlaylistForm(_ id: Int64, _ request: HTTPRequest) throws -> HTTPResponse {
        guard let stored = try context.store.plan(id: id) else { throw APIError.notFound("There is no plan \(id).") }
        let field = { (name: String) in Self.formField(name, in: request.body) }
        let tracks = (field("tracks") ?? "").split(separator: ",").compactMap { Int64($0.trimmingCharacters(in: .whitespaces)) }.filter { $0 > 0 }
        guard !tracks.isEmpty, tracks.count <= 10_000 else { throw APIError.badRequest("the playlist's songs are missing", code: "invalid_tracks") }
        switch field("action") ?? "" {
        case "swap":
            guard let index = field("index").flatMap({ Int($0) }) else { throw APIError.badRequest("say which song", code: "invalid_swap") }
            let answer = try recommender.planPlaylist(stored.plan, current: tracks, swap: PlaylistSwap(index: index, trackID: nil))
            let title = answer.playlist.entries.indices.contains(index) ? answer.texts[answer.playlist.entries[index].trackID]?.title : nil
            return planPlaylistMarkup(id, plan: stored.plan, answer: answer, request: request, mayWrite: true,
                                      notice: "Song \(index + 1) swapped\(title.map { " for \($0)" } ?? ""); the songs after it were fitted again.")
        case let action where action == "save" || action == "queue":
            let name = "Pacenote: \(stored.plan.name)"
            let count = try recommender.savePlaylist(tracks, name: name, queue: action == "queue")
            let answer = try recommender.planPlaylist(stored.plan, current: tracks, swap: nil)
            let notice = action == "queue" ? "\(SiteFormat.plural(count, "song")) added to MPD's queue."
                : "Saved as MPD's playlist “\(name)” (\(SiteFormat.plural(count, "song")))."
            return planPlaylistMarkup(id, plan: stored.plan, answer: answer, request: request, mayWrite: true, notice: notice)
        default:
            throw APIError.badRequest("unknown action", code: "invalid_action")
        }
    }

    private func planPlaylistMarkup(_ id: Int64, plan: WorkoutPlan, answer: PlanPlaylistAnswer, request: HTTPRequest,
                                    mayWrite: Bool, notice: String?) -> HTTPResponse {
        let timeline = plan.timeline()
        let playlist = answer.playlist
        let ids = playlist.entries.map { String($0.trackID) }.joined(separator: ",")
        return html(title: "Playlist for \(plan.name)", request: request, nav: "workouts") {
            Node.el("h1") { "Playlist for \(plan.name)" }
            Node.el("p", ["class": "muted"]) {
                "Songs end to end over the plan, each chosen for the segment it mostly plays in: "
                "\(SiteFormat.plural(playlist.entries.count, "song")), \(WorkoutPlan.clock(playlist.seconds)) for a plan of \(WorkoutPlan.clock(playlist.planSeconds))"
                (plan.isOpenEnded ? " (an open-ended segment counts 5 minutes)" : "") + ". "
                Node.el("a", ["href": url("/plans#plan-\(id)")]) { "Back to the plans" }
            }
            if let notice { Node.el("p", ["role": "status", "class": "card"]) { notice } }
            if let short = playlist.short { Node.el("p", ["class": "card error"]) { "The songs end before the plan: \(short.description)." } }
            Node.el("section", ["class": "card"]) {
                Chart.planIntensity(id: "playlist-chart", plan: plan, title: "Intensity of \(plan.name) over time",
                                    zoneBounds: (try? context.store.zoneSettings().model(at: context.clock.now()).lowerBounds))
                Node.el("div", ["class": "table-scroll"]) {
                    Node.el("table", ["class": "songs plan-playlist"]) {
                        Node.el("thead") {
                            Node.el("tr") {
                                for h in ["#", "Starts", "Song", "Segment", "Tempo"] + (mayWrite ? [""] : []) { Node.el("th", ["scope": "col"]) { h } }
                            }
                        }
                        Node.el("tbody") {
                            for (i, e) in playlist.entries.enumerated() {
                                let texts = answer.texts[e.trackID]
                                Node.el("tr", ["data-track": String(e.trackID)]) {
                                    Node.el("td") { String(i + 1) }
                                    Node.el("td") { WorkoutPlan.clock(e.start) }
                                    Node.el("td") {
                                        Node.el("a", ["href": url("/tracks/\(e.trackID)")]) { texts?.title ?? "Track \(e.trackID)" }
                                        Node.el("span", ["class": "by"]) { " — " + (texts?.artist ?? "Unknown artist") }
                                        Node.el("span", ["class": "muted"]) { " · " + WorkoutPlan.clock(e.seconds) }
                                    }
                                    Node.el("td") { "\(e.segment + 1): " + (e.segment < timeline.count ? timeline[e.segment].target.text : "") }
                                    Node.el("td", ["title": e.reason.rawValue]) {
                                        e.tempo.map { "\(Chart.number($0.effectiveBPM / $0.factor)) bpm" + ($0.factor == 1 ? "" : " (×\(Chart.number($0.factor)))") }
                                            ?? (e.reason == .noBPM ? "unknown" : "–")
                                    }
                                    if mayWrite {
                                        Node.el("td") {
                                            Node.el("form", ["method": "post", "action": url("/plans/\(id)/playlist"), "class": "inline"]) {
                                                Node.el("input", ["type": "hidden", "name": "tracks", "value": ids])
                                                Node.el("input", ["type": "hidden", "name": "index", "value": String(i)])
                                                Node.el("button", ["type": "submit", "name": "action", "value": "swap", "class": "secondary"]) { "Swap" }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                if mayWrite {
                    Node.el("form", ["method": "post", "action": url("/plans/\(id)/playlist"), "class": "inline plan-actions"]) {
                        Node.el("input", ["type": "hidden", "name": "tracks", "value": ids])
                        Node.el("button", ["type": "submit", "name": "action", "value": "save"]) { "Save as MPD playlist" }
                        Node.el("button", ["type": "submit", "name": "action", "value": "queue", "class": "secondary"]) { "Add to the queue" }
                    }
                }
            }
        }
    }
}
