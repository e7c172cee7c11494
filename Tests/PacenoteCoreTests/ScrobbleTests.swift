import Foundation
import PacenoteCore
import Testing

/// MD5 against RFC 1321's test suite, and the Last.fm protocols' fields read into scrobbles.
@Suite struct ScrobbleTests {
    @Test func md5MatchesRFC1321() {
        let vectors = [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
            ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
            (String(repeating: "1234567890", count: 8), "57edf4a22be3c955ac49da2e2107b67a"),
        ]
        for (input, digest) in vectors { #expect(MD5.hex(input) == digest, "\(input)") }
        // The 1.2 handshake's token: md5(md5(password) + timestamp).
        #expect(MD5.hex(MD5.hex("pass") + "1234567890") == "0216929992abaffd2d1ed54f44cf2642")  // Python hashlib
        #expect(MD5.digest(Array(repeating: 0x61, count: 1_000_000)).count == 16)
    }

    @Test func formFieldsDecodePercentAndPlus() {
        let fields = Scrobble.formFields(Array("a%5B0%5D=Sigur+R%C3%B3s&t[0]=Hopp%C3%ADpolla&s=abc&s=second&empty=".utf8))
        #expect(fields["a[0]"] == "Sigur Rós")
        #expect(fields["t[0]"] == "Hoppípolla")
        #expect(fields["s"] == "abc")
        #expect(fields["empty"] == "")
    }

    @Test func v2BatchKeepsEveryItemWithItsReason() throws {
        let now = Date(timeIntervalSince1970: 1_767_297_600)
        let fields = [
            "artist[0]": "Dool", "track[0]": "Vantablack", "timestamp[0]": "1767290000", "album[0]": "Here Now, There Then",
            "duration[0]": "215", "mbid[0]": "E225FB84-DC9A-419E-ADCD-9890F59EC432",
            "artist[1]": "", "track[1]": "No Artist", "timestamp[1]": "1767290300",
            "artist[2]": "A", "track[2]": "", "timestamp[2]": "1767290600",
            "artist[3]": "A", "track[3]": "Old", "timestamp[3]": "1000",
            "artist[4]": "A", "track[4]": "Future", "timestamp[4]": "1867290000",
            "artist[5]": "A", "track[5]": "Bad MBID", "timestamp[5]": "1767291000", "mbid[5]": "not-an-mbid",
        ]
        let items = try #require(Scrobble.v2Scrobbles(fields, now: now))
        #expect(items.map(\.ignoredCode) == [0, 1, 2, 3, 4, 0])
        #expect(items[0].track.title == "Vantablack" && items[0].track.artist == "Dool" && items[0].track.durationSeconds == 215)
        #expect(items[0].track.musicBrainz.recording == "e225fb84-dc9a-419e-adcd-9890f59ec432")
        #expect(items[0].startedAt == Date(timeIntervalSince1970: 1_767_290_000))
        #expect(items[5].accepted && items[5].track.musicBrainz.recording == nil, "an invalid MBID is dropped, never the listen")
        #expect(items[1].title == "No Artist", "the text is echoed as sent")
    }

    @Test func v2SingleAndNowPlaying() throws {
        let single = try #require(Scrobble.v2Scrobbles(["artist": "A", "track": "T", "timestamp": "1767290000"]))
        #expect(single.count == 1 && single[0].accepted)
        #expect(Scrobble.v2Scrobbles(["method": "track.scrobble"]) == nil)
        let playing = Scrobble.v2NowPlaying(["artist": "A", "track": "T", "duration": "31"])
        #expect(playing.accepted && playing.track.durationSeconds == 31)
    }

    @Test func legacySubmissionsReadMpdscribblesFields() throws {
        let body = "s=abc&a[0]=Tester&t[0]=Alpha&i[0]=1767290000&o[0]=P&r[0]=&l[0]=35&b[0]=Album&n[0]=3&m[0]="
            + "&a[1]=Tester&t[1]=Beta&i[1]=1767290040&o[1]=P&r[1]=&l[1]=&b[1]=&n[1]=&m[1]=zzz"
        let items = try #require(Scrobble.legacySubmissions(Scrobble.formFields(Array(body.utf8)), now: Date(timeIntervalSince1970: 1_767_297_600)))
        #expect(items.count == 2)
        #expect(items[0].track.album == "Album" && items[0].track.trackNumber == 3 && items[0].track.durationSeconds == 35)
        #expect(items[1].accepted && items[1].track.durationSeconds == nil && items[1].track.musicBrainz.recording == nil)
        #expect(Scrobble.legacySubmissions(["s": "abc"]) == nil)
        let playing = Scrobble.legacyNowPlaying(["s": "abc", "a": "Tester", "t": "Alpha", "l": "35"])
        #expect(playing.accepted && playing.track.title == "Alpha")
    }
}
