import Foundation
import PacenoteCore

/// Empty states that say why and what to do (issue 52): a list with nothing in it is read
/// as a broken feature unless it names the rule that emptied it and the way out.
extension API {
    /// Text with `backticked` commands set as code, as the messages write them.
    static func withCode(_ text: String) -> [Node] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().compactMap { i, part in
            part.isEmpty ? nil : i % 2 == 1 ? Node.el("code") { String(part) } : Node.text(String(part))
        }
    }

    /// "Up next" when it has nothing: why, and what to do. Hidden while there are
    /// suggestions, for live.js to fill in when a later answer is empty.
    func upNextEmpty(_ list: RecommendationList?, ready: Bool) -> Node {
        let reason = list?.emptyReason
        let empty = list?.suggestions.isEmpty ?? true
        return Node.el("div", ["data-next-empty": "", "hidden": empty ? nil : ""]) {
            Node.el("p", ["class": "muted", "data-next-why": reason?.code ?? ""]) {
                Self.withCode(reason?.message ?? (ready ? "No suggestion right now." : "No suggestion yet."))
            }
            Node.el("p", ["class": "muted small", "data-next-fix": ""]) { Self.withCode(reason?.fix ?? "") }
        }
    }

    /// A remark on a list that is not empty (no BPM known), or nothing.
    func upNextNote(_ list: RecommendationList?) -> Node {
        Node.el("p", ["class": "muted small", "data-next-note": "", "hidden": list?.note == nil ? "" : nil]) {
            Self.withCode(list?.note ?? "")
        }
    }

    /// Why the default player shows nothing when its MPD cannot be reached: the status
    /// knows ("Connection refused"), and "Nothing is playing · Stopped" would hide it.
    static func mpdDown(_ status: PlayerStatus?) -> String? {
        guard let status, !status.connected, let error = status.lastError else { return nil }
        return "MPD at \(status.endpoint) is not reachable: \(error)"
    }

    /// The now-playing card's notice for an unreachable MPD; hidden (for live.js) while it answers.
    func mpdDownNotice(_ down: String?) -> Node {
        Node.el("div", ["class": "notice", "role": "status", "data-mpd-down": "", "hidden": down == nil ? "" : nil]) {
            Node.el("p", ["data-mpd-error": ""]) { down ?? "" }
            Node.el("p", ["class": "small"]) {
                Self.withCode("Check that MPD runs (`systemctl status mpd`, or `mpc status`) and that [mpd] in the configuration "
                              + "names it; `pacenote doctor` tests the connection. Pacenote reconnects by itself.")
            }
        }
    }

    /// How plays get here, for pages that have none yet.
    static let howPlaysArrive = "Pacenote logs what MPD plays once a song has played long enough (half of it, or 4 minutes); "
        + "`pacenote import FILE` brings in an older history (ListenBrainz, Last.fm, Spotify, Maloja)."

    /// The history with no plays: none at all, or none matching the search.
    func historyEmpty(search: String?) -> Node {
        Node.el("div", ["data-history-empty": ""]) {
            if let search {
                Node.el("p", ["class": "muted"]) { "No plays match “\(search)”: the search looks in titles, artists and albums. " }
                Node.el("p", ["class": "small"]) { Node.el("a", ["href": url("/history")]) { "Show every play" } }
            } else {
                Node.el("p", ["class": "muted"]) { "Nothing has been played yet." }
                Node.el("p", ["class": "small"]) { Self.withCode(Self.howPlaysArrive) }
            }
        }
    }

    /// Stats for a range without a play or a skip: why the page is bare, and where to look instead.
    func statsEmpty(plays: Int, skips: Int, range: String, label: String) -> Node {
        guard plays == 0, skips == 0 else { return .empty }
        return Node.el("div", ["class": "notice", "role": "status", "data-stats-empty": ""]) {
            if range == "all" {
                Node.el("p") { "Nothing has been played yet, so there is nothing to count." }
                Node.el("p", ["class": "small"]) { Self.withCode(Self.howPlaysArrive) }
            } else {
                Node.el("p") { "No plays \(Self.rangePhrase(range, label: label))." }
                Node.el("p", ["class": "small"]) {
                    "Choose a longer range: "
                    Node.el("a", ["href": url("/stats?range=all")]) { "all time" }
                    ", or see the "
                    Node.el("a", ["href": url("/history")]) { "history" }
                    "."
                }
            }
        }
    }

    /// "today", "this week", "in 2024", "from 2026-01-01 to 2026-01-31".
    static func rangePhrase(_ range: String, label: String) -> String {
        switch range {
        case "today": "today"
        case "week", "month", "year": "this \(range)"
        case "custom": "from \(label)"
        default: "in \(label)"
        }
    }

    /// The workouts page before the first workout: how one comes about.
    func workoutsEmpty() -> Node {
        Node.el("div", ["data-workouts-empty": ""]) {
            Node.el("p", ["class": "muted"]) {
                "No workouts yet. A workout starts by itself when heart-rate readings keep arriving for a minute."
            }
            Node.el("ul", ["class": "small"]) {
                Node.el("li") {
                    Self.withCode("A Bluetooth strap: `pacenote hr-scan` lists the straps in range; name yours in [[heart_rate.ble]] of "
                                  + "the configuration, or send its readings with `pacenote hr-feed`.")
                }
                Node.el("li") { Self.withCode("A watch's file: `pacenote import workout.fit` (TCX, GPX and FIT).") }
                Node.el("li") { Self.withCode("By hand or from another program: `POST /api/v1/workouts` and `POST /api/v1/hr` (docs/API.md).") }
            }
        }
    }
}
