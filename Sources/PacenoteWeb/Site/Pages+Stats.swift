import Foundation
import PacenoteCore
import PacenoteStore

/// `/stats`: the charts of a period, its totals and streaks.
extension API {
    func statsPage(_ request: HTTPRequest, mayWrite: Bool = false) throws -> HTTPResponse {
        let back = pageAddress(request)
        let range = try statsRange(request.query)
        let order = try chartOrder(request.query)
        let today = localTime.day(of: context.clock.now())
        // Computed once per range, order and day, until a play is stored.
        // The owner's copy has the queue buttons.
        let content = try pages.kept("stats|\(range.name)|\(range.from)|\(range.to)|\(today)|\(order.rawValue)|\(mayWrite)") {
            try statsContent(range, today: today, order: order, mayWrite: mayWrite, back: back)
        }
        return html(title: "Stats", request: request, nav: "stats") { content }
    }

    func statsContent(_ range: StatsRange, today: String, order: ChartOrder = .plays, mayWrite: Bool = false, back: String = "/stats") throws -> Node {
        let store = context.store
        let stats = try store.rangeStats(fromDay: range.from, toDay: range.to, limit: 10, by: order)
        let (totals, tracks, artists, albums) = (stats.totals, stats.tracks, stats.artists, stats.albums)
        let genres = try store.topGenres(fromDay: range.from, toDay: range.to, limit: 10, by: order)
        let zoneGenres = try store.genresByZone(fromDay: range.from, toDay: range.to, limit: 3)
        let orderQuery = order == .plays ? "" : "&order=\(order.rawValue)"
        let rangeQuery = range.name == "custom" ? "from=\(range.from)&to=\(range.to)" : "range=\(range.name.isEmpty ? range.from : range.name)"
        let year = Int(range.to.prefix(4)).map { min($0, Int(today.prefix(4)) ?? $0) } ?? Int(today.prefix(4))!
        let yearDays = try store.dailyTotals(from: "\(year)-01-01", to: "\(year)-12-31")
        let hours = try store.hourTotals(fromDay: range.from, toDay: range.to)
        let activeDays = try store.activeDayNumbers()
        let streaks = Streaks.of(dayNumbers: activeDays, today: today)
        let md = today.dropFirst(4)
        let thisYear = Int(today.prefix(4)) ?? 2000
        let onThisDay = try store.topTrackOfDays((1...10).map { String(format: "%04d", thisYear - $0) + md })
        let f = format
        let label = range.name == "custom" ? "\(range.from) to \(range.to)" : range.name.isEmpty ? range.from : range.name
        let ranges = ["today", "week", "month", "year", "all"]
        return Node.group {
            Node.el("h1") { "Stats" }
            Node.el("p", ["class": "small"]) {
                Node.el("a", ["href": url("/review/\(thisYear)"), "data-review-link": ""]) { "Your \(thisYear) in review →" }
            }
            Node.el("nav", ["class": "ranges", "aria-label": "Range"]) {
                for r in ranges {
                    Node.el("a", ["href": url("/stats?range=\(r)" + orderQuery), "aria-current": r == range.name ? "page" : nil]) { r.capitalized }
                }
                // Earlier years only where there are plays to show.
                for y in Set(activeDays.map { CivilDate.civil(days: $0).year }).filter({ $0 < thisYear }).sorted() {
                    Node.el("a", ["href": url("/stats?range=\(y)" + orderQuery), "aria-current": range.name == String(y) ? "page" : nil]) { String(y) }
                }
            }
            Node.el("nav", ["class": "ranges", "aria-label": "Rank by"]) {
                Node.el("a", ["href": url("/stats?" + rangeQuery), "aria-current": order == .plays ? "page" : nil]) { "By plays" }
                Node.el("a", ["href": url("/stats?" + rangeQuery + "&order=time"), "aria-current": order == .time ? "page" : nil]) {
                    "By listening time"
                }
            }
            Node.el("form", ["method": "get", "action": url("/stats"), "class": "search"]) {
                Node.el("label", ["for": "from"]) { "From" }
                Node.el("input", ["id": "from", "name": "from", "type": "date", "value": range.name == "custom" ? range.from : nil])
                Node.el("label", ["for": "to"]) { "to" }
                Node.el("input", ["id": "to", "name": "to", "type": "date", "value": range.name == "custom" ? range.to : nil])
                if order == .time { Node.el("input", ["type": "hidden", "name": "order", "value": "time"]) }
                Node.el("button", ["type": "submit"]) { "Show" }
            }
            Node.el("p", ["class": "totals"]) {
                Node.el("strong") { SiteFormat.plural(totals.plays, "play") }
                " · \(SiteFormat.span(totals.seconds)) of listening · \(SiteFormat.plural(totals.skips, "skip")) · "
                Node.el("span", ["class": "muted"]) { label == "all" ? "all time" : label }
            }
            statsEmpty(plays: totals.plays, skips: totals.skips, range: range.name, label: label == "all" ? "all time" : label)
            Node.el("div", ["class": "grid"]) {
                chartList("Top tracks", tracks) { e in
                    [e.track.map(trackLink) ?? .empty, .el("span", ["class": "by"]) { " — " }, artistLink(e.track?.artist),
                     queueButtons("track", e.track?.id, mayWrite: mayWrite, back: back, compact: true)]
                }
                chartList("Top artists", artists) { e in
                    [artistLink(e.artist, id: e.artistID), queueButtons("artist", e.artistID, mayWrite: mayWrite, back: back, compact: true)]
                }
                chartList("Top albums", albums) { e in
                    [albumLink(e.album, id: e.albumID), .el("span", ["class": "by"]) { " — " },
                     e.artistID.map { artistLink(e.artist, id: $0) } ?? .text(e.artist ?? ""),
                     queueButtons("album", e.albumID, mayWrite: mayWrite, back: back, compact: true)]
                }
                // A play counts for each genre of its track (MPD's several `Genre` values).
                chartList("Top genres", genres) { e in [.el("span", ["data-genre": e.genreID.map(String.init)]) { e.genre ?? "" }] }
            }
            // "Z4 is 60 % drum and bass": the genres of the plays heard in each zone.
            if !zoneGenres.isEmpty {
                Node.el("section", ["class": "card", "aria-labelledby": "zone-genres-h"]) {
                    Node.el("h2", ["id": "zone-genres-h"]) { "Genres by heart-rate zone" }
                    Node.el("ul", ["class": "plain"]) {
                        for z in zoneGenres {
                            Node.el("li", ["data-zone-genres": "\(z.zone)"]) {
                                Node.el("strong") { "Z\(z.zone)" }
                                Node.el("span", ["class": "muted small"]) { " (\(SiteFormat.plural(z.plays, "play"))): " }
                                if z.genres.isEmpty { Node.el("span", ["class": "muted"]) { "no genres tagged" } }
                                z.genres.map { g in "\(Int((z.share(g) * 100).rounded())) % \(g.genre ?? "")" }.joined(separator: ", ")
                            }
                        }
                    }
                }
            }
            Node.el("section", ["class": "card", "aria-labelledby": "heat-h"]) {
                Node.el("h2", ["id": "heat-h"]) { "\(year), day by day" }
                Node.el("div", ["class": "heatmap-wrap"]) {
                    Chart.heatmap(id: "heat", year: year, plays: Dictionary(yearDays.map { ($0.day, $0.plays) }) { a, _ in a },
                                  title: "Counted plays per day in \(year)", weekStart: localTime.weekStart)
                }
            }
            Node.el("div", ["class": "grid"]) {
                Node.el("section", ["class": "card", "aria-labelledby": "clock-h"]) {
                    Node.el("h2", ["id": "clock-h"]) { "Listening clock" }
                    Chart.clock(id: "clock", hours: hours, title: "Counted plays by hour of the day")
                }
                Node.el("section", ["class": "card", "aria-labelledby": "streak-h"]) {
                    Node.el("h2", ["id": "streak-h"]) { "Streaks" }
                    Node.el("p") {
                        Node.el("strong", ["data-streak-current": ""]) { SiteFormat.plural(streaks.current, "day") }
                        " in a row now"
                    }
                    Node.el("p") {
                        Node.el("strong", ["data-streak-longest": ""]) { SiteFormat.plural(streaks.longest, "day") }
                        " at most"
                        if let start = streaks.longestStart { Node.el("span", ["class": "muted"]) { ", from \(f.day(start))" } }
                    }
                }
                Node.el("section", ["class": "card", "aria-labelledby": "otd-h"]) {
                    Node.el("h2", ["id": "otd-h"]) { "On this day" }
                    if onThisDay.isEmpty { Node.el("p", ["class": "muted"]) { "Nothing on this day in earlier years." } }
                    Node.el("ul", ["class": "plain"]) {
                        for entry in onThisDay {
                            Node.el("li") {
                                Node.el("span", ["class": "muted"]) { String(entry.day.prefix(4)) + ": " }
                                trackLink(entry.track)
                                Node.el("span", ["class": "by"]) { " — " }
                                artistLink(entry.track.artist)
                                Node.el("span", ["class": "muted small"]) { " (\(SiteFormat.plural(entry.plays, "play")))" }
                            }
                        }
                    }
                }
            }
        }
    }

