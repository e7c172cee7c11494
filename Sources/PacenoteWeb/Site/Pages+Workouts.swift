import Foundation
import PacenoteCore
import PacenoteStore
import Synchronization

extension API {
    // MARK: /workouts

    func workoutsPage(_ request: HTTPRequest, mayWrite: Bool = false) throws -> HTTPResponse {
        let workouts = try context.store.workouts(limit: 100).map { w throws in try soFar(w) }
        let trainingCharts = (load: try trainingLoadSection(), hrv: try restingHRVSection(mayWrite: mayWrite))
        let power = try powerSongs(workouts)
        let faster = try fasterSongs(limit: 10)
        var measured: [Int64: WorkoutMeasures] = [:]
        for w in workouts { measured[w.id] = try listMeasures(w) }
        let f = format, mf = measureFormat
        return html(title: "Workouts", request: request, nav: "workouts") {
            Node.el("h1") { "Workouts" }
            Node.el("p", ["class": "muted"]) {
                Node.el("a", ["href": url("/plans")]) { "Plans" }
                ": workouts you plan, intervals the music follows."
            }
            if workouts.isEmpty {
                workoutsEmpty()
            }
            Node.el("ol", ["class": "workouts"]) {
                for w in workouts {
                    Node.el("li") {
                        Node.el("a", ["href": url("/workouts/\(w.id)")]) { workoutTitle(w) }
                        Node.el("span", ["class": "muted"]) { " · \(f.day(localTime.day(of: w.startedAt))) \(f.time(w.startedAt))" }
                        Node.el("span") { " · " + SiteFormat.span((w.endedAt ?? context.clock.now()).timeIntervalSince(w.startedAt)) }
                        if let m = measured[w.id], let distance = m.distance {
                            Node.el("span", ["data-distance": ""]) { " · " + mf.distance(distance) }
                            if let rate = mf.rate(m) { Node.el("span", ["data-pace": ""]) { " · " + rate } }
                        }
                        if let avg = w.heartRateAverage { Node.el("span") { " · avg \(Int(avg.rounded())) bpm" } }
                        if w.plan != nil { Node.el("span", ["class": "badge"]) { "planned" } }
                        if w.endedAt == nil { Node.el("span", ["class": "badge live"]) { "in progress" } }
                    }
                }
            }
            trainingCharts.load
            trainingCharts.hrv
            Node.el("section", ["class": "card", "aria-labelledby": "power-h"]) {
                Node.el("h2", ["id": "power-h"]) { "Power songs" }
                Node.el("p", ["class": "muted small"]) { "The songs that lifted your heart rate most, on average over the workouts they played in." }
                if power.isEmpty { Node.el("p", ["class": "muted"]) { "Not enough workouts with music yet." } }
                Node.el("ol", ["class": "chart-list"]) {
                    for p in power {
                        Node.el("li") {
                            trackLink(p.track)
                            Node.el("span", ["class": "by"]) { " — " }
                            artistLink(p.track.artist)
                            Node.el("span", ["class": "count"]) { "+\(Chart.number(p.lift)) bpm" }
                        }
                    }
                }
            }
            Node.el("section", ["class": "card", "aria-labelledby": "faster-h", "data-faster-songs": ""]) {
                Node.el("h2", ["id": "faster-h"]) { "Songs that made you faster" }
                Node.el("p", ["class": "muted small"]) { PaceEffect.explanation }
                if faster.isEmpty { Node.el("p", ["class": "muted"]) { "No song has enough measured plays on runs yet." } }
                Node.el("ol", ["class": "chart-list"]) {
                    for s in faster {
                        Node.el("li") {
                            trackLink(s.track)
                            Node.el("span", ["class": "by"]) { " — " }
                            artistLink(s.track.artist)
                            Node.el("span", ["class": "count"]) { mf.songPace(s.effect) }
                        }
                    }
                }
            }
        }
    }

    /// The songs that made you faster over every run, fastest first (`PaceEffect`).
    func fasterSongs(limit: Int) throws -> [FasterSong] {
        try fasterSongCache.kept("\(limit)") { try context.store.fasterSongs(limit: limit) }
    }

