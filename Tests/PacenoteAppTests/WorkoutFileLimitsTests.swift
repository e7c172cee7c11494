import Foundation
@testable import PacenoteApp
import PacenoteCore
import Testing

/// What a TCX file may make the importer hold: one sample a second, at most `maxSamples`.
@Suite struct WorkoutFileLimitsTests {
    static let start = 1_763_794_800.0

    static func tcx(_ seconds: [Double]) -> Data {
        let points = seconds.map { (t: Double) -> String in
            let time = Date(timeIntervalSince1970: start + t).formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            return "<Trackpoint><Time>\(time)</Time><HeartRateBpm><Value>120</Value></HeartRateBpm></Trackpoint>"
        }.joined()
        let text = "<?xml version=\"1.0\"?><TrainingCenterDatabase><Activities><Activity Sport=\"Running\"><Lap><Track>"
            + points + "</Track></Lap></Activity></Activities></TrainingCenterDatabase>"
        return Data(text.utf8)
    }

    @Test func samplesWithinOneSecondAreOne() throws {
        let file = try WorkoutFile.parse(Self.tcx([0, 0.2, 0.5, 0.9, 1, 1.5, 3]))
        #expect(file.samples.map { $0.at.timeIntervalSince1970 - Self.start } == [0, 1, 3])
        #expect(file.sport == "Running")
    }

    @Test func moreSamplesThanTwoDaysAreRefused() throws {
        let seconds = (0...WorkoutFile.maxSamples).map(Double.init)
        let read = Result { () throws(WorkoutFile.ParseError) in try WorkoutFile.parse(Self.tcx(seconds)) }
        guard case .failure(let error) = read else {
            Issue.record("\(seconds.count) samples were read")
            return
        }
        #expect(error.description == "more than 172800 samples (two days at one a second): not imported", "\(error)")
    }
}
