import Foundation
import PacenoteCore
import PacenoteStore
import PacenoteTestSupport
import Testing
@testable import PacenoteWeb

/// The Last.fm protocols' handlers: credentials, sessions, batches with ignored items, and
/// answers in each protocol's words; the submission log notes each request.
@Suite struct AudioscrobblerTests {
    static let key = "test-key-0123456789"

    final class Site {
        let dir: TemporaryDirectory
        let store: Store
        let api: API
        let context: APIContext

        init() throws {
            dir = try TemporaryDirectory()
            store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
            let context = APIContext.forTests(version: "t", store: store, apiKey: AudioscrobblerTests.key)
            self.context = context
            api = API(context: context)
        }

        deinit { try? store.close() }

        func post(_ path: String, _ body: String, query: [String: String] = [:]) -> (status: Int, text: String) {
            let r = api.handle(HTTPRequest(method: "POST", path: path, query: query,
                                           headers: ["Content-Type": "application/x-www-form-urlencoded", "Host": "127.0.0.1:6680"],
                                           body: Array(body.utf8), peerAddress: "127.0.0.1"))
            return (r.status, String(decoding: r.body, as: UTF8.self))
        }

        func get(_ path: String, _ query: [String: String]) -> (status: Int, text: String) {
            let r = api.handle(HTTPRequest(method: "GET", path: path, query: query, headers: ["Host": "127.0.0.1:6680"],
                                           peerAddress: "127.0.0.1"))
            return (r.status, String(decoding: r.body, as: UTF8.self))
        }

        func session() throws -> String {
            let r = post("/apis/audioscrobbler/2.0/", "method=auth.getMobileSession&username=phone&password=\(AudioscrobblerTests.key)&api_key=x&api_sig=y")
            #expect(r.status == 200, "\(r.text)")
            let start = try #require(r.text.range(of: "<key>")), end = try #require(r.text.range(of: "</key>"))
            return String(r.text[start.upperBound..<end.lowerBound])
        }
    }

    @Test func v2LoginRefusesAWrongPasswordAndABadSession() throws {
        let site = try Site()
        let wrong = site.post("/apis/audioscrobbler/2.0/", "method=auth.getMobileSession&username=phone&password=guess&api_key=x")
        #expect(wrong.status == 403 && wrong.text.contains("<lfm status=\"failed\"><error code=\"4\">"), "\(wrong.text)")
        let json = site.post("/apis/audioscrobbler/2.0/", "method=track.scrobble&sk=nope&artist=A&track=T&timestamp=1767290000&format=json")
        #expect(json.status == 403 && json.text.contains("\"error\":9"), "\(json.text)")
        let unknown = site.post("/apis/audioscrobbler/2.0/", "method=user.getPersonalTags")
        #expect(unknown.status == 400 && unknown.text.contains("error code=\"3\""), "\(unknown.text)")
        // A read from a trusted network needs no key (ClientReadsTests: from elsewhere it does).
        let trusted = site.post("/apis/audioscrobbler/2.0/", "method=user.getInfo&user=me&api_key=x")
        #expect(trusted.status == 200 && trusted.text.contains("<name>me</name>"), "\(trusted.text)")
        // pylast's token: md5(username + md5(key)), the username in the query.
        let token = MD5.hex("phone" + MD5.hex(AudioscrobblerTests.key))
        let byToken = site.post("/apis/audioscrobbler/2.0/", "method=auth.getMobileSession&authToken=\(token)&api_key=x", query: ["username": "phone"])
        #expect(byToken.status == 200 && byToken.text.contains("<name>phone</name>"), "\(byToken.text)")
        let log = site.context.scrobbles.entries()
        #expect(log.first?.action == "login" && log.first?.outcome == "ok")
        #expect(log.contains { $0.outcome == "refused" && $0.reason == "invalid session key" })
    }

