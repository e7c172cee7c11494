/// A song as MPD describes it (`currentsong`, `listallinfo`): its URI and raw tags.
/// `track` turns it into the `Track` Pacenote logs, with the fallbacks listeners expect.
public struct SongInfo: Equatable, Sendable, Codable {
    public var uri: String
    /// MPD's tags by name as MPD spells them (`Title`, `Artist`, `AlbumArtist`,
    /// `MUSICBRAINZ_TRACKID`, `Name` for a stream's station, …); first value of each.
    public var tags: [String: String]
    /// Every value of a tag MPD reported more than once (`Artist`, `AlbumArtist`,
    /// `MUSICBRAINZ_ARTISTID`, … as Picard writes several artists), in MPD's order.
    public var multiTags: [String: [String]]?
    public var durationSeconds: Double?
    /// MPD's Last-Modified for files, for incremental mirroring.
    public var lastModified: Double?
    /// Set when MPD plays a copy Pacenote rendered at another tempo (`TempoPlayback`): this
    /// song is then the original, and `durationSeconds` the copy's length as MPD plays it.
    public var tempo: TempoPlayback?

    public init(uri: String, tags: [String: String] = [:], multiTags: [String: [String]]? = nil,
                durationSeconds: Double? = nil, lastModified: Double? = nil) {
        self.uri = uri
        self.tags = tags
        self.multiTags = multiTags
        self.durationSeconds = durationSeconds
        self.lastModified = lastModified
    }

    /// A URI with a scheme (`http://…`) is a stream; anything else is a file in the library.
    public var isStream: Bool { uri.contains("://") }

    public func tag(_ name: String) -> String? {
        guard let value = tags[name]?.trimmingSpaces(), !value.isEmpty else { return nil }
        return String(value)
    }

    /// Every non-empty value of a tag, in MPD's order.
    public func values(_ name: String) -> [String] {
        if let many = multiTags?[name] {
            return many.map { String(Substring($0).trimmingSpaces()) }.filter { !$0.isEmpty }
        }
        return tag(name).map { [$0] } ?? []
    }

    /// Several values of a tag as one text, the way a credit reads: `A & B`.
    func joined(_ name: String) -> String? {
        let all = values(name)
        return all.isEmpty ? nil : all.joined(separator: " & ")
    }

    /// The track to log. Untagged files fall back to the album artist and the file name;
    /// a stream title shaped `Artist - Title` is split; a stream without a title is
    /// logged under its station name.
    public var track: Track {
        var title = tag("Title")
        var artist = joined("Artist") ?? joined("AlbumArtist")
        var album = tag("Album")
        if isStream {
            if artist == nil, let t = title, let split = StreamTitle.split(t) {
                artist = split.artist
                title = split.title
            }
            if album == nil { album = tag("Name") }
        }
        let fallbackTitle = isStream ? (tag("Name") ?? uri) : SongInfo.fileTitle(uri)
        return Track(
            uri: isStream ? nil : uri,
            title: title ?? fallbackTitle,
            artist: artist,
            album: album,
            albumArtist: joined("AlbumArtist"),
            genre: GenreTags.joined(values("Genre")),
            date: tag("Date"),
            trackNumber: tag("Track").flatMap(SongInfo.leadingNumber),
            discNumber: tag("Disc").flatMap(SongInfo.leadingNumber),
            // A tempo-changed copy is shorter or longer than the track: the track's own length.
            durationSeconds: isStream ? nil : durationSeconds.map { $0 * (tempo?.ratio ?? 1) },
            musicBrainz: MusicBrainzIDs(
                recording: tag("MUSICBRAINZ_TRACKID"), release: tag("MUSICBRAINZ_ALBUMID"),
                artist: tag("MUSICBRAINZ_ARTISTID"), albumArtist: tag("MUSICBRAINZ_ALBUMARTISTID"),
                releaseTrack: tag("MUSICBRAINZ_RELEASETRACKID")),
            listedCredit: listedCredit)
    }

    /// Several `Artist` values (or, untagged, several `AlbumArtist` values) are the
    /// artists as listed, each with its MusicBrainz id when there is one per artist.
    var listedCredit: ArtistCredit? {
        var names = values("Artist")
        var ids = values("MUSICBRAINZ_ARTISTID")
        if names.isEmpty {
            names = values("AlbumArtist")
            ids = values("MUSICBRAINZ_ALBUMARTISTID")
        }
        guard names.count > 1 else { return nil }
        return ArtistCredit(listed: names, mbids: ids)
    }

    /// `Artist/Album/03 - Song.flac` → `03 - Song`.
    static func fileTitle(_ uri: String) -> String {
        let name = uri.split(separator: "/").last.map(String.init) ?? uri
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    /// `3/12` → 3.
    static func leadingNumber(_ text: String) -> Int? {
        Int(text.prefix { $0.isNumber })
    }
}

/// Stream titles (ICY `StreamTitle`, Ogg comments) are usually `Artist - Title`.
public enum StreamTitle {
    public static func split(_ text: String) -> (artist: String, title: String)? {
        guard let range = text.range(of: " - ") else { return nil }
        let artist = text[..<range.lowerBound].trimmingSpaces()
        let title = text[range.upperBound...].trimmingSpaces()
        guard !artist.isEmpty, !title.isEmpty else { return nil }
        return (String(artist), String(title))
    }
}

extension Substring {
    func trimmingSpaces() -> Substring {
        var sub = self
        while let f = sub.first, f.isWhitespace { sub = sub.dropFirst() }
        while let l = sub.last, l.isWhitespace { sub = sub.dropLast() }
        return sub
    }
}
