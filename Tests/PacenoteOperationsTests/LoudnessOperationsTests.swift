import Foundation
import PacenoteCore
import PacenoteOperations
import PacenoteStore
import Testing

/// A track's measured loudness (issue 57, point 5) goes through the one write path: validated
/// against what the columns take (migration v34), stored to a hundredth, read back with the
/// track, announced once; refused, it writes and announces nothing.
@Suite struct LoudnessOperationsTests {
    @Test func aMeasuredLoudnessIsStoredReadBackAndAnnounced() throws {
        let f = try OperationsTests.Fixture()
        let id = try f.store.saveTrack(Track(uri: "a.flac", title: "A"))
        let other = try f.store.saveTrack(Track(uri: "b.flac", title: "B"))
        #expect(try f.store.tracksWithoutLoudness().map(\.id) == [])  // not in a library yet
        #expect(try f.store.track(id: id)?.loudnessLUFS == nil && f.store.track(id: id)?.loudnessRangeLU == nil)

        try f.operations.setLoudness(trackID: id, lufs: -14.23456, rangeLU: 6.0789)
        let track = try #require(try f.store.track(id: id))
        #expect(track.loudnessLUFS == -14.23 && track.loudnessRangeLU == 6.08)
        #expect(f.changes() == [.trackBPM(trackID: id)])
        // Silence is a measurement too: the floor, so analyze does not measure it again.
        try f.operations.setLoudness(trackID: other, lufs: Track.silentLUFS, rangeLU: 0)
        #expect(try f.store.track(id: other)?.loudnessLUFS == -120)
    }

    @Test func outOfRangeFiguresAreRefused() throws {
        let f = try OperationsTests.Fixture()
        let id = try f.store.saveTrack(Track(uri: "a.flac", title: "A"))
        let cases: [(String, Double, Double, Int64)] = [
            ("invalid_loudness", -.infinity, 0, id), ("invalid_loudness", .nan, 0, id), ("invalid_loudness", -120.01, 0, id),
            ("invalid_loudness", 20.5, 0, id), ("invalid_loudness_range", -14, -0.1, id), ("invalid_loudness_range", -14, 121, id),
            ("invalid_loudness_range", -14, .nan, id), ("not_found", -14, 5, 999),
        ]
        for (code, lufs, range, track) in cases {
            do {
                try f.operations.setLoudness(trackID: track, lufs: lufs, rangeLU: range)
                Issue.record("\(lufs) LUFS, \(range) LU was taken")
            } catch let error as OperationError {
                #expect(error.code == code, "\(lufs) LUFS, \(range) LU")
            }
        }
        #expect(try f.store.track(id: id)?.loudnessLUFS == nil)
        #expect(f.changes().isEmpty)
    }
}
