import Foundation
import Logging
import PacenoteCore
import PacenoteOperations
import PacenoteStore
import PacenoteTestSupport
import Testing
@testable import PacenoteWeb

@Suite struct MarkupTests {
    @Test func textAndAttributesAreEscapedAndControlCharactersDropped() {
        let node = Node.el("p", ["title": "\"&'<>"]) { "<img src=x onerror=alert(1)> & \u{07}bell" }
        #expect(node.rendered() == "<p title=\"&quot;&amp;&#39;&lt;&gt;\">&lt;img src=x onerror=alert(1)&gt; &amp; bell</p>")
        #expect(Node.el("img", ["src": "a.png", "alt": nil]).rendered() == "<img src=\"a.png\">")
        #expect(Node.group { "a"; Node.el("br"); "b" }.rendered() == "a<br>b")
        // Special bytes at either end, quotes kept in text, tab and newline kept, DEL dropped,
        // multi-byte characters whole.
        #expect(Node.el("b", ["x": "Sigur Rós\u{7F}'"]) { "<\"Björk\"\t\n\u{7F}Ω>" }.rendered()
                == "<b x=\"Sigur Rós&#39;\">&lt;\"Björk\"\t\nΩ&gt;</b>")
    }

    @Test func queryComponentsArePercentEncoded() {
        #expect(URLText.component("AC/DC & \"Friends\"") == "AC%2FDC%20%26%20%22Friends%22")
        #expect(URLText.component("Björk") == "Bj%C3%B6rk")
    }

    @Test func chartsCarryTitlesDescriptionsAndOneMarkPerValue() {
        let clock = Chart.clock(id: "c", hours: (0..<24).map(Double.init), title: "By hour").rendered()
        #expect(clock.contains("<title id=\"c-title\">By hour</title>"))
        #expect(clock.contains("aria-labelledby=\"c-title c-desc\""))
        #expect(clock.components(separatedBy: "<path").count - 1 == 24)
        #expect(clock.contains("the busiest hour is 23:00"))
        let heat = Chart.heatmap(id: "h", year: 2024, plays: ["2024-02-29": 3], title: "2024").rendered()
        #expect(heat.components(separatedBy: "class=\"heat").count - 1 == 366)
        #expect(heat.contains("<title>2024-02-29: 3 plays</title>"))
        let bars = Chart.bars(id: "b", [.init(label: "<Mon>", value: 2, tooltip: "<b>")], title: "T", desc: "D").rendered()
        #expect(bars.contains("&lt;Mon&gt;") && !bars.contains("<b>"))
    }

    /// `[site] week_starts`: the heatmap's rows begin on that day. 2026-01-01 is a Thursday:
    /// the fourth row from Monday, the fifth from Sunday, the sixth from Saturday.
    @Test func theHeatmapsWeeksBeginOnTheConfiguredDay() {
        for (start, row) in [(WeekStart.monday, 3), (.sunday, 4), (.saturday, 5)] {
            let heat = Chart.heatmap(id: "h", year: 2026, plays: [:], title: "2026", weekStart: start).rendered()
            #expect(heat.contains("y=\"\(16 + row * 13)\" width=\"11\" height=\"11\" rx=\"2\"><title>2026-01-01: 0 plays</title>"),
                    "\(start): \(heat.prefix(1200))")
            // Monday's label in Monday's row.
            #expect(heat.contains("y=\"\(16 + start.position(ofWeekday: 1) * 13 + 9)\">Mon</text>"), "\(start)")
            #expect(heat.components(separatedBy: "class=\"heat").count - 1 == 365)
        }
    }

    @Test func streaksCountConsecutiveDays() {
        let days = ["2026-01-01", "2026-01-02", "2026-01-03", "2026-02-27", "2026-02-28", "2026-03-01"]
        #expect(Streaks.of(days: days, today: "2026-03-02") == .init(current: 3, longest: 3, longestStart: "2026-01-01"))
        #expect(Streaks.of(days: days, today: "2026-03-05") == .init(current: 0, longest: 3, longestStart: "2026-01-01"))
        #expect(Streaks.of(days: days + ["2026-03-02"], today: "2026-03-02").current == 4)
        #expect(Streaks.of(days: [], today: "2026-03-02") == .init(current: 0, longest: 0, longestStart: nil))
    }
}

