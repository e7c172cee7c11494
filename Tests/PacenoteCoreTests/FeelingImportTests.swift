import Foundation
import Testing
@testable import PacenoteCore

/// Reading likes from ListenBrainz feedback lines and Last.fm loved tracks, and writing them.
@Suite struct FeelingImportTests {
    @Test func feedbackLinesAreToldFromListens() {
        #expect(ListenBrainzFeedback.isFeedback(head: Array(#"{"recording_msid": "x", "score": 1, "track_metadata": null}"#.utf8)))
        #expect(ListenBrainzFeedback.isFeedback(head: Array("\n\n{\"recording_mbid\": \"x\", \"score\": -1}\n".utf8)))
        #expect(!ListenBrainzFeedback.isFeedback(head: Array(#"{"listened_at": 1, "track_metadata": {"artist_name": "A", "track_name": "B"}}"#.utf8)))
        #expect(!ListenBrainzFeedback.isFeedback(head: Array("artist,track\n".utf8)))
    }

    @Test func feedbackLinesGiveLikesDislikesAndPassOverClears() throws {
        let like = try ListenBrainzFeedback.parse(line: #"{"recording_mbid": "m", "recording_msid": "s", "score": 1, "track_metadata": {"artist_name": "A", "track_name": "T"}}"#).get()
        #expect(like == ImportedFeeling(feeling: .like, recordingMBID: "m", recordingMSID: "s", artist: "A", title: "T"))
        #expect(try ListenBrainzFeedback.parse(line: #"{"recording_msid": "s", "score": -1}"#).get()?.feeling == .dislike)
        #expect(try ListenBrainzFeedback.parse(line: #"{"recording_msid": "s", "score": 0}"#).get() == nil)
        #expect(try ListenBrainzFeedback.parse(line: "   ").get() == nil)
        #expect(throws: ImportLineError.self) { try ListenBrainzFeedback.parse(line: #"{"recording_msid": "s", "score": 3}"#).get() }
        #expect(throws: ImportLineError.self) { try ListenBrainzFeedback.parse(line: #"{"score": 1}"#).get() }
        #expect(throws: ImportLineError.self) { try ListenBrainzFeedback.parse(line: "{nope").get() }
    }

    @Test func lovedTracksWithAndWithoutAHeader() {
        let header = LovedTracksCSV.parse(Array("uts,utc_time,artist,artist_mbid,track,track_mbid\n1,\"x, y\",Ann,,Alpha,m1\n2,z,,,NoArtist,\n".utf8))
        #expect(header.feelings == [ImportedFeeling(feeling: .like, recordingMBID: "m1", artist: "Ann", title: "Alpha")])
        #expect(header.errors.map(\.line) == [3])
        let plain = LovedTracksCSV.parse(Array("Ann,Alpha\nBob,Beta\n".utf8))
        #expect(plain.feelings.map(\.title) == ["Alpha", "Beta"] && plain.errors.isEmpty)
        let scrobbleLayout = LovedTracksCSV.parse(Array("Ann,Album,Alpha,31 Jan 2021 14:03\n".utf8))
        #expect(scrobbleLayout.feelings.map(\.title) == ["Alpha"] && scrobbleLayout.feelings.map(\.artist) == ["Ann"])
    }

    @Test func aWrittenLineReadsBack() throws {
        let track = Track(id: 42, title: "T", artist: "A", album: "R", musicBrainz: MusicBrainzIDs(recording: "m"))
        let line = ListenBrainzFeedback.line(track: track, feeling: .dislike, createdAt: Date(timeIntervalSince1970: 1_700_000_000))
        #expect(line.contains(#""recording_msid":"00000000-0000-5000-8000-00000000002a""#))
        #expect(ListenBrainzFeedback.isFeedback(head: Array(line.utf8)))
        let back = try ListenBrainzFeedback.parse(line: line).get()
        #expect(back == ImportedFeeling(feeling: .dislike, recordingMBID: "m", recordingMSID: PacenoteMSID.msid(trackID: 42), artist: "A", title: "T"))
    }
}
