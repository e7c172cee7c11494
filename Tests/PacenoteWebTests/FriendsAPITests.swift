import Foundation
import PacenoteCore
import PacenoteStore
import PacenoteTestSupport
import Testing
@testable import PacenoteWeb

/// Friends' songs of the day in the web module (issue 20, point 3): `/sotd.atom` (what it
/// lists and what it leaves out, conditional GETs, hostile text), `/api/v1/friends` (shapes,
/// errors), `/friends` and the dashboard's card with what the poller stored.
@Suite struct FriendsAPITests {
    final class Fixture: Sendable {
        let dir: TemporaryDirectory
        let store: Store
        let api: API
        let today: String
        let trackID: Int64

        init(publicURL: String? = nil) throws {
            dir = try TemporaryDirectory()
            let now = Date()
            let zone = Self.zoneAwayFromMidnight(now)
            store = try Store.open(path: dir.file("p.sqlite"), timeZone: zone)
            let local = LocalTime(timeZone: zone)
            today = local.day(of: now)
            // Today's song: played twice, with a hostile title; yesterday's another; a skip.
            let hostile = try store.saveTrack(Track(title: "<script>alert(1)</script> & \u{1}Co", artist: "Band \"B\"", durationSeconds: 200))
            let other = try store.saveTrack(Track(uri: "m/other.flac", title: "Other", artist: "Someone", durationSeconds: 200))
            let start = local.startOfDay(today)!
            for (track, offset) in [(hostile, 60.0), (hostile, 600), (other, -3600)] {
                let at = min(start.addingTimeInterval(offset), now.addingTimeInterval(-400))
                try store.insertPlay(Play(trackID: track, startedAt: at, endedAt: at.addingTimeInterval(200), playedSeconds: 200,
                                          counted: true, source: "listenbrainz", heartRateAverage: 150))
            }
            trackID = hostile
            let context = APIContext.forTests(version: "t", store: store, timeZone: zone, apiKey: "key", configure: { $0.publicURL = publicURL })
            api = API(context: context)
        }

        func send(_ method: String, _ path: String, body: String = "", key: String? = "key", peer: String = "127.0.0.1",
                  headers extra: [String: String] = [:], form: Bool = false) -> HTTPResponse {
            var headers = extra
            headers["Host"] = headers["Host"] ?? "me.example:6680"
            if let key { headers["X-API-Key"] = key }
            if form { headers["Content-Type"] = "application/x-www-form-urlencoded" } else if !body.isEmpty {
                headers["Content-Type"] = "application/json"
            }
            return api.handle(HTTPRequest(method: method, path: path, headers: headers, body: Array(body.utf8), peerAddress: peer))
        }

        func json(_ response: HTTPResponse) -> [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
        }

        deinit { try? store.close() }

        /// Europe/Berlin, or Asia/Tokyo when Berlin's day began or ends within the hour: today's
        /// plays (from its midnight to 400 s ago) then all fall on today, whatever hour the test
        /// runs (with Berlin alone it failed 23:00–23:10 UTC, just after Berlin's midnight).
        static func zoneAwayFromMidnight(_ now: Date) -> TimeZone {
            let zones = ["Europe/Berlin", "Asia/Tokyo"].map { TimeZone(identifier: $0)! }
            return zones.first { zone in
                var calendar = Calendar(identifier: .gregorian)
                calendar.timeZone = zone
                return (1..<23).contains(calendar.component(.hour, from: now))
            }!
        }
    }

