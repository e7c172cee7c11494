import Foundation
import PacenoteTestSupport
import Testing

/// Issue 58, point 6: the now-playing card for the owner's website (`[share] now`: `/now`,
/// `/now.svg`, `/now.json`) and the private session, against the real daemon, a private MPD
/// with sox-made tracks and a second Pacenote as a forwarding target, over loopback.
@Suite struct NowCardTests {
    static let share = "[share]\nnow = true\nnow_fields = [\"song\", \"artist\", \"cover\"]\n"

    static func get(_ daemon: PacenoteDaemon, _ path: String, headers: [String: String] = [:]) throws -> HTTPResult {
        try HTTP.get(daemon.base + path, headers: headers)
    }

    static func nowJSON(_ daemon: PacenoteDaemon) throws -> [String: Any] {
        try get(daemon, "/now.json").json ?? [:]
    }

    /// `{"playing": false}` and nothing else.
    static func isBlank(_ card: [String: Any]) -> Bool { card.count == 1 && card["playing"] as? Bool == false }

    /// The SVG parses as XML (a hostile tag cannot break out of its text).
    static func isWellFormedXML(_ bytes: Data) throws -> Bool {
        let python = try Tools.require("python3")
        let dir = try TemporaryDirectory("pacenote-svg")
        try bytes.write(to: URL(fileURLWithPath: dir.file("now.svg")))
        return try run(python, ["-c", "import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])", dir.file("now.svg")],
                       allowFailure: true).status == 0
    }

    /// A song playing shows on the card's three forms with only the ticked fields; hostile
    /// tags are text, in the page and the badge; bytes that are no UTF-8 come out as UTF-8.
    @Test func aSongPlayingShowsWithTheTickedFieldsOnlyAndHostileTagsEscaped() throws {
        let hostile = "</text><script>alert(1)</script> & \"quotes\""
        let mpd = try MPDInstance(tracks: [
            TestTrack("hostile.flac", seconds: 40, title: hostile, artist: "<b>Bold</b> Artist", album: "Secret Album"),
            TestTrack("bytes.flac", seconds: 40, title: "Bad XXXX Bytes", artist: "Latin", album: "Other", frequency: 550),
        ])
        // Bytes that are no UTF-8 in a tag: the placeholder's four letters replaced in place (the
        // FLAC's block lengths stay as they are), then MPD reads the file again.
        let path = mpd.musicDirectory + "/bytes.flac"
        var file = try Data(contentsOf: URL(fileURLWithPath: path))
        let marker = try #require(file.range(of: Data("XXXX".utf8)))
        file.replaceSubrange(marker, with: [0xFF, 0xFE, 0xC3, 0x28])
        try file.write(to: URL(fileURLWithPath: path))
        try mpd.mpc("--wait", "update")

        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)", config: Self.share)
        #expect(try eventually { try daemon.mpdConnected() })
        // Nothing plays: blank, in each form.
        #expect(Self.isBlank(try Self.nowJSON(daemon)))
        let blank = try Self.get(daemon, "/now")
        #expect(blank.status == 200 && blank.text.contains(#"data-playing="false""#), "\(blank.text)")
        #expect(try Self.get(daemon, "/now/cover").status == 404)

        try mpd.mpc("add", "hostile.flac")
        try mpd.mpc("add", "bytes.flac")
        try mpd.mpc("play")
        #expect(try eventually { try Self.nowJSON(daemon)["playing"] as? Bool == true })
        let card = try Self.nowJSON(daemon)
        #expect(card["song"] as? String == hostile)
        #expect(card["artist"] as? String == "<b>Bold</b> Artist")
        #expect(card["cover_url"] as? String == "/now/cover")
        #expect(card["album"] == nil && card["workout"] == nil, "album and workout are not ticked: \(card)")

        let page = try Self.get(daemon, "/now")
        #expect(page.status == 200 && page.header("Content-Type") == "text/html; charset=utf-8")
        #expect(!page.text.contains("<script") && !page.text.contains("<b>"), "\(page.text)")
        #expect(page.text.contains("&lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt; &amp; \"quotes\""), "\(page.text)")
        #expect(page.text.contains("&lt;b&gt;Bold&lt;/b&gt; Artist") && !page.text.contains("Secret Album"))
        // Framing: this page only, anywhere; the site's pages stay unframeable.
        let policy = page.header("Content-Security-Policy") ?? ""
        #expect(policy.contains("frame-ancestors *") && !policy.contains("script-src") && policy.contains("default-src 'none'"), "\(policy)")
        #expect(page.header("X-Frame-Options") == nil)
        #expect(try Self.get(daemon, "/").header("Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)

        let badge = try Self.get(daemon, "/now.svg")
        #expect(badge.status == 200 && badge.header("Content-Type") == "image/svg+xml")
        #expect(!badge.text.contains("<script") && badge.text.contains("&lt;script&gt;") && !badge.text.contains("Secret Album"), "\(badge.text)")
        #expect(try Self.isWellFormedXML(badge.body), "\(badge.text)")
        let cover = try Self.get(daemon, "/now/cover")
        #expect(cover.status == 200 && cover.header("Content-Type")?.hasPrefix("image/") == true && cover.header("Cache-Control") == "no-store")