    func chartList(_ title: String, _ entries: [ChartEntry], _ item: (ChartEntry) -> [Node]) -> Node {
        .el("section", ["class": "card"]) {
            Node.el("h2") { title }
            if entries.isEmpty { Node.el("p", ["class": "muted"]) { "No plays in this range." } }
            Node.el("ol", ["class": "chart-list"]) {
                for e in entries {
                    Node.el("li") {
                        item(e)
                        Node.el("span", ["class": "count"]) { SiteFormat.plural(e.plays, "play") }
                    }
                }
            }
        }
    }
}

/// Runs of consecutive days with counted plays.
enum Streaks {
    struct Result: Equatable {
        var current: Int
        var longest: Int
        var longestStart: String?
    }

    /// `days`: ascending `YYYY-MM-DD`. The current streak ends today or yesterday.
    static func of(days: [String], today: String) -> Result {
        of(dayNumbers: days.compactMap(CivilDate.days(of:)), today: today)
    }

    /// `dayNumbers`: ascending days since 1970-01-01 (a Calendar per day was a tenth of the
    /// stats page, and a string per day of a long history most of the rest).
    static func of(dayNumbers: [Int], today: String) -> Result {
        var longest = 0, longestStart: Int?, run = 0, runStart = 0, previous: Int?
        for n in dayNumbers {
            if let p = previous, n == p + 1 { run += 1 } else { run = 1; runStart = n }
            if run > longest { longest = run; longestStart = runStart }
            previous = n
        }
        let t = CivilDate.days(of: today) ?? 0
        let current = previous.map { $0 >= t - 1 ? run : 0 } ?? 0
        let start = longestStart.map { n in
            let (year, month, day) = CivilDate.civil(days: n)
            return LocalTime.format(year: year, month: month, day: day)
        }
        return Result(current: current, longest: longest, longestStart: start)
    }
}