    @Test func theFeedListsTheSongsOfTheDayAndNothingElse() throws {
        let f = try Fixture()
        // A stranger reads it: public like the share pages.
        let r = f.send("GET", "/sotd.atom", key: nil, peer: "203.0.113.9")
        #expect(r.status == 200)
        #expect(r.headers.contains { $0.0 == "Content-Type" && $0.1 == "application/atom+xml; charset=utf-8" })
        let lastModified = try #require(r.headers.first { $0.0 == "Last-Modified" }?.1)
        let feed = try AtomFeed.parse(r.body)
        #expect(feed.selfLink == "http://me.example:6680/sotd.atom", "absolute, from the Host as the share page's tags")
        let entry = try #require(feed.entries.first)
        #expect(entry.title == "<script>alert(1)</script> & Co — Band \"B\"", "escaped in the XML, control characters gone")
        #expect(entry.link == "http://me.example:6680/sotd/\(f.today)" && entry.id == entry.link)
        #expect(entry.cover?.hasPrefix("http://me.example:6680/sotd/\(f.today)/cover.png?v=") == true, "a version, not the track's id")
        #expect(entry.coverType == "image/png", "a play without a file has the drawn tile")
        // The day as a date, written as midnight UTC: no time of day, no zone's offset (issue 51).
        #expect(entry.day == f.today && entry.published?.text == f.today + "T00:00:00Z", "\(String(describing: entry.published))")
        #expect(entry.updated?.text == f.today + "T00:00:00Z" && feed.updated?.text == f.today + "T00:00:00Z")
        #expect(lastModified.hasSuffix(" 00:00:00 GMT"), "\(lastModified)")
        let text = String(decoding: r.body, as: UTF8.self)
        #expect(!text.contains("<script>") && text.contains("&lt;script&gt;"))
        // Nothing of the history but the songs: no counts, no time, no heart rate, no file.
        for leak in ["150", "plays", "played", "listening", "m/other.flac", "hr_", "heart"] {
            #expect(!text.contains(leak), "\(leak)")
        }
        // Conditional GETs: Last-Modified when no ETag is sent (the server answers If-None-Match
        // from the body's ETag: end-to-end in FriendsTests), but not for today, whose song may
        // still change under the same date (a past day's 304: PublicRoutineTests).
        #expect(f.send("GET", "/sotd.atom", key: nil, headers: ["If-Modified-Since": lastModified]).status == 200)
        let before = HTTPDate.string(HTTPDate.parse(lastModified)!.addingTimeInterval(-1))
        #expect(f.send("GET", "/sotd.atom", key: nil, headers: ["If-Modified-Since": before]).status == 200)
        #expect(f.send("GET", "/sotd.atom", key: nil, headers: ["If-None-Match": "W/\"other\"", "If-Modified-Since": lastModified]).status == 200,
                "If-None-Match decides when both are sent")
        // A pin with a note changes the day's entry and its time.
        let pinned = f.send("PUT", "/api/v1/sotd/\(f.today)", body: #"{"track_id": \#(f.trackID), "note": "for <Sam>"}"#)
        #expect(pinned.status == 200, "\(pinned.text)")
        let after = try AtomFeed.parse(f.send("GET", "/sotd.atom", key: nil).body)
        #expect(after.entries.first?.summary == "for <Sam>")
        #expect(f.send("GET", "/sotd.atom", key: nil, headers: ["If-Modified-Since": lastModified]).status == 200, "changed since")
        // The share page and the archive name the feed.
        let share = f.send("GET", "/sotd/\(f.today)", key: nil, peer: "203.0.113.9").text
        #expect(share.contains(#"<link rel="alternate" type="application/atom+xml" title="Songs of the day" href="http://me.example:6680/sotd.atom">"#))
        #expect(f.send("GET", "/sotd").text.contains(#"type="application/atom+xml""#))
    }

