import Testing
@testable import PacenoteCore

@Suite struct PlayRuleTests {
    let rule = PlayRule.lastFM

    @Test(arguments: [
        // (played, duration, counts)
        (15.1, 30.0, true),       // a 30 s track counts after more than half
        (15.0, 30.0, false),      // exactly half is not more than half
        (29.0, 29.9, false),      // under 30 s never counts
        (100.0, 29.0, false),
        (90.1, 180.0, true),
        (90.0, 180.0, false),
        (240.1, 600.0, true),     // more than 4 minutes counts, whatever the length
        (240.0, 600.0, false),
        (299.0, 600.0, true),
        (0.0, 200.0, false),
        (1000.0, 3600.0, true),   // a DJ mix: 4 minutes suffice
    ])
    func files(played: Double, duration: Double, counts: Bool) {
        #expect(rule.counts(played: played, duration: duration) == counts)
    }

    @Test func streamsCountAfterAMinute() {
        #expect(!rule.counts(played: 59.9, duration: nil))
        #expect(rule.counts(played: 60, duration: nil))
        #expect(rule.counts(played: 60, duration: 0))  // MPD reports 0 for some streams
    }

    @Test func thresholdsAreConfigurable() {
        let quick = PlayRule(minimumDuration: 2, fraction: 0.5, sufficientSeconds: 240, streamSeconds: 5)
        #expect(quick.counts(played: 1.6, duration: 3))
        #expect(!quick.counts(played: 1.4, duration: 3))
        #expect(quick.counts(played: 5, duration: nil))
    }
}

@Suite struct SongInfoTests {
    @Test func untaggedFilesFallBackToAlbumArtistAndFileName() {
        let song = SongInfo(uri: "Various/Compilation/07 - Untitled Jam.flac", tags: ["AlbumArtist": "Various Artists"])
        #expect(song.track.title == "07 - Untitled Jam")
        #expect(song.track.artist == "Various Artists")
        #expect(song.track.uri == "Various/Compilation/07 - Untitled Jam.flac")
        #expect(SongInfo(uri: "noext").track.title == "noext")
        #expect(SongInfo(uri: "a/.hidden").track.title == ".hidden")
    }

    @Test func tagsMapToTheTrack() {
        let song = SongInfo(uri: "x.flac", tags: [
            "Title": " Run ", "Artist": "A", "Album": "B", "Track": "3/12", "Disc": "1", "Date": "1999",
            "MUSICBRAINZ_TRACKID": "rec", "MUSICBRAINZ_ALBUMID": "rel",
        ], durationSeconds: 215.5)
        let t = song.track
        #expect(t.title == "Run")
        #expect(t.trackNumber == 3)
        #expect(t.discNumber == 1)
        #expect(t.durationSeconds == 215.5)
        #expect(t.musicBrainz.recording == "rec")
        #expect(t.musicBrainz.release == "rel")
    }

    @Test func streamTitlesAreSplitAndStreamsHaveNoURIOrDuration() {
        let song = SongInfo(uri: "http://radio.example/live", tags: ["Title": "Daft Punk - One More Time", "Name": "Radio X"], durationSeconds: 0)
        #expect(song.isStream)
        #expect(song.track.artist == "Daft Punk")
        #expect(song.track.title == "One More Time")
        #expect(song.track.album == "Radio X")
        #expect(song.track.uri == nil)
        #expect(song.track.durationSeconds == nil)
        #expect(SongInfo(uri: "http://r/x", tags: ["Name": "Radio X"]).track.title == "Radio X")
        #expect(SongInfo(uri: "http://r/x", tags: ["Title": "No Separator"]).track.title == "No Separator")
        #expect(StreamTitle.split("A - B - C")! == ("A", "B - C"))
        #expect(StreamTitle.split(" - B") == nil)
    }
}