@Suite struct SitePageTests {
    static let hostileTitle = "<img src=x onerror=alert(1)>"
    static let hostileArtist = "\"&'<"

    final class Site {
        let dir: TemporaryDirectory
        let store: Store
        let web: WebServer
        let trackID: Int64
        let day: String
        /// The hostile track's artist and album entities.
        let artistID: Int64
        let albumID: Int64
        var base: String { "http://127.0.0.1:\(web.port)" }

        init(trusted: Bool, weekStart: WeekStart = .monday) throws {
            dir = try TemporaryDirectory()
            store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
            trackID = try store.saveTrack(Track(uri: "x/hostile.flac", title: SitePageTests.hostileTitle,
                                                artist: SitePageTests.hostileArtist, album: "<script>alert(2)</script>",
                                                durationSeconds: 200))
            let other = try store.saveTrack(Track(uri: "x/other.flac", title: "Other", artist: "Band", durationSeconds: 100))
            let now = Date()
            // A fixed day, so nothing depends on when the test runs (midnight included).
            day = "2026-01-15"
            let noon = Date(timeIntervalSince1970: 1_768_478_400)  // 2026-01-15T12:00Z
            try store.insertPlay(Play(trackID: trackID, startedAt: noon, endedAt: noon.addingTimeInterval(200),
                                      playedSeconds: 200, counted: true, source: "mpd", player: "default", zone: .z3))
            // Counted too, but shorter: a candidate that is not the song of the day.
            try store.insertPlay(Play(trackID: other, startedAt: noon.addingTimeInterval(250), endedAt: noon.addingTimeInterval(260),
                                      playedSeconds: 10, counted: true, source: "mpd", player: "default"))
            let workout = try store.startWorkout(at: now.addingTimeInterval(-600), kind: "manual", name: "Tempo <run>", zoneSettingsID: nil)
            try store.insertSamples((0..<60).map { HeartRateSample(at: now.addingTimeInterval(-600 + Double($0) * 10), bpm: 100 + $0) },
                                    source: "test")
            try store.updateWorkout(id: workout, endedAt: now.addingTimeInterval(-10), average: 130, max: 159,
                                    secondsInZone: [.z0: 0, .z1: 100, .z2: 200, .z3: 290])
            artistID = try #require(try store.artist(named: SitePageTests.hostileArtist)).id
            albumID = try #require(try store.track(id: trackID)?.albumID)
            let context = APIContext.forTests(version: "9.9.9", store: store, timeZone: TimeZone(identifier: "UTC")!,
                                              apiKey: "test-key-0123456789", configure: { settings in
                if !trusted { settings.trustedNetworks = [] }
                settings.weekStart = weekStart
            })
            web = WebServer(settings: .init(address: ListenAddress(host: "127.0.0.1", port: 0)),
                            basePath: "", api: API(context: context), logger: Logger(label: "test"))
            try web.start()
        }

        deinit {
            web.stop()
            try? store.close()
        }

        /// The version in the day's cover address (`?v=`): of the hostile track, the day's song.
        func coverVersion() throws -> String {
            SongOfTheDay.coverVersion(day: day, title: SitePageTests.hostileTitle, artist: SitePageTests.hostileArtist,
                                      album: "<script>alert(2)</script>")
        }
    }

