import Foundation
import PacenoteCore

/// A player's controls on the dashboard's now-playing card and on `/player` (issue 57):
/// previous, play/pause, stop, next, the volume and MPD's modes as plain form buttons; live.js
/// keeps them current from the event stream's `player_state`, so two open pages agree.
extension API {
    /// The controls of `player` as `controls` says they are; buttons only for `mayWrite`.
    func playerControls(_ player: String, _ controls: PlayerControls?, mayWrite: Bool, action: String) -> Node {
        guard let controls else { return .empty }
        let playing = controls.state == .play
        return Node.el("div", ["class": "controls", "data-controls": player, "data-state": controls.state.rawValue]) {
            Node.el("p", ["class": "muted small"]) {
                Node.el("span", ["data-control-state": ""]) { Self.stateText(controls.state) }
                " · volume "
                Node.el("span", ["data-volume": ""]) { controls.volume.map { "\($0) %" } ?? "fixed" }
                " · "
                Node.el("span", ["data-queue-length": ""]) { SiteFormat.plural(controls.queueLength, "song") }
                " queued"
            }
            Node.el("p", ["class": "notice small", "data-control-error": "", "hidden": controls.error == nil ? "" : nil]) {
                controls.error.map { "MPD: \($0)" } ?? ""
            }
            if mayWrite {
                Node.el("form", ["method": "post", "action": url(action), "class": "inline player-buttons"]) {
                    Node.el("input", ["type": "hidden", "name": "player", "value": player])
                    // Words, not media symbols: the symbols are missing from many fonts.
                    button("previous", "Previous", label: "Previous song")
                    button("toggle", playing ? "Pause" : "Play", label: playing ? "Pause" : "Play")
                    button("stop", "Stop", label: "Stop")
                    button("next", "Next", label: "Next song")
                    button("volume_down", "Vol −", label: "Volume down", disabled: controls.volume == nil)
                    button("volume_up", "Vol +", label: "Volume up", disabled: controls.volume == nil)
                }
                Node.el("form", ["method": "post", "action": url(action), "class": "inline player-modes"]) {
                    Node.el("input", ["type": "hidden", "name": "player", "value": player])
                    for (mode, on) in [("random", controls.random), ("repeat", controls.repeat),
                                       ("single", controls.single != .off), ("consume", controls.consume)] {
                        Node.el("button", ["type": "submit", "name": "control", "value": mode, "class": "secondary",
                                           "aria-pressed": on ? "true" : "false", "data-mode": mode]) { mode.capitalized }
                    }
                }
            }
        }
    }

    private func button(_ control: String, _ text: String, label: String, disabled: Bool = false) -> Node {
        Node.el("button", ["type": "submit", "name": "control", "value": control, "aria-label": label, "title": label,
                           "data-control": control, "disabled": disabled ? "" : nil]) { text }
    }

    static func stateText(_ state: PlayerSnapshot.State) -> String {
        switch state {
        case .play: "Playing"
        case .pause: "Paused"
        case .stop: "Stopped"
        }
    }

    // MARK: /player

    /// Every followed MPD with what it plays and its controls.
    func playerPage(_ request: HTTPRequest, mayWrite: Bool) throws -> HTTPResponse {
        let playing = context.nowPlaying()
        let players = context.players()
        var cards: [(PlayerStatus, NowPlaying?, PlayerControls?, String?)] = []
        for player in players {
            var controls: PlayerControls?
            var problem: String?
            if player.connected {
                do { controls = try context.services.players.controls(player: player.name) } catch let error as APIError {
                    problem = error.message
                }
            } else {
                problem = "MPD \(player.name) is not reachable" + (player.lastError.map { ": \($0)" } ?? "")
            }
            cards.append((player, playing.first { $0.player == player.name }, controls, problem))
        }
        return html(title: "Player", request: request, nav: "dashboard", live: true) {
            Node.el("h1") { "Player" }
            for (player, now, controls, problem) in cards {
                Node.el("section", ["class": "card now", "aria-labelledby": "player-\(player.name)", "data-player": player.name]) {
                    Node.el("h2", ["id": "player-\(player.name)"]) { players.count > 1 ? "MPD \(player.name)" : "Now playing" }
                    Node.el("p", ["class": "np-title", "data-player-title": player.name]) { now?.track.title ?? "Nothing is playing" }
                    Node.el("p", ["class": "np-artist", "data-player-artist": player.name]) { now?.track.artist ?? "" }
                    if let problem { Node.el("p", ["class": "notice small"]) { problem } }
                    playerControls(player.name, controls, mayWrite: mayWrite, action: "/player")
                }
                if player.connected { queueSection(player.name, mayWrite: mayWrite) }
            }
            Node.el("p") {
                Node.el("a", ["href": url("/library")]) { "Browse the library" }
                " · "
                Node.el("a", ["href": url("/playlists")]) { "Playlists, smart playlists and moods" }
            }
            if cards.isEmpty { Node.el("p", ["class": "muted"]) { "No MPD is followed." } }
        }
    }

    // MARK: POST / (the dashboard's forms)

    /// The dashboard's buttons: a player's controls, or the cadence card's.
    func dashboardForm(_ request: HTTPRequest) throws -> HTTPResponse {
        if Self.formField("control", in: request.body) != nil { return try playerForm(request, back: "/#now-h") }
        return try cadenceForm(request)
    }
}
