import Foundation

/// A song or a stream title as Pacenote knows it: from MPD's library, a stream's
/// metadata, or an imported listen.
public struct Track: Equatable, Sendable {
    public var id: Int64?
    /// MPD's song URI (a path relative to the music directory, or a stream URL).
    /// `nil` for tracks known only from imported listens.
    public var uri: String?
    public var title: String
    public var artist: String?
    public var album: String?
    public var albumArtist: String?
    public var genre: String?
    public var date: String?
    public var trackNumber: Int?
    public var discNumber: Int?
    public var durationSeconds: Double?
    public var musicBrainz: MusicBrainzIDs
    public var bpm: BPM?
    /// The artists as the source listed them (MPD's several `Artist` tags, a ListenBrainz
    /// payload's `artist_names`); nil when only the credit text is known.
    public var listedCredit: ArtistCredit?
    /// The album entity the store filed this track under (`albums`, by `albumIdentity`);
    /// nil for a track not read from the store, or without an album.
    public var albumID: Int64?
    /// How clear the beat is, 0…1: aubio's beat tracker's confidence, from `pacenote analyze`;
    /// nil until measured.
    public var beatConfidence: Double?
    /// How loud the track is as a whole: its EBU R 128 integrated loudness in LUFS, from
    /// `pacenote analyze` (libebur128); nil until measured. Silence reads -120
    /// (`Track.silentLUFS`): nothing passed the meter's -70 LUFS gate.
    public var loudnessLUFS: Double?
    /// How much its loudness varies (EBU Tech 3342 loudness range, in LU): about 0 for a
    /// steady tone, 5 to 15 for most music; nil until measured.
    public var loudnessRangeLU: Double?

    public init(
        id: Int64? = nil, uri: String? = nil, title: String, artist: String? = nil,
        album: String? = nil, albumArtist: String? = nil, genre: String? = nil, date: String? = nil,
        trackNumber: Int? = nil, discNumber: Int? = nil, durationSeconds: Double? = nil,
        musicBrainz: MusicBrainzIDs = .init(), bpm: BPM? = nil, listedCredit: ArtistCredit? = nil,
        albumID: Int64? = nil, beatConfidence: Double? = nil, loudnessLUFS: Double? = nil, loudnessRangeLU: Double? = nil
    ) {
        self.beatConfidence = beatConfidence
        self.loudnessLUFS = loudnessLUFS
        self.loudnessRangeLU = loudnessRangeLU
        self.listedCredit = listedCredit
        self.albumID = albumID
        self.id = id
        self.uri = uri
        self.title = title
        self.artist = artist
        self.album = album
        self.albumArtist = albumArtist
        self.genre = genre
        self.date = date
        self.trackNumber = trackNumber
        self.discNumber = discNumber
        self.durationSeconds = durationSeconds
        self.musicBrainz = musicBrainz
        self.bpm = bpm
    }

    /// How clear a beat of this aubio confidence sounds, in a word: clear (0.4 and up: a kick
    /// under a chord reads 0.43), steady (0.2 and up) or faint (a held chord reads 0.10).
    public static func beatWords(_ confidence: Double) -> String {
        confidence >= 0.4 ? "clear" : confidence >= 0.2 ? "steady" : "faint"
    }

    /// The integrated loudness stored for a track the meter found silent (or under its 400 ms
    /// block): the lowest the store takes. A measured loudness is never under the meter's
    /// absolute gate, -70 LUFS (EBU R 128; ITU-R BS.1770-4).
    public static let silentLUFS = -120.0

    /// The key under which plays of the same song from different sources meet
    /// (an MPD play and the same listen imported from ListenBrainz).
    public var matchKey: String { MatchKey.make(artist: artist ?? albumArtist, title: title) }

    /// Who the track is credited to: the listed artists, else its artist text (or, without
    /// one, its album artist) split with these separators.
    public func credit(separators: [String]) -> ArtistCredit? {
        if let listedCredit { return listedCredit }
        guard let text = artist ?? albumArtist else { return nil }
        var credit = ArtistCredit.parse(artist: text, title: title, separators: separators)
        // One artist and one id: the id is that artist's.
        if credit.artists.count == 1, let id = musicBrainz.artist { credit.artists[0].mbid = id }
        return credit
    }
}

/// MusicBrainz identifiers as MPD reports them (Picard's tag names).
public struct MusicBrainzIDs: Equatable, Sendable {
    public var recording: String?
    public var release: String?
    public var artist: String?
    public var albumArtist: String?
    public var releaseTrack: String?

    public init(recording: String? = nil, release: String? = nil, artist: String? = nil,
                albumArtist: String? = nil, releaseTrack: String? = nil) {
        self.recording = recording
        self.release = release
        self.artist = artist
        self.albumArtist = albumArtist
        self.releaseTrack = releaseTrack
    }
}

/// A track's tempo and where it came from: the recommender trusts a hand-set value more
/// than a detector's guess (Beatrun records source and confidence for each BPM).
public struct BPM: Equatable, Sendable {
    public enum Source: String, Sendable, CaseIterable {
        /// A `BPM`/`TBPM`/`TEMPO` tag read through MPD's `readcomments`.
        case tag
        /// An MPD `bpm` sticker.
        case sticker
        /// Detected from the audio by `pacenote analyze`.
        case analysis
        /// Set by hand in the API or on the track page.
        case manual
        /// Came with imported listens.
        case `import`
    }

    public var value: Double
    public var source: Source
    /// 0…1, where the source can say how sure it is.
    public var confidence: Double?

    public init(value: Double, source: Source, confidence: Double? = nil) {
        self.value = value
        self.source = source
        self.confidence = confidence
    }
}

extension BPM {
    /// Reads a tempo from tag or sticker text: `128`, `128.00`, `127,5`, `128 BPM`.
    /// Values outside 20–400 are not tempos (a mistyped tag, a year).
    public static func parse(_ text: String) -> Double? {
        let number = text.trimmingCharacters(in: .whitespaces).prefix { $0.isNumber || $0 == "." || $0 == "," }
        guard let value = Double(number.replacingOccurrences(of: ",", with: ".")), (20...400).contains(value) else {
            return nil
        }
        return value
    }

    /// The BPM in a file's comments (`readcomments`): `BPM`, ID3's `TBPM`, or `TEMPO`.
    public static func fromComments(_ comments: [String: String]) -> Double? {
        for key in ["BPM", "TBPM", "TEMPO"] {
            if let text = comments[key], let value = parse(text) { return value }
        }
        return nil
    }
}
