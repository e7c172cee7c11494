import Foundation
import PacenoteCore
import PacenoteStore

/// `/submissions`: the last submissions of every scrobbling protocol (ListenBrainz,
/// Audioscrobbler 2.0 and 1.2) with client, outcome and reason — for a player that "does
/// not scrobble".
extension API {
    func submissionsPage(_ request: HTTPRequest, mayWrite: Bool, notice: String? = nil) -> HTTPResponse {
        let entries = context.scrobbles.entries()
        return html(title: "Submissions", request: request, nav: "submissions") {
            Node.el("h1") { "Submissions" }
            if let notice { Node.el("p", ["class": "notice", "role": "status"]) { notice } }
            if let forwarding = try? context.services.forwarding?.targets() {
                forwardingSection(forwarding, parked: (try? context.store.parkedPlays(limit: 20)) ?? [], mayWrite: mayWrite)
            }
            Node.el("h2") { "Received" }
            Node.el("p", ["class": "muted small"]) {
                "What players sent over ListenBrainz and the Last.fm protocols since the server started (the last \(ScrobbleState.capacity)), newest first."
            }
            if entries.isEmpty {
                Node.el("p", ["class": "muted"]) { "No submissions since the server started." }
            } else {
                Self.sideways(receivedTable(entries))
            }
        }
    }

    func receivedTable(_ entries: [ScrobbleState.Entry]) -> Node {
        let f = format
        return Node.el("table", ["class": "songs submissions"]) {
            Node.el("thead") {
                Node.el("tr") {
                    for h in ["Time", "Protocol", "What", "Client", "User", "Outcome", "Accepted", "Ignored", "Reason"] {
                        Node.el("th", ["scope": "col"]) { h }
                    }
                }
            }
            Node.el("tbody") {
                for e in entries {
                    Node.el("tr", ["class": e.outcome == "ok" ? nil : "skip"]) {
                        Node.el("td") { "\(f.day(localTime.day(of: e.at))) \(f.time(e.at))" }
                        Node.el("td") { e.protocolName }
                        Node.el("td") { e.action }
                        Node.el("td") { e.client ?? "–" }
                        Node.el("td") { e.user ?? "–" }
                        Node.el("td") { e.outcome }
                        Node.el("td") { String(e.accepted) }
                        Node.el("td") { String(e.ignored) }
                        Node.el("td") { e.reason ?? "" }
                    }
                }
            }
        }
    }

    /// A table in a box that scrolls sideways, so that a wide one does not widen the page.
    static func sideways(_ table: Node) -> Node { .el("div", ["class": "table-scroll"]) { table } }

    /// Where plays go on to (`[[forward]]`): each target's queue and last exchanges, and the
    /// plays targets refused, with the reason.
    /// The form of `/submissions`: "Send again" queues a target's refused plays again.
    func submissionsForm(_ request: HTTPRequest) throws -> HTTPResponse {
        guard Self.formField("action", in: request.body) == "retry" else {
            throw APIError.badRequest("unknown action", code: "invalid_action")
        }
        let target = Self.formField("target", in: request.body).flatMap { $0.isEmpty ? nil : $0 }
        let count = try context.operations.retryParkedForwards(target: target)
        return submissionsPage(request, mayWrite: true,
                               notice: "\(SiteFormat.plural(count, "refused play")) queued again\(target.map { " for \($0)" } ?? ""): \(count == 1 ? "it is" : "they are") sent within a few seconds.")
    }

    func forwardingSection(_ targets: [(state: ForwardTargetState, nextAttempt: Date?)], parked: [ParkedPlay], mayWrite: Bool) -> Node {
        let f = format
        func when(_ date: Date?) -> String { date.map { "\(f.day(localTime.day(of: $0))) \(f.time($0))" } ?? "never" }
        return Node.el("section", ["class": "forwarding", "aria-labelledby": "forwarding"]) {
            Node.el("h2", ["id": "forwarding"]) { "Forwarded" }
            Node.el("p", ["class": "muted small"]) {
                Self.withCode("Each counted play goes on to these services once, oldest first; `pacenote forward status` says the same. “Send again” (or `pacenote forward retry`) queues the plays a service refused again.")
            }
            Self.sideways(.el("table", ["class": "songs forward-targets"]) {
                Node.el("thead") {
                    Node.el("tr") {
                        for h in ["Target", "Queued", "Sent", "Refused", "Last success", "Last error"] { Node.el("th", ["scope": "col"]) { h } }
                    }
                }
                Node.el("tbody") {
                    for (state, next) in targets {
                        // An error older than the last success is over: it is not shown beside it.
                        let failing = state.lastError != nil && (state.lastErrorAt ?? .distantPast) > (state.lastSuccessAt ?? .distantPast)
                        Node.el("tr", ["class": failing ? "skip" : nil]) {
                            Node.el("td") {
                                Node.el("strong") { state.name }
                                " (\(state.kind.rawValue)) "
                                Node.el("span", ["class": "muted small"]) { URLSecrets.masked(state.url) }
                                if state.kind == .lastfm {
                                    Node.el("span", ["class": "muted small"]) { state.sessionUser.map { " — as \($0)" } ?? " — not logged in" }
                                }
                            }
                            Node.el("td") { String(state.queued) }
                            Node.el("td") { String(state.sent) }
                            Node.el("td") {
                                String(state.parked)
                                if mayWrite, state.parked > 0 {
                                    Node.el("form", ["method": "post", "action": url("/submissions"), "class": "inline"]) {
                                        Node.el("input", ["type": "hidden", "name": "target", "value": state.name])
                                        Node.el("button", ["type": "submit", "name": "action", "value": "retry"]) { "Send again" }
                                    }
                                }
                            }
                            Node.el("td") { when(state.lastSuccessAt) }
                            Node.el("td") {
                                if failing, let error = state.lastError { "\(URLSecrets.maskedInText(error)) (\(when(state.lastErrorAt)))" } else { "–" }
                                if let next { Node.el("span", ["class": "muted small"]) { " next try \(f.time(next))" } }
                            }
                        }
                    }
                }
            })
            if !parked.isEmpty {
                Node.el("h3") { "Refused plays" }
                Self.sideways(.el("table", ["class": "songs parked"]) {
                    Node.el("thead") {
                        Node.el("tr") { for h in ["Played", "Song", "Target", "Reason"] { Node.el("th", ["scope": "col"]) { h } } }
                    }
                    Node.el("tbody") {
                        for p in parked {
                            Node.el("tr") {
                                Node.el("td") { when(p.startedAt) }
                                Node.el("td") { "\(p.track.artist ?? "–") – \(p.track.title)" }
                                Node.el("td") { p.target }
                                Node.el("td") { p.reason }
                            }
                        }
                    }
                })
            }
        }
    }
}