    @Test func everyPageShowsHostileTagsAsText() throws {
        let site = try Site(trusted: true)
        let artist = URLText.component(Self.hostileArtist)
        for path in ["/", "/history", "/history?q=img", "/stats", "/stats?range=2026-01", "/sotd", "/sotd?month=2026-01", "/sotd/\(site.day)",
                     "/workouts", "/workouts/1", "/tracks/\(site.trackID)", "/artists/\(site.artistID)", "/albums/\(site.albumID)"] {
            let r = try HTTP.get(site.base + path)
            #expect(r.status == 200, "\(path)")
            #expect(r.header("Content-Type") == "text/html; charset=utf-8", "\(path)")
            #expect(r.header("Content-Security-Policy")?.contains("script-src 'self'") == true, "\(path)")
            let html = r.text
            #expect(html.hasPrefix("<!doctype html>"), "\(path)")
            #expect(!html.contains("<img src=x"), "\(path)")
            #expect(!html.contains("<script>alert"), "\(path)")
            #expect(!html.contains("\"&'<"), "\(path)")
            #expect(!html.contains("<run>"), "\(path)")
        }
        // The address artist pages had before ids: a permanent redirect to the artist's page.
        let old = try HTTP.get(site.base + "/artist?name=\(artist)")
        #expect(old.status == 301 && old.header("Location") == "/artists/\(site.artistID)", "\(old.status) \(old.text)")
        let share = try HTTP.get(site.base + "/sotd/\(site.day)").text
        #expect(share.contains("<h1 class=\"sotd-title\">&lt;img src=x onerror=alert(1)&gt;</h1>"))
        #expect(share.contains("<meta property=\"og:title\" content=\"&lt;img src=x onerror=alert(1)&gt; — &quot;&amp;&#39;&lt;\">"))
        // The cover's address names a version of the song, not its track id (issue 51).
        #expect(share.contains("<meta property=\"og:image\" content=\"http://127.0.0.1:\(site.web.port)/sotd/\(site.day)/cover.png?v=\(try site.coverVersion())\">"))
        #expect(!share.contains("?t=") && !share.contains("data-tz"))
        #expect(share.contains("property=\"og:url\"") && share.contains("property=\"og:description\""))
        #expect(share.contains("name=\"twitter:card\" content=\"summary_large_image\""))
    }

    @Test func theSharePageAndItsCoverArePublicAndTheRestAsksForALogin() throws {
        let site = try Site(trusted: false)
        let share = try HTTP.get(site.base + "/sotd/\(site.day)")
        #expect(share.status == 200)
        // Nothing else of the history: no navigation, no other track, no pin form.
        #expect(!share.text.contains("href=\"/history\""))
        // Not even the brand or the footer: a stranger's `/` and `/submissions` are the login form (issue 52, row 12).
        #expect(!share.text.contains("href=\"/\"") && !share.text.contains("/submissions"))
        #expect(!share.text.contains("Other"))
        #expect(!share.text.contains("<form"))
        let cover = try HTTP.get(site.base + "/sotd/\(site.day)/cover?v=\(try site.coverVersion())")
        #expect(cover.status == 200)
        #expect(cover.header("Content-Type") == "image/svg+xml")
        #expect(cover.header("Cache-Control")?.hasPrefix("public") == true)
        // Link previews do not show SVG: cover.png is the drawn tile as a PNG, read here by
        // zlib (every chunk's CRC, the image data's size) rather than by our own code.
        let png = try HTTP.get(site.base + "/sotd/\(site.day)/cover.png?v=\(try site.coverVersion())")
        #expect(png.status == 200 && png.header("Content-Type") == "image/png")
        let dir = try TemporaryDirectory()
        try png.body.write(to: URL(fileURLWithPath: dir.file("cover.png")))
        let check = try run(try Tools.require("python3"), ["-c", """
            import struct, sys, zlib
            data = open(sys.argv[1], "rb").read()
            assert data[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
            at, idat, kinds = 8, b"", []
            while at < len(data):
                n, kind = struct.unpack(">I4s", data[at:at + 8])
                body = data[at + 8:at + 8 + n]
                assert struct.unpack(">I", data[at + 8 + n:at + 12 + n])[0] == zlib.crc32(kind + body), kind
                kinds.append(kind.decode())
                idat += body if kind == b"IDAT" else b""
                at += 12 + n
            w, h, depth, colour = struct.unpack(">IIBB", data[16:26])
            pixels = zlib.decompress(idat)
            print(" ".join(kinds), w, h, depth, colour, len(pixels) == h * (w + 1))
            """, dir.file("cover.png")])
        #expect(check.stdout == "IHDR PLTE IDAT IEND 300 300 8 3 True\n", "\(check.stdout) \(check.stderr)")
        // Only the day's song: another version is not public.
        #expect(try HTTP.get(site.base + "/sotd/\(site.day)/cover?v=0123456789abcdef").status == 404)
        #expect(try HTTP.get(site.base + "/sotd/\(site.day)/cover").header("Cache-Control") == "public, max-age=300")
        // Links come from the Host header when no public_url is set: never a shared cache then.
        #expect(share.header("Cache-Control") == "no-cache")
        #expect(try HTTP.get(site.base + "/sotd/2026-+1-15").status == 404)
        for path in ["/", "/history", "/stats", "/sotd", "/workouts", "/workouts/1", "/tracks/1", "/covers/1", "/artist?name=Band",
                     "/artists/1", "/albums/1"] {
            let r = try HTTP.get(site.base + path)
            #expect(r.status == 303, "\(path)")
            #expect(r.header("Location")?.hasPrefix("/login?next=%2F") == true, "\(path)")
        }
        #expect(try HTTP.get(site.base + "/sotd/2001-01-01").status == 404)
        #expect(try HTTP.get(site.base + "/sotd/2001-13-45").status == 404)
    }

