import Foundation
import PacenoteCore

/// The dashboard's cadence card (issue 56): the cadence the music follows, where it comes from,
/// the live cadence, and Beatrun's −5 / +5 on the target, as plain forms (live.js keeps the
/// figures current from the event stream's `cadence_changed`).
extension API {
    func cadenceCard(_ state: CadenceState?, mayWrite: Bool) -> Node {
        guard let state, state.on || state.live != nil || state.target != nil else {
            // Nothing to follow yet: an owner may switch cadence mode on; others see nothing.
            guard mayWrite, context.heartRate != nil else { return .empty }
            return Node.el("section", ["class": "card cadence", "aria-labelledby": "cadence-h"]) {
                Node.el("h2", ["id": "cadence-h"]) { "Cadence" }
                Node.el("p", ["class": "muted small"]) {
                    "Music that follows your stride: with cadence mode on, the suggestions (and the auto-DJ) match your steps a minute."
                }
                Node.el("form", ["method": "post", "action": url("/"), "class": "inline"]) {
                    Node.el("button", ["type": "submit", "name": "cadence", "value": "on", "data-cadence-action": "on"]) { "Cadence mode on" }
                }
            }
        }
        let following = state.following
        return Node.el("section", ["class": "card cadence", "aria-labelledby": "cadence-h", "data-cadence-mode": state.on ? "cadence" : "zone"]) {
            Node.el("h2", ["id": "cadence-h"]) { "Cadence" }
            Node.el("p", ["class": "bpm"]) {
                Node.el("span", ["data-cadence-following": ""]) { String(Int(following.stepsPerMinute.rounded())) }
                Node.el("small") { " steps/min" }
            }
            Node.el("p", ["class": "muted small", "data-cadence-source": following.source]) { Self.cadenceSourceText(state) }
            Node.el("p", ["class": "muted small"]) {
                "Your stride: "
                Node.el("span", ["data-cadence-live": ""]) { state.live.map { "\(Int($0.stepsPerMinute.rounded())) steps/min" } ?? "no cadence coming in" }
            }
            if mayWrite {
                Node.el("form", ["method": "post", "action": url("/"), "class": "inline cadence-actions"]) {
                    Node.el("button", ["type": "submit", "name": "cadence", "value": "minus", "data-cadence-action": "minus",
                                       "aria-label": "Target 5 steps a minute slower"]) { "−5" }
                    Node.el("button", ["type": "submit", "name": "cadence", "value": "plus", "data-cadence-action": "plus",
                                       "aria-label": "Target 5 steps a minute faster"]) { "+5" }
                    if state.target != nil {
                        Node.el("button", ["type": "submit", "name": "cadence", "value": "follow", "class": "secondary",
                                           "data-cadence-action": "follow"]) { "Follow my stride" }
                    }
                    Node.el("button", ["type": "submit", "name": "cadence", "value": state.on ? "off" : "on", "class": "secondary",
                                       "data-cadence-action": state.on ? "off" : "on"]) { state.on ? "Back to zones" : "Cadence mode on" }
                }
            }
        }
    }

    /// A play of a copy rendered at another tempo: the tempo it played at and the change.
    func tempoBadge(_ play: Play) -> Node {
        guard let bpm = play.playedBPM, let ratio = play.tempoRatio else { return .empty }
        let change = String(format: "%+.1f %%", (ratio - 1) * 100)
        return Node.el("span", ["class": "badge tempo", "title": "Played from a copy at \(change) tempo, pitch kept",
                                "data-played-bpm": String(Int(bpm.rounded()))]) {
            "\(Int(bpm.rounded())) bpm (\(change))"
        }
    }

    static func cadenceSourceText(_ state: CadenceState) -> String {
        let mode = state.on ? "" : " (cadence mode is off: suggestions follow your zone)"
        switch state.following.source {
        case "target": return "Your target, set by hand" + mode
        case "live": return "Your stride now (the median of the last \(Int(CadenceSmoother.window)) s)" + mode
        default: return "The configured cadence: no cadence is coming in" + mode
        }
    }
}