        // The next song, whose title has bytes that are no UTF-8: the card is UTF-8 still.
        try mpd.mpc("next")
        #expect(try eventually { (try Self.nowJSON(daemon)["artist"] as? String) == "Latin" })
        for path in ["/now", "/now.svg", "/now.json"] {
            let r = try Self.get(daemon, path)
            #expect(r.status == 200 && String(data: r.body, encoding: .utf8) != nil, "\(path): not UTF-8")
            #expect(r.text.contains("Bad ") && r.text.contains(" Bytes"), "\(path): \(r.text)")
        }
        #expect(try Self.isWellFormedXML(try Self.get(daemon, "/now.svg").body))
        try mpd.mpc("stop")
        #expect(try eventually { try Self.nowJSON(daemon)["playing"] as? Bool == false })
    }

    /// A private session: the next play is logged hidden — out of the listens, the charts and
    /// forwarding — the card stays blank while it is on, it ends at its time by itself, and
    /// the play can be shown again (then it counts and is forwarded).
    @Test func aPrivateSessionHidesTheNextPlayAndEndsAtItsTime() throws {
        let target = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let mpd = try MPDInstance(tracks: [
            TestTrack("private.flac", seconds: 6, title: "Private Song", artist: "Quiet", album: "Hush"),
            TestTrack("public.flac", seconds: 2, title: "Public Song", artist: "Loud", album: "Shout", frequency: 600),
            TestTrack("after.flac", seconds: 40, title: "After Song", artist: "Loud", album: "Shout", frequency: 700),
        ])
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)",
                                        config: ForwardingTests.quick + Self.share
                                            + ForwardingTests.listenBrainz("other", url: target.base, token: target.apiKey))
        #expect(try eventually { try daemon.mpdConnected() })

        // First a public play, forwarded: the target works.
        try mpd.mpc("add", "public.flac")
        try mpd.mpc("play")
        #expect(try eventually(timeout: 20) { try daemon.listens().contains { $0.title == "Public Song" && $0.counted } })
        #expect(try eventually(timeout: 20) { try target.listens().contains { $0.title == "Public Song" } })

        // The private session, a few seconds long, and the song played in it.
        let on = try daemon.post("/api/v1/private-session", body: #"{"seconds": 8}"#)
        #expect(on.status == 200 && on.json?["on"] as? Bool == true, "\(on.text)")
        #expect((on.json?["seconds_left"] as? Int).map { (1...8).contains($0) } == true, "\(on.text)")
        try mpd.mpc("clear")
        try mpd.mpc("add", "private.flac")
        try mpd.mpc("play")
        // While it plays, in the session: the card is blank although a song plays.
        #expect(try eventually { ((try daemon.status()["now_playing"] as? [String: Any])?["track"] as? [String: Any])?["title"] as? String == "Private Song" })
        #expect(Self.isBlank(try Self.nowJSON(daemon)))
        #expect(try Self.get(daemon, "/now").text.contains(#"data-playing="false""#))
        #expect(!(try Self.get(daemon, "/now.svg").text.contains("Private")))
        // Logged, hidden.
        var hiddenID: Int?
        #expect(try eventually(timeout: 20) {
            let hidden = try Self.get(daemon, "/api/v1/listens?hidden=true").json?["listens"] as? [[String: Any]] ?? []
            hiddenID = hidden.first { ($0["track"] as? [String: Any])?["title"] as? String == "Private Song" }?["id"] as? Int
            return hiddenID != nil
        })
        #expect(try !daemon.listens().contains { $0.title == "Private Song" }, "not among the listens")
        let stats = try Self.get(daemon, "/api/v1/stats?range=all")
        #expect(stats.status == 200 && stats.text.contains("Public Song") && !stats.text.contains("Private Song"), "\(stats.text)")
        #expect(try daemon.sql("SELECT count(*) FROM forward_outbox o JOIN plays p ON p.id = o.play_id JOIN tracks t ON t.id = p.track_id WHERE t.title = 'Private Song'") == "0\n")

        // It ends by itself at its time.
        #expect(try eventually(timeout: 15) { try Self.get(daemon, "/api/v1/private-session").json?["on"] as? Bool == false })
        #expect(try daemon.status()["private_session"].flatMap { $0 as? [String: Any] }?["on"] as? Bool == false)
        try mpd.mpc("clear")
        try mpd.mpc("add", "after.flac")
        try mpd.mpc("play")
        #expect(try eventually { try Self.nowJSON(daemon)["song"] as? String == "After Song" }, "the card shows again once it ended")
        try mpd.mpc("stop")
        #expect(try !target.listens().contains { $0.title == "Private Song" }, "never forwarded")

        // Shown again: it counts, and goes out as a new play would.
        let shown = try HTTP.request("POST", daemon.base + "/api/v1/hidden-listens/\(try #require(hiddenID))/unhide",
                                     headers: ["Authorization": "Token \(daemon.apiKey)"])
        #expect(shown.status == 200, "\(shown.text)")
        #expect(try daemon.listens().contains { $0.title == "Private Song" && $0.counted })
        #expect(try Self.get(daemon, "/api/v1/stats?range=all").text.contains("Private Song"))
        #expect(try eventually(timeout: 20) { try target.listens().contains { $0.title == "Private Song" } })
        let again = try HTTP.request("POST", daemon.base + "/api/v1/hidden-listens/\(try #require(hiddenID))/unhide",
                                     headers: ["Authorization": "Token \(daemon.apiKey)"])
        #expect(again.status == 404, "\(again.text)")
    }

    /// Off by default: 404 on every form. The switch takes the admin or a client key (not a read
    /// or submit key), refuses bad durations with a JSON error, survives a restart, hides a
    /// client's listen while on, and turns off.
    @Test func theCardIsOffByDefaultAndTheSessionOutlivesARestart() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        for path in ["/now", "/now.svg", "/now.json", "/now/cover"] {
            let r = try Self.get(daemon, path)
            #expect(r.status == 404, "\(path): \(r.status)")
        }
        let client = try CrossOriginTests.addKey(daemon, "phone", scope: "client")
        let reader = try CrossOriginTests.addKey(daemon, "reader", scope: "read")
        let submitter = try CrossOriginTests.addKey(daemon, "player", scope: "submit")
        #expect(try daemon.post("/api/v1/private-session", body: "{}", key: reader).status == 403)
        #expect(try daemon.post("/api/v1/private-session", body: "{}", key: submitter).status == 403)
        for bad in [#"{"minutes": -1}"#, #"{"minutes": 1, "seconds": 1}"#, #"{"hours": 1}"#, #"{"minutes": "soon"}"#, "nonsense",
                    #"{"minutes": 20000}"#] {
            let r = try daemon.post("/api/v1/private-session", body: bad, key: client)
            #expect(r.status == 400 && (r.json?["error"] as? [String: Any])?["code"] != nil, "\(bad): \(r.status) \(r.text)")
        }
        #expect(try Self.get(daemon, "/api/v1/private-session").json?["on"] as? Bool == false, "nothing was turned on")

        let on = try daemon.post("/api/v1/private-session", body: #"{"minutes": 60}"#, key: client)
        #expect(on.status == 200 && on.json?["on"] as? Bool == true, "\(on.text)")
        let until = try #require(on.json?["until"] as? String)
        try daemon.restart()
        let after = try Self.get(daemon, "/api/v1/private-session").json ?? [:]
        #expect(after["on"] as? Bool == true && after["until"] as? String == until, "\(after)")
        #expect(try Self.get(daemon, "/").text.contains(#"data-private-session="on""#))

        // A client's listen while it is on: logged hidden.
        #expect(try daemon.post("/1/submit-listens", body: CrossOriginTests.listen("While Private", at: Int(Date().timeIntervalSince1970) + 1),
                                key: client).status == 200)
        #expect(try daemon.sql("SELECT count(*) FROM hidden_plays") == "1\n")
        #expect(try daemon.listens().isEmpty)

        let off = try HTTP.request("DELETE", daemon.base + "/api/v1/private-session", headers: ["Authorization": "Token \(client)"])
        #expect(off.status == 200 && off.json?["on"] as? Bool == false, "\(off.text)")
        #expect(try daemon.post("/1/submit-listens", body: CrossOriginTests.listen("After Private", at: Int(Date().timeIntervalSince1970) + 1), key: client).status == 200)
        #expect(try daemon.listens().map(\.title) == ["After Private"])
        // Until turned off: no end.
        let open = try daemon.post("/api/v1/private-session", body: "", key: client)
        #expect(open.status == 200 && open.json?["until"] is NSNull && open.json?["on"] as? Bool == true, "\(open.text)")
    }
}

/// The dashboard's private-session switch and the Rules page's "Show again", in headless
/// Chromium, with the API checked beside it.
@Suite struct PrivateSessionBrowserTests {
    static let script =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/private_session_browser.py").path

    @Test func theDashboardSwitchTurnsItOnAndOff() throws {
        let python = try SiteBrowserTests.python()
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let r = try run(python, [Self.script, daemon.base, daemon.apiKey], allowFailure: true)
        #expect(r.status == 0, "browser checks failed:\n\(r.stderr)\n\(r.stdout)")
        let summary = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        #expect((summary?["checked"] as? Int ?? 0) >= 11, "\(r.stdout)")
        #expect(try daemon.sql("SELECT count(*) FROM hidden_plays") == "0\n")
        #expect(try daemon.sql("SELECT count(*) FROM plays") == "1\n")
    }
}
