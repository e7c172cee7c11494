import Foundation
import Testing
@testable import PacenoteCore

/// The feed of songs of the day, written and read back, and what a hostile or sloppy feed
/// does to the reader.
@Suite struct AtomFeedTests {
    func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    static let sample = """
        <?xml version="1.0" encoding="utf-8"?>
        <feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/">
          <id>http://b.example/sotd.atom</id>
          <title>Songs of the day</title>
          <author><name>Sam</name></author>
          <updated>2026-11-26T18:00:00Z</updated>
          <link rel="self" href="http://b.example/sotd.atom"/>
          <entry>
            <id>http://b.example/sotd/2026-11-26</id>
            <title>Dog Days — Florence + the Machine</title>
            <link rel="alternate" type="text/html" href="http://b.example/sotd/2026-11-26"/>
            <link rel="enclosure" href="http://b.example/sotd/2026-11-26/cover.png?t=3"/>
            <published>2026-11-26T00:00:00+01:00</published>
            <updated>2026-11-26T18:00:00Z</updated>
            <summary>for the run</summary>
          </entry>
          <entry>
            <id>http://b.example/sotd/2026-11-25</id>
            <title>Halo — Beyoncé</title>
            <link href="/sotd/2026-11-25"/>
            <media:thumbnail url="/sotd/2026-11-25/cover.png"/>
            <published>2026-11-25T00:00:00-08:00</published>
            <updated>2026-11-26T07:59:00Z</updated>
          </entry>
        </feed>
        """

    @Test func readsTheSubsetSongsOfTheDayUse() throws {
        let feed = try AtomFeed.parse(bytes(Self.sample), address: "http://b.example/sotd.atom")
        #expect(feed.id == "http://b.example/sotd.atom")
        #expect(feed.title == "Songs of the day")
        #expect(feed.author == "Sam")
        #expect(feed.selfLink == "http://b.example/sotd.atom")
        #expect(feed.updated?.date == Date(timeIntervalSince1970: 1_795_716_000))
        #expect(feed.entries.count == 2)
        let first = feed.entries[0]
        #expect(first.id == "http://b.example/sotd/2026-11-26")
        #expect(first.title == "Dog Days — Florence + the Machine")
        #expect(first.link == "http://b.example/sotd/2026-11-26")
        #expect(first.cover == "http://b.example/sotd/2026-11-26/cover.png?t=3")
        #expect(first.summary == "for the run")
        #expect(first.day == "2026-11-26")
        // The day as its owner wrote it: 2026-11-25 in UTC−8 is still the 25th, though
        // `updated` is the 26th in UTC.
        let second = feed.entries[1]
        #expect(second.day == "2026-11-25")
        #expect(second.link == "http://b.example/sotd/2026-11-25", "relative links resolve against the feed's address")
        #expect(second.cover == "http://b.example/sotd/2026-11-25/cover.png", "media:thumbnail when there is no enclosure")
    }

