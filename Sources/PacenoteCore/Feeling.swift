import Foundation

/// What the listener said about a track: liked, disliked, or nothing (the default, never
/// stored). The recommender never suggests a disliked song and favours liked ones; liked
/// songs make the `[likes] playlist` in MPD.
public enum Feeling: String, CaseIterable, Equatable, Sendable {
    case like, dislike, none

    /// ListenBrainz's feedback score: 1 loved, -1 hated, 0 none.
    public init?(listenBrainzScore score: Int) {
        switch score {
        case 1: self = .like
        case -1: self = .dislike
        case 0: self = .none
        default: return nil
        }
    }

    public var listenBrainzScore: Int {
        switch self {
        case .like: 1
        case .dislike: -1
        case .none: 0
        }
    }
}

/// The `recording_msid` Pacenote gives a track in its ListenBrainz-compatible answers
/// (Pacenote does not hash listens as ListenBrainz does): a UUID-shaped text that is the
/// track id in its last twelve hex digits, `00000000-0000-5000-8000-00000000002a` for
/// track 42. Stable for as long as the track exists; sent back, it names the track.
public enum PacenoteMSID {
    public static func msid(trackID: Int64) -> String {
        let hex = String(UInt64(bitPattern: trackID), radix: 16)
        return "00000000-0000-5000-8000-" + String(repeating: "0", count: max(0, 12 - hex.count)) + hex
    }

    public static func trackID(msid: String) -> Int64? {
        let text = msid.lowercased()
        guard text.count == 36, text.hasPrefix("00000000-0000-5000-8000-"),
              let id = Int64(text.suffix(12), radix: 16), id > 0 else { return nil }
        return id
    }
}
