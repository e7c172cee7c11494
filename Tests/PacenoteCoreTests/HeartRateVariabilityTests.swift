import Foundation
import Testing
@testable import PacenoteCore

/// `HeartRateVariability`: RMSSD and SDNN after hrv-analysis's cleaning, checked by hand here
/// (the package itself is compared in PacenoteEndToEndTests.HRVReferenceTests).
@Suite struct HeartRateVariabilityTests {
    @Test func rmssdAndSDNNByHand() throws {
        // Differences 10, −20, 10: RMSSD = √((100 + 400 + 100) / 3) = √200.
        // Mean 800, deviations 0, 10, −10, 0: SDNN = √(200 / (4 − 1)) (n − 1, numpy's ddof = 1).
        let f = try #require(HeartRateVariability.timeDomain([800, 810, 790, 800]))
        #expect(abs(f.rmssd - 200.0.squareRoot()) < 1e-9)
        #expect(abs(f.sdnn - (200.0 / 3).squareRoot()) < 1e-9)
        #expect(f.mean == 800)
        #expect(HeartRateVariability.timeDomain([800]) == nil)
    }

    @Test func artefactsAreReplacedByInterpolationAsHrvAnalysisDoes() {
        // 2500 and 100 are outside 300–2000 ms: (810 + 805) / 2 and (830 + 815) / 2.
        // 600 is more than 20 % from 805 (Malik): removed and interpolated, (805 + 820) / 2;
        // 820 after it is kept without comparison (it is measured from the ectopic beat).
        let cleaned = HeartRateVariability.clean([800, 810, 2500, 805, 600, 820, 830, 100, 815])
        #expect(cleaned.nn == [800, 810, 807.5, 805, 812.5, 820, 830, 822.5, 815])
        #expect(cleaned.outliers == 2)
        #expect(cleaned.ectopic == 1)
    }

    @Test func endsTakeTheNearestValueAndNothingPlausibleGivesNothing() {
        let cleaned = HeartRateVariability.clean([100, 900, 1000, 2600])
        #expect(cleaned.nn == [900, 900, 1000, 1000])
        #expect(cleaned.outliers == 2)
        #expect(HeartRateVariability.clean([100, 5000]).nn.isEmpty)
    }

    @Test func tooFewOrTooDirtyIntervalsMakeNoReading() {
        let steady = (0..<60).map { 1000 + Double($0 % 2) * 20 }
        let reading = HeartRateVariability(rr: steady)
        #expect(reading?.beats == 60 && reading?.removed == 0)
        #expect(abs((reading?.rmssd ?? 0) - 20) < 1e-9)
        #expect(HeartRateVariability(rr: Array(steady.prefix(20))) == nil)
        // A quarter of the beats out of range: the strap was slipping.
        let dirty = steady.enumerated().map { $0.offset % 4 == 0 ? 3000 : $0.element }
        #expect(HeartRateVariability(rr: dirty) == nil)
    }
}
