/// Genres as entities (`genres` in the store), from a track's genre text: MPD's several
/// `Genre` values (joined with "; " by `SongInfo.track`) or one text a source gave.
///
/// A genre text is split on `;`, `/`, `,` and `|` ("Drum & Bass; Jungle", "Rock/Pop",
/// "Electronic, Techno"): unlike an artist credit ("AC/DC"), no genre name holds them. Each
/// part is trimmed; empty parts go; two spellings of one genre on one track
/// (`EntityKey.genre`: case and runs of white space folded, as an artist's name) are one,
/// the first kept as written. `&`, `+` and `-` stay inside a name ("Drum & Bass",
/// "Hip-Hop", "R&B").
public enum GenreTags {
    /// The characters a genre text is split on.
    public static let separators: Set<Character> = [";", "/", ",", "|"]

    /// The genres of one text, each once, in order, as written (trimmed, inner runs of white
    /// space kept as given).
    public static func split(_ text: String?) -> [String] {
        guard let text else { return [] }
        return split([text])
    }

    /// The genres of several values (MPD's repeated tag), each value split as one text.
    public static func split(_ values: [String]) -> [String] {
        var names: [String] = []
        var keys: Set<String> = []
        for value in values {
            for part in value.split(whereSeparator: { separators.contains($0) }) {
                let name = String(part.trimmingSpaces())
                guard !name.isEmpty else { continue }
                let key = EntityKey.genre(name)
                guard !key.isEmpty, keys.insert(key).inserted else { continue }
                names.append(name)
            }
        }
        return names
    }

    /// The genre text to store for several values: joined with "; ", nil when none.
    public static func joined(_ values: [String]) -> String? {
        let names = split(values)
        return names.isEmpty ? nil : names.joined(separator: "; ")
    }
}

extension EntityKey {
    /// The key of a genre's name: folded as an artist's ("Drum and Bass" and "drum  and bass"
    /// are one; "Drum & Bass" and "Drum and Bass" stay two until a merge says otherwise).
    public static func genre(_ name: String) -> String {
        fold(name)
    }
}

extension Track {
    /// The genres this track's genre text names (`GenreTags.split`).
    public var genres: [String] { GenreTags.split(genre) }
}