    /// The dashboard keeps what it read from the database until the next commit
    /// (`API.dashboardData`): a play stored, pinned or deleted shows on the next view.
    @Test func theDashboardShowsEachChangeOnTheNextView() throws {
        let site = try Site(trusted: true)
        let empty = try HTTP.get(site.base + "/").text
        #expect(empty.contains("No plays yet today."))
        #expect(try HTTP.get(site.base + "/").text.contains("No plays yet today."), "a kept view says the same")
        let at = Int(Date().timeIntervalSince1970) - 60
        let body = #"{"listen_type":"single","payload":[{"listened_at":\#(at),"track_metadata":{"artist_name":"New","track_name":"Arrival"}}]}"#
        let submitted = try HTTP.request("POST", site.base + "/1/submit-listens", body: Array(body.utf8),
                                         headers: ["Authorization": "Token test-key-0123456789", "Content-Type": "application/json"])
        #expect(submitted.status == 200)
        let played = try HTTP.get(site.base + "/").text
        #expect(!played.contains("No plays yet today."))
        #expect(played.contains(">Arrival<"))
        #expect(played.contains("Played 1 time today"), "the song of the day")
        let id = try #require(try site.store.recentPlays(limit: 1).first?.play.id)
        _ = try APIContext.forTests(version: "t", store: site.store, apiKey: "k", players: { [] }).operations.deletePlay(id: id)
        let deleted = try HTTP.get(site.base + "/").text
        #expect(deleted.contains("No plays yet today."))
        #expect(!deleted.contains(">Arrival<"))
    }

