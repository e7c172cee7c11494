import Foundation
import PacenoteCore

/// `/submissions`: the last submissions of every scrobbling protocol (ListenBrainz,
/// Audioscrobbler 2.0 and 1.2) with client, outcome and reason — for a player that "does
/// not scrobble".
extension API {
    func submissionsPage(_ request: HTTPRequest) -> HTTPResponse {
        let entries = context.scrobbles.entries()
        let f = format
        return html(title: "Submissions", request: request, nav: nil) {
            Node.el("h1") { "Submissions" }
            Node.el("p", ["class": "muted small"]) {
                "What players sent over ListenBrainz and the Last.fm protocols since the server started (the last \(ScrobbleState.capacity)), newest first."
            }
            if entries.isEmpty { Node.el("p", ["class": "muted"]) { "No submissions since the server started." } }
            Node.el("table", ["class": "songs submissions"]) {
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
    }
}
