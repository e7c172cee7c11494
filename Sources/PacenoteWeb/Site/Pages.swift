import Foundation
import PacenoteCore
import PacenoteStore

extension API {
    // MARK: / — the dashboard

    func dashboardPage(_ request: HTTPRequest, mayWrite: Bool = false) throws -> HTTPResponse {
        let now = context.clock.now()
        let today = localTime.day(of: now)
        let defaultPlayer = context.players().first?.name
        let playing = context.nowPlaying().first { $0.player == defaultPlayer } ?? context.nowPlaying().first
        let mpdDown = Self.mpdDown(context.players().first)
        // The card's player's controls as last seen (the position left out: it moves by itself).
        var controls = (playing?.player ?? defaultPlayer).flatMap { try? context.services.players.controls(player: $0) }
        controls?.elapsed = nil
        // Other players that scrobble to Pacenote (Audioscrobbler, ListenBrainz) and say what they play.
        let elsewhere = context.scrobbles.playingElsewhere(now: now)
        let heartRate = context.heartRate?.current(now: now)
        let cadence = context.heartRate?.cadenceState(now: now)
        // Taken before the data is read: a change meanwhile makes the page stale at once.
        let stamp = dashboardPages.signal.stamp()
        let f = format
        // What the database says is kept until it changes (every view read it again:
        // seven reads, most of a view's time), with the week's bars made from it (their
        // dates' names were a sixth of a view); now playing, heart rate and suggestions are live.
        let data = try dashboardData.value(today) {
            // The last seven local days by the calendar (a day is 23 or 25 hours when the clocks change).
            let startOfToday = localTime.startOfDay(today) ?? now
            let week = (0..<7).reversed().map { offset in
                localTime.day(of: f.calendar.date(byAdding: .day, value: -offset, to: startOfToday) ?? startOfToday)
            }
            let totals = Dictionary(try context.store.dailyTotals(from: week[0], to: today).map { ($0.day, $0) }) { a, _ in a }
            var weekBars: [Chart.Bar] = []
            var weekSeconds = 0.0
            for day in week {
                let t = totals[day]
                weekSeconds += t?.seconds ?? 0
                let label = String(f.day(day).prefix(3))
                weekBars.append(Chart.Bar(label: label, value: Double(t?.plays ?? 0),
                                          tooltip: "\(f.day(day)): \(SiteFormat.plural(t?.plays ?? 0, "play")), \(SiteFormat.span(t?.seconds ?? 0))"))
            }
            return (try DashboardData(sotd: songOfDay(today), todays: context.store.plays(limit: 100, from: localTime.startOfDay(today)),
                                      weekBars: weekBars, weekSeconds: weekSeconds, feelings: context.store.feelings(),
                                      friends: context.store.friendsWithLatestSong()), true)
        }
        // The next-track suggestion for the live zone, when the recommender runs.
        // Not waited for while the model is first built: the card says so and asks again.
        var recommenderReady = false
        var upNext: RecommendationList?
        if context.recommender != nil {
            do {
                upNext = try recommendationsIfReady(limit: 3)
                recommenderReady = upNext != nil
            } catch {
                recommenderReady = true  // built, but this answer failed: no suggestions shown
            }
        }
        // A planned workout in progress (its card changes each second), or the plans to start.
        let (planLive, startable) = planLive(now: now, heartRate: heartRate, mayWrite: mayWrite)
        let back = pageAddress(request)
        // The same page for the same figures: what it shows is its key, with the second
        // while a song plays (the position it shows moves; the page says when it was made).
        let loggedIn = Sessions.cookie(in: request).map { context.sessions.isValid($0, key: context.currentKey()) } ?? false
        let privateSession = try context.store.privateSession()
        let key = DashboardKey(loggedIn: loggedIn, mayWrite: mayWrite, back: back, today: today,
                               privateSession: privateSession, privateOn: privateSession?.isOn(at: now) == true,
                               second: playing?.state == .play ? Int64(now.timeIntervalSince1970) : nil,
                               defaultPlayer: defaultPlayer, playing: playing, elsewhere: elsewhere, heartRate: heartRate,
                               recommenderReady: recommenderReady, upNext: upNext, mpdDown: mpdDown,
                               planLive: planLive, startable: startable, cadence: cadence, controls: controls)
        return dashboardPages.response(key, stamp: stamp) {
            dashboardMarkup(request, now: now, today: today, defaultPlayer: defaultPlayer, playing: playing, elsewhere: elsewhere,
                            heartRate: heartRate,
                            data: data, recommenderReady: recommenderReady, upNext: upNext, mayWrite: mayWrite, back: back,
                            mpdDown: mpdDown, privateSession: privateSession, planLive: planLive, startable: startable,
                            cadence: cadence, controls: controls)
        }
    }

