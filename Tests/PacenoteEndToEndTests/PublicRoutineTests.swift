import Foundation
import PacenoteCore
import PacenoteTestSupport
import Testing

/// Public means no routine (issue 51, point 3), against the real binary with strangers on
/// loopback (`--trusted-networks none`; the owner uses the key) and a display zone nobody
/// would guess (Pacific/Chatham, +13:45 or +12:45): the songs-of-the-day feed and its headers
/// carry days only and stay the same when a play does not change the day's song; no public
/// page, feed or link holds a track id or the time zone; a published review's page and card
/// stay as published until published again, with no comparison with the period before; the
/// card is drawn once, however often it is asked for.
@Suite struct PublicRoutineTests {
    static let zone = TimeZone(identifier: "Pacific/Chatham")!

    static func daemon() throws -> PacenoteDaemon {
        try PacenoteDaemon(mpd: "127.0.0.1:1", config: CreditsTests.quickRule,
                           arguments: ["--timezone", zone.identifier, "--trusted-networks", "none"])
    }

    static func day(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
    }

    /// `count` distinct seconds of the last half hour that are all today in the display zone
    /// (within a minute of its midnight, it waits for the new day first).
    static func momentsToday(_ count: Int, after: Int = 0) -> [Int] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        var now = Date()
        if let tomorrow = calendar.date(byAdding: .day, value: 1, to: calendar.startOfDay(for: now)), tomorrow.timeIntervalSince(now) < 60 {
            Thread.sleep(until: tomorrow.addingTimeInterval(2))
            now = Date()
        }
        let start = Int(calendar.startOfDay(for: now).timeIntervalSince1970)
        let seconds = Int(now.timeIntervalSince1970)
        return (0..<count).map { max(start + after + $0, seconds - 1800 + after + $0 * 7) }
    }

    static func owner(_ d: PacenoteDaemon) -> [String: String] { ["Authorization": "Token \(d.apiKey)"] }

    /// The ids of the tracks played, as the owner reads them.
    static func trackIDs(_ d: PacenoteDaemon) throws -> [Int] {
        let r = try HTTP.get(d.base + "/api/v1/listens?limit=500", headers: owner(d))
        guard r.status == 200, let items = r.json?["listens"] as? [[String: Any]] else { throw HarnessError("listens answered \(r.status)") }
        return items.compactMap { ($0["track"] as? [String: Any])?["id"] as? Int }
    }

    /// The counter of public images drawn (`/metrics`, read with the key).
    static func drawn(_ d: PacenoteDaemon, _ image: String) throws -> Int {
        let r = try HTTP.get(d.base + "/metrics", headers: owner(d))
        guard r.status == 200 else { throw HarnessError("metrics answered \(r.status)") }
        let prefix = #"pacenote_public_images_drawn_total{image="\#(image)"} "#
        return r.text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) } ?? 0
    }

    /// The process's CPU time (user + system) from /proc, in seconds.
    static func cpuSeconds(_ d: PacenoteDaemon) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(d.process.process.processIdentifier)/stat", encoding: .utf8)
        let fields = stat[stat.range(of: ")")!.upperBound...].split(separator: " ")
        // After the name: state is field 3, utime 14 and stime 15 (proc(5)), in clock ticks.
        return (Double(fields[11])! + Double(fields[12])!) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Every address a public text names (attributes, Atom links, JSON strings).
    static func links(_ text: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: #"(?:href|src|content|url)="([^"]*)"|"(/[^"]*)""#)
        return pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { m in
            (1...2).lazy.compactMap { Range(m.range(at: $0), in: text).map { String(text[$0]) } }.first
        }
    }

    /// What a public text must not hold: a track id in a link, the display zone or its offset.
    static func expectNoRoutine(_ text: String, _ what: String, trackIDs: [Int], sourceLocation: SourceLocation = #_sourceLocation) {
        for forbidden in ["data-tz", "Chatham", "+13:45", "+12:45", "?t=", "&t=", "track_id"] {
            #expect(!text.contains(forbidden), "\(what) says \(forbidden)", sourceLocation: sourceLocation)
        }
        for link in links(text) {
            #expect(!link.contains("/tracks/") && !link.contains("/covers/") && !link.contains("/workouts/"),
                    "\(what) links into the private pages: \(link)", sourceLocation: sourceLocation)
            let query = URLComponents(string: link)?.queryItems ?? []
            for id in trackIDs {
                #expect(!query.contains { $0.value == String(id) }, "\(what): \(link) names track \(id)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func theFeedSaysDaysOnlyAndAPlayThatKeepsTheSongChangesNothing() throws {
        let python = try FriendsTests.pythonWithFeedparser()
        let d = try Self.daemon()
        let feedURL = d.base + "/sotd.atom"
        // Three days ago only: the feed's newest day is over, so Last-Modified answers a 304 too.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = Self.zone
        let noon = calendar.date(byAdding: DateComponents(day: -3, hour: 12), to: calendar.startOfDay(for: Date()))!
        let past = Int(noon.timeIntervalSince1970)  // noon three days ago there: both plays on one day
        for i in 0..<2 { try CurationTests.submit(d, artist: "Past", title: "Old Song", at: past + i * 300) }
        let pastDay = Self.day(Date(timeIntervalSince1970: Double(past)))
        let today = Self.day(Date())
        var read = try run(python, [Self.clients + "/sotd_feed.py", feedURL, today], allowFailure: true)
        #expect(read.status == 0, "the feed:\n\(read.stderr)\n\(read.stdout)")
        let first = try HTTP.get(feedURL)
        #expect(first.text.contains("<published>\(pastDay)T00:00:00Z</published>"), "\(first.text)")
        #expect(first.header("Last-Modified")?.hasSuffix(" 00:00:00 GMT") == true, "\(first.headers)")
        // A day that is over shows its count of plays.
        #expect(try HTTP.get(d.base + "/sotd/\(pastDay)").text.contains("Played 2 times that day"))

        // Today: the song of the day, twice; then a third play of it and one of another song.
        let moments = Self.momentsToday(4)
        try CurationTests.submit(d, artist: "Owner", title: "Daily", at: moments[0])
        try CurationTests.submit(d, artist: "Owner", title: "Daily", at: moments[1])
        read = try run(python, [Self.clients + "/sotd_feed.py", feedURL, today], allowFailure: true)
        #expect(read.status == 0, "the feed with today:\n\(read.stderr)\n\(read.stdout)")
        let before = try HTTP.get(feedURL)
        #expect(before.text.contains("<published>\(today)T00:00:00Z</published>") && before.text.contains("<updated>\(today)T00:00:00Z</updated>"),
                "\(before.text)")
        let lastModified = try #require(before.header("Last-Modified"))
        Thread.sleep(forTimeInterval: 1.2)  // a second later: what a time to the second would have moved by
        try CurationTests.submit(d, artist: "Owner", title: "Daily", at: moments[2])
        try CurationTests.submit(d, artist: "Other", title: "Once", at: moments[3])
        let after = try HTTP.get(feedURL)
        #expect(after.header("Last-Modified") == lastModified, "Last-Modified moved: \(String(describing: after.header("Last-Modified")))")
        #expect(after.body == before.body, "the feed changed although the day's song did not")
        #expect(after.header("ETag") == before.header("ETag"))
        #expect(try HTTP.get(feedURL, headers: ["If-None-Match": before.header("ETag") ?? ""]).status == 304)
        // Every date in it is a day.
        let stamps = try NSRegularExpression(pattern: #"<(?:published|updated)>([^<]*)</"#)
        let text = after.text
        let found = stamps.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { String(text[Range($0.range(at: 1), in: text)!]) }
        #expect(found.count == 5 && found.allSatisfy { $0.hasSuffix("T00:00:00Z") }, "\(found)")
        let ids = try Self.trackIDs(d)
        Self.expectNoRoutine(text, "the feed", trackIDs: ids)
    }

    @Test func publicPagesNameNoTrackAndNoTimeZone() throws {
        let d = try Self.daemon()
        let moments = Self.momentsToday(2)
        for m in moments { try CurationTests.submit(d, artist: "Owner", title: "Daily", at: m) }
        let today = Self.day(Date())
        let ids = try Self.trackIDs(d)
        #expect(!ids.isEmpty)
        let share = try HTTP.get(d.base + "/sotd/\(today)")
        #expect(share.status == 200 && share.text.contains("sotd-title"), "\(share.text)")
        Self.expectNoRoutine(share.text, "the share page", trackIDs: ids)
        let covers = Self.links(share.text).filter { $0.contains("/cover") }
        #expect(covers.count >= 2 && covers.allSatisfy { $0.contains("?v=") }, "\(covers)")
        for cover in covers {
            let path = cover.hasPrefix("http") ? String(cover.drop { $0 != "/" }.dropFirst(2).drop { $0 != "/" }) : cover
            #expect(try HTTP.get(d.base + path).status == 200, "\(cover)")
        }
        // Today's count of plays would move with each play: not until the day is over.
        #expect(!share.text.contains("sotd-plays") && !share.text.contains("played 2 times"), "\(share.text)")
        let api = try HTTP.get(d.base + "/api/v1/sotd/\(today)")
        #expect(api.status == 200 && api.json?["plays"] is NSNull, "\(api.text)")
        Self.expectNoRoutine(api.text, "the public song of the day", trackIDs: ids)
        Self.expectNoRoutine(try HTTP.get(d.base + "/sotd.atom").text, "the feed", trackIDs: ids)
        let missing = try HTTP.get(d.base + "/sotd/1999-01-01")
        #expect(missing.status == 404)
        Self.expectNoRoutine(missing.text, "the not-found page", trackIDs: ids)

        // A published review with every part, heart rate too.
        let published = try HTTP.request("POST", d.base + "/api/v1/review/shares", headers: Self.owner(d),
                                         body: Data(#"{"range": "all", "sections": ["totals", "top_tracks", "top_artists", "top_albums", "discoveries", "highlights", "clock", "songs_of_the_day", "heart_rate"]}"#.utf8))
        #expect(published.status == 201, "\(published.text)")
        let token = try #require(published.json?["token"] as? String)
        let review = try HTTP.get(d.base + "/review/shared/\(token)")
        #expect(review.status == 200 && review.text.contains("data-review-section=\"totals\""), "\(review.text)")
        Self.expectNoRoutine(review.text.replacingOccurrences(of: token, with: "TOKEN"), "the shared review", trackIDs: ids)
        // The owner's live page still has the zone for its script.
        #expect(try HTTP.get(d.base + "/", headers: Self.owner(d)).text.contains("data-tz=\"Pacific/Chatham\""))
    }

    @Test func aPublishedReviewStaysAsPublishedAndIsDrawnOnce() throws {
        let d = try Self.daemon()
        let now = Int(Date().timeIntervalSince1970)
        let from = Self.day(Date(timeIntervalSince1970: Double(now - 10 * 86_400)))
        let to = Self.day(Date())
        // The period before, whichever rule picks it (as many days before; the same days of
        // the month or the year before): 41 plays in it against 3, "+…%" or "−93 %" if shown.
        for (i, back) in [15, 36, 370].enumerated() {
            for j in 0..<(i == 0 ? 39 : 1) { try CurationTests.submit(d, artist: "Before", title: "Then \(j)", at: now - back * 86_400 + j * 240) }
        }
        let moments = Self.momentsToday(5)
        for m in moments.prefix(3) { try CurationTests.submit(d, artist: "Owner", title: "Now", at: m) }
        let privatePage = try HTTP.get(d.base + "/review?from=\(from)&to=\(to)", headers: Self.owner(d))
        #expect(privatePage.status == 200 && privatePage.text.contains("on the period before"),
                "the owner's page compares (so the test would see it): \(privatePage.status)")
        let body = #"{"from": "\#(from)", "to": "\#(to)", "sections": ["totals", "top_tracks", "discoveries"]}"#
        let drawnBefore = try Self.drawn(d, "review_card")
        let published = try HTTP.request("POST", d.base + "/api/v1/review/shares", headers: Self.owner(d), body: Data(body.utf8))
        #expect(published.status == 201, "\(published.text)")
        let token = try #require(published.json?["token"] as? String)
        #expect(try Self.drawn(d, "review_card") == drawnBefore + 1, "drawn when published")
        let page = try HTTP.get(d.base + "/review/shared/\(token)")
        let card = try HTTP.get(d.base + "/review/shared/\(token)/card.png")
        #expect(page.status == 200 && card.status == 200 && card.header("Content-Type") == "image/png")
        #expect(Self.plays(page.text) == 3, "\(page.text)")
        // No comparison with the period before, which was not published.
        #expect(!page.text.contains("period before") && !page.text.contains("class=\"change"), "\(page.text)")

        // More plays: the share does not move, to the byte.
        Thread.sleep(forTimeInterval: 1.2)  // a second later: what a time to the second would have moved by
        for m in moments.suffix(2) { try CurationTests.submit(d, artist: "Other", title: "Later", at: m) }
        #expect(try HTTP.get(d.base + "/api/v1/stats?range=all", headers: Self.owner(d)).json.flatMap { ($0["totals"] as? [String: Any])?["plays"] as? Int } == 46)
        #expect(try HTTP.get(d.base + "/review/shared/\(token)").body == page.body, "the page moved after a play")
        #expect(try HTTP.get(d.base + "/review/shared/\(token)/card.png").body == card.body, "the card moved after a play")

        // Asked for in a loop: the same bytes, not drawn again, at a tiny CPU cost.
        let cpuBefore = try Self.cpuSeconds(d)
        let loops = 40
        for _ in 0..<loops {
            let again = try HTTP.get(d.base + "/review/shared/\(token)/card.png")
            #expect(again.status == 200 && again.body == card.body)
        }
        let cpu = try Self.cpuSeconds(d) - cpuBefore
        #expect(try Self.drawn(d, "review_card") == drawnBefore + 1, "drawn again for a request")
        #expect(cpu < 0.01 * Double(loops), "\(cpu) s of CPU for \(loops) cards: drawing one took 40–80 ms")
        let tag = try #require(card.header("ETag"))
        #expect(try HTTP.get(d.base + "/review/shared/\(token)/card.png", headers: ["If-None-Match": tag]).status == 304)

        // Published again: now as the history is.
        let again = try HTTP.request("PUT", d.base + "/api/v1/review/shares/\(token)", headers: Self.owner(d))
        #expect(again.status == 200 && again.json?["snapshot_at"] is String, "\(again.text)")
        #expect(try HTTP.request("PUT", d.base + "/api/v1/review/shares/\(token)").status == 401, "a stranger cannot")
        #expect(try HTTP.request("PUT", d.base + "/api/v1/review/shares/AAAAAAAAAAAAAAAAAAAAAA", headers: Self.owner(d)).status == 404)
        #expect(Self.plays(try HTTP.get(d.base + "/review/shared/\(token)").text) == 5)
        #expect(try HTTP.get(d.base + "/review/shared/\(token)/card.png").body != card.body)
        #expect(try Self.drawn(d, "review_card") == drawnBefore + 2)

        // The song of the day's picture: drawn once too.
        let cover = d.base + "/sotd/\(to)/cover.png"
        let first = try HTTP.get(cover)
        #expect(first.status == 200 && first.header("Content-Type") == "image/png")
        let tiles = try Self.drawn(d, "sotd_cover")
        for _ in 0..<20 { #expect(try HTTP.get(cover).body == first.body) }
        let tilesAfter = try Self.drawn(d, "sotd_cover")
        #expect(tiles >= 1 && tilesAfter == tiles, "the tile was drawn again")
    }

    /// The totals' plays on a review page.
    static func plays(_ html: String) -> Int? {
        guard let r = html.range(of: #"<strong>[0-9,]+</strong><span> plays</span>"#, options: .regularExpression) else { return nil }
        return Int(html[r].dropFirst(8).prefix { $0 != "<" }.replacingOccurrences(of: ",", with: ""))
    }

    static let clients = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients").path
}
