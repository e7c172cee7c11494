import Foundation
import PacenoteCore
import PacenoteOperations
import PacenoteStore
import PacenoteTestSupport
import Testing

/// `Operations.setFeeling(s)`: validated, one transaction, one announcement.
@Suite struct FeelingOperationsTests {
    @Test func likeDislikeAndClearAreStoredAndAnnounced() throws {
        let f = try OperationsTests.Fixture()
        let a = try f.store.saveTrack(Track(uri: "a.flac", title: "A"))
        let b = try f.store.saveTrack(Track(uri: "b.flac", title: "B"))
        try f.operations.setFeeling(trackID: a, .like, source: "api")
        try f.operations.setFeeling(trackID: b, .dislike, source: "site")
        #expect(try f.store.feelings() == [a: .like, b: .dislike])
        #expect(try f.store.feelingTracks(.like).map(\.track.id) == [a])
        #expect(try f.store.feelingTracks(.like).first?.source == "api")
        #expect(f.changes() == [.trackFeeling(trackIDs: [a]), .trackFeeling(trackIDs: [b])])
        try f.operations.setFeeling(trackID: a, .none, source: "api")
        #expect(try f.store.feeling(trackID: a) == Feeling.none)
        #expect(try f.store.feelings() == [b: .dislike])
        // A batch: the last word on a track wins, announced once.
        try f.operations.setFeelings([(a, .dislike), (b, .none), (a, .like)], source: "import")
        #expect(try f.store.feelings() == [a: .like])
        #expect(f.changes() == [.trackFeeling(trackIDs: [a]), .trackFeeling(trackIDs: [a, b])])
    }

    @Test func refusedFeelingsWriteAndAnnounceNothing() throws {
        let f = try OperationsTests.Fixture()
        let a = try f.store.saveTrack(Track(uri: "a.flac", title: "A"))
        #expect(throws: OperationError.self) { try f.operations.setFeelings([(a, .like), (999, .like)], source: "import") }
        #expect(throws: OperationError.self) { try f.operations.setFeeling(trackID: a, .like, source: "somewhere") }
        #expect(throws: OperationError.self) { try f.operations.setFeeling(trackID: 0, .like, source: "api") }
        do {
            try f.operations.setFeeling(trackID: 999, .like, source: "api")
            Issue.record("a missing track was accepted")
        } catch let error as OperationError {
            #expect(error.kind == .notFound)
        }
        #expect(try f.store.feelings().isEmpty, "the batch with a missing track wrote nothing")
        #expect(f.changes().isEmpty)
    }

    @Test func msidsRoundTripAndScoresMap() {
        #expect(PacenoteMSID.msid(trackID: 42) == "00000000-0000-5000-8000-00000000002a")
        #expect(PacenoteMSID.trackID(msid: PacenoteMSID.msid(trackID: 123_456_789)) == 123_456_789)
        #expect(PacenoteMSID.trackID(msid: "00000000-0000-5000-8000-00000000002A") == 42)
        #expect(PacenoteMSID.trackID(msid: "e225fb84-dc9a-419e-adcd-9890f59ec432") == nil)
        #expect(PacenoteMSID.trackID(msid: "00000000-0000-5000-8000-000000000000") == nil)
        #expect(Feeling(listenBrainzScore: 1) == .like && Feeling(listenBrainzScore: -1) == .dislike)
        #expect(Feeling(listenBrainzScore: 0) == Feeling.none && Feeling(listenBrainzScore: 2) == nil)
    }
}