    /// What the dashboard shows, for `PageCache`.
    struct DashboardKey: Equatable, Sendable {
        var loggedIn: Bool
        var mayWrite: Bool
        var back: String
        var today: String
        var privateSession: PrivateSession?
        var privateOn: Bool
        var second: Int64?
        var defaultPlayer: String?
        var playing: NowPlaying?
        var elsewhere: [NowPlaying]
        var heartRate: LiveHeartRate?
        var recommenderReady: Bool
        var upNext: RecommendationList?
        var mpdDown: String?
        var planLive: PlanLive?
        var startable: [StartablePlan]
        var cadence: CadenceState?
        var controls: PlayerControls?
    }

    func dashboardMarkup(_ request: HTTPRequest, now: Date, today: String, defaultPlayer: String?, playing: NowPlaying?,
                         elsewhere: [NowPlaying] = [], heartRate: LiveHeartRate?, data: DashboardData, recommenderReady: Bool, upNext: RecommendationList?,
                         mayWrite: Bool, back: String, mpdDown: String? = nil, privateSession: PrivateSession? = nil,
                         planLive: PlanLive? = nil, startable: [StartablePlan] = [], cadence: CadenceState? = nil,
                         controls: PlayerControls? = nil) -> HTTPResponse {
        let f = format
        let (sotd, todays, weekBars, weekSeconds) = (data.sotd, data.todays, data.weekBars, data.weekSeconds)
        let feelings = data.feelings
        let elapsed = playing.map { p in (p.elapsed ?? 0) + (p.state == .play ? max(0, now.timeIntervalSince(p.at)) : 0) }

        return html(title: "Now", request: request, nav: "dashboard", live: true) {
            reviewOffer(today: today)
            privateSessionCard(privateSession, now: now, mayWrite: mayWrite)
            planLiveCard(planLive, startable: startable, heartRate: heartRate, mayWrite: mayWrite)
            Node.el("div", ["class": "grid"]) {
                Node.el("section", ["class": "card now", "aria-labelledby": "now-h", "data-player": playing?.player ?? defaultPlayer ?? ""]) {
                    Node.el("h2", ["id": "now-h"]) { "Now playing" }
                    Node.el("div", ["class": "np"]) {
                        Node.el("img", ["class": "cover", "src": coverURL(playing?.track), "alt": "", "width": "120", "height": "120",
                                        "data-np-cover": ""])
                        Node.el("div") {
                            Node.el("p", ["class": "np-title", "data-np-title": ""]) { playing?.track.title ?? (mpdDown != nil ? "MPD is not reachable" : "Nothing is playing") }
                            Node.el("p", ["class": "np-artist", "data-np-artist": ""]) { playing?.track.artist ?? "" }
                            Node.el("p", ["class": "np-album muted", "data-np-album": ""]) { playing?.track.album ?? "" }
                            Node.el("p", ["class": "np-state muted", "data-np-state": playing?.state.rawValue ?? "stop"]) {
                                playing.map { $0.state == .play ? "Playing" : "Paused" } ?? (mpdDown != nil ? "Not connected" : "Stopped")
                            }
                        }
                    }
                    mpdDownNotice(mpdDown)
                    Node.el("progress", ["data-np-progress": "", "max": playing?.duration.map { Chart.number($0) } ?? "1",
                                         "value": elapsed.map { Chart.number($0) } ?? "0",
                                         "data-at": String(now.timeIntervalSince1970), "aria-label": "Position in the song"])
                    Node.el("p", ["class": "muted small"]) {
                        Node.el("span", ["data-np-elapsed": ""]) { SiteFormat.clock(elapsed ?? 0) }
                        " / "
                        Node.el("span", ["data-np-duration": ""]) { playing?.duration.map(SiteFormat.clock) ?? "–" }
                    }
                    if let name = playing?.player ?? defaultPlayer {
                        playerControls(name, controls, mayWrite: mayWrite, action: "/")
                        Node.el("p", ["class": "small"]) { Node.el("a", ["href": url("/player")]) { "All players" } }
                    }
                    if !elsewhere.isEmpty {
                        Node.el("h3", ["class": "small"]) { "Also playing" }
                        Node.el("ul", ["class": "plain elsewhere"]) {
                            for other in elsewhere {
                                Node.el("li") {
                                    Node.el("span", ["class": "badge"]) { other.player }
                                    " "
                                    trackLink(other.track)
                                    Node.el("span", ["class": "by"]) { " — " }
                                    artistLink(other.track.artist)
                                }
                            }
                        }
                    }
                }
                Node.el("section", ["class": "card hr", "aria-labelledby": "hr-h"]) {
                    Node.el("h2", ["id": "hr-h"]) { "Heart rate" }
                    Node.el("p", ["class": "bpm"]) {
                        Node.el("span", ["data-hr-bpm": ""]) { heartRate.map { String(Int($0.bpm.rounded())) } ?? "–" }
                        Node.el("small") { " bpm" }
                    }
                    Node.el("p") {
                        Node.el("span", ["class": "zone z\(heartRate?.zone.rawValue ?? 0)", "data-hr-zone": heartRate.map { String($0.zone.rawValue) } ?? ""]) {
                            heartRate.map { "Zone \($0.zone.rawValue)" } ?? "No heart rate"
                        }
                    }
                    Node.el("p", ["class": "muted small", "data-workout": (heartRate?.workoutID ?? planLive?.workoutID).map(String.init) ?? ""]) {
                        if let id = heartRate?.workoutID ?? planLive?.workoutID {
                            Node.el("a", ["href": url("/workouts/\(id)")]) { "Workout in progress" }
                        } else {
                            "No workout in progress"
                        }
                    }
                }
                Node.el("section", ["class": "card sotd", "aria-labelledby": "sotd-h"]) {
                    Node.el("h2", ["id": "sotd-h"]) { "Song of the day" }
                    if let sotd {
                        Node.el("a", ["class": "sotd-link", "href": url("/sotd/\(today)")]) {
                            Node.el("img", ["class": "cover small", "src": url(sotdCoverPath(today, sotd.track)), "alt": "", "width": "64", "height": "64"])
                            Node.el("span") {
                                Node.el("strong") { sotd.track.title }
                                Node.el("br")
                                sotd.track.artist ?? ""
                            }
                        }
                        Node.el("p", ["class": "muted small"]) {
                            "Played \(SiteFormat.plural(sotd.plays, "time")) today" + (sotd.pinned ? " · pinned" : "")
                        }
                    } else {
                        Node.el("p", ["class": "muted"]) { "Nothing played yet today." }
                    }
                }
                friendsToday(data.friends, today: today)
                cadenceCard(cadence, mayWrite: mayWrite)
                if context.recommender != nil {
                    Node.el("section", ["class": "card next", "aria-labelledby": "next-h"]) {
                        Node.el("h2", ["id": "next-h"]) { "Up next" }
                        Node.el("p", ["class": "muted small", "data-next-for": "", "data-next-pending": recommenderReady ? nil : "1"]) {
                            recommenderReady ? upNextCaption(upNext) : "Reading your history for suggestions…"
                        }
                        Node.el("ol", ["class": "chart-list", "data-next": "", "data-queue-buttons": mayWrite && !context.players().isEmpty ? "" : nil]) {
                            for s in upNext?.suggestions ?? [] {
                                Node.el("li") {
                                    Node.el("a", ["href": url("/tracks/\(s.track.id)")]) { s.track.title }
                                    Node.el("span", ["class": "by"]) { " — " + (s.track.artist ?? "Unknown artist") }
                                    Node.el("span", ["class": "count"]) { s.track.bpm.map { "\(Int($0.rounded())) bpm" } ?? "" }
                                    heart(s.track.id, feelings[s.track.id] ?? .none, mayWrite: mayWrite, back: back, notNow: true)
                                    queueButtons("track", s.track.id, mayWrite: mayWrite, back: back, compact: true)
                                }
                            }
                        }
                        upNextEmpty(upNext, ready: recommenderReady)
                        upNextNote(upNext)
                    }
                }
                Node.el("section", ["class": "card week", "aria-labelledby": "week-h"]) {
                    Node.el("h2", ["id": "week-h"]) { "This week" }
                    // The bars count plays; the time is said only when there is some (a play
                    // without a duration is a play, not "0 s of listening").
                    let weekPlays = SiteFormat.plural(Int(weekBars.reduce(0) { $0 + $1.value }), "play")
                        + (weekSeconds >= 0.5 ? " · \(SiteFormat.span(weekSeconds)) of listening" : "")
                    Chart.bars(id: "week", weekBars, title: "Counted plays per day, last 7 days",
                               desc: "\(weekPlays) over the last seven days.", width: 260, height: 120)
                    Node.el("p", ["class": "muted small", "data-week-total": ""]) {
                        "\(weekPlays) · "
                        Node.el("a", ["href": url("/stats?range=week")]) { "more stats" }
                    }
                }
            }
            Node.el("section", ["class": "card", "aria-labelledby": "today-h"]) {
                Node.el("h2", ["id": "today-h"]) { "Today" }
                Node.el("ol", ["class": "plays", "data-today": today, "reversed": ""]) {
                    for p in todays { playItem(p, f, heart(p.track.id, feelings[p.track.id ?? 0] ?? .none, mayWrite: mayWrite, back: back)) }
                }
                if todays.isEmpty { Node.el("p", ["class": "muted", "data-today-empty": ""]) { "No plays yet today." } }
            }
        }
    }

