import Foundation
import PacenoteCore
import PacenoteStore

/// The review's sections as markup: the same for the private page and a published share
/// (`reviewContent`), the songs' calendar and the heart-rate part.
extension API {
    /// The review as the private page shows it (every section) or a share (those ticked).
    /// `linked`: names link to the private track and artist pages (not for strangers).
    func reviewContent(_ r: ReviewReport, sections: Set<ReviewSection>, linked: Bool) -> Node {
        let f = format
        func track(_ i: ReviewReport.Item) -> Node {
            .group {
                if linked, let t = i.track { trackLink(t) } else { Node.el("span") { i.name } }
                Node.el("span", ["class": "by"]) { " — " + (i.artist ?? "Unknown artist") }
            }
        }
        func artist(_ i: ReviewReport.Item) -> Node { linked ? artistLink(i.name, id: i.id) : .text(i.name) }
        func album(_ i: ReviewReport.Item) -> Node {
            .group {
                if linked { albumLink(i.name, id: i.id) } else { Node.el("span") { i.name } }
                if let a = i.artist { Node.el("span", ["class": "by"]) { " — " + a } }
            }
        }
        func list(_ items: [ReviewReport.Item], _ one: (ReviewReport.Item) -> Node, count: (ReviewReport.Item) -> String) -> Node {
            .el("ol", ["class": "chart-list"]) {
                for i in items {
                    Node.el("li") {
                        one(i)
                        Node.el("span", ["class": "count"]) { count(i) }
                    }
                }
            }
        }
        let plays = { (i: ReviewReport.Item) in SiteFormat.plural(i.plays, "play") }
        let time = { (i: ReviewReport.Item) in SiteFormat.span(i.seconds) }
        func chartCard(_ title: String, _ id: String, _ ranked: ReviewReport.Ranked, _ one: @escaping (ReviewReport.Item) -> Node) -> Node {
            .el("section", ["class": "card", "aria-labelledby": "\(id)-h", "data-review-section": id]) {
                Node.el("h2", ["id": "\(id)-h"]) { title }
                if ranked.byPlays.isEmpty { Node.el("p", ["class": "muted"]) { "No plays in this period." } }
                Node.el("div", ["class": "split"]) {
                    Node.el("div") {
                        Node.el("h3", ["class": "small"]) { "By plays" }
                        list(ranked.byPlays, one, count: plays)
                    }
                    Node.el("div") {
                        Node.el("h3", ["class": "small"]) { "By listening time" }
                        list(ranked.byTime, one, count: time)
                    }
                }
            }
        }
        let t = r.totals
        return .group {
            if sections.contains(.totals) {
                Node.el("section", ["class": "card figures", "aria-label": "Totals", "data-review-section": "totals"]) {
                    for (label, value, before, text) in [
                        (t.plays == 1 ? "play" : "plays", Double(t.plays), r.previous.map { Double($0.plays) }, ReviewCard.grouped(t.plays)),
                        ("of listening", t.seconds, r.previous?.seconds, SiteFormat.span(t.seconds)),
                        ("\(t.days == 1 ? "day" : "days") with music", Double(t.days), r.previous.map { Double($0.days) }, ReviewCard.grouped(t.days)),
                        (t.tracks == 1 ? "song" : "songs", Double(t.tracks), r.previous.map { Double($0.tracks) }, ReviewCard.grouped(t.tracks)),
                        (t.artists == 1 ? "artist" : "artists", Double(t.artists), r.previous.map { Double($0.artists) }, ReviewCard.grouped(t.artists)),
                        (t.albums == 1 ? "album" : "albums", Double(t.albums), r.previous.map { Double($0.albums) }, ReviewCard.grouped(t.albums)),
                    ] {
                        Node.el("div", ["class": "figure"]) {
                            Node.el("strong") { text }
                            Node.el("span") { " " + label }
                            if let before, let change = ReviewReport.Totals.change(value, from: before) {
                                let percent = Int((abs(change) * 100).rounded())
                                Node.el("span", ["class": percent == 0 ? "change" : change > 0 ? "change up" : "change down"]) {
                                    percent == 0 ? "as many as the period before" : (change > 0 ? "+" : "−") + "\(percent) % on the period before"
                                }
                            }
                        }
                    }
                }
            }
            if sections.contains(.discoveries) {
                let d = r.discoveries
                Node.el("section", ["class": "card", "aria-labelledby": "disc-h", "data-review-section": "discoveries"]) {
                    Node.el("h2", ["id": "disc-h"]) { "Discoveries" }
                    Node.el("p") {
                        Node.el("strong") { SiteFormat.plural(d.newTracks, "new song") }
                        // A share of the plays gives their number away: only beside the totals.
                        sections.contains(.totals) ? " (\(Int((d.newShare(of: t.plays) * 100).rounded())) % of your plays) and " : " and "
                        Node.el("strong") { SiteFormat.plural(d.newArtists, "new artist") }
                    }
                    if let best = d.topNewTracks.first {
                        Node.el("p", ["class": "best-find"]) {
                            "Best new find: "
                            track(best)
                            Node.el("span", ["class": "muted small"]) { " (\(plays(best)))" }
                        }
                    }
                    Node.el("div", ["class": "split"]) {
                        Node.el("div") {
                            Node.el("h3", ["class": "small"]) { "New songs" }
                            list(d.topNewTracks, track, count: plays)
                        }
                        Node.el("div") {
                            Node.el("h3", ["class": "small"]) { "New artists" }
                            list(d.topNewArtists, artist, count: plays)
                        }
                    }
                    Node.el("h3", ["class": "small"]) { "Comebacks" }
                    if d.comebackTracks.isEmpty && d.comebackArtists.isEmpty {
                        Node.el("p", ["class": "muted"]) { "No favourite came back after a year away." }
                    }
                    Node.el("ul", ["class": "plain comebacks"]) {
                        for c in d.comebackArtists {
                            Node.el("li") {
                                artist(c.item)
                                Node.el("span", ["class": "muted small"]) { " — last heard \(shortDay(c.lastHeard)), \(plays(c.item)) now" }
                            }
                        }
                        for c in d.comebackTracks {
                            Node.el("li") {
                                track(c.item)
                                Node.el("span", ["class": "muted small"]) { " — last heard \(shortDay(c.lastHeard)), \(plays(c.item)) now" }
                            }
                        }
                    }
                }
            }
            Node.el("div", ["class": "grid wide"]) {
                if sections.contains(.tracks) { chartCard("Top songs", "tracks", r.topTracks, track) }
                if sections.contains(.artists) { chartCard("Top artists", "artists", r.topArtists, artist) }
                if sections.contains(.albums) { chartCard("Top albums", "albums", r.topAlbums, album) }
                // Genres go with the artists (a published review that shows artists shows them).
                if sections.contains(.artists) && !r.topGenres.byPlays.isEmpty {
                    chartCard("Top genres", "genres", r.topGenres) { i in .text(i.name) }
                }
            }
            if sections.contains(.highlights) {
                Node.el("section", ["class": "card", "aria-labelledby": "hl-h", "data-review-section": "highlights"]) {
                    Node.el("h2", ["id": "hl-h"]) { "Highlights" }
                    if let best = r.bestDay {
                        Node.el("p") {
                            "Most played in one day: "
                            track(best.item)
                            Node.el("span", ["class": "muted small"]) { ", \(SiteFormat.plural(best.item.plays, "time")) on \(shortDay(best.day))" }
                        }
                    }
                    if let streak = r.longestStreak {
                        Node.el("p") {
                            "Longest streak: "
                            Node.el("strong") { SiteFormat.plural(streak.days, "day") }
                            " of music in a row, \(shortDay(streak.from)) to \(shortDay(streak.to))"
                        }
                    }
                    if !r.months.isEmpty {
                        Node.el("table", ["class": "months-top"]) {
                            Node.el("thead") {
                                Node.el("tr") {
                                    Node.el("th", ["scope": "col"]) { "Month" }
                                    Node.el("th", ["scope": "col"]) { "Number one" }
                                    Node.el("th", ["scope": "col"]) { "Plays" }
                                }
                            }
                            Node.el("tbody") {
                                for m in r.months {
                                    Node.el("tr") {
                                        Node.el("th", ["scope": "row"]) { f.month(m.month) }
                                        Node.el("td") { if let top = m.top { track(top) } else { Node.el("span", ["class": "muted"]) { "—" } } }
                                        Node.el("td") { ReviewCard.grouped(m.plays) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            if sections.contains(.clock) {
                let busiest = r.weekdays.max { $0.plays < $1.plays }
                Node.el("div", ["class": "grid", "data-review-section": "clock"]) {
                    Node.el("section", ["class": "card", "aria-labelledby": "rclock-h"]) {
                        Node.el("h2", ["id": "rclock-h"]) { "Listening clock" }
                        Chart.clock(id: "review-clock", hours: r.clock.map { Double($0.plays) }, title: "Counted plays by hour of the day")
                    }
                    Node.el("section", ["class": "card", "aria-labelledby": "rweek-h"]) {
                        Node.el("h2", ["id": "rweek-h"]) { "Weekdays" }
                        Chart.bars(id: "review-weekdays", r.weekdays.map {
                            Chart.Bar(label: String(Weekday.name($0.key).prefix(3)), value: Double($0.plays),
                                      tooltip: "\(Weekday.name($0.key)): \(SiteFormat.plural($0.plays, "play")), \(SiteFormat.span($0.seconds))")
                        }, title: "Counted plays per weekday",
                        desc: busiest.map { "Most plays on \(Weekday.name($0.key))s." } ?? "", width: 320, height: 150)
                    }
                }
            }
            if sections.contains(.songsOfTheDay) { songsCalendar(r, linked: linked) }
            if sections.contains(.heartRate), let hr = r.heartRate { heartRatePart(hr, track: track, linked: linked) }
        }
    }

    /// The songs of the days, a small calendar per month (Monday first, or `weekStart`).
    func songsCalendar(_ r: ReviewReport, linked: Bool) -> Node {
        let byDay = Dictionary(r.songsOfTheDay.map { ($0.day, $0) }) { a, _ in a }
        let weekdays = Weekday.order(startingOn: r.weekStart)
        return .el("section", ["class": "card", "aria-labelledby": "rsotd-h", "data-review-section": "songs_of_the_day"]) {
            Node.el("h2", ["id": "rsotd-h"]) { "Songs of the day" }
            if r.songsOfTheDay.isEmpty { Node.el("p", ["class": "muted"]) { "No song of the day in this period." } }
            Node.el("div", ["class": "months-grid"]) {
                for m in r.months where r.songsOfTheDay.contains(where: { $0.day.hasPrefix(m.month) }) {
                    let first = CivilDate.days(of: m.month + "-01") ?? 0
                    let leading = weekdays.firstIndex(of: Weekday.of(dayNumber: first)) ?? 0
                    let days = (CivilDate.days(of: ReviewPeriod.shifted(m.month + "-01", months: 1)) ?? first + 30) - first
                    Node.el("div", ["class": "mini-month"]) {
                        Node.el("h3", ["class": "small"]) { format.month(m.month) }
                        Node.el("ol", ["class": "mini-calendar", "aria-label": "Songs of \(format.month(m.month))"]) {
                            for w in weekdays { Node.el("li", ["class": "weekday", "aria-hidden": "true"]) { String(Weekday.name(w).prefix(1)) } }
                            for _ in 0..<leading { Node.el("li", ["class": "blank", "aria-hidden": "true"]) }
                            for d in 1...max(days, 1) {
                                let day = m.month + String(format: "-%02d", d)
                                if let song = byDay[day] {
                                    let label = "\(shortDay(day)): \(song.track.title) — \(song.track.artist ?? "")"
                                    Node.el("li", ["class": "day song", "title": label]) {
                                        if linked {
                                            Node.el("a", ["href": url("/sotd/\(day)"), "aria-label": label]) { String(d) }
                                        } else {
                                            Node.el("span", ["aria-label": label]) { String(d) }
                                        }
                                    }
                                } else {
                                    Node.el("li", ["class": "day"]) { String(d) }
                                }
                            }
                        }
                    }
                }
            }
            if !r.songsOfTheDay.isEmpty {
                Node.el("details", ["class": "sotd-list"]) {
                    Node.el("summary") { "Every song of the day (\(r.songsOfTheDay.count))" }
                    Node.el("ol", ["class": "plain"]) {
                        for s in r.songsOfTheDay {
                            Node.el("li") {
                                Node.el("span", ["class": "muted small"]) { shortDay(s.day) + " " }
                                if linked { trackLink(s.track) } else { Node.el("span") { s.track.title } }
                                Node.el("span", ["class": "by"]) { " — " + (s.track.artist ?? "") }
                                if s.pinned { Node.el("span", ["class": "badge"]) { "pinned" } }
                            }
                        }
                    }
                }
            }
        }
    }

    func heartRatePart(_ hr: ReviewReport.HeartRate, track: @escaping (ReviewReport.Item) -> Node, linked: Bool) -> Node {
        let zoneRows = hr.zoneSeconds.enumerated().map { z, s in
            Chart.Bar(label: "Z\(z)", value: s, tooltip: "Zone \(z): \(SiteFormat.span(s))", className: "bar z\(z)")
        }
        return .el("section", ["class": "card", "aria-labelledby": "rhr-h", "data-review-section": "heart_rate"]) {
            Node.el("h2", ["id": "rhr-h"]) { "Heart rate" }
            Node.el("p") {
                Node.el("strong") { SiteFormat.plural(hr.workouts, "workout") }
                " · \(SiteFormat.span(hr.trainingSeconds)) of training"
            }
            if let w = hr.hardest {
                Node.el("p") {
                    "Hardest workout: "
                    if linked {
                        Node.el("a", ["href": url("/workouts/\(w.id)")]) { w.name ?? w.sport?.capitalized ?? shortDay(w.day) }
                    } else {
                        Node.el("span") { w.name ?? w.sport?.capitalized ?? shortDay(w.day) }
                    }
                    Node.el("span", ["class": "muted small"]) {
                        " — \(shortDay(w.day)), \(SiteFormat.span(w.seconds))" + (w.heartRateAverage.map { ", average \(Int($0.rounded())) bpm" } ?? "")
                    }
                }
            }
            Chart.rows(id: "review-zones", zoneRows, title: "Time in each heart-rate zone",
                       desc: zoneRows.map { "\($0.label) \(SiteFormat.span($0.value))" }.joined(separator: ", "), valueText: SiteFormat.span)
            if hr.loadByZone.contains(where: { $0 > 0 }) {
                let loadRows = hr.loadByZone.enumerated().map { z, load in
                    Chart.Bar(label: "Z\(z)", value: load, tooltip: "Zone \(z): \(Chart.number(load)) TRIMP", className: "bar z\(z)")
                }
                Node.el("h3", ["class": "small"]) { "Training load in each zone (TRIMP)" }
                Chart.rows(id: "review-load", loadRows, title: "Training load in each heart-rate zone, Banister's TRIMP",
                           desc: loadRows.map { "\($0.label) \(Chart.number($0.value))" }.joined(separator: ", "), valueText: Chart.number)
            }
            Node.el("div", ["class": "split"]) {
                Node.el("div") {
                    Node.el("h3", ["class": "small"]) { "Power songs" }
                    if hr.powerSongs.isEmpty { Node.el("p", ["class": "muted"]) { "No song lifted your heart rate yet." } }
                    Node.el("ol", ["class": "chart-list"]) {
                        for s in hr.powerSongs {
                            Node.el("li") {
                                track(s.item)
                                Node.el("span", ["class": "count"]) { "+\(Chart.number(s.lift)) bpm" }
                            }
                        }
                    }
                }
                if !hr.fasterSongs.isEmpty {
                    Node.el("div", ["data-faster-songs": ""]) {
                        Node.el("h3", ["class": "small"]) { "Songs that made you faster" }
                        Node.el("ol", ["class": "chart-list"]) {
                            for s in hr.fasterSongs {
                                Node.el("li") {
                                    track(s.item)
                                    Node.el("span", ["class": "count", "title": PaceEffect.explanation]) { measureFormat.songPace(s.effect) }
                                }
                            }
                        }
                    }
                }
                Node.el("div") {
                    Node.el("h3", ["class": "small"]) { "Each zone's soundtrack" }
                    Node.el("ul", ["class": "plain zones-music"]) {
                        for z in hr.zones where z.plays > 0 {
                            Node.el("li") {
                                Node.el("span", ["class": "zone z\(z.zone)"]) { "Z\(z.zone)" }
                                " \(SiteFormat.plural(z.plays, "play"))" + (z.bpm.map { " · \(Int($0.rounded())) bpm on average" } ?? "")
                                Node.el("ol", ["class": "chart-list"]) {
                                    for i in z.tracks {
                                        Node.el("li") {
                                            track(i)
                                            Node.el("span", ["class": "count"]) { SiteFormat.plural(i.plays, "play") }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
