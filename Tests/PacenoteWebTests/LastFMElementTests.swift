import Foundation
import Testing
@testable import PacenoteWeb

/// One Last.fm answer written both ways: the XML pylast parses and the JSON Last.fm derives
/// from it (text, `#text` beside attributes, `@attr` on elements with children, lists as arrays).
@Suite struct LastFMElementTests {
    let recent = LastFMElement("recenttracks", [("user", "me"), ("total", "1")], listOf: ["track"], [
        LastFMElement("track", [("nowplaying", "true")], listOf: ["image"], [
            LastFMElement("artist", [("mbid", "")], text: "Dool"),
            LastFMElement("name", text: "Vantablack & <more>"),
            LastFMElement("image", [("size", "small")], text: ""),
        ]),
    ])

    @Test func jsonFollowsLastFMsConversion() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(recent.json.serialized())) as? [String: Any])
        #expect(object["@attr"] as? [String: String] == ["user": "me", "total": "1"])
        // A list of one is still a list.
        let tracks = try #require(object["track"] as? [[String: Any]])
        #expect(tracks.count == 1)
        #expect(tracks[0]["@attr"] as? [String: String] == ["nowplaying": "true"])
        #expect(tracks[0]["artist"] as? [String: String] == ["mbid": "", "#text": "Dool"])
        #expect(tracks[0]["name"] as? String == "Vantablack & <more>")
        #expect(tracks[0]["image"] as? [[String: String]] == [["size": "small", "#text": ""]])
        // A declared list that is empty is an empty array; a repeated child an array.
        let empty = LastFMElement("lovedtracks", listOf: ["track"], []).json
        #expect(String(decoding: empty.serialized(), as: UTF8.self) == #"{"track":[]}"#)
        let twice = LastFMElement("x", [LastFMElement("a", text: "1"), LastFMElement("a", text: "2")]).json
        #expect(String(decoding: twice.serialized(), as: UTF8.self) == #"{"a":["1","2"]}"#)
    }

    @Test func xmlIsEscapedAndKeepsTheOrder() {
        var xml = ""
        recent.node.writeXML(into: &xml)
        #expect(xml == #"<recenttracks user="me" total="1"><track nowplaying="true"><artist mbid="">Dool</artist>"#
            + #"<name>Vantablack &amp; &lt;more&gt;</name><image size="small"></image></track></recenttracks>"#)
    }

    @Test func datesAreLastFMs() {
        let date = API.lastFMDate(Date(timeIntervalSince1970: 1_213_031_819))
        #expect(date.attributes.map { $0.1 } == ["1213031819"])
        guard case .text(let text) = date.content else { Issue.record(); return }
        #expect(text == "9 Jun 2008, 17:16")
    }

    @Test func periodsAreDaysBackFromToday() {
        #expect(API.lastFMPeriodDays("overall") == .some(nil))
        #expect(API.lastFMPeriodDays("7day") == 7)
        #expect(API.lastFMPeriodDays("12month") == 365)
        #expect(API.lastFMPeriodDays("fortnight") == nil)
    }
}