    /// A workout's title: its name, else the time of day and sport ("Morning run").
    func workoutTitle(_ w: Workout) -> String {
        WorkoutName.title(name: w.name, sport: w.sport, startHour: localTime.hour(of: w.startedAt))
    }

    /// The tracks with the highest average heart-rate lift over these workouts.
    func powerSongs(_ workouts: [Workout]) throws -> [(track: Track, lift: Double)] {
        let key = workouts.map { "\($0.id):\($0.endedAt?.timeIntervalSince1970 ?? 0)" }.joined(separator: ",")
        return try powerSongCache.kept(key) {
            var lifts: [Int64: [Double]] = [:]
            var tracks: [Int64: Track] = [:]
            for w in workouts {
                guard let end = w.endedAt else { continue }
                let samples = try context.store.samples(from: w.startedAt.addingTimeInterval(-30), to: end)
                for p in try context.store.plays(overlapping: w.startedAt, end) {
                    guard let lift = HeartRateLift.lift(samples: samples, start: p.play.startedAt, end: p.play.endedAt) else { continue }
                    lifts[p.play.trackID, default: []].append(lift)
                    tracks[p.play.trackID] = p.track
                }
            }
            let ranked = lifts.compactMap { id, values in
                tracks[id].map { (track: $0, lift: values.reduce(0, +) / Double(values.count)) }
            }.filter { $0.lift > 0 }.sorted { $0.lift > $1.lift }
            return Array(ranked.prefix(10))
        }
    }

    // MARK: /workouts/ID