    @Test func whatItWritesItReads() throws {
        let published = RFC3339(date: Date(timeIntervalSince1970: 1_795_647_600), offsetSeconds: 3600)
        let feed = AtomFeed(
            id: "http://a.example/sotd.atom", title: "Songs of the day", author: "a.example",
            updated: RFC3339(date: Date(timeIntervalSince1970: 1_795_716_000)), selfLink: "http://a.example/sotd.atom",
            entries: [AtomFeed.Entry(id: "http://a.example/sotd/2026-11-26", title: "<script>alert(1)</script> & \"Co\" — A\u{1}B",
                                     link: "http://a.example/sotd/2026-11-26", cover: "http://a.example/sotd/2026-11-26/cover.png?t=1&x=\"2\"",
                                     coverType: "image/png",
                                     published: published, updated: RFC3339(date: Date(timeIntervalSince1970: 1_795_716_000)),
                                     summary: "line\u{0}break")])
        let xml = String(decoding: feed.xml(), as: UTF8.self)
        #expect(xml.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; \"Co\" — AB"))
        #expect(xml.contains("<published>2026-11-26T00:00:00+01:00</published>"))
        #expect(xml.contains("href=\"http://a.example/sotd/2026-11-26/cover.png?t=1&amp;x=&quot;2&quot;\""))
        #expect(!xml.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "no control character reaches the document")
        let back = try AtomFeed.parse(feed.xml())
        #expect(back.entries.first?.title == "<script>alert(1)</script> & \"Co\" — AB")
        #expect(back.entries.first?.cover == "http://a.example/sotd/2026-11-26/cover.png?t=1&x=%222%22"
            || back.entries.first?.cover == "http://a.example/sotd/2026-11-26/cover.png?t=1&x=\"2\"")
        #expect(back.entries.first?.coverType == "image/png")
        #expect(back.entries.first?.published == published)
        #expect(back.entries.first?.day == "2026-11-26")
        #expect(back.entries.first?.summary == "linebreak")
        #expect(back.author == "a.example" && back.selfLink == "http://a.example/sotd.atom")
    }

    @Test func prefixedNamespacesCDATAAndEntities() throws {
        let feed = try AtomFeed.parse(bytes("""
            \u{FEFF}<!-- a comment --><?xml-stylesheet href="x"?>
            <a:feed xmlns:a="http://www.w3.org/2005/Atom" xml:base="https://c.example/me/">
              <a:title type="html"><![CDATA[Sam's <b>songs</b>]]></a:title>
              <a:entry>
                <a:id>tag:c.example,2026:1</a:id>
                <a:title>Caf&#xE9; &amp; Bar &#8212; &lt;Them&gt; &unknown; &#0; &#x1F3B5;</a:title>
                <a:link rel="alternate" href="day/1"/>
                <a:updated>2026-11-26t10:00:00.250z</a:updated>
              </a:entry>
            </a:feed>
            """))
        #expect(feed.title == "Sam's <b>songs</b>")
        let entry = try #require(feed.entries.first)
        #expect(entry.title == "Café & Bar — <Them> &unknown; 🎵")
        #expect(entry.link == "https://c.example/me/day/1")
        #expect(entry.updated?.date == Date(timeIntervalSince1970: 1_795_687_200.25))
        #expect(entry.day == "2026-11-26")
        let pacenote = FriendSong(friendID: 1, entry: entry)
        #expect(pacenote.title == "Café & Bar" && pacenote.artist == "<Them> &unknown; 🎵")
    }

    @Test func hostileAndBrokenInputIsAProblemNotACrash() {
        let cases: [(String, String)] = [
            ("", "no root element"),
            ("this is not xml", "text outside"),
            ("<!doctype html><html><head><title>x</title></head></html>", "HTML page"),
            ("\n<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><link rel=stylesheet href=x></head><body><br></body></html>",
             "not an Atom feed (an HTML page)"),
            ("<rss version=\"2.0\"><channel/></rss>", "RSS feed"),
            ("<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><title>cut off", "ends inside"),
            ("<feed><entry></feed>", "closes <entry>"),
            ("<feed></feed><feed></feed>", "after the root"),
            ("<feed><title a=b></title></feed>", "not quoted"),
            ("<feed><![CDATA[x</feed>", "CDATA"),
            (String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100), "nested deeper"),
        ]
        for (input, expected) in cases {
            #expect(throws: AtomFeed.Problem.self, "\(input.prefix(40))") { try AtomFeed.parse(bytes(input)) }
            do { _ = try AtomFeed.parse(bytes(input)) } catch {
                #expect(error.description.contains(expected), "\(input.prefix(40)): \(error.description)")
            }
        }
    }

    @Test func entityDeclarationsAreNeverExpanded() throws {
        // "Billion laughs": the DOCTYPE is passed over; its entities stay as written.
        let bomb = """
            <?xml version="1.0"?>
            <!DOCTYPE feed [
              <!ENTITY lol "lol">
              <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
              <!ENTITY xxe SYSTEM "file:///etc/passwd">
            ]>
            <feed xmlns="http://www.w3.org/2005/Atom"><title>&lol2; &xxe;</title></feed>
            """
        let feed = try AtomFeed.parse(bytes(bomb))
        #expect(feed.title == "&lol2; &xxe;")
    }

    @Test func limitsHoldOnLargeFeeds() throws {
        let entries = (0..<300).map { i in
            "<entry><id>e\(i)</id><title>\(String(repeating: "x", count: 2000))</title><link href=\"javascript:alert(\(i))\"/></entry>"
        }.joined()
        let feed = try AtomFeed.parse(bytes("<feed xmlns=\"http://www.w3.org/2005/Atom\">\(entries)</feed>"))
        #expect(feed.entries.count == AtomFeed.maxEntries)
        #expect(feed.entries.allSatisfy { $0.title.count == AtomFeed.maxText })
        #expect(feed.entries.allSatisfy { $0.link == nil }, "only http(s) links are kept")
        // Entries without a title or anything to tell them apart are left out.
        let sparse = try AtomFeed.parse(bytes("<feed><entry><id>x</id></entry><entry><title>t</title></entry></feed>"))
        #expect(sparse.entries.isEmpty)
        // A huge flat document is read in one pass (an element limit, not recursion).
        let flat = "<feed>" + String(repeating: "<x/>", count: 30_000) + "</feed>"
        #expect(throws: AtomFeed.Problem.self) { try AtomFeed.parse(bytes(flat)) }
    }

    @Test func datesAsRFC3339Writes() {
        let a = RFC3339.parse("2026-11-26T00:00:00+01:00")
        #expect(a?.date == Date(timeIntervalSince1970: 1_795_647_600))
        #expect(a?.offsetSeconds == 3600)
        #expect(a?.localDay == "2026-11-26")
        #expect(a?.text == "2026-11-26T00:00:00+01:00")
        #expect(RFC3339.parse("2026-11-25T23:00:00Z")?.localDay == "2026-11-25")
        #expect(RFC3339.parse("2026-11-26T05:30:00-05:30")?.text == "2026-11-26T05:30:00-05:30")
        for bad in ["2026-02-30T00:00:00Z", "2026-11-26", "2026-11-26T25:00:00Z", "2026-11-26T00:00:00", "26-11-2026T00:00:00Z",
                    "2026-11-26T00:00:00+1:00", "2026-11-26T00:00:00.Z", ""] {
            #expect(RFC3339.parse(bad) == nil, "\(bad)")
        }
    }

    @Test func httpDates() {
        let date = Date(timeIntervalSince1970: 784_111_777)
        #expect(HTTPDate.string(date) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == date)
        #expect(HTTPDate.string(Date(timeIntervalSince1970: 1_795_716_000)) == "Thu, 26 Nov 2026 18:00:00 GMT")
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == nil)
        #expect(HTTPDate.parse("garbage") == nil)
    }
}

