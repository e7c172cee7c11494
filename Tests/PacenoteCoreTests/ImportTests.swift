import Foundation
@testable import PacenoteCore
import Testing

@Suite struct ImportJSONTests {
    @Test func readsValuesEscapesAndNumbers() throws {
        let json = try ImportJSON.parse(Array(#"{"a": [1, -2.5, 1e3, true, false, null], "s": "Bj\u00f6rk \"x\" \ud83c\udfb5\n", "u": "Sigur Rós"}"#.utf8))
        #expect(json["a"] == .array([.number(1), .number(-2.5), .number(1000), .bool(true), .bool(false), .null]))
        #expect(json["s"]?.string == "Björk \"x\" 🎵\n")
        #expect(json["u"]?.string == "Sigur Rós")
        #expect(json["missing"] == nil)
    }

    @Test func rejectsBrokenJSONWithAnOffset() {
        for text in [#"{"a": 1"#, #"{"a": }"#, #"{"a" 1}"#, #"[1, 2"#, #""abc"#, #"{"a": 1} x"#, "tru"] {
            #expect(throws: ImportJSON.SyntaxError.self, "\(text)") { try ImportJSON.parse(Array(text.utf8)) }
        }
    }

    @Test func arrayReaderKeepsTheElementsBeforeADamagedOne() throws {
        let bytes = Array("[{\"n\": 1},\n {\"n\": 2},\n {\"n\": ".utf8)
        var values: [Double] = []
        var failure: (any Error)?
        bytes.withUnsafeBufferPointer { buffer in
            guard var reader = try? ImportJSON.ArrayReader(buffer) else { return }
            while true {
                do {
                    guard let (value, _) = try reader.next() else { break }
                    values.append(value["n"]?.number ?? -1)
                } catch {
                    failure = error
                    break
                }
            }
        }
        #expect(values == [1, 2])
        #expect(failure != nil)
    }
}

@Suite struct ArtistCreditTests {
    /// By default only markers that cannot be part of a name split a credit.
    @Test(arguments: [
        ("A feat. B", "Song", "A", ["B"]),
        ("A ft. B & C", "Song", "A", ["B & C"]),
        ("A Featuring B, C and D", "Song", "A", ["B, C and D"]),
        ("A", "Song (feat. C)", "A", ["C"]),
        ("A", "Song (with C)", "A", ["C"]),
        ("A", "Song [ft. C & D] (Remix)", "A", ["C & D"]),
        ("A feat. B", "Song (feat. B)", "A", ["B"]),
        ("Simon & Garfunkel", "The Boxer", "Simon & Garfunkel", []),
        ("Crosby, Stills, Nash & Young", "Ohio", "Crosby, Stills, Nash & Young", []),
        ("Beyoncé feat. JAY-Z", "Drunk in Love", "Beyoncé", ["JAY-Z"]),
        ("Featuring", "Song", "Featuring", []),
    ])
    func parsesCredits(artist: String, title: String, primary: String, featured: [String]) {
        #expect(ArtistCredit.parse(artist: artist, title: title) == ArtistCredit(primary: primary, featured: featured))
    }

    /// Configured separators split primary and featured names alike; a word only between spaces.
    @Test(arguments: [
        ("Simon & Garfunkel", "The Boxer", ["&"], ["Simon", "Garfunkel"], [String]()),
        ("Crosby, Stills, Nash & Young", "Ohio", ["&"], ["Crosby, Stills, Nash", "Young"], []),
        ("Crosby, Stills, Nash & Young", "Ohio", ["&", ","], ["Crosby", "Stills", "Nash", "Young"], []),
        ("A ft. B & C", "Song", ["&"], ["A"], ["B", "C"]),
        ("A x B", "Song", ["x"], ["A", "B"], []),
        ("Xzibit", "Song", ["x"], ["Xzibit"], []),
        ("AC/DC", "Song", ["&"], ["AC/DC"], []),
        ("A & a", "Song", ["&"], ["A"], []),
    ])
    func splitsOnConfiguredSeparators(artist: String, title: String, separators: [String], primaries: [String], featured: [String]) {
        let credit = ArtistCredit.parse(artist: artist, title: title, separators: separators)
        #expect(credit.artists.filter { $0.role == .primary }.map(\.name) == primaries)
        #expect(credit.featured == featured)
        #expect(!credit.listed)
    }

    @Test func listedArtistsAreKeptAsListedWithTheirIds() throws {
        let credit = try #require(ArtistCredit(listed: [" A ", "B", "a", ""], mbids: ["id-a", "id-b", "id-a2", "x"]))
        #expect(credit.names == ["A", "B"] && credit.listed)
        #expect(credit.artists.map(\.mbid) == ["id-a", "id-b"])
        #expect(credit.artists.allSatisfy { $0.role == .primary })
        // Ids that do not come one per name are not guessed.
        #expect(ArtistCredit(listed: ["A", "B"], mbids: ["id-a"])?.artists.map(\.mbid) == [nil, nil])
        #expect(ArtistCredit(listed: ["", " "]) == nil)
    }

    @Test func separatorsAreValidated() {
        #expect(ArtistCredit.validSeparators([" & ", ",", "&", "X"]) == .success(["&", ",", "x"]))
        guard case .failure(let e) = ArtistCredit.validSeparators(["-"]) else { Issue.record(); return }
        #expect(e.description.hasPrefix("'-' is not a separator"))
    }

    @Test func mpdsSeveralArtistTagsAreTheListedCredit() {
        let song = SongInfo(uri: "a.flac", tags: ["Artist": "A", "AlbumArtist": "AA", "Title": "T", "MUSICBRAINZ_ARTISTID": "1"],
                            multiTags: ["Artist": ["A", "B"], "MUSICBRAINZ_ARTISTID": ["1", "2"]])
        let track = song.track
        #expect(track.artist == "A & B" && track.albumArtist == "AA")
        #expect(track.listedCredit?.names == ["A", "B"] && track.listedCredit?.artists.map(\.mbid) == ["1", "2"])
        #expect(track.credit(separators: []) == track.listedCredit)
        // One Artist value: the text is split, and its one id is that artist's.
        let one = SongInfo(uri: "b.flac", tags: ["Artist": "A feat. B", "Title": "T", "MUSICBRAINZ_ARTISTID": "1"]).track
        #expect(one.listedCredit == nil && one.credit(separators: [])?.names == ["A", "B"])
        let solo = SongInfo(uri: "c.flac", tags: ["Artist": "A", "Title": "T", "MUSICBRAINZ_ARTISTID": "1"]).track
        #expect(solo.credit(separators: [])?.artists == [ArtistCredit.Artist(name: "A", role: .primary, mbid: "1")])
    }

    @Test func listenBrainzArtistNamesAreTheListedCredit() throws {
        let body = #"{"listen_type": "single", "payload": [{"listened_at": 1700000000, "track_metadata": {"artist_name": "A & B", "track_name": "T", "additional_info": {"artist_names": ["A", "B"], "artist_mbids": ["m1", "m2"], "recording_mbid": "r1"}}}]}"#
        let track = try ListenBrainzSubmission.parse(Array(body.utf8), now: Date(timeIntervalSince1970: 1_700_000_100)).listens[0].track
        #expect(track.artist == "A & B" && track.musicBrainz.recording == "r1")
        #expect(track.listedCredit == ArtistCredit(listed: ["A", "B"], mbids: ["m1", "m2"]))
        // The export's lines carry it and read back the same.
        let line = ListenExport.listenBrainzLine(
            play: Play(trackID: 1, startedAt: Date(timeIntervalSince1970: 1_700_000_000), endedAt: Date(timeIntervalSince1970: 1_700_000_100),
                       playedSeconds: 100, counted: true, source: "mpd"), track: track)
        guard case .listen(let back) = ExportRows.listenBrainz(try ImportJSON.parse(Array(line.utf8))) else { Issue.record(); return }
        #expect(back.track.listedCredit == track.listedCredit && back.track.musicBrainz.recording == "r1")
    }
}

@Suite struct DuplicatePlayTests {
    @Test func theSamePlayFromTwoLoggersIsOneRepeatsAreTwo() {
        let mpd: Int64 = 1_700_000_000_456           // MPD: milliseconds
        #expect(DuplicatePlay.isDuplicate(start: 1_700_000_000_000, of: [mpd]))  // ListenBrainz: whole seconds
        #expect(DuplicatePlay.isDuplicate(start: mpd + 10_000, of: [mpd]))       // a scrobbler's clock 10 s off
        #expect(!DuplicatePlay.isDuplicate(start: mpd + 10_001, of: [mpd]))
        #expect(!DuplicatePlay.isDuplicate(start: mpd + 30_000, of: [mpd]))      // a 30 s song played again
        #expect(!DuplicatePlay.isDuplicate(start: mpd + 215_000, of: [mpd]))     // back to back
        #expect(DuplicatePlay.isDuplicate(start: mpd - 3_000, of: [mpd + 900_000, mpd]))
        #expect(!DuplicatePlay.isDuplicate(start: mpd, of: []))
        // Last.fm's 14:03 for a play MPD logged at 14:03:41.
        let minute: Int64 = 1_612_101_780_000
        #expect(DuplicatePlay.isDuplicate(start: minute, precisionMs: 60_000, of: [minute + 41_250]))
        #expect(!DuplicatePlay.isDuplicate(start: minute, of: [minute + 41_250]))
        #expect(!DuplicatePlay.isDuplicate(start: minute, precisionMs: 60_000, of: [minute + 180_000]))
    }

    @Test func theSearchOfAscendingStartsAgreesWithTheScan() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let starts = (0..<Int.random(in: 0...12, using: &generator))
                .map { _ in Int64.random(in: 0...120_000, using: &generator) }.sorted()
            let start = Int64.random(in: -20_000...140_000, using: &generator)
            let precision = [0, 1, 1000, 60_000].randomElement(using: &generator)!
            #expect(DuplicatePlay.isDuplicate(start: start, precisionMs: Int64(precision), ofAscending: starts)
                    == DuplicatePlay.isDuplicate(start: start, precisionMs: Int64(precision), of: starts))
        }
    }
}

