/// When an imported listen is a play Pacenote already has: the same normalised track
/// (`MatchKey`) starting within `windowMs` of it.
///
/// The window covers the same play seen by two loggers: MPD stores the start in
/// milliseconds, ListenBrainz in whole seconds, and scrobblers report the start a few
/// seconds apart. Some exports only give the minute (Last.fm CSVs with `31 Jan 2021
/// 14:03`): the play then began somewhere in that minute, and the window is widened by it.
/// It stays far shorter than a song, so the same song played twice in a row — its second
/// start a song's length after the first — is two plays.
public enum DuplicatePlay {
    public static let windowMs: Int64 = 10_000

    /// Whether a listen starting at `start` is one of the plays (of the same track) that
    /// started at `starts`. `precisionMs`: the listen began in [`start`, `start + precisionMs`).
    public static func isDuplicate(start: Int64, precisionMs: Int64 = 1000, of starts: [Int64]) -> Bool {
        let low = start - windowMs
        let high = start + max(precisionMs, 1) - 1 + windowMs
        return starts.contains { $0 >= low && $0 <= high }
    }

    /// `isDuplicate` for `starts` in ascending order: a binary search rather than a scan
    /// (a bulk import checks each listen against every play of its track in the batch).
    public static func isDuplicate(start: Int64, precisionMs: Int64 = 1000, ofAscending starts: [Int64]) -> Bool {
        let low = start - windowMs
        let high = start + max(precisionMs, 1) - 1 + windowMs
        var lower = 0, upper = starts.count
        while lower < upper {
            let middle = (lower + upper) / 2
            if starts[middle] < low { lower = middle + 1 } else { upper = middle }
        }
        return lower < starts.count && starts[lower] <= high
    }
}
