import Foundation
import PacenoteCore
import PacenoteStore
import PacenoteTestSupport
import Testing
@testable import PacenoteWeb

/// The review over HTTP (issue 22): its JSON, publishing a share with what the owner ticked,
/// the share's page and card as a stranger gets them (no heart rate unless ticked), and
/// withdrawing it (404 at once).
@Suite struct ReviewAPITests {
    static let utc = TimeZone(identifier: "UTC")!

    /// Plays in 2025 with a workout and zoned plays.
    static func store(_ dir: TemporaryDirectory) throws -> Store {
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: utc)
        let day = 1_735_689_600.0  // 2025-01-01T00:00Z
        let tracks = try (0..<6).map { i in
            try store.saveTrack(Track(title: "Song \(i)", artist: "Artist \(i % 2)", album: "Album", bpm: BPM(value: Double(120 + i), source: .tag)))
        }
        for d in 0..<40 {
            for (n, t) in tracks.enumerated() where (d + n) % 3 != 0 {
                let at = day + Double(d) * 86_400 + 18 * 3600 + Double(n) * 240
                try store.insertPlay(Play(trackID: t, startedAt: Date(timeIntervalSince1970: at), endedAt: Date(timeIntervalSince1970: at + 200),
                                          playedSeconds: 200, counted: true, source: "mpd"))
            }
        }
        let start = day + 18 * 3600
        _ = try store.insertSamples(stride(from: start - 60, through: start + 1500, by: 5).map {
            HeartRateSample(at: Date(timeIntervalSince1970: $0), bpm: 100 + Int(($0 - start) / 30))
        }, source: "strap")
        let id = try store.startWorkout(at: Date(timeIntervalSince1970: start), kind: "auto", zoneSettingsID: nil)
        try store.updateWorkout(id: id, endedAt: Date(timeIntervalSince1970: start + 1500), average: 131, max: 150,
                                secondsInZone: [.z2: 600, .z3: 900])
        try store.tagPlays(from: Date(timeIntervalSince1970: start), to: Date(timeIntervalSince1970: start + 1500)) { _, avg in avg < 120 ? .z2 : .z3 }
        return store
    }

    static func request(_ method: String, _ path: String, query: [String: String] = [:], body: String = "",
                        as caller: String = "trusted") -> HTTPRequest {
        var headers = ["Host": "pacenote.example"]
        if caller == "key" { headers["Authorization"] = "Token k" }
        if !body.isEmpty { headers["Content-Type"] = "application/json" }
        return HTTPRequest(method: method, path: path, query: query, headers: headers, body: Array(body.utf8),
                           peerAddress: caller == "stranger" ? "203.0.113.9" : "127.0.0.1")
    }

    @Test func theReviewPublishedWithoutHeartRateShowsNone() throws {
        let dir = try TemporaryDirectory()
        let store = try Self.store(dir)
        defer { try? store.close() }
        let context = APIContext.forTests(version: "t", store: store, timeZone: Self.utc, apiKey: "k",
                                          configure: { $0.publicURL = "http://pacenote.example" })
        let api = API(context: context)
        let review = api.handle(Self.request("GET", "/api/v1/review", query: ["range": "2025"]))
        #expect(review.status == 200)
        let json = try JSONSerialization.jsonObject(with: Data(review.body)) as? [String: Any] ?? [:]
        #expect((json["range"] as? [String: Any])?["final"] as? Bool == true)
        #expect((json["totals"] as? [String: Any])?["plays"] as? Int == 160)
        #expect((json["discoveries"] as? [String: Any])?["new_tracks"] as? Int == 6)
        let hr = try #require(json["heart_rate"] as? [String: Any])
        #expect(hr["workouts"] as? Int == 1 && (hr["zones"] as? [Any])?.count == 6)
        #expect(api.handle(Self.request("GET", "/api/v1/review", query: ["range": "2025"], as: "stranger")).status == 403)
        #expect(api.handle(Self.request("GET", "/api/v1/review", query: ["range": "soon"])).status == 400)

        // Published with the defaults: everything but heart rate.
        #expect(api.handle(Self.request("POST", "/api/v1/review/shares", body: #"{"range":"2025"}"#)).status == 401)
        #expect(api.handle(Self.request("POST", "/api/v1/review/shares", body: #"{"range":"2025","sections":["pulse"]}"#, as: "key")).status == 400)
        let published = api.handle(Self.request("POST", "/api/v1/review/shares", body: #"{"range":"2025"}"#, as: "key"))
        #expect(published.status == 201)
        let share = try JSONSerialization.jsonObject(with: Data(published.body)) as? [String: Any] ?? [:]
        let token = try #require(share["token"] as? String)
        #expect(share["sections"] as? [String] == ReviewSection.allCases.filter { $0 != .heartRate }.map(\.rawValue))
        #expect(share["url"] as? String == "http://pacenote.example/review/shared/\(token)")
        let page = api.handle(Self.request("GET", "/review/shared/\(token)", as: "stranger"))
        #expect(page.status == 200)
        // The token is random letters and digits: taken out, so that it cannot spell a word looked for.
        let html = String(decoding: page.body, as: UTF8.self).replacingOccurrences(of: token, with: "TOKEN")
        #expect(html.contains("data-review-section=\"totals\"") && html.contains("og:image"))
        for word in ["heart_rate", "Heart rate", "bpm", "workout", "Power song", "Z3"] {
            #expect(!html.contains(word), "the public page says \(word)")
        }
        #expect(!html.contains("/tracks/") && !html.contains("/artists/"), "no link into the private pages")
        let card = api.handle(Self.request("GET", "/review/shared/\(token)/card.png", as: "stranger"))
        #expect(card.status == 200 && card.headers.contains { $0 == ("Content-Type", "image/png") })
        let text = Self.pngText(card.body)
        #expect(text["Description"]?.contains("160 plays") == true, "\(text)")
        for word in ["bpm", "workout", "training", "Power song"] { #expect(text["Description"]?.contains(word) == false) }
        #expect(Self.pngSize(card.body) == (1200, 630))

        // Ticked: heart rate is shown.
        let withHR = api.handle(Self.request("POST", "/api/v1/review/shares", body: #"{"range":"2025","sections":["totals","heart_rate"]}"#, as: "key"))
        let second = try JSONSerialization.jsonObject(with: Data(withHR.body)) as? [String: Any] ?? [:]
        let token2 = try #require(second["token"] as? String)
        let page2 = String(decoding: api.handle(Self.request("GET", "/review/shared/\(token2)", as: "stranger")).body, as: UTF8.self)
        #expect(page2.contains("data-review-section=\"heart_rate\"") && !page2.contains("data-review-section=\"top_tracks\""))
        #expect(Self.pngText(api.handle(Self.request("GET", "/review/shared/\(token2)/card.png", as: "stranger")).body)["Description"]?
            .contains("1 workout") == true)

        // The list is private; withdrawing is a write, and the page and card are gone at once.
        #expect(api.handle(Self.request("GET", "/api/v1/review/shares", as: "stranger")).status == 403)
        let list = try JSONSerialization.jsonObject(with: Data(api.handle(Self.request("GET", "/api/v1/review/shares")).body)) as? [String: Any]
        #expect((list?["shares"] as? [Any])?.count == 2)
        #expect(api.handle(Self.request("DELETE", "/api/v1/review/shares/\(token)", as: "stranger")).status == 401)
        #expect(api.handle(Self.request("DELETE", "/api/v1/review/shares/\(token)", as: "key")).status == 200)
        #expect(api.handle(Self.request("GET", "/review/shared/\(token)", as: "stranger")).status == 404)
        #expect(api.handle(Self.request("GET", "/review/shared/\(token)/card.png", as: "stranger")).status == 404)
        #expect(api.handle(Self.request("DELETE", "/api/v1/review/shares/\(token)", as: "key")).status == 404)
        #expect(api.handle(Self.request("GET", "/review/shared/not-a-token", as: "stranger")).status == 404)

        // The private pages: a stranger is sent to log in; the year, a month and a range answer.
        #expect(api.handle(Self.request("GET", "/review/2025", as: "stranger")).status == 303)
        for (path, query) in [("/review/2025", [:]), ("/review/2025-01", [:]), ("/review", ["from": "2025-01-10", "to": "2025-02-05"]),
                              ("/review", [:])] {
            let r = api.handle(Self.request("GET", path, query: query))
            #expect(r.status == 200, "\(path) \(query)")
        }
        #expect(api.handle(Self.request("GET", "/review/later")).status == 404)
    }

    @Test func weekdaysFollowTheSitesWeekStart() throws {
        let dir = try TemporaryDirectory()
        let store = try Self.store(dir)
        defer { try? store.close() }
        let context = APIContext.forTests(version: "t", store: store, timeZone: Self.utc, apiKey: "k", configure: { settings in
            settings.weekStart = .sunday
            settings.publicURL = "http://pacenote.example"
        })
        let api = API(context: context)
        let json = try JSONSerialization.jsonObject(with: Data(api.handle(Self.request("GET", "/api/v1/review", query: ["range": "2025"])).body))
            as? [String: Any] ?? [:]
        #expect(json["week_starts"] as? String == "sunday")
        #expect((json["weekdays"] as? [[String: Any]])?.map { $0["weekday"] as? Int } == [7, 1, 2, 3, 4, 5, 6])
        let page = String(decoding: api.handle(Self.request("GET", "/review/2025")).body, as: UTF8.self)
        #expect(page.contains("Sun</text>") && page.range(of: "Sun</text>")!.lowerBound < page.range(of: "Mon</text>")!.lowerBound)
    }

    @Test func theDashboardOffersTheYearsReviewFromDecember() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: Self.utc)
        defer { try? store.close() }
        let api = API(context: APIContext.forTests(version: "t", store: store, timeZone: Self.utc, apiKey: "k", players: { [] }))
        func offer(_ today: String) -> String? {
            var out: [UInt8] = []
            api.reviewOffer(today: today).render(into: &out)
            let html = String(decoding: out, as: UTF8.self)
            return html.isEmpty ? nil : html.components(separatedBy: "data-review-offer=\"").dropFirst().first.map { String($0.prefix(4)) }
        }
        #expect(offer("2026-11-30") == nil)
        #expect(offer("2026-12-01") == "2026")
        #expect(offer("2026-12-31") == "2026")
        #expect(offer("2027-01-01") == "2026")
        #expect(offer("2027-02-01") == nil)
    }

    @Test func theCardSaysOnlyWhatWasTickedInItsOwnFont() throws {
        let dir = try TemporaryDirectory()
        let store = try Self.store(dir)
        defer { try? store.close() }
        let local = LocalTime(timeZone: Self.utc)
        let range = try StatsRange.resolve(range: "2025", from: nil, to: nil, today: Date(), in: local)
        let report = try store.review(ReviewPeriod.of(range, today: local.day(of: Date())))
        let all = ReviewCard.lines(report, title: "2025 in music", subtitle: "Pacenote review", sections: Set(ReviewSection.allCases))
        #expect(all.contains { $0.text.contains("workout") } && all.contains { $0.text.hasPrefix("Power song") })
        let defaults = ReviewCard.lines(report, title: "2025 in music", subtitle: "Pacenote review", sections: ReviewSection.defaults)
        #expect(!defaults.contains { $0.text.contains("workout") || $0.text.contains("Power") || $0.text.contains("training") })
        #expect(defaults.map(\.text).contains("160 plays · 9 h of music"))
        let none = ReviewCard.lines(report, title: "t", subtitle: "s", sections: [])
        #expect(none.count == 2)
        // Accents are drawn without them; what the font has not, as a box (and ? in the text).
        #expect(PixelFont.plain("Sigur Rós — Ágúst · 日本") == "Sigur Ros - Agust . ??")
        #expect(PixelFont.glyph("é") == PixelFont.glyph("e") && PixelFont.glyph("É") == PixelFont.glyph("E"))
        #expect(PixelFont.glyph("p").count == PixelFont.height && PixelFont.glyph("A").count == PixelFont.height)
        let png = ReviewCard.png(defaults, hue: 200)
        #expect(Self.pngSize(png) == (1200, 630) && png.count < 60_000)
        #expect(Self.pngText(png)["Description"] == defaults.map { PixelFont.plain($0.text) }.joined(separator: "\n"))
    }

    /// A PNG's tEXt chunks.
    static func pngText(_ png: [UInt8]) -> [String: String] {
        var out: [String: String] = [:]
        var i = 8
        while i + 8 <= png.count {
            let length = Int(png[i]) << 24 | Int(png[i + 1]) << 16 | Int(png[i + 2]) << 8 | Int(png[i + 3])
            let type = String(decoding: png[(i + 4)..<(i + 8)], as: UTF8.self)
            if type == "tEXt", let zero = png[(i + 8)..<(i + 8 + length)].firstIndex(of: 0) {
                out[String(decoding: png[(i + 8)..<zero], as: UTF8.self)] = String(decoding: png[(zero + 1)..<(i + 8 + length)], as: UTF8.self)
            }
            i += 12 + length
        }
        return out
    }

    static func pngSize(_ png: [UInt8]) -> (Int, Int) {
        func n(_ at: Int) -> Int { Int(png[at]) << 24 | Int(png[at + 1]) << 16 | Int(png[at + 2]) << 8 | Int(png[at + 3]) }
        return png.count > 24 ? (n(16), n(20)) : (0, 0)
    }
}

/// A share published before v24 has no snapshot: the first time it is shown it gets one,
/// and from then on it is as fixed as the others (issue 51, point 3).
@Suite struct ReviewShareSnapshotTests {
    @Test func aShareWithoutASnapshotIsFixedWhenFirstShown() throws {
        let dir = try TemporaryDirectory()
        let store = try ReviewAPITests.store(dir)
        defer { try? store.close() }
        let context = APIContext.forTests(version: "t", store: store, timeZone: ReviewAPITests.utc, apiKey: "k",
                                          configure: { $0.publicURL = "http://pacenote.example" })
        let api = API(context: context)
        let token = ReviewShare.newToken()
        try store.addReviewShare(ReviewShare(token: token, from: "2025-01-01", to: "2025-12-31", sections: [.totals], createdAt: Date()))
        #expect(try store.reviewShare(token: token)?.snapshot == nil)
        let page = api.handle(ReviewAPITests.request("GET", "/review/shared/\(token)", as: "stranger"))
        #expect(page.status == 200)
        let kept = try #require(try store.reviewShare(token: token)?.snapshot)
        #expect(!kept.card.isEmpty && String(decoding: kept.content, as: UTF8.self).contains("data-review-section=\"totals\""))
        #expect(!String(decoding: page.body, as: UTF8.self).contains("period before"))
        // A play in the period afterwards changes neither the page nor the card.
        let track = try store.saveTrack(Track(title: "Later", artist: "Someone"))
        try store.insertPlay(Play(trackID: track, startedAt: Date(timeIntervalSince1970: 1_740_000_000),
                                  endedAt: Date(timeIntervalSince1970: 1_740_000_200), playedSeconds: 200, counted: true, source: "mpd"))
        #expect(api.handle(ReviewAPITests.request("GET", "/review/shared/\(token)", as: "stranger")).body == page.body)
        #expect(api.handle(ReviewAPITests.request("GET", "/review/shared/\(token)/card.png", as: "stranger")).body == kept.card)
        #expect(try store.reviewShare(token: token)?.snapshot == kept)
    }
}
