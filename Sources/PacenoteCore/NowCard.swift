import Foundation

/// What the public now-playing card (`/now`, `/now.svg`, `/now.json`) shows: only the fields
/// the owner ticked (`[share] now_fields`), and nothing at all while nothing plays or a
/// private session is on. The workout line ("running · Z4") comes from heart rate, health
/// data, so it is shown only when ticked.
public struct NowCard: Equatable, Sendable {
    /// What the owner may tick.
    public enum Field: String, Sendable, CaseIterable {
        case song, artist, album, cover, workout
    }

    /// The fields ticked by default: the song and who made it.
    public static let defaultFields: [Field] = [.song, .artist]

    public var song: String?
    public var artist: String?
    public var album: String?
    /// The track whose cover is shown (`/now/cover`), when `cover` is ticked.
    public var coverTrackID: Int64?
    /// "running · Z4": the workout's sport (or "workout") and the live zone.
    public var workout: String?

    public init(song: String? = nil, artist: String? = nil, album: String? = nil, coverTrackID: Int64? = nil, workout: String? = nil) {
        self.song = song
        self.artist = artist
        self.album = album
        self.coverTrackID = coverTrackID
        self.workout = workout
    }

    /// The live workout, if one is in progress: its sport and zone.
    public struct Workout: Equatable, Sendable {
        public var sport: String?
        public var zone: Zone
        public init(sport: String?, zone: Zone) {
            self.sport = sport
            self.zone = zone
        }

        /// "running · Z4"; "workout · Z4" when the sport is not known.
        public var line: String {
            let sport = sport.map { $0.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() }.flatMap { $0.isEmpty ? nil : $0 }
            return "\(sport ?? "workout") · Z\(zone.rawValue)"
        }
    }

    /// The card for what plays now: nil (blank) when nothing plays (paused or stopped counts
    /// as nothing), a private session is on, or no field is ticked that the song has.
    public static func make(playing: NowPlaying?, fields: Set<Field>, privateSessionOn: Bool,
                            workout: Workout?) -> NowCard? {
        guard !privateSessionOn, let playing, playing.state == .play else { return nil }
        let track = playing.track
        func nonEmpty(_ s: String?) -> String? { s.flatMap { $0.isEmpty ? nil : $0 } }
        let card = NowCard(
            song: fields.contains(.song) ? nonEmpty(track.title) : nil,
            artist: fields.contains(.artist) ? nonEmpty(track.artist ?? track.albumArtist) : nil,
            album: fields.contains(.album) ? nonEmpty(track.album) : nil,
            coverTrackID: fields.contains(.cover) ? track.id : nil,
            workout: fields.contains(.workout) ? workout?.line : nil)
        return card == NowCard() ? nil : card
    }

    /// The fields as the owner wrote them: known names, each once, in the order written.
    public static func fields(_ names: [String]) -> Result<[Field], FieldProblem> {
        var fields: [Field] = []
        for name in names {
            guard let field = Field(rawValue: name.trimmingCharacters(in: .whitespaces).lowercased()) else {
                return .failure(FieldProblem(name: name))
            }
            if !fields.contains(field) { fields.append(field) }
        }
        return .success(fields)
    }

    public struct FieldProblem: Error, Equatable, Sendable {
        public var name: String
    }
}
