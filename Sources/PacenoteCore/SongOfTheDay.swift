import Foundation

/// The song of the day: the pinned track if the day has a pin; otherwise the track with
/// the most counted plays that day, ties going to more seconds played, then to the one
/// first played earliest (SongTracker's habit of sharing one song a day, made a rule).
public enum SongOfTheDay {
    public struct Candidate: Equatable, Sendable {
        public var trackID: Int64
        public var plays: Int
        public var seconds: Double
        public var firstPlayedAt: Date

        public init(trackID: Int64, plays: Int, seconds: Double, firstPlayedAt: Date) {
            self.trackID = trackID
            self.plays = plays
            self.seconds = seconds
            self.firstPlayedAt = firstPlayedAt
        }
    }

    public struct Pin: Equatable, Sendable {
        public var trackID: Int64
        public var note: String?

        public init(trackID: Int64, note: String?) {
            self.trackID = trackID
            self.note = note
        }
    }

    public struct Choice: Equatable, Sendable {
        public var trackID: Int64
        public var pinned: Bool
        public var note: String?

        public init(trackID: Int64, pinned: Bool, note: String?) {
            self.trackID = trackID
            self.pinned = pinned
            self.note = note
        }
    }

    public static func choose(_ candidates: [Candidate], pin: Pin?) -> Choice? {
        if let pin { return Choice(trackID: pin.trackID, pinned: true, note: pin.note) }
        let best = candidates.filter { $0.plays > 0 }.min { a, b in
            if a.plays != b.plays { return a.plays > b.plays }
            if a.seconds != b.seconds { return a.seconds > b.seconds }
            if a.firstPlayedAt != b.firstPlayedAt { return a.firstPlayedAt < b.firstPlayedAt }
            return a.trackID < b.trackID
        }
        return best.map { Choice(trackID: $0.trackID, pinned: false, note: nil) }
    }
}
