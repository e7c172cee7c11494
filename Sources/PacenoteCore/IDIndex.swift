/// Track ids by slot, 4 bytes each while every id fits in 32 bits (SQLite rowids from 1 up:
/// all of them in practice), 8 bytes each from the first one that does not: 0.6 MiB less
/// than an `[Int64]` at 150k tracks, and never a different id.
///
/// And slots by id, with no index beside the ids: the model takes tracks in the order of
/// their ids (`recommenderCandidates` reads them by id, and a new track's rowid is above
/// every other), so the slots hold increasing ids and an id's slot is found by search.
/// Increasing whole numbers leave it few places to be (`slot(of:)`): with ids 1, 2, 3, … the
/// first guess is right. An array indexed by the id took 4 bytes a track (0.6 MiB at 150k
/// tracks) and a `[Int64: Int32]` ~21. From the first id that comes out of order (not
/// above the last), that id and every later one go to a dictionary, which is empty in the
/// daemon.
public struct CompactIDs: Sendable {
    private var narrow: [UInt32] = []
    /// Every id, once one did not fit in `narrow` (which is then empty).
    private var wide: [Int64]?
    /// Slots `0..<sortedCount` hold increasing ids.
    private var sortedCount = 0
    /// The slots of ids that came out of order, after the sorted ones.
    private var unsorted: [Int64: Int32] = [:]

    public var count: Int { wide?.count ?? narrow.count }

    public subscript(slot: Int) -> Int64 {
        if let wide { return wide[slot] }
        return Int64(narrow[slot])
    }

    /// Gives `id` the next slot. An id is appended once (the model looks it up first).
    mutating func append(_ id: Int64) {
        let slot = count
        if sortedCount == slot, slot == 0 || id > self[slot - 1] {
            sortedCount += 1
        } else {
            unsorted[id] = Int32(slot)
        }
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

    /// The slot `id` was appended to, if it was.
    func slot(of id: Int64) -> Int32? {
        if sortedCount > 0 {
            let first = self[0], last = self[sortedCount - 1]
            if id >= first, id <= last {
                // Increasing whole numbers: at most `id - first` slots after the first, and at
                // most `last - id` before the last (differences taken without overflow).
                var lo = sortedCount - 1 - Int(min(UInt64(bitPattern: last &- id), UInt64(sortedCount - 1)))
                var hi = Int(min(UInt64(bitPattern: id &- first), UInt64(sortedCount - 1)))
                while lo <= hi {
                    let mid = lo + (hi - lo) / 2
                    let at = self[mid]
                    if at == id { return Int32(mid) }
                    if at < id { lo = mid + 1 } else { hi = mid - 1 }
                }
            }
        }
        return unsorted.isEmpty ? nil : unsorted[id]
    }
}