    /// The dashboard's figures from the database, for one local day.
    struct DashboardData: Sendable {
        var sotd: (track: Track, plays: Int, seconds: Double, pinned: Bool, note: String?)?
        var todays: [PlayWithTrack]
        /// The last seven local days' counted plays, oldest first, and their listening time.
        var weekBars: [Chart.Bar]
        var weekSeconds: Double
        var feelings: [Int64: Feeling]
        /// Everyone followed, with their newest song (kept while their server is down).
        var friends: [(friend: Friend, song: FriendSong?)]
    }

    func upNextCaption(_ list: RecommendationList?) -> String {
        guard let list else { return "Suggestions are not available right now." }
        switch (list.mode, list.zone) {
        case (.cadence, _): return "For your running cadence"
        case (_, let zone?): return "For zone \(zone.rawValue)" + (list.zoneSource == "live" ? " (your heart rate now)" : "")
        default: return "From your history (no heart rate now)"
        }
    }

    func playItem(_ p: PlayWithTrack, _ f: SiteFormat, _ heart: Node = .empty) -> Node {
        .el("li", ["class": p.play.counted ? "play" : "play skip"]) {
            Node.el("time", ["datetime": ISO8601.string(p.play.startedAt)]) { f.time(p.play.startedAt) }
            Node.el("span", ["class": "what"]) {
                trackLink(p.track)
                Node.el("span", ["class": "by"]) { " — " }
                artistLink(p.track.artist)
            }
            if !p.play.counted { Node.el("span", ["class": "badge skip"]) { "skipped" } }
            tempoBadge(p.play)
            zoneBadge(p.play.zone)
            Node.el("span", ["class": "muted small"]) { SiteFormat.clock(p.play.playedSeconds) }
            heart
        }
    }

