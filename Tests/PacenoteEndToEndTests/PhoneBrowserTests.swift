import Foundation
import PacenoteTestSupport
import Testing

/// Issue 52's rows 10–13, 16, 17 (the review's plurals) and 20 through the real binary: the
/// pages in headless Chromium at 1280 and 360 px (Clients/phone_browser.py: no overflow, every
/// text at least 10 px as drawn, chart labels inside their charts, a navigation that shows it
/// scrolls, public pages that link nowhere private), and what plain HTTP can check.
/// Screenshots go to a temporary folder and are checked here (PNGs as wide as the window).
@Suite struct PhoneBrowserTests {
    static let script =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/phone_browser.py").path

    static var utc: Calendar {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "UTC")!
        return c
    }

    static func listen(_ at: Int, _ title: String, _ artist: String, seconds: Int? = 200) -> String {
        let info = seconds.map { #","additional_info":{"duration_ms":\#($0 * 1000)}"# } ?? ""
        return #"{"listened_at":\#(at),"track_metadata":{"artist_name":"\#(artist)","track_name":"\#(title)","release_name":"Album of \#(artist)"\#(info)}}"#
    }

    static func day(_ date: Date) -> String {
        let c = utc.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
    }

    @Test func everyPageFitsAPhoneWithReadableLabelsAndPublicPagesLinkNowherePrivate() throws {
        let python = try SiteBrowserTests.python()
        let artifacts = try TemporaryDirectory("pacenote-phone")
        let start = Date()
        // A forward target that never answers: the submissions page has its "Forwarded" part.
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1",
                                        config: "[server]\ntrusted_networks = []\n\n[[forward]]\nname = \"elsewhere\"\nkind = \"listenbrainz\"\n"
                                            + "url = \"http://127.0.0.1:1\"\ntoken = \"0123456789abcdef\"\n",
                                        arguments: ["--timezone", "UTC"])
        let now = Date()
        let today = Self.utc.startOfDay(for: now)
        let yesterday = today.addingTimeInterval(-86_400)
        let thisYear = Self.utc.component(.year, from: now)
        // One play, three years ago: the only earlier year with plays, and a review of one day.
        let oldDay = Self.utc.date(from: DateComponents(year: thisYear - 3, month: 3, day: 3, hour: 20))!
        var lines = [Self.listen(Int(oldDay.timeIntervalSince1970), "Lonely Song", "Solo")]
        // The last six days: evenings of music, and yesterday's morning run with songs.
        let runStart = Int(yesterday.timeIntervalSince1970) + 6 * 3600 + 1800
        for d in 0..<6 {
            let evening = Int(today.timeIntervalSince1970) - d * 86_400 - 86_400 + 19 * 3600
            for n in 0..<6 { lines.append(Self.listen(evening + n * 240, "Song \(n + d)", "Artist \(n % 3)")) }
        }
        for n in 0..<8 { lines.append(Self.listen(runStart + n * 300, "Run Song \(n)", "Runner")) }
        let imported = try daemon.post("/api/v1/import", body: lines.joined(separator: "\n") + "\n", contentType: "application/x-ndjson")
        #expect(imported.status == 200, "\(imported.text)")
        // A watch syncing later: a reading now, then yesterday's run, detected as a workout.
        #expect(try daemon.post("/api/v1/hr", body: #"{"source":"watch","samples":[{"bpm":70,"ts":\#(Int(now.timeIntervalSince1970 * 1000))}]}"#).status == 200)
        let samples = (0..<2400).map { #"{"bpm":\#(110 + $0 / 40),"ts":\#((runStart + $0) * 1000)}"# }
        #expect(try daemon.post("/api/v1/hr", body: #"{"source":"watch","samples":[\#(samples.joined(separator: ","))]}"#).status == 200)
        let workouts = try HTTP.request("GET", daemon.base + "/api/v1/workouts", headers: ["Authorization": "Token \(daemon.apiKey)"])
        let workoutID = try #require(((workouts.json?["workouts"] as? [[String: Any]])?.first?["id"] as? Int), "\(workouts.text.prefix(500))")
        // A rule of the site's own (deletable) for the Rules page's buttons.
        #expect(try daemon.post("/api/v1/rules", body: #"{"action": "ignore", "field": "artist", "match": "equals", "value": "a podcaster"}"#).status == 201)
        // The one day three years ago, published.
        let old = Self.day(oldDay)
        let share = try daemon.post("/api/v1/review/shares", body: #"{"from": "\#(old)", "to": "\#(old)"}"#)
        #expect(share.status == 201, "\(share.text)")
        let shareURL = try #require(share.json?["url"] as? String)
        let sharePath = "/" + shareURL.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false).dropFirst(3).joined(separator: "/")

        let spec: [String: Any] = ["key": daemon.apiKey, "day": Self.day(yesterday), "workout_id": workoutID,
                                   "share_path": sharePath, "workout_title": "Morning workout"]
        let specJSON = String(decoding: try JSONSerialization.data(withJSONObject: spec), as: UTF8.self)
        let r = try run(python, [Self.script, daemon.base, artifacts.path, specJSON], allowFailure: true)
        // To look at them: PACENOTE_PHONE_SCREENSHOTS=DIR keeps a copy (the temporary folder goes with the test).
        if let keep = ProcessInfo.processInfo.environment["PACENOTE_PHONE_SCREENSHOTS"] {
            _ = try? run("/bin/cp", ["-r", artifacts.path + "/.", keep], allowFailure: true)
        }
        #expect(r.status == 0, "browser checks failed:\n\(r.stderr)\n\(r.stdout)")
        let summary = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        #expect((summary?["checked"] as? Int ?? 0) >= 150, "\(r.stdout)")
        var expected: Set<String> = ["history-deleted-desktop.png"]
        for page in ["dashboard", "stats", "history", "workout", "workouts", "submissions", "rules", "track", "artist", "review", "sotd",
                     "friends", "curation", "sotd-public", "review-public"] {
            for size in ["desktop", "phone"] { expected.insert("\(page)-\(size).png") }
        }
        #expect(Set(summary?["screenshots"] as? [String] ?? []) == expected, "\(r.stdout)")
        for name in expected.sorted() {
            let bytes = [UInt8](FileManager.default.contents(atPath: artifacts.file(name)) ?? Data())
            let width = bytes.count > 24 ? bytes[16..<20].reduce(0) { $0 << 8 | Int($1) } : 0
            #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) && bytes.count > 8_000, "\(name): \(bytes.count) bytes")
            #expect(width == (name.contains("-phone") ? 360 : 1280), "\(name) is \(width) px wide")
            let modified = (try? FileManager.default.attributesOfItem(atPath: artifacts.file(name))[.modificationDate] as? Date) ?? .distantPast
            #expect(modified >= start.addingTimeInterval(-1), "\(name) is from this run")
        }

        // Plain HTTP: the year buttons are the years with plays; the card of one day says "1 day".
        let stats = try HTTP.request("GET", daemon.base + "/stats", headers: ["Authorization": "Token \(daemon.apiKey)"]).text
        let offered = Set((thisYear - 10..<thisYear).filter { stats.contains("/stats?range=\($0)\"") })
        let played = Set([thisYear - 3, Self.utc.component(.year, from: today.addingTimeInterval(-6 * 86_400))].filter { $0 < thisYear })
        #expect(offered == played, "year buttons \(offered.sorted()), years with plays \(played.sorted())")
        let card = try HTTP.get(shareURL + "/card.png")
        let text = String(decoding: card.body, as: UTF8.self)
        #expect(card.status == 200 && text.contains("1 day with music") && text.contains("1 play ") && !text.contains("1 days"),
                "the card's text: \(text.filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == " ") }.suffix(300))")
    }

    /// Row 20: a listen without a duration is a play, not "0 s of listening" under a full bar;
    /// and no year button for a year without plays.
    @Test func aListenWithoutDurationCountsAsAPlayAndNoEmptyYearIsOffered() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", arguments: ["--timezone", "UTC"])
        let now = Int(Date().timeIntervalSince1970)
        let body = #"{"listen_type": "single", "payload": [{"listened_at": \#(now - 60), "track_metadata": {"artist_name": "Band", "track_name": "No Length"}}]}"#
        let submitted = try daemon.post("/1/submit-listens", body: body)
        #expect(submitted.status == 200, "\(submitted.text)")
        #expect(try eventually(timeout: 10) { try daemon.listens().count == 1 })
        let page = try HTTP.get(daemon.base + "/").text
        #expect(!page.contains("0 s of listening"), "\(page)")
        let week = try #require(page.range(of: "data-week-total=\"\">").map { String(page[$0.upperBound...].prefix(60)) })
        #expect(week.hasPrefix("1 play ·"), "This week says \(week)")
        let thisYear = Self.utc.component(.year, from: Date())
        let stats = try HTTP.get(daemon.base + "/stats").text
        for year in thisYear - 5..<thisYear { #expect(!stats.contains("/stats?range=\(year)\""), "\(year) is offered without plays") }
    }

    /// Row 11: `/submissions` has the site's frame, commands as code, no empty table, and a
    /// target's old error is not shown beside a later success.
    @Test func submissionsHaveTheFrameAndAnOldErrorGivesWayToALaterSuccess() throws {
        let b = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let bKey = b.apiKey, bBase = b.base
        try b.stop()
        let mpd = try MPDInstance(tracks: (1...2).map { TestTrack("s\($0).flac", seconds: 2, title: "Sent \($0)", artist: "Forwarder") })
        let a = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)", config: "[plays]\nmin_track_s = 1\n\n[[forward]]\nname = \"b\"\n"
                                       + "kind = \"listenbrainz\"\nurl = \"\(bBase)\"\ntoken = \"\(bKey)\"\n")
        func target() throws -> [String: Any] { try #require((try a.status()["forward"] as? [[String: Any]])?.first) }
        let empty = try HTTP.get(a.base + "/submissions").text
        #expect(empty.contains("<nav aria-label=\"Sections\">") && empty.contains("href=\"/history\""), "the site's navigation")
        #expect(!empty.contains("`") && empty.contains("<code>pacenote forward status</code>"), "commands as code, no backticks")
        #expect(!empty.contains("songs submissions"), "no empty table of submissions")
        #expect(empty.contains("No submissions since the server started."))
        #expect(try eventually(timeout: 10) { try a.mpdConnected() })
        try mpd.mpc("add", "/")
        try mpd.mpc("play")
        #expect(try eventually(timeout: 30) { (try target()["last_error"] as? String)?.contains("onnect") == true }, "\(String(describing: try? target()))")
        let failing = try HTTP.get(a.base + "/submissions").text
        #expect(failing.contains("onnect"), "the error while it is the latest")
        try b.restart(samePort: true)
        #expect(try eventually(timeout: 40) { (try target()["sent"] as? Int ?? 0) >= 2 }, "\(String(describing: try? target()))")
        let status = try target()
        let success = try #require((status["last_success_at"] as? String).flatMap { try? Date($0, strategy: .iso8601) })
        let error = (status["last_error_at"] as? String).flatMap { try? Date($0, strategy: .iso8601) }
        #expect(error.map { $0 < success } ?? true, "\(status)")
        let page = try HTTP.get(a.base + "/submissions").text
        let row = try #require(page.range(of: "<tbody><tr").map { String(page[$0.lowerBound...].prefix(1500)) })
        #expect(!row.contains("onnect") && !row.contains("class=\"skip\""), "the old error is gone beside the success: \(row)")
    }
}
