import Testing
@testable import PacenoteCore

/// The track-id index answers as the dictionary it replaces, for dense, sparse, negative and
/// huge ids, reassigned and removed.
@Suite struct IDIndexTests {
    @Test func answersAsADictionary() {
        var rng = SystemRandomNumberGenerator()
        for shape in 0..<4 {
            var index = IDIndex()
            var expected: [Int64: Int32] = [:]
            for step in 0..<20_000 {
                let id: Int64 = switch shape {
                case 0: Int64(step + 1)  // rowids in order
                case 1: Int64.random(in: 1...30_000, using: &rng)  // dense, any order
                case 2: Int64.random(in: -5...5, using: &rng) * 1_000_003  // negative and far apart
                default: step % 3 == 0 ? Int64.random(in: 0...Int64.max, using: &rng) : Int64(step)  // mixed
                }
                let slot: Int32? = step % 11 == 0 ? nil : Int32(step)
                index[id] = slot
                expected[id] = slot
                if step % 997 == 0 {
                    for probe in expected.keys.prefix(200) { #expect(index[probe] == expected[probe]) }
                    #expect(index[Int64.min] == expected[Int64.min])
                    #expect(index.count == expected.count)
                }
            }
            for (id, slot) in expected { #expect(index[id] == slot) }
            for id in Int64(-3)...40_000 { #expect(index[id] == expected[id]) }
            #expect(index.count == expected.count)
        }
    }
}

/// Slot-to-id storage gives back every id it was given, in 4 bytes while they fit and after
/// one that does not (negative, past 2^32) as well.
@Suite struct CompactIDsTests {
    @Test func givesBackEveryID() {
        for outlier: Int64? in [nil, -7, Int64(UInt32.max) + 1, .max, .min] {
            var ids = CompactIDs()
            var expected: [Int64] = []
            for step in 0..<5_000 {
                let id: Int64 = step == 3_000 && outlier != nil ? outlier! : Int64(step * 7 + 1)
                ids.append(id)
                expected.append(id)
                if step % 499 == 0 { #expect((0..<ids.count).map { ids[$0] } == expected) }
            }
            #expect(ids.count == expected.count)
            #expect((0..<ids.count).map { ids[$0] } == expected)
        }
        var small = CompactIDs()
        small.append(Int64(UInt32.max))
        #expect(small[0] == Int64(UInt32.max))
    }
}