@Suite struct ImportTimeTests {
    @Test func readsTheFormatsExportersWrite() {
        let t: Int64 = 1_612_101_780_000  // 2021-01-31 14:03:00 UTC
        #expect(ImportTime.parse("1612101780") == t)
        #expect(ImportTime.parse("1612101780000") == t)
        #expect(ImportTime.parse("31 Jan 2021 14:03") == t)
        #expect(ImportTime.parse("31 Jan 2021, 14:03") == t)
        #expect(ImportTime.parse("2021-01-31T14:03:00Z") == t)
        #expect(ImportTime.parse("2021-01-31T14:03:00.250Z") == t + 250)
        #expect(ImportTime.parse("2021-01-31T15:03:00+01:00") == t)
        #expect(ImportTime.parse("2021-01-31 14:03") == t)
        #expect(ImportTime.parse("2021-01-31 14:03:00 UTC") == t)
        #expect(ImportTime.parse("yesterday") == nil)
        #expect(ImportTime.parse("31 Foo 2021 14:03") == nil)
        #expect(ImportTime.parse("2021-13-01") == nil)
        #expect(ImportTime.iso(t) == "2021-01-31T14:03:00Z")
        #expect(ImportTime.iso(t + 5) == "2021-01-31T14:03:00.005Z")
        #expect(ImportTime.iso(0) == "1970-01-01T00:00:00Z")
        // Day numbers agree with Foundation over leap years.
        for year in [1996, 2000, 2024, 2100] {
            let ms = ImportTime.parse("\(year)-03-01T00:00:00Z")!
            let reference = ISO8601DateFormatter().date(from: "\(year)-03-01T00:00:00Z")!
            #expect(Double(ms) / 1000 == reference.timeIntervalSince1970)
        }
    }
}

