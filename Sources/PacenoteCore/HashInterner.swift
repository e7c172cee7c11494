/// Ids for 64-bit hashes, handed out in order (0, 1, 2, …) as new ones come: the
/// recommender's song keys (`SongKey.hash`). Flat arrays: the hash of each id, and an open
/// addressing table of ids, where a `[UInt64: Int32]` took ~21 bytes a key (3.1 MiB at
/// 150k songs: 12-byte buckets, a table at most 3/4 full, grown by doubling); here 8 bytes
/// a key and 4 a table slot, ~2.1 MiB.
struct HashInterner: Sendable {
    /// `hashes[id]`: the hash that has `id`.
    private(set) var hashes: [UInt64] = []
    /// Linear probing from the slot `position(of:)` gives; each entry an id plus one (0:
    /// empty). Its size is a power of two, grown before it is 3/4 full.
    private var table: [Int32] = []

    var count: Int { hashes.count }

    /// The id of `hash`, if it has one.
    func id(of hash: UInt64) -> Int32? {
        guard !table.isEmpty else { return nil }
        var at = position(of: hash)
        while true {
            let entry = table[at]
            if entry == 0 { return nil }
            if hashes[Int(entry - 1)] == hash { return entry - 1 }
            at = (at + 1) & (table.count - 1)
        }
    }

    /// The id of `hash`, a new one if it had none.
    mutating func intern(_ hash: UInt64) -> (id: Int32, isNew: Bool) {
        if let id = id(of: hash) { return (id, false) }
        if (hashes.count + 1) * 4 > table.count * 3 { grow() }
        let id = Int32(hashes.count)
        hashes.append(hash)
        insert(id)
        return (id, true)
    }

    /// The table slot a hash's search starts at: the hash's top bits after a Fibonacci
    /// multiply, so FNV's weaker low bits do not crowd some slots.
    private func position(of hash: UInt64) -> Int {
        Int(truncatingIfNeeded: (hash &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - table.count.trailingZeroBitCount))
    }

    private mutating func insert(_ id: Int32) {
        var at = position(of: hashes[Int(id)])
        while table[at] != 0 { at = (at + 1) & (table.count - 1) }
        table[at] = id + 1
    }

    private mutating func grow() {
        table = Array(repeating: 0, count: max(1024, table.count * 2))
        for id in hashes.indices { insert(Int32(id)) }
    }
}