    @Test func aLoggedInBrowserPinsTheSongOfADayFromThePage() throws {
        let site = try Site(trusted: false)
        let login = try HTTP.request("POST", site.base + "/login", body: Array("key=test-key-0123456789&next=%2Fsotd".utf8),
                                     headers: ["Content-Type": "application/x-www-form-urlencoded"])
        #expect(login.status == 303)
        let cookie = try #require(login.header("Set-Cookie")?.split(separator: ";").first.map(String.init))
        let page = try HTTP.request("GET", site.base + "/sotd/\(site.day)", headers: ["Cookie": cookie])
        #expect(page.text.contains("<form method=\"post\" action=\"/sotd/\(site.day)\">"))
        // Without the session: to the login form, nothing pinned.
        let anonymous = try HTTP.request("POST", site.base + "/sotd/\(site.day)", body: Array("track_id=2&note=x".utf8),
                                         headers: ["Content-Type": "application/x-www-form-urlencoded"])
        #expect(anonymous.status == 303)
        #expect(try site.store.sotdPin(day: site.day) == nil)
        // From another site, even with the cookie: refused.
        let forged = try HTTP.request("POST", site.base + "/sotd/\(site.day)", body: Array("track_id=2".utf8),
                                      headers: ["Cookie": cookie, "Origin": "http://evil.example",
                                                "Content-Type": "application/x-www-form-urlencoded"])
        #expect(forged.status == 303)
        #expect(try site.store.sotdPin(day: site.day) == nil)
        let pin = try HTTP.request("POST", site.base + "/sotd/\(site.day)", body: Array("track_id=2&note=for+Sam+%3Cb%3E&action=pin".utf8),
                                   headers: ["Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"])
        #expect(pin.status == 303)
        #expect(pin.header("Location") == "/sotd/\(site.day)")
        #expect(try site.store.sotdPin(day: site.day) == SongOfTheDay.Pin(trackID: 2, note: "for Sam <b>"))
        let shown = try HTTP.get(site.base + "/sotd/\(site.day)").text
        #expect(shown.contains("<h1 class=\"sotd-title\">Other</h1>"))
        #expect(shown.contains("for Sam &lt;b&gt;"))
        // The track page's tempo form: a hand-set BPM.
        let trackPage = try HTTP.request("GET", site.base + "/tracks/\(site.trackID)", headers: ["Cookie": cookie])
        #expect(trackPage.text.contains("<form method=\"post\" action=\"/tracks/\(site.trackID)\""))
        let bpm = try HTTP.request("POST", site.base + "/tracks/\(site.trackID)", body: Array("bpm=128.5".utf8),
                                   headers: ["Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"])
        #expect(bpm.status == 303)
        #expect(try site.store.track(id: site.trackID)?.bpm == BPM(value: 128.5, source: .manual, confidence: 1))
        let badBPM = try HTTP.request("POST", site.base + "/tracks/\(site.trackID)", body: Array("bpm=9000".utf8),
                                      headers: ["Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"])
        #expect(badBPM.status == 400)
        let unpin = try HTTP.request("POST", site.base + "/sotd/\(site.day)", body: Array("action=unpin".utf8),
                                     headers: ["Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"])
        #expect(unpin.status == 303)
        #expect(try site.store.sotdPin(day: site.day) == nil)
    }

    /// The song-of-the-day calendar's weeks begin on `[site] week_starts`: November 2026
    /// begins on a Sunday, six days into a week from Monday, on the first of one from Sunday.
    @Test func theCalendarsWeeksBeginOnTheConfiguredDay() throws {
        for (start, blanks, first) in [(WeekStart.monday, 6, "Mon"), (.sunday, 0, "Sun"), (.saturday, 1, "Sat")] {
            let site = try Site(trusted: true, weekStart: start)
            let page = try HTTP.get(site.base + "/sotd?month=2026-11").text
            #expect(page.components(separatedBy: "class=\"blank\"").count - 1 == blanks, "\(start)")
            let headers = page.components(separatedBy: "class=\"weekday\" aria-hidden=\"true\">").dropFirst().map { String($0.prefix(3)) }
            #expect(headers == start.dayNames && headers.first == first, "\(start): \(headers)")
        }
    }

    @Test func errorsArePagesWithTheirStatus() throws {
        let site = try Site(trusted: true)
        let missing = try HTTP.get(site.base + "/tracks/999")
        #expect(missing.status == 404)
        #expect(missing.text.contains("There is no track 999."))
        let bad = try HTTP.get(site.base + "/stats?range=someday")
        #expect(bad.status == 400)
        #expect(bad.header("Content-Type") == "text/html; charset=utf-8")
        let post = try HTTP.request("POST", site.base + "/stats", body: [])
        #expect(post.status == 405)
        // A mistyped address: a page for a browser, JSON for anything else.
        let browser = try HTTP.get(site.base + "/workouts/99999999999999999999", headers: ["Accept": "text/html,*/*"])
        #expect(browser.status == 404)
        #expect(browser.header("Content-Type") == "text/html; charset=utf-8")
        let client = try HTTP.get(site.base + "/nowhere")
        #expect(client.status == 404)
        #expect(client.json?["error"] != nil)
    }
}
