/// One play read from another service's export, before it is stored.
public struct ImportedListen: Equatable, Sendable {
    /// The track as the export names it (no URI: the store finds or adds it by match key).
    public var track: Track
    /// UTC milliseconds: ListenBrainz and Last.fm give whole seconds, Spotify milliseconds.
    public var startedAtMs: Int64
    /// The play began in [`startedAtMs`, `startedAtMs + startPrecisionMs`): 60,000 when the
    /// export gives only the minute.
    public var startPrecisionMs: Int64 = 1000
    public var endedAtMs: Int64
    public var playedSeconds: Double
    /// False for a skip (Spotify: under 30 s played).
    public var counted: Bool
    public var player: String?
    /// Artists the export lists one by one (Maloja); nil when only the credit text is known.
    public var artists: [String]?

    public init(track: Track, startedAtMs: Int64, endedAtMs: Int64? = nil, playedSeconds: Double, counted: Bool = true,
                player: String? = nil, artists: [String]? = nil) {
        self.track = track
        self.startedAtMs = startedAtMs
        self.endedAtMs = max(startedAtMs, endedAtMs ?? startedAtMs + Int64((playedSeconds * 1000).rounded()))
        self.playedSeconds = playedSeconds
        self.counted = counted
        self.player = player
        self.artists = artists
    }

    /// The credit to record for the track: the export's own list, or parsed from the text.
    public func credit(separators: [String] = []) -> ArtistCredit? {
        if let artists, let listed = ArtistCredit(listed: artists) { return listed }
        return track.credit(separators: separators)
    }
}

/// What reading one row of an export gave.
public enum ImportRow: Equatable, Sendable {
    case listen(ImportedListen)
    /// Left out on purpose (a podcast episode, a header row): counted as skipped.
    case skipped(String)
    /// Unreadable: reported with its file and line.
    case error(String)
}

/// The services whose exports Pacenote reads.
public enum ImportFormat: String, Sendable, CaseIterable {
    case listenbrainz, lastfm, spotify, maloja

    /// `plays.source` of what it imports.
    public var source: String { "import:\(rawValue)" }
}

/// How a file is laid out, told from its first bytes.
public enum ImportFileKind: Equatable, Sendable {
    case listenBrainzLines, listenBrainzArray, spotify, maloja, lastFMCSV, zip, tcx, gpx, fit

    /// A workout file (heart rate from a watch), not a listen export.
    public var isWorkout: Bool { self == .tcx || self == .gpx || self == .fit }

    public var format: ImportFormat? {
        switch self {
        case .listenBrainzLines, .listenBrainzArray: .listenbrainz
        case .spotify: .spotify
        case .maloja: .maloja
        case .lastFMCSV: .lastfm
        case .zip, .tcx, .gpx, .fit: nil
        }
    }

    /// The kind of a file whose content begins with `head` (64 KiB are plenty), or nil
    /// when it is none Pacenote reads. `forced` (`--format`) settles the service; the
    /// layout (lines or array) is still read from the content.
    public static func detect(head: [UInt8], forced: ImportFormat? = nil) -> ImportFileKind? {
        if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) || head.starts(with: [0x50, 0x4B, 0x05, 0x06]) { return .zip }
        if FITFile.isFIT(head) { return .fit }
        var start = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while start < head.count, [0x20, 0x09, 0x0A, 0x0D].contains(head[start]) { start += 1 }
        let first = start < head.count ? head[start] : nil
        let text = String(decoding: head, as: UTF8.self)
        switch forced {
        case .listenbrainz: return first == UInt8(ascii: "[") ? .listenBrainzArray : .listenBrainzLines
        case .lastfm: return .lastFMCSV
        case .spotify: return .spotify
        case .maloja: return .maloja
        case nil: break
        }
        switch first {
        case UInt8(ascii: "<"):
            if text.contains("<TrainingCenterDatabase") { return .tcx }
            if text.contains("<gpx") { return .gpx }
            return nil
        case UInt8(ascii: "["):
            let element: ImportJSON? = head.withUnsafeBufferPointer { buffer in
                guard var reader = try? ImportJSON.ArrayReader(UnsafeBufferPointer(rebasing: buffer[start...])) else { return nil }
                return (try? reader.next())?.value
            }
            if let element {
                if element["track_metadata"] != nil { return .listenBrainzArray }
                if element["ms_played"] != nil || element["msPlayed"] != nil { return .spotify }
                if element["track"]?["artists"] != nil { return .maloja }
                return nil
            }
            if text.contains("\"track_metadata\"") { return .listenBrainzArray }
            if text.contains("\"ms_played\"") || text.contains("\"msPlayed\"") { return .spotify }
            return text.dropFirst(start + 1).drop(while: \.isWhitespace).first == "]" ? .listenBrainzArray : nil
        case UInt8(ascii: "{"):
            let line = head[start...].prefix { $0 != 0x0A }
            if let object = try? ImportJSON.parse(Array(line)), object["track_metadata"] != nil { return .listenBrainzLines }
            if text.contains("\"scrobbles\"") { return .maloja }
            if text.contains("\"track_metadata\"") { return .listenBrainzLines }
            return nil
        case nil:
            return nil
        default:
            // Text: CSV when its first line has columns.
            let line = head[start...].prefix { $0 != 0x0A }
            return line.contains(UInt8(ascii: ",")) ? .lastFMCSV : nil
        }
    }
}

/// The outcome of an import, as the command prints it and the API returns it.
public struct ImportSummary: Equatable, Sendable {
    /// Rows read (listens, skipped rows and unreadable rows).
    public var read = 0
    /// New plays stored.
    public var imported = 0
    /// Plays already stored (this file before, or the same play from another source).
    public var duplicates = 0
    /// Rows left out on purpose (podcasts, rows without a track).
    public var skipped = 0
    /// Rows that could not be read.
    public var errors = 0
    /// The first problems, each with its file and line.
    public var problems: [ImportProblem] = []
    /// Likes and dislikes read from feedback (ListenBrainz's `feedback.jsonl`, Last.fm loved
    /// tracks) and set, and those whose track Pacenote does not have.
    public var liked = 0
    public var disliked = 0
    public var feelingsUnmatched = 0

    public static let maxProblems = 100

    public init() {}

    public mutating func add(_ other: ImportSummary) {
        read += other.read
        imported += other.imported
        duplicates += other.duplicates
        skipped += other.skipped
        errors += other.errors
        liked += other.liked
        disliked += other.disliked
        feelingsUnmatched += other.feelingsUnmatched
        problems += other.problems.prefix(Self.maxProblems - problems.count)
    }

    public mutating func report(_ problem: ImportProblem) {
        errors += 1
        if problems.count < Self.maxProblems { problems.append(problem) }
    }

    /// `read 10, imported 7, duplicates 1, skipped 1, errors 1`
    public var line: String {
        "read \(read), imported \(imported), duplicates \(duplicates), skipped \(skipped), errors \(errors)"
            + (liked + disliked + feelingsUnmatched > 0 ? ", liked \(liked), disliked \(disliked), unmatched \(feelingsUnmatched)" : "")
    }
}

public struct ImportProblem: Equatable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var message: String

    public init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String { "\(file):\(line): \(message)" }
}