    func workoutPage(_ id: Int64, _ request: HTTPRequest) throws -> HTTPResponse {
        guard try context.store.workout(id: id) != nil else { throw APIError.notFound("There is no workout \(id).") }
        // Read before the workout: events after this id may be newer than what the page shows.
        let lastEvent = context.eventHub?.lastEventID
        let r = try reading(id)
        let (w, samples, during, end, plays) = (r.workout, r.samples, r.during, r.end, r.plays)
        let inProgress = w.endedAt == nil
        let model = try context.store.zoneSettings().model(settingsID: w.zoneSettingsID, at: w.startedAt)
        let series = Downsample.series(during, points: 600)
        let f = format
        let zoneRows = w.secondsInZone.enumerated().map { zone, seconds in
            Chart.Bar(label: "Z\(zone)", value: seconds, tooltip: "Zone \(zone): \(SiteFormat.span(seconds))", className: "bar z\(zone)")
        }
        let mf = measureFormat
        let report = try planReport(r)
        // The pace column, on a run with distance: each song against the minutes before it.
        let paced = PaceEffect.countsAsRun(sport: w.sport) && r.hasMotion
        let named = !(w.name?.trimmingCharacters(in: .whitespaces).isEmpty ?? true)
        let title = named ? workoutTitle(w) : "\(workoutTitle(w)) on \(f.day(localTime.day(of: w.startedAt)))"
        // In progress, the page follows the event stream (live.js): the figures, the curve
        // and the time in zone change as readings arrive, from the events after `lastEvent`.
        return html(title: title, request: request, nav: "workouts", live: inProgress) {
            Node.el("h1") { title }
            Node.el("p", ["class": "totals", "data-live-workout": inProgress ? String(w.id) : nil,
                          "data-last-event": inProgress ? lastEvent.map(String.init) : nil]) {
                "\(f.time(w.startedAt))–\(w.endedAt.map(f.time) ?? "now") · "
                Node.el("span", ["data-w-duration": ""]) { SiteFormat.span(end.timeIntervalSince(w.startedAt)) }
                if inProgress {
                    " · average "
                    Node.el("span", ["data-w-avg": ""]) { w.heartRateAverage.map { String(Int($0.rounded())) } ?? "–" }
                    " bpm · max "
                    Node.el("span", ["data-w-max": ""]) { w.heartRateMax.map(String.init) ?? "–" }
                    " bpm"
                    Node.el("span", ["class": "badge live"]) { "in progress" }
                } else {
                    if let avg = w.heartRateAverage { " · average \(Int(avg.rounded())) bpm" }
                    if let max = w.heartRateMax { " · max \(max) bpm" }
                }
            }
            workoutFigures(r)
            Node.el("section", ["class": "card", "aria-labelledby": "curve-h"]) {
                Node.el("h2", ["id": "curve-h"]) { "Heart rate" }
                Chart.heartRate(id: "hr", samples: series, from: w.startedAt, to: end, zoneBounds: model.lowerBounds,
                                songs: plays.map { ($0.play.startedAt, $0.track.title) }, title: "Heart rate during \(title)",
                                latest: during.last?.at, timeZone: context.timeZone,
                                plan: planBands(report, bounds: model.lowerBounds, ceiling: Double(w.heartRateMax ?? 200) + 10))
            }
            planReportSection(report, plan: w.plan, f)
            motionChart(r, title: title)
            Node.el("section", ["class": "card", "aria-labelledby": "zones-h"]) {
                Node.el("h2", ["id": "zones-h"]) { "Time in zone" }
                Chart.rows(id: "zones", zoneRows, title: "Time in each heart-rate zone",
                           desc: zoneRows.map { "\($0.label) \(SiteFormat.span($0.value))" }.joined(separator: ", "),
                           valueText: SiteFormat.span)
            }
            splitsTables(r)
            Node.el("section", ["class": "card", "aria-labelledby": "songs-h"]) {
                Node.el("h2", ["id": "songs-h"]) { "Songs" }
                if plays.isEmpty { Node.el("p", ["class": "muted"]) { "No music was logged during this workout." } }
                Node.el("table", ["class": "songs"]) {
                    Node.el("thead") {
                        Node.el("tr") {
                            for h in ["#", "Time", "Song", "Zone", "Avg HR", "Lift"] + (paced ? ["Pace"] : []) {
                                Node.el("th", ["scope": "col", "title": h == "Pace" ? "Pace against the 3 minutes before the song" : nil]) { h }
                            }
                        }
                    }
                    Node.el("tbody") {
                        for (i, p) in plays.enumerated() {
                            let lift = HeartRateLift.lift(samples: samples, start: p.play.startedAt, end: p.play.endedAt)
                            Node.el("tr", ["class": p.play.counted ? nil : "skip"]) {
                                Node.el("td") { String(i + 1) }
                                Node.el("td") { f.time(p.play.startedAt) }
                                Node.el("td") {
                                    trackLink(p.track)
                                    Node.el("span", ["class": "by"]) { " — " }
                                    artistLink(p.track.artist)
                                    if !p.play.counted { Node.el("span", ["class": "badge skip"]) { "skipped" } }
                                }
                                Node.el("td") { zoneBadge(p.play.zone) }
                                Node.el("td") { p.play.heartRateAverage.map { String(Int($0.rounded())) } ?? "–" }
                                Node.el("td") { lift.map { ($0 >= 0 ? "+" : "") + Chart.number($0) } ?? "–" }
                                if paced {
                                    if let e = p.play.id.flatMap({ r.paces[$0] }) {
                                        let shown = mf.playPace(e)
                                        Node.el("td", ["data-pace-effect": String(format: "%.4f", e.speedChange), "title": shown.paces]) { shown.change }
                                    } else {
                                        Node.el("td", ["title": "Too short, or no baseline in the minutes before"]) { "–" }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            workoutExportLinks(r)
        }
    }

    // MARK: /tracks/ID

    func trackPage(_ id: Int64, _ request: HTTPRequest, mayWrite: Bool) throws -> HTTPResponse {
        guard let track = try context.store.track(id: id) else { throw APIError.notFound("There is no track \(id).") }
        let summary = try context.store.trackSummary(id: id)
        let recent = try context.store.plays(trackID: id, limit: 20)
        let feeling = try context.store.feeling(trackID: id)
        let credits = try context.store.creditWithArtistIDs(trackID: id)
        let pace = try context.store.paceEffect(trackID: id)
        let f = format
        return html(title: track.title, request: request, nav: "history") {
            Node.el("div", ["class": "np"]) {
                Node.el("img", ["class": "cover", "src": coverURL(track), "alt": "", "width": "120", "height": "120"])
                Node.el("div") {
                    Node.el("h1") { track.title }
                    heart(id, feeling, mayWrite: mayWrite, back: "/tracks/\(id)")
                    queueButtons("track", id, mayWrite: mayWrite, back: "/tracks/\(id)")
                    // The credit text as received; each credited artist links to their page.
                    Node.el("p") { artistLink(track.artist) }
                    if !credits.isEmpty, credits.map(\.artist.name) != [track.artist ?? ""] {
                        Node.el("p", ["class": "muted small", "data-credits": ""]) {
                            "Credited: "
                            for (i, c) in credits.enumerated() {
                                if i > 0 { ", " }
                                artistLink(c.artist.name, id: c.id)
                                if c.artist.role == .featured { " (featured)" }
                            }
                        }
                    }
                    if let album = track.album { Node.el("p", ["class": "muted"]) { albumLink(album, id: track.albumID) } }
                }
            }
            summaryFacts(summary, extra: [("BPM", track.bpm.map { "\(Chart.number($0.value)) (\($0.source.rawValue))" } ?? "unknown"),
                                          ("Beat", Self.beatText(track.beatConfidence)),
                                          ("Loudness", Self.loudnessText(track.loudnessLUFS, range: track.loudnessRangeLU))]
                         + Self.musicBrainzFacts(track.musicBrainz))
            if let pace {
                // On runs: the song against the runner's own minutes before it (`PaceEffect`).
                Node.el("p", ["class": "small", "data-pace-effect": pace.isShown ? String(format: "%.4f", pace.speedChange) : "", "title": PaceEffect.explanation]) {
                    Node.el("strong") { "On runs: " }
                    if pace.isShown {
                        PaceEffect.words(pace.speedChange) + " than in the 3 minutes before it"
                            + (pace.cadenceChange.map { $0.magnitude >= 0.5 ? String(format: " (%+.0f steps/min)", $0) : "" } ?? "")
                            + ", over \(SiteFormat.plural(pace.plays, "play")) on \(SiteFormat.plural(pace.runs, "run"))"
                    } else {
                        "\(SiteFormat.plural(pace.plays, "play")) measured over \(SiteFormat.plural(pace.runs, "run")); "
                            + "its effect on your pace shows after \(PaceEffect.minimumPlays) plays over \(PaceEffect.minimumRuns) runs"
                    }
                }
            }
            if mayWrite {
                Node.el("form", ["method": "post", "action": url("/tracks/\(id)"), "class": "search"]) {
                    Node.el("label", ["for": "bpm"]) { "Tempo by hand" }
                    Node.el("input", ["id": "bpm", "name": "bpm", "type": "number", "min": "20", "max": "400", "step": "0.1",
                                      "value": track.bpm.map { Chart.number($0.value) } ?? "", "required": ""])
                    Node.el("button", ["type": "submit"]) { "Set BPM" }
                }
            } else {
                Node.el("p", ["class": "muted small"]) {
                    Node.el("a", ["href": url("/login?next=" + URLText.component("/tracks/\(id)"))]) { "Log in" }
                    " to set the tempo by hand."
                }
            }
            playsOverTime(summary, what: track.title)
            Node.el("section", ["class": "card"]) {
                Node.el("h2") { "Recent plays" }
                Node.el("ol", ["class": "plays"]) {
                    for p in recent {
                        Node.el("li", ["class": p.counted ? "play" : "play skip"]) {
                            Node.el("time", ["datetime": ISO8601.string(p.startedAt)]) {
                                "\(f.day(localTime.day(of: p.startedAt))) \(f.time(p.startedAt))"
                            }
                            if !p.counted { Node.el("span", ["class": "badge skip"]) { "skipped" } }
                            zoneBadge(p.zone)
                        }
                    }
                }
            }
        }
    }

    /// `POST /tracks/ID` from the page: a hand-set BPM (source `manual`, never overridden
    /// by tags, stickers or analysis), then back to the page.
    func trackBPMForm(_ id: Int64, _ request: HTTPRequest) throws -> HTTPResponse {
        guard let text = Self.formField("bpm", in: request.body), let value = Double(text), (20...400).contains(value) else {
            throw APIError.badRequest("the tempo is a number from 20 to 400", code: "invalid_bpm")
        }
        try context.operations.setBPM(trackID: id, value: value)
        return HTTPResponse(status: 303, headers: [("Location", url("/tracks/\(id)")), ("Cache-Control", "no-store")])
    }

    /// How clear a track's beat is, in words with aubio's confidence (`pacenote analyze`).
    static func beatText(_ confidence: Double?) -> String {
        guard let confidence else { return "not measured (pacenote analyze)" }
        return String(format: "%@ (confidence %.2f)", Track.beatWords(confidence), confidence)
    }

    /// A track's measured energy (`pacenote analyze`, EBU R 128): "−14.2 LUFS, range 6.1 LU",
    /// with a true minus sign.
    static func loudnessText(_ lufs: Double?, range: Double?) -> String {
        guard let lufs else { return "not measured (pacenote analyze)" }
        guard lufs > Track.silentLUFS else { return "silent (nothing above the −70 LUFS gate)" }
        func signed(_ value: Double) -> String { String(format: "%.1f", value).replacingOccurrences(of: "-", with: "−") }
        return "\(signed(lufs)) LUFS" + (range.map { ", range \(signed($0)) LU" } ?? "")
    }

    /// The MusicBrainz ids a track carries, as facts for its page.
    static func musicBrainzFacts(_ ids: MusicBrainzIDs) -> [(String, String)] {
        [("MusicBrainz recording", ids.recording), ("MusicBrainz release", ids.release), ("MusicBrainz artist", ids.artist)]
            .compactMap { term, value in value.map { (term, $0) } }
    }

    func summaryFacts(_ s: TrackSummary, extra: [(String, String)]) -> Node {
        let f = format
        let total = s.plays + s.skips
        let facts: [(String, String)] = [
            ("Plays", String(s.plays)),
            ("Listening time", SiteFormat.span(s.seconds)),
            ("Skip rate", total == 0 ? "–" : "\(Int((100 * Double(s.skips) / Double(total)).rounded())) %"),
            ("First played", s.firstPlayed.map { f.day(localTime.day(of: $0)) } ?? "never"),
            ("Last played", s.lastPlayed.map { f.day(localTime.day(of: $0)) } ?? "never"),
        ] + extra
        return .el("dl", ["class": "facts"]) {
            for (term, value) in facts {
                Node.el("div") {
                    Node.el("dt") { term }
                    Node.el("dd") { value }
                }
            }
        }
    }

    func playsOverTime(_ s: TrackSummary, what: String) -> Node {
        guard !s.months.isEmpty else { return .empty }
        // Every month from the first to the last, so gaps show as gaps.
        let counts = Dictionary(s.months.map { ($0.month, $0.plays) }) { a, _ in a }
        var months: [String] = []
        var (y, m) = (Int(s.months.first!.month.prefix(4)) ?? 2000, Int(s.months.first!.month.suffix(2)) ?? 1)
        let last = s.months.last!.month
        while months.count < 240 {
            let key = String(format: "%04d-%02d", y, m)
            months.append(key)
            if key >= last { break }
            (y, m) = m == 12 ? (y + 1, 1) : (y, m + 1)
        }
        let f = format
        let bars = months.map { Chart.Bar(label: $0.hasSuffix("-01") || months.count <= 12 ? String($0.prefix(4)) : "",
                                          value: Double(counts[$0] ?? 0),
                                          tooltip: "\(f.month($0)): \(SiteFormat.plural(counts[$0] ?? 0, "play"))") }
        return .el("section", ["class": "card"]) {
            Node.el("h2") { "Plays over time" }
            Chart.bars(id: "months", bars, title: "Counted plays of \(what) per month",
                       desc: "\(SiteFormat.plural(s.plays, "counted play")) from \(f.month(months.first!)) to \(f.month(months.last!)).")
        }
    }
}