    @Test func v2BatchWithOneInvalidItemIsAnsweredPerScrobble() throws {
        let site = try Site()
        let sk = try site.session()
        let now = Int(Date().timeIntervalSince1970)
        let body = "method=track.scrobble&sk=\(sk)&api_key=x"
            + "&artist%5B0%5D=Dool&track%5B0%5D=Vantablack&timestamp%5B0%5D=\(now - 600)&mbid%5B0%5D=not-a-uuid&duration%5B0%5D=215"
            + "&artist%5B1%5D=&track%5B1%5D=Nobody&timestamp%5B1%5D=\(now - 300)"
            + "&artist%5B2%5D=Dool&track%5B2%5D=Oweynagat&timestamp%5B2%5D=\(now - 200)"
        let r = site.post("/apis/audioscrobbler/2.0/", body)
        #expect(r.status == 200)
        #expect(r.text.contains("<scrobbles accepted=\"2\" ignored=\"1\">"), "\(r.text)")
        #expect(r.text.contains("<ignoredMessage code=\"1\">Artist name missing</ignoredMessage>"))
        let plays = try site.store.plays(limit: 10)
        #expect(plays.map(\.track.title) == ["Oweynagat", "Vantablack"])
        #expect(plays.allSatisfy { $0.play.source == "audioscrobbler" && $0.play.player == "phone" })
        #expect(plays.last?.track.musicBrainz.recording == nil, "the invalid MBID is dropped, the listen kept")
        // The same batch again stores nothing more; now-playing shows in the status.
        _ = site.post("/apis/audioscrobbler/2.0/", body)
        #expect(try site.store.plays(limit: 10).count == 2)
        let playing = site.post("/apis/audioscrobbler/2.0/", "method=track.updateNowPlaying&sk=\(sk)&artist=Dool&track=Dead+Men&format=json")
        #expect(playing.status == 200 && playing.text.contains("\"nowplaying\""), "\(playing.text)")
        #expect(site.context.scrobbles.playingElsewhere().map(\.track.title) == ["Dead Men"])
        // The dashboard shows it beside MPD's.
        let dashboard = site.get("/", [:])
        #expect(dashboard.status == 200 && dashboard.text.contains("Also playing") && dashboard.text.contains("Dead Men")
                && dashboard.text.contains(">phone</span>"), "\(dashboard.text.prefix(300))")
        let entry = try #require(site.context.scrobbles.entries().dropFirst(2).first)
        #expect(entry.outcome == "partial" && entry.accepted == 2 && entry.ignored == 1 && entry.reason == "Artist name missing")
    }

    @Test func legacyHandshakeSessionsAndSubmissions() throws {
        let site = try Site()
        let t = String(Int(Date().timeIntervalSince1970))
        let bad = site.get("/apis/audioscrobbler_legacy/", ["hs": "true", "p": "1.2", "c": "mdc", "v": "0.24", "u": "me", "t": t, "a": MD5.hex("x" + t)])
        #expect(bad.text == "BADAUTH\n")
        let ok = site.get("/apis/audioscrobbler_legacy/", ["hs": "true", "p": "1.2", "c": "mdc", "v": "0.24", "u": "den", "t": t,
                                                          "a": MD5.hex(MD5.hex(AudioscrobblerTests.key) + t)])
        let lines = ok.text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 5 && lines[0] == "OK", "\(ok.text)")
        #expect(lines[2] == "http://127.0.0.1:6680/apis/audioscrobbler_legacy/nowplaying")
        #expect(lines[3] == "http://127.0.0.1:6680/apis/audioscrobbler_legacy/submission")
        let s = String(lines[1])
        #expect(site.post("/apis/audioscrobbler_legacy/submission", "s=wrong&a[0]=A&t[0]=T&i[0]=\(t)").text == "BADSESSION\n")
        #expect(site.post("/apis/audioscrobbler_legacy/submission", "s=\(s)").text.hasPrefix("FAILED "))
        #expect(site.post("/apis/audioscrobbler_legacy/nowplaying", "s=\(s)&a=Tester&t=Alpha&b=&l=35&n=&m=").text == "OK\n")
        let body = "s=\(s)&a[0]=Tester&t[0]=Alpha&i[0]=\(Int(t)! - 100)&o[0]=P&r[0]=&l[0]=35&b[0]=&n[0]=&m[0]=bogus"
            + "&a[1]=&t[1]=Nobody&i[1]=\(Int(t)! - 50)&o[1]=P&r[1]=&l[1]=35&b[1]=&n[1]=&m[1]="
        #expect(site.post("/apis/audioscrobbler_legacy/submission", body).text == "OK\n")
        let plays = try site.store.plays(limit: 10)
        #expect(plays.count == 1 && plays[0].play.source == "mpdscribble" && plays[0].play.player == "den")
        #expect(site.context.scrobbles.playingElsewhere().isEmpty, "the scrobble ends the player's now-playing")
        let log = site.api.submissionsJSON([:])
        guard case .object(let fields) = log, case .array(let entries)? = fields.first?.1 else { Issue.record("\(log)"); return }
        #expect(entries.count == 6)
    }
}