    @Test func theConfiguredPublicAddressNamesEverythingAndAnEmptyFeedIsAFeed() throws {
        let f = try Fixture(publicURL: "https://music.example.org/pacenote")
        let r = f.send("GET", "/sotd.atom", key: nil)
        #expect(r.headers.contains { $0.0 == "Cache-Control" && $0.1 == "public, max-age=300" })
        let feed = try AtomFeed.parse(r.body)
        #expect(feed.id == "https://music.example.org/pacenote/sotd.atom" && feed.author == "music.example.org")
        #expect(feed.entries.first?.link == "https://music.example.org/pacenote/sotd/\(f.today)")
        let empty = try TemporaryDirectory()
        let store = try Store.open(path: empty.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        let api = API(context: APIContext.forTests(version: "t", store: store, apiKey: "key", players: { [] }))
        let none = api.handle(HTTPRequest(method: "GET", path: "/sotd.atom", headers: ["Host": "x.example"]))
        #expect(none.status == 200)
        #expect(try AtomFeed.parse(none.body).entries.isEmpty)
    }

    @Test func followingOverTheAPI() throws {
        let f = try Fixture()
        #expect(f.json(f.send("GET", "/api/v1/friends"))["friends"] as? [Any] != nil)
        #expect(f.send("GET", "/api/v1/friends", key: nil, peer: "203.0.113.9").status == 403, "private like the history")
        #expect(f.send("POST", "/api/v1/friends", body: #"{"url": "http://sam.example/sotd.atom"}"#, key: nil, peer: "203.0.113.9").status == 401)
        let added = f.send("POST", "/api/v1/friends", body: #"{"name": "Sam", "url": "http://sam.example/sotd.atom"}"#)
        #expect(added.status == 201, "\(added.text)")
        let sam = f.json(added)
        #expect(sam["origin"] as? String == "site" && sam["name"] as? String == "Sam" && sam["latest"] is NSNull)
        let id = sam["id"] as? Int ?? 0
        let unnamed = f.json(f.send("POST", "/api/v1/friends", body: #"{"url": "https://kim.example:8443/x/sotd.atom"}"#))
        #expect(unnamed["name"] as? String == "kim.example", "named by the host when no name is given")
        for (body, code) in [(#"{"url": "javascript:alert(1)"}"#, "invalid_friend"), (#"{"name": "x"}"#, "invalid_friend"),
                             (#"{"url": "http://a.example/", "extra": 1}"#, "invalid_friend"), (#"{"url": 5}"#, "invalid_friend"),
                             (#"{"url": "http://u:p@a.example/"}"#, "invalid_friend"), ("[]", "invalid_json")] {
            let r = f.send("POST", "/api/v1/friends", body: body)
            #expect(r.status == 400, "\(body): \(r.text)")
            #expect((f.json(r)["error"] as? [String: Any])?["code"] as? String == code, "\(body): \(r.text)")
        }
        let again = f.send("POST", "/api/v1/friends", body: #"{"name": "Sam", "url": "http://sam.example/sotd.atom"}"#)
        #expect(again.status == 409 && (f.json(again)["error"] as? [String: Any])?["code"] as? String == "friend_exists")

        // What the poller stored shows: the newest song, the error, the copy of the cover.
        try f.store.recordFriendFeed(id: Int64(id), songs: [
            FriendSong(friendID: Int64(id), entryID: "e1", day: f.today, title: "<img src=x onerror=alert(1)>", artist: "Them",
                       link: "http://sam.example/sotd/\(f.today)", coverURL: "http://sam.example/c.png", note: nil, updatedAt: Date()),
        ], etag: nil, lastModified: nil, feedURL: nil, at: Date(), nextPollAt: Date().addingTimeInterval(900))
        let song = try #require(try f.store.friendSongsWithoutCover(friendID: Int64(id)).first)
        try f.store.saveFriendCover(songID: song.id!, coverURL: "http://sam.example/c.png",
                                    bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2], type: "image/png")
        try f.store.recordFriendError(id: Int64(id), error: "no answer within 10 s <b>", at: Date(), nextPollAt: Date())
        let one = f.json(f.send("GET", "/api/v1/friends/\(id)"))
        let latest = try #require(one["latest"] as? [String: Any])
        #expect(latest["title"] as? String == "<img src=x onerror=alert(1)>" && latest["day"] as? String == f.today)
        let cover = try #require(latest["cover"] as? String)
        #expect(cover.hasPrefix("/friends/covers/\(song.id!)?v="))
        #expect(one["last_error"] as? String == "no answer within 10 s <b>")
        #expect((one["songs"] as? [Any])?.count == 1)
        let picture = f.send("GET", String(cover.prefix { $0 != "?" }))
        #expect(picture.status == 200 && picture.headers.contains { $0.0 == "Content-Type" && $0.1 == "image/png" })
        #expect(f.send("GET", String(cover.prefix { $0 != "?" }), key: nil, peer: "203.0.113.9").status == 303, "private: to the login")

        // The dashboard and /friends show it, escaped, linking to the friend's share page.
        for page in ["/", "/friends"] {
            let html = f.send("GET", page).text
            #expect(html.contains("&lt;img src=x onerror=alert(1)&gt;") && !html.contains("<img src=x"), "\(page)")
            #expect(html.contains(#"href="http://sam.example/sotd/\#(f.today)""#), "\(page)")
            #expect(html.contains(#"src="\#(cover)""#) || html.contains(#"src="\#(cover.replacingOccurrences(of: "&", with: "&amp;"))""#), "\(page)")
        }
        #expect(f.send("GET", "/friends").text.contains("no answer within 10 s &lt;b&gt;"))

        // Unfollowing: the site's friends go; the configuration's are refused.
        #expect(f.send("DELETE", "/api/v1/friends/\(id)").status == 200)
        #expect(f.send("DELETE", "/api/v1/friends/\(id)").status == 404)
        try f.store.replaceConfigFriends([("Alex", "http://alex.example/sotd.atom")])
        let alex = try #require(try f.store.friends().first { $0.name == "Alex" })
        let refused = f.send("DELETE", "/api/v1/friends/\(alex.id!)")
        #expect(refused.status == 409 && (f.json(refused)["error"] as? [String: Any])?["code"] as? String == "config_friend")
    }

    @Test func theFriendsPageForms() throws {
        let f = try Fixture()
        let added = f.send("POST", "/friends", body: "action=add&name=Sam+%3Cb%3E&url=http%3A%2F%2Fsam.example%2Fsotd.atom", form: true)
        #expect(added.status == 200 && added.text.contains("Following Sam &lt;b&gt;"), "\(added.text)")
        let bad = f.send("POST", "/friends", body: "action=add&url=ftp%3A%2F%2Fx", form: true)
        #expect(bad.status == 400 && bad.text.contains("Not followed: url: an http:// or https:// address"))
        let twice = f.send("POST", "/friends", body: "action=add&url=http%3A%2F%2Fsam.example%2Fsotd.atom", form: true)
        #expect(twice.status == 409)
        let id = try #require(try f.store.friends().first?.id)
        let removed = f.send("POST", "/friends", body: "action=delete&id=\(id)", form: true)
        #expect(removed.status == 200 && removed.text.contains("No longer following Sam &lt;b&gt;."))
        #expect(try f.store.friends().isEmpty)
    }
}