@Suite struct ImportFormatTests {
    func detect(_ text: String) -> ImportFileKind? { ImportFileKind.detect(head: Array(text.utf8)) }

    @Test func tellsFormatsFromContent() {
        #expect(detect(#"{"listened_at": 1, "track_metadata": {}}"# + "\n") == .listenBrainzLines)
        #expect(detect(#"[{"listened_at": 1, "track_metadata": {}}]"#) == .listenBrainzArray)
        #expect(detect("[\n  {\"ts\": \"2021-01-01T00:00:00Z\", \"ms_played\": 1}\n]") == .spotify)
        #expect(detect(#"[{"endTime": "2021-01-01 00:00", "msPlayed": 1}]"#) == .spotify)
        #expect(detect("{\n   \"scrobbles\": [\n") == .maloja)
        #expect(detect("Artist,Album,Track,31 Jan 2021 14:03\n") == .lastFMCSV)
        #expect(detect("\u{FEFF}uts,utc_time,artist\n") == .lastFMCSV)
        #expect(detect("<?xml version=\"1.0\"?><TrainingCenterDatabase>") == .tcx)
        #expect(detect("<?xml version=\"1.0\"?><gpx version=\"1.1\">") == .gpx)
        #expect(ImportFileKind.detect(head: [0x50, 0x4B, 0x03, 0x04, 0]) == .zip)
        #expect(detect("hello") == nil)
        #expect(detect("{\"x\": 1}") == nil)
        #expect(ImportFileKind.detect(head: Array("[]".utf8), forced: .spotify) == .spotify)
    }