@Suite struct FriendTests {
    @Test func pollingIsPolite() {
        let now = Date(timeIntervalSince1970: 1_000_000)
        #expect(FriendPolling.next(after: now, failures: 0) == now.addingTimeInterval(900))
        #expect(FriendPolling.next(after: now, failures: 1) == now.addingTimeInterval(900))
        #expect(FriendPolling.next(after: now, failures: 2) == now.addingTimeInterval(1800))
        #expect(FriendPolling.next(after: now, failures: 4) == now.addingTimeInterval(7200))
        #expect(FriendPolling.next(after: now, failures: 50) == now.addingTimeInterval(6 * 3600))
        #expect(FriendPolling.next(after: now, failures: 0, retryAfter: 3600) == now.addingTimeInterval(3600))
        #expect(FriendPolling.next(after: now, failures: 1, retryAfter: 10) == now.addingTimeInterval(900))
        #expect(FriendPolling.next(after: now, failures: 1, retryAfter: 1e9) == now.addingTimeInterval(86_400))
        // A test's short interval backs off the same way.
        #expect(FriendPolling.next(after: now, interval: 1, failures: 3) == now.addingTimeInterval(4))
        #expect(FriendPolling.retryAfter("120", now: now) == 120)
        #expect(FriendPolling.retryAfter("3600\r\n", now: now) == 3600)
        #expect(FriendPolling.retryAfter(HTTPDate.string(now.addingTimeInterval(60)), now: now) == 60)
        #expect(FriendPolling.retryAfter("soon", now: now) == nil)
    }

    @Test func namesAndAddresses() {
        #expect(Friend.problem(name: "Sam", url: "https://sam.example/sotd.atom") == nil)
        #expect(Friend.problem(name: " ", url: "https://sam.example/")?.field == "name")
        #expect(Friend.problem(name: String(repeating: "x", count: 101), url: "https://sam.example/")?.field == "name")
        for bad in ["ftp://sam.example/f", "file:///etc/passwd", "javascript:alert(1)", "sam.example/sotd.atom", "http://",
                    "http://u:p@sam.example/", "http://sam.example/a b", "https://sam.example/\n"] {
            #expect(Friend.urlProblem(bad) != nil, "\(bad)")
        }
        #expect(Friend.defaultName(for: "http://sam.example:8080/sotd.atom") == "sam.example")
    }

    @Test func songsSplitTitleAndArtistAtTheLastDash() {
        func song(_ title: String) -> FriendSong { FriendSong(friendID: 1, entry: AtomFeed.Entry(id: "x", title: title)) }
        #expect(song("Dog Days — Florence").title == "Dog Days" && song("Dog Days — Florence").artist == "Florence")
        #expect(song("A — B — C").title == "A — B" && song("A — B — C").artist == "C")
        #expect(song("Just a title").artist == nil && song("Just a title").title == "Just a title")
        #expect(song(" — Nobody").artist == nil)
    }

    @Test func aSharePageNamesItsFeed() {
        let page = """
            <!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="/static/site.css">
            <LINK REL="alternate" TYPE="application/atom+xml" title="Songs" HREF="/pacenote/sotd.atom?x=1&amp;y=2">
            </head><body><link rel="alternate" type="application/atom+xml" href="/other.atom"></body></html>
            """
        #expect(FeedDiscovery.atomLink(inHTML: Array(page.utf8), address: "https://sam.example/pacenote/sotd/2026-11-26")
            == "https://sam.example/pacenote/sotd.atom?x=1&y=2")
        #expect(FeedDiscovery.atomLink(inHTML: Array("<html><link rel=alternate type=text/css href=x>".utf8), address: "http://a/") == nil)
        #expect(FeedDiscovery.atomLink(inHTML: Array("<link rel='alternate' type='application/atom+xml' href='javascript:x'>".utf8),
                                       address: "http://a/") == nil)
    }

    @Test func coversAreToldByTheirBytes() {
        #expect(ImageKind.mediaType([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]) == "image/png")
        #expect(ImageKind.mediaType([0xFF, 0xD8, 0xFF, 0xE0]) == "image/jpeg")
        #expect(ImageKind.mediaType(Array("GIF89a..".utf8)) == "image/gif")
        #expect(ImageKind.mediaType(Array("RIFF\0\0\0\0WEBPVP8 ".utf8)) == "image/webp")
        #expect(ImageKind.mediaType(Array("<svg xmlns=".utf8)) == nil)
        #expect(ImageKind.mediaType([]) == nil)
    }
}
