import Foundation

/// What the public parts of the songs of the day say about time (issue 51, point 3): days,
/// never a time of day. The feed's `published` and `updated` were the day's start in the
/// owner's offset (their time zone) and the end of the day's last counted play to the
/// second, and its `Last-Modified` moved a second after every play: anyone with a share
/// link could follow when the owner listens.
extension SongOfTheDay {
    /// A day as the public feed writes it: that date at 00:00:00 UTC (`2026-11-26T00:00:00Z`).
    /// The date is the owner's local day, written as it is, not the instant it began: no
    /// offset, so no time zone. Nil for text that is not a day.
    public static func publicStamp(day: String) -> RFC3339? {
        guard day.count == 10, let n = CivilDate.days(of: day) else { return nil }
        return RFC3339(date: Date(timeIntervalSince1970: Double(n) * 86_400))
    }

    /// The day a feed entry last changed, to the day: its own day (plays are counted on it),
    /// or the day its song was pinned when that is later (a pin may come days after).
    public static func publicChangeDay(day: String, pinnedOn: String?) -> String {
        guard let pinnedOn, pinnedOn > day else { return day }
        return pinnedOn
    }

    /// The version in a public cover's address (`?v=`), so that a cached picture does not
    /// outlive the day's song: it changes with what the share page shows of the song (title,
    /// artist, album) and the day, and says nothing more. It replaced `?t=TRACK_ID` (docs/
    /// SECURITY.md promises strangers no track ids). 16 hex digits of a SHA-256.
    public static func coverVersion(day: String, title: String, artist: String?, album: String?) -> String {
        String(SHA256.hex([day, title, artist ?? "", album ?? ""].joined(separator: "\u{1F}")).prefix(16))
    }
}
