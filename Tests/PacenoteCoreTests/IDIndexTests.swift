import Testing
@testable import PacenoteCore

/// Slots by id answer as the dictionary they replace: for rowids in order, with gaps, out of
/// order, negative, past 32 bits and at the ends of `Int64`, and for ids never appended.
@Suite struct SlotsByIDTests {
    @Test func answersAsADictionary() {
        var rng = SystemRandomNumberGenerator()
        for shape in 0..<6 {
            var ids = CompactIDs()
            var expected: [Int64: Int32] = [:]
            var next: Int64 = 1
            for step in 0..<20_000 {
                var id: Int64
                switch shape {
                case 0: id = Int64(step + 1)  // rowids in order
                case 1: next += Int64.random(in: 1...3, using: &rng); id = next  // in order, with gaps (merged, deleted)
                case 2: id = Int64.random(in: 1...60_000, using: &rng)  // any order
                case 3: id = Int64.random(in: -5...5, using: &rng) * 1_000_003 + Int64(step)  // negative and far apart
                case 4: id = step == 15_000 ? Int64(UInt32.max) + 7 : (step < 10_000 ? Int64(step) * 2 : Int64.random(in: 0...Int64.max, using: &rng))
                default: id = step % 2 == 0 ? Int64.min + Int64(step) : Int64.max - Int64(step)  // both ends of Int64
                }
                guard expected[id] == nil else { continue }  // the model appends an id once
                expected[id] = Int32(ids.count)
                ids.append(id)
                if step % 997 == 0 {
                    for probe in expected.keys.prefix(200) { #expect(ids.slot(of: probe) == expected[probe]) }
                }
            }
            for (id, slot) in expected {
                #expect(ids.slot(of: id) == slot)
                for probe in [id &- 1, id &+ 1] { #expect(ids.slot(of: probe) == expected[probe]) }
            }
            for probe in [Int64.min, -1, 0, 1, 60_001, Int64.max] { #expect(ids.slot(of: probe) == expected[probe]) }
            #expect((0..<ids.count).allSatisfy { expected[ids[$0]] == Int32($0) })
        }
        #expect(CompactIDs().slot(of: 1) == nil)
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
