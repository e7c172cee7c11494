import Foundation
import PacenoteCore
import PacenoteTestSupport
import Testing

/// Friends' songs of the day (issue 20, point 3), between real daemons over loopback: B's
/// `/sotd.atom` read by feedparser as a feed reader reads it; A following B (`[[friends]]`)
/// shows B's song on its dashboard in a real browser, linking to B's share page, and keeps
/// showing it once B is gone, with the error recorded; feeds that are hostile, huge, broken,
/// HTML, moved or busy are shown escaped or recorded as errors, politely re-asked.
@Suite struct FriendsTests {
    static let clients = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients").path
    static let artifacts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("test-artifacts/friends-browser").path
    /// Polls every second instead of every 15 minutes (PacenoteServer.friendsPollInterval).
    static let quickPolls = ["PACENOTE_TEST_FRIENDS_POLL_S": "1"]

    /// python3 with feedparser (scripts/test installs it); missing is a failure.
    static func pythonWithFeedparser() throws -> String {
        let python = try Tools.require("python3")
        if try run(python, ["-c", "import feedparser"], allowFailure: true).status != 0 {
            throw HarnessError("feedparser is not installed: python3 -m pip install feedparser (scripts/test does)")
        }
        return python
    }

    static func friends(_ daemon: PacenoteDaemon) throws -> [[String: Any]] {
        let r = try HTTP.get(daemon.base + "/api/v1/friends")
        guard r.status == 200, let friends = r.json?["friends"] as? [[String: Any]] else {
            throw HarnessError("friends answered \(r.status): \(r.text)")
        }
        return friends
    }

    static func friend(_ daemon: PacenoteDaemon, named name: String) throws -> [String: Any]? {
        try friends(daemon).first { $0["name"] as? String == name }
    }