    @Test func readsAListenBrainzExportRow() throws {
        let line = #"{"listened_at": 1700000000, "recording_msid": "x", "track_metadata": {"artist_name": "Dool", "track_name": "Vantablack", "release_name": "Here Now, There Then", "additional_info": {"duration_ms": 215500, "recording_mbid": "e225fb84", "artist_mbids": ["a1"], "tracknumber": 3, "media_player": "mpd"}}}"#
        guard case .listen(let l) = ExportRows.listenBrainz(try ImportJSON.parse(Array(line.utf8))) else { Issue.record(); return }
        #expect(l.startedAtMs == 1_700_000_000_000)
        #expect(l.track.title == "Vantablack" && l.track.artist == "Dool" && l.track.album == "Here Now, There Then")
        #expect(l.track.durationSeconds == 215.5 && l.playedSeconds == 215.5 && l.counted)
        #expect(l.endedAtMs == 1_700_000_215_500)
        #expect(l.track.musicBrainz == MusicBrainzIDs(recording: "e225fb84", artist: "a1"))
        #expect(l.track.trackNumber == 3 && l.player == "mpd")
        #expect(ExportRows.listenBrainz(try ImportJSON.parse(Array(#"{"listened_at": 1700000000, "track_metadata": {"track_name": "x"}}"#.utf8)))
                == .error("no track_metadata.artist_name"))
        #expect(ExportRows.listenBrainz(try ImportJSON.parse(Array(#"{"listened_at": 5, "track_metadata": {"artist_name": "a", "track_name": "x"}}"#.utf8)))
                == .error("listened_at 5 is not a Unix time from 1990 to 2099"))
    }

    @Test func spotifySkipsAndPodcasts() throws {
        func row(_ text: String) throws -> ImportRow { ExportRows.spotify(try ImportJSON.parse(Array(text.utf8))) }
        let long = try row(#"{"ts": "2021-03-04T12:34:56Z", "ms_played": 200000, "master_metadata_track_name": "Song", "master_metadata_album_artist_name": "Artist", "master_metadata_album_album_name": null, "episode_name": null}"#)
        guard case .listen(let l) = long else { Issue.record(Comment(rawValue: "\(long)")); return }
        #expect(l.endedAtMs == ImportTime.parse("2021-03-04T12:34:56Z")! && l.startedAtMs == l.endedAtMs - 200_000)
        #expect(l.counted && l.playedSeconds == 200 && l.track.album == nil)
        guard case .listen(let skip) = try row(#"{"ts": "2021-03-04T12:34:56Z", "ms_played": 29999, "master_metadata_track_name": "Song", "master_metadata_album_artist_name": "Artist"}"#) else { Issue.record(); return }
        #expect(!skip.counted)
        #expect(try row(#"{"ts": "2021-03-04T12:34:56Z", "ms_played": 900000, "master_metadata_track_name": null, "episode_name": "Ep 1", "episode_show_name": "Show"}"#)
                == .skipped("podcast episode"))
        guard case .listen(let simple) = try row(#"{"endTime": "2021-03-04 12:34", "artistName": "A", "trackName": "T", "msPlayed": 40000}"#) else { Issue.record(); return }
        #expect(simple.startedAtMs == ImportTime.parse("2021-03-04T12:34:00Z")! - 40_000)
    }

    /// Numbers no exporter writes — huge, negative, fractional, in the wrong unit — never
    /// trap (a crash of `serve` through POST /api/v1/import) and never reach the store as
    /// values its checks refuse (which would fail the whole batch): the row is an error, or
    /// the odd value is left out.
    @Test func hostileNumbersAreRowErrorsNotCrashes() throws {
        func lb(_ listenedAt: String, _ info: String = "{}") throws -> ImportRow {
            ExportRows.listenBrainz(try ImportJSON.parse(Array(#"{"listened_at": \#(listenedAt), "track_metadata": {"artist_name": "A", "track_name": "T", "additional_info": \#(info)}}"#.utf8)))
        }
        #expect(try lb("1e300") == .error("listened_at 1e+300 is not a Unix time from 1990 to 2099"))
        #expect(try lb("-1e300") == .error("listened_at -1e+300 is not a Unix time from 1990 to 2099"))
        #expect(try lb("1700000000000000") == .error("listened_at 1700000000000000 is not a Unix time from 1990 to 2099"))  // microseconds
        #expect(try lb(#""soon""#) == .error("no listened_at"))
        guard case .listen(let odd) = try lb("1700000000", #"{"duration_ms": -5, "tracknumber": 1e300, "pacenote_played_s": -3, "pacenote_ended_at_ms": 1e300, "pacenote_started_at_ms": 1e300}"#) else {
            Issue.record(); return
        }
        #expect(odd.startedAtMs == 1_700_000_000_000 && odd.endedAtMs == odd.startedAtMs && odd.playedSeconds == 0)
        #expect(odd.track.durationSeconds == nil && odd.track.trackNumber == nil)
        guard case .listen(let nan) = try lb("1700000000", #"{"duration": "nan", "pacenote_played_s": "inf"}"#) else { Issue.record(); return }
        #expect(nan.playedSeconds == 0 && nan.track.durationSeconds == nil)

        func spotify(_ ms: String, _ ts: String = "2021-03-04T12:34:56Z") throws -> ImportRow {
            ExportRows.spotify(try ImportJSON.parse(Array(#"{"ts": "\#(ts)", "ms_played": \#(ms), "master_metadata_track_name": "S", "master_metadata_album_artist_name": "A"}"#.utf8)))
        }
        #expect(try spotify("1e300") == .error("no readable ms_played"))
        #expect(try spotify("-1") == .error("no readable ms_played"))
        #expect(try spotify("1000", "999999999-01-01T00:00:00Z") == .error("no readable ts"))
        #expect(try spotify("1000", "2150-01-01T00:00:00Z") == .error("ts 2150-01-01T00:00:00Z is after 2099"))

        func maloja(_ time: String, _ length: String = "200") throws -> ImportRow {
            ExportRows.maloja(try ImportJSON.parse(Array(#"{"time": \#(time), "track": {"artists": ["A"], "title": "T", "length": \#(length)}}"#.utf8)))
        }
        #expect(try maloja("1e300") == .error("time 1e+300 is not a Unix time from 1990 to 2099"))
        guard case .listen(let m) = try maloja("1700000000", "-7") else { Issue.record(); return }
        #expect(m.playedSeconds == 0 && m.track.durationSeconds == nil)

        var csv = LastFMCSV()
        #expect(csv.row(["uts", "artist", "album", "track", "duration_s"]) == .skipped("header"))
        #expect(csv.row(["9223372036854775807", "A", "", "T", ""]) == .error("date '9223372036854775807' is after 2099"))
        guard case .listen(let c) = csv.row(["1700000000", "A", "", "T", "-40"]) else { Issue.record(); return }
        #expect(c.playedSeconds == 0 && c.track.durationSeconds == nil)
    }

    @Test func malojaKeepsItsArtistList() throws {
        let text = #"{"time": 1700000000, "track": {"artists": ["A", "B"], "title": "T", "album": {"albumtitle": "Al", "artists": ["A"]}, "length": 200}, "duration": 180, "origin": "client:phone"}"#
        guard case .listen(let l) = ExportRows.maloja(try ImportJSON.parse(Array(text.utf8))) else { Issue.record(); return }
        #expect(l.track.artist == "A, B" && l.track.album == "Al" && l.playedSeconds == 180 && l.player == "phone")
        #expect(l.credit() == ArtistCredit(listed: ["A", "B"]))
    }

    @Test func lastFMCSVWithAndWithoutHeader() {
        func records(_ text: String) -> [(CSVReader.Record, Int)] {
            let bytes = Array(text.utf8)
            return bytes.withUnsafeBufferPointer { buffer in
                var reader = CSVReader(buffer)
                var out: [(CSVReader.Record, Int)] = []
                while let r = reader.next() { out.append((r.record, r.line)) }
                return out
            }
        }
        let plain = "Artist,Album,Track,31 Jan 2021 14:03\r\n\"Crosby, Stills & Nash\",,\"Say \"\"Hi\"\"\",31 Jan 2021 14:10\nMötley Crüe,Dr. Feelgood,Kickstart,\n"
        var csv = LastFMCSV()
        var rows: [ImportRow] = []
        for (record, _) in records(plain) {
            guard case .fields(let f) = record else { Issue.record(); return }
            rows.append(csv.row(f))
        }
        #expect(rows.count == 3)
        guard case .listen(let a) = rows[0], case .listen(let b) = rows[1] else { Issue.record(Comment(rawValue: "\(rows)")); return }
        #expect(a.track.artist == "Artist" && a.startedAtMs == 1_612_101_780_000)
        #expect(b.track.artist == "Crosby, Stills & Nash" && b.track.album == nil && b.track.title == "Say \"Hi\"")
        #expect(rows[2] == .error("unreadable date ''"))

        var header = LastFMCSV()
        let withHeader = "uts,utc_time,artist,artist_mbid,album,album_mbid,track,track_mbid\n1612101780,\"31 Jan 2021, 14:03\",A,mb-a,B,mb-b,C,mb-c\n1612101900,\"31 Jan 2021, 14:05\",A,,B,,C"
        let parsed = records(withHeader).map { record, _ -> ImportRow in
            guard case .fields(let f) = record else { return .error("broken") }
            return header.row(f)
        }
        #expect(parsed[0] == .skipped("header"))
        guard case .listen(let c) = parsed[1] else { Issue.record(); return }
        #expect(c.track.musicBrainz == MusicBrainzIDs(recording: "mb-c", release: "mb-b", artist: "mb-a"))
        guard case .listen = parsed[2] else { Issue.record(Comment(rawValue: "\(parsed)")); return }
        // An unterminated quote is reported on the line where it begins.
        let broken = records("A,B,C,D\n\"A,B")
        #expect(broken.count == 2 && broken[1].1 == 2)
        if case .broken = broken[1].0 {} else { Issue.record() }
    }

    @Test func exportLinesReadBackExactly() throws {
        let track = Track(title: "Say \"Hi\", 👋", artist: "Crosby, Stills & Nash feat. Ö", album: "Al\nbum", durationSeconds: 201.333,
                          musicBrainz: MusicBrainzIDs(recording: "r", release: "l", artist: "a"))
        let play = Play(trackID: 1, startedAt: Date(timeIntervalSince1970: 1_700_000_000.123), endedAt: Date(timeIntervalSince1970: 1_700_000_250.5),
                        playedSeconds: 190.25, counted: false, source: "mpd", player: "kitchen")
        let line = ListenExport.listenBrainzLine(play: play, track: track)
        guard case .listen(let l) = ExportRows.listenBrainz(try ImportJSON.parse(Array(line.utf8))) else { Issue.record(Comment(rawValue: line)); return }
        #expect(l.startedAtMs == 1_700_000_000_123 && l.endedAtMs == 1_700_000_250_500)
        #expect(l.playedSeconds == 190.25 && !l.counted && l.player == "kitchen")
        #expect(l.track.title == track.title && l.track.artist == track.artist && l.track.album == track.album)
        #expect(l.track.durationSeconds == 201.333 && l.track.musicBrainz == track.musicBrainz)

        let csvText = ListenExport.csvHeader + "\n" + ListenExport.csvLine(play: play, track: track) + "\n"
        var csv = LastFMCSV()
        var rows: [ImportRow] = []
        Array(csvText.utf8).withUnsafeBufferPointer { buffer in
            var reader = CSVReader(buffer)
            while let r = reader.next() { if case .fields(let f) = r.record { rows.append(csv.row(f)) } }
        }
        guard rows.count == 2, case .listen(let c) = rows[1] else { Issue.record(Comment(rawValue: "\(rows)")); return }
        #expect(c.startedAtMs == 1_700_000_000_123 && c.playedSeconds == 190.25 && !c.counted && c.player == "kitchen")
        #expect(c.track.title == track.title && c.track.artist == track.artist && c.track.album == track.album)
    }
}

extension ArtistCreditTests {
    /// The byte pass that rules markers out before the case-insensitive searches never
    /// rules out a credit the searches would split.
    @Test func theQuickPassNeverMissesAMarker() {
        var texts: [String] = []
        for marker in ArtistCredit.markers {
            for variant in [marker, marker.uppercased(), marker.capitalized, marker.lowercased()] {
                texts.append("A" + variant + "B)")
            }
        }
        var state: UInt64 = 11
        let pieces = ["A", " ", "feat", "FT", ".", "(", "[", "with", "Wi", "f", "é", "ß", "x", "&", "ing", "t", "e"]
        for _ in 0..<3000 {
            var text = ""
            for _ in 0..<6 {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                text += pieces[Int(state >> 33) % pieces.count]
            }
            texts.append(text)
        }
        for text in texts {
            let found = ArtistCredit.markers.contains { text.range(of: $0, options: .caseInsensitive) != nil }
            if found { #expect(ArtistCredit.mayHoldMarker(text), "\(text)") }
        }
        #expect(!ArtistCredit.mayHoldMarker("Simon & Garfunkel"))
        #expect(ArtistCredit.mayHoldMarker("Daft Punk FEAT. Pharrell"))
    }
}
