/// Slots by track id, for ids that are mostly small and dense (SQLite rowids: 1, 2, 3, …):
/// an array indexed by the id, 4 bytes an id, where a `[Int64: Int32]` took ~21 bytes an
/// entry (3 MiB at 150k tracks: 8-byte keys, 4-byte values, a table at most 3/4 full, grown
/// by doubling). An id far beyond the others (or negative) goes to a dictionary instead, so a
/// sparse set of ids never costs much more than the dictionary alone would.
struct IDIndex: Sendable {
    /// `dense[id]`: the slot of `id`, or -1.
    private var dense: [Int32] = []
    /// Ids that were too far out when they came (an id is in one of the two, never both).
    private var sparse: [Int64: Int32] = [:]
    private(set) var count = 0

    subscript(id: Int64) -> Int32? {
        get {
            if id >= 0, id < Int64(dense.count), dense[Int(id)] >= 0 { return dense[Int(id)] }
            return sparse.isEmpty ? nil : sparse[id]
        }
        set {
            if !sparse.isEmpty, sparse[id] != nil {
                sparse[id] = newValue
                if newValue == nil { count -= 1 }
                return
            }
            if id >= 0, id < Int64(dense.count) {
                let had = dense[Int(id)] >= 0
                dense[Int(id)] = newValue ?? -1
                count += (newValue != nil ? 1 : 0) - (had ? 1 : 0)
                return
            }
            guard let newValue else { return }
            count += 1
            if id >= 0, id < Int64(max(4096, 2 * count)) {
                // Within twice the number of ids: the array grows to it (amortised by the
                // array's own doubling).
                dense.append(contentsOf: repeatElement(-1, count: Int(id) + 1 - dense.count))
                dense[Int(id)] = newValue
            } else {
                sparse[id] = newValue
            }
        }
    }
}

/// Track ids by slot, 4 bytes each while every id fits in 32 bits (SQLite rowids from 1 up:
/// all of them in practice), 8 bytes each from the first one that does not: 0.6 MiB less
/// than an `[Int64]` at 150k tracks, and never a different id.
public struct CompactIDs: Sendable {
    private var narrow: [UInt32] = []
    /// Every id, once one did not fit in `narrow` (which is then empty).
    private var wide: [Int64]?

    public var count: Int { wide?.count ?? narrow.count }

    public subscript(slot: Int) -> Int64 {
        if let wide { return wide[slot] }
        return Int64(narrow[slot])
    }

    mutating func append(_ id: Int64) {
        if wide == nil {
            if let small = UInt32(exactly: id) {
                narrow.append(small)
                return
            }
            wide = narrow.map(Int64.init)
            narrow = []
        }
        wide!.append(id)
    }
}