    /// The song of a day with its figures, or nil.
    func songOfDay(_ day: String) throws -> (track: Track, plays: Int, seconds: Double, pinned: Bool, note: String?)? {
        let store = context.store
        guard let choice = SongOfTheDay.choose(try store.sotdCandidates(day: day), pin: try store.sotdPin(day: day)),
              let track = try store.track(id: choice.trackID) else { return nil }
        let figures = try store.dayFigures(day: day, trackID: choice.trackID)
        return (track, figures.plays, figures.seconds, choice.pinned, choice.note)
    }

    // MARK: /history

    func historyPage(_ request: HTTPRequest, mayWrite: Bool = false, draft: PlayDraft? = nil, status: Int = 200) throws -> HTTPResponse {
        let search = request.query["q"].flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
        if let search, search.count > 200 { throw APIError.badRequest("the search is at most 200 characters", code: "invalid_q") }
        let cursor = try request.query["cursor"].map { text throws(APIError) in
            guard let cursor = ListenCursor.decode(text) else { throw APIError.badRequest("that page does not exist", code: "invalid_cursor") }
            return cursor
        }
        let rows = try context.store.plays(limit: 51, after: cursor, search: search)
        let page = Array(rows.prefix(50))
        let next = rows.count > 50 ? page.last.map { ListenCursor.encode(startedAt: $0.play.startedAt, id: $0.play.id ?? 0) } : nil
        let f = format
        let feelings = try context.store.feelings()
        let back = pageAddress(request)
        var days: [(String, [PlayWithTrack])] = []
        for p in page {
            let day = localTime.day(of: p.play.startedAt)
            if days.last?.0 == day { days[days.count - 1].1.append(p) } else { days.append((day, [p])) }
        }
        let notice = try curationNotice(request, mayWrite: mayWrite)
        return html(title: "History", request: request, nav: "history", status: status) {
            Node.el("h1") { "History" }
            notice
            Node.el("form", ["method": "get", "action": url("/history"), "class": "search", "role": "search"]) {
                Node.el("label", ["for": "q", "class": "visually-hidden"]) { "Search plays" }
                Node.el("input", ["id": "q", "name": "q", "type": "search", "value": search ?? "", "placeholder": "Title, artist or album"])
                Node.el("button", ["type": "submit"]) { "Search" }
            }
            if mayWrite { addPlayForm(back: back, draft: draft) }
            if page.isEmpty {
                historyEmpty(search: search)
            }
            for (day, plays) in days {
                Node.el("section", ["class": "day"]) {
                    Node.el("h2") { f.day(day) }
                    Node.el("ol", ["class": "plays"]) {
                        for p in plays {
                            playItem(p, f, .group {
                                heart(p.track.id, feelings[p.track.id ?? 0] ?? .none, mayWrite: mayWrite, back: back)
                                queueButtons("track", p.track.id, mayWrite: mayWrite, back: back, compact: true)
                                if mayWrite { playControls(p, back: back, draft: draft) }
                            })
                        }
                    }
                }
            }
            if let next {
                let q = search.map { "&q=" + URLText.component($0) } ?? ""
                Node.el("p", ["class": "pager"]) {
                    Node.el("a", ["href": url("/history?cursor=" + URLText.component(next) + q), "rel": "next"]) { "Older plays →" }
                }
            }
        }
    }
}