    /// Two moments of the last twenty minutes that are both today (local time), 20 and 10
    /// minutes ago when they can be: a test run just after midnight would otherwise put a
    /// song on yesterday too. Within a minute of midnight it waits for the new day first, so
    /// that "today" holds through the test.
    static func twoMomentsToday() -> (Int, Int) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        var now = Date()
        if let tomorrow = calendar.date(byAdding: .day, value: 1, to: calendar.startOfDay(for: now)),
           tomorrow.timeIntervalSince(now) < 60 {
            Thread.sleep(until: tomorrow.addingTimeInterval(2))
            now = Date()
        }
        let start = Int(calendar.startOfDay(for: now).timeIntervalSince1970)
        let seconds = Int(now.timeIntervalSince1970)
        return (max(start, seconds - 1200), max(start + 1, seconds - 600))
    }

    static func today() -> String {
        let f = DateFormatter()
        f.dateFormat = "yyyy-MM-dd"
        f.timeZone = .current
        return f.string(from: Date())
    }

    @Test func aFriendsSongOfTheDayOnTheDashboardAndWhileTheyAreDown() throws {
        let python = try Self.pythonWithFeedparser()
        _ = try SiteBrowserTests.python()
        let start = Date()
        try? FileManager.default.removeItem(atPath: Self.artifacts)

        // B: two songs today from a scrobbler, the second pinned with a note.
        let b = try PacenoteDaemon(mpd: "127.0.0.1:1", config: CreditsTests.quickRule)
        let (earlier, later) = Self.twoMomentsToday()
        try CurationTests.submit(b, artist: "Florence + the Machine", title: "Dog Days", at: earlier)
        try CurationTests.submit(b, artist: "Beyoncé", title: "Halo", at: later)
        let today = Self.today()
        let halo = try #require(try b.listens().first { $0.title == "Halo" })
        let trackID = try #require(halo.track["id"] as? Int)
        let pin = try HTTP.request("PUT", b.base + "/api/v1/sotd/\(today)", headers: ["Authorization": "Token \(b.apiKey)"],
                                   body: Data(#"{"track_id": \#(trackID), "note": "for the long run"}"#.utf8))
        #expect(pin.status == 200, "\(pin.text)")

        // B's feed, as a feed reader reads it.
        let feedURL = b.base + "/sotd.atom"
        let read = try run(python, [Self.clients + "/sotd_feed.py", feedURL], allowFailure: true)
        #expect(read.status == 0, "the feed did not validate:\n\(read.stderr)\n\(read.stdout)")
        let feed = try #require(try JSONSerialization.jsonObject(with: Data(read.stdout.utf8)) as? [String: Any])
        let entries = feed["entries"] as? [[String: Any]] ?? []
        let share = b.base + "/sotd/\(today)"
        #expect(entries.count == 1, "\(entries)")
        #expect(entries.first?["title"] as? String == "Halo — Beyoncé")
        #expect(entries.first?["link"] as? String == share && entries.first?["id"] as? String == share)
        let version = SongOfTheDay.coverVersion(day: today, title: "Halo", artist: "Beyoncé", album: halo.track["album"] as? String)
        #expect(entries.first?["cover"] as? String == share + "/cover.png?v=\(version)", "a version of the song, not its id")
        #expect(entries.first?["summary"] as? String == "for the long run")
        // The share page names the feed.
        #expect(try HTTP.get(share).text.contains(#"<link rel="alternate" type="application/atom+xml" title="Songs of the day" href="\#(feedURL)">"#))

        // A follows B.
        let a = try PacenoteDaemon(mpd: "127.0.0.1:1", config: """
            [[friends]]
            name = "B"
            url = "\(feedURL)"

            """, environment: Self.quickPolls)
        #expect(a.process.stderr.contains("friends: 1 from the configuration"), "\(a.process.stderr)")
        var seen: [String: Any]?
        #expect(try eventually(timeout: 15) {
            seen = try Self.friend(a, named: "B")
            return (seen?["latest"] as? [String: Any])?["cover"] is String
        }, "A did not read B's feed: \(String(describing: seen))")
        let latest = try #require(seen?["latest"] as? [String: Any])
        #expect(latest["title"] as? String == "Halo" && latest["artist"] as? String == "Beyoncé" && latest["day"] as? String == today)
        #expect(latest["link"] as? String == share)
        #expect(seen?["origin"] as? String == "config" && seen?["last_ok_at"] is String && seen?["last_error"] is NSNull)
        // The next polls are conditional: B answers 304 and A's songs stay as they were.
        let firstOK = seen?["last_ok_at"] as? String ?? ""
        #expect(try eventually(timeout: 10) { try Self.friend(a, named: "B")?["last_ok_at"] as? String ?? "" > firstOK })
        #expect(try a.sql("SELECT etag IS NOT NULL, last_modified IS NOT NULL FROM friends") == "1|1\n")

        // In a browser: A's dashboard shows it, linking to B's share page; following B again
        // by the share page's address finds the feed from the page.
        let up = try run(try SiteBrowserTests.python(),
                         [Self.clients + "/friends_browser.py", "up", a.base, a.apiKey, Self.artifacts, "B", "Halo", share, share],
                         allowFailure: true)
        #expect(up.status == 0, "browser checks failed (up):\n\(up.stderr)\n\(up.stdout)")
        let viaPage = try #require(try Self.friend(a, named: "By the share page"))
        #expect(viaPage["feed_url"] as? String == feedURL && viaPage["url"] as? String == share, "\(viaPage)")

        // B goes away: A keeps the song, and says why it could not read the feed.
        try b.stop()
        #expect(try eventually(timeout: 15) { try Self.friend(a, named: "B")?["last_error"] is String })
        let down = try #require(try Self.friend(a, named: "B"))
        #expect((down["latest"] as? [String: Any])?["title"] as? String == "Halo", "the last song seen stays")
        #expect(try a.sql("SELECT COUNT(*) FROM friends WHERE last_error IS NOT NULL AND failures > 0") != "0\n")
        let gone = try run(try SiteBrowserTests.python(),
                           [Self.clients + "/friends_browser.py", "down", a.base, a.apiKey, Self.artifacts, "B", "Halo", share],
                           allowFailure: true)
        #expect(gone.status == 0, "browser checks failed (down):\n\(gone.stderr)\n\(gone.stdout)")
        for name in ["dashboard-friend.png", "friends.png", "dashboard-friend-down.png", "friends-down.png"] {
            let path = Self.artifacts + "/" + name
            let modified = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? .distantPast
            #expect(modified >= start && (FileManager.default.contents(atPath: path)?.count ?? 0) > 16_000, "\(name)")
        }
        try a.stop()
    }

    @Test func hostileBrokenAndBusyFeedsAreShownEscapedOrRecordedAsErrors() throws {
        let python = try Tools.require("python3")
        let dir = try TemporaryDirectory("friend-feeds")
        let server = Process()
        server.executableURL = URL(fileURLWithPath: python)
        server.arguments = [Self.clients + "/friend_feeds.py", dir.file("requests.jsonl"), dir.file("port")]
        server.standardOutput = FileHandle.nullDevice
        try server.run()
        defer {
            // SIGKILL: the test process's blocked signals are inherited, so SIGTERM may wait.
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        var port = ""
        #expect(eventually(timeout: 10) {
            port = (try? String(contentsOfFile: dir.file("port"), encoding: .utf8)) ?? ""
            return !port.isEmpty
        })
        let feeds = "http://127.0.0.1:\(port)"
        let names = ["hostile", "huge", "broken", "page", "moved", "busy"]
        let config = names.map { name in
            "[[friends]]\nname = \"\(name)\"\nurl = \"\(feeds)/\(name == "page" ? "page.html" : name + ".atom")\"\n"
        }.joined(separator: "\n")
        let a = try PacenoteDaemon(mpd: "127.0.0.1:1", config: config, environment: Self.quickPolls)
        func requests() -> [[String: Any]] {
            ((try? String(contentsOfFile: dir.file("requests.jsonl"), encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
        func asked(_ path: String) -> [[String: String]] {
            requests().filter { $0["path"] as? String == path }.compactMap { $0["headers"] as? [String: String] }
        }
        // Every feed was asked, and the hostile one again, conditionally, more than once.
        #expect(try eventually(timeout: 20) {
            try Self.friends(a).allSatisfy { $0["last_polled_at"] is String } && asked("/hostile.atom").count >= 3
        }, "\((try? Self.friends(a)) ?? [])")
        let byName = Dictionary(try Self.friends(a).map { ($0["name"] as? String ?? "", $0) }) { x, _ in x }

        // Hostile text is kept as text; a javascript: link and an SVG cover are not kept at all.
        let hostile = try #require(byName["hostile"])
        let song = try #require(hostile["latest"] as? [String: Any])
        #expect(song["title"] as? String == "<script>alert('x')</script>")
        #expect(song["artist"] as? String == "<img src=x onerror=alert(1)>")
        #expect(song["link"] is NSNull && song["cover"] is NSNull, "\(song)")
        #expect(hostile["last_error"] is NSNull)
        let later = asked("/hostile.atom").dropFirst()
        #expect(later.allSatisfy { $0["If-None-Match"] == "\"hostile-1\"" && $0["If-Modified-Since"] == "Thu, 01 Jan 2026 12:00:00 GMT" },
                "\(later)")
        #expect(asked("/hostile.atom").allSatisfy { ($0["User-Agent"] ?? "").hasPrefix("Pacenote/") })
        #expect(asked("/cover.svg").count == 1, "a cover that is no picture is not asked again")
        // Its song is of 2026-01-01: on /friends, not among the dashboard's songs of today.
        let friendsPage = try HTTP.get(a.base + "/friends").text
        #expect(friendsPage.contains("&lt;script&gt;alert('x')&lt;/script&gt;") && friendsPage.contains("&lt;img src=x onerror=alert(1)&gt;"))
        for page in ["/", "/friends"] {
            let html = try HTTP.get(a.base + page).text
            #expect(!html.contains("<script>alert") && !html.contains("<img src=x") && !html.contains("javascript:"), "\(page)")
        }

        // Errors are recorded; the poller goes on with the others.
        func error(_ name: String) -> String { byName[name]?["last_error"] as? String ?? "" }
        #expect(error("huge").contains("larger than 1024 KiB"), "\(error("huge"))")
        #expect(error("broken").hasPrefix("not XML"), "\(error("broken"))")
        #expect(error("page").contains("not an Atom feed (an HTML page)"), "\(error("page"))")
        #expect(error("busy") == "busy (HTTP 503)")
        // Busy asked to wait an hour: it is not asked again before then.
        let next = (byName["busy"]?["next_poll_at"] as? String).flatMap { try? Date($0, strategy: .iso8601) } ?? .distantPast
        #expect(next.timeIntervalSinceNow > 3500, "\(String(describing: byName["busy"]))")
        #expect(asked("/busy.atom").count == 1)
        // Errors wait longer each time (1 s, 2 s, 4 s … here): a broken feed is not asked every second.
        #expect(asked("/broken.atom").count <= 5, "\(asked("/broken.atom").count)")

        // A permanent redirect: the new address is kept, and the feed's PNG cover copied.
        let moved = try #require(byName["moved"])
        #expect(moved["feed_url"] as? String == feeds + "/good.atom")
        #expect(try eventually(timeout: 10) { (try Self.friend(a, named: "moved")?["latest"] as? [String: Any])?["cover"] is String })
        let movedSong = try #require(try Self.friend(a, named: "moved")?["latest"] as? [String: Any])
        #expect(movedSong["title"] as? String == "Good" && movedSong["link"] as? String == feeds + "/good-share")
        let cover = try HTTP.get(a.base + (movedSong["cover"] as? String ?? ""))
        #expect(cover.status == 200 && cover.body.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(asked("/moved.atom").count == 1, "the old address is not asked again")
        #expect(a.process.stderr.contains("friends: broken"), "an error is logged when it starts: \(a.process.stderr)")
        try a.stop()
    }
}
