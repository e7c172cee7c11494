/// Last.fm scrobbles as the common exporters write them, and Pacenote's own CSV export:
/// - without a header: `artist,album,track,date` (benjaminbenben's lastfm-to-csv), the
///   date as `31 Jan 2021 14:03` in UTC;
/// - with a header naming the columns, in any order, MusicBrainz ids included
///   (`uts,utc_time,artist,artist_mbid,album,album_mbid,track,track_mbid`, as
///   lastfm.ghan.nl's exporter writes; Pacenote adds `started_at_ms`, `played_s`,
///   `counted`, `player`, `duration_s`).
public struct LastFMCSV: Sendable {
    struct Columns: Sendable {
        var artist = 0, album: Int? = 1, track = 2, date = 3
        var uts: Int?, startedAtMs: Int?, playedS: Int?, counted: Int?, player: Int?, durationS: Int?
        var artistMBID: Int?, albumMBID: Int?, trackMBID: Int?
        var count = 4
    }

    private var columns: Columns?
    private var sawFirstRow = false

    public init() {}

    /// The meaning of one CSV record; the first one may be the header (`.skipped`).
    public mutating func row(_ fields: [String]) -> ImportRow {
        if !sawFirstRow {
            sawFirstRow = true
            if let header = Self.header(fields) {
                columns = header
                return .skipped("header")
            }
            columns = Columns()
        }
        guard let c = columns else { return .error("no columns") }
        if fields.count == 1 && fields[0].trimmingWhitespace().isEmpty { return .skipped("empty line") }
        guard fields.count >= c.count else {
            return .error("expected \(c.count) columns, found \(fields.count)")
        }
        func field(_ i: Int?) -> String? {
            guard let i, i >= 0, i < fields.count else { return nil }
            let v = fields[i].trimmingWhitespace()
            return v.isEmpty ? nil : v
        }
        guard let artist = field(c.artist) else { return .error("no artist") }
        guard let title = field(c.track) else { return .error("no track name") }
        var startMs: Int64?
        var precision: Int64 = 1000
        if let exact = field(c.startedAtMs).flatMap({ Int64($0) }) { startMs = exact; precision = 1 }
        else if let uts = field(c.uts).flatMap({ Int64($0) }) { startMs = uts.multipliedReportingOverflow(by: 1000).overflow ? .max : uts * 1000 }
        else if let text = field(c.date) {
            startMs = ImportTime.parse(text)
            // `31 Jan 2021 14:03`: two colons or none means seconds are there (or a Unix time).
            if text.filter({ $0 == ":" }).count == 1 { precision = 60_000 }
        }
        guard let startMs else { return .error("unreadable date '\(field(c.date) ?? field(c.uts) ?? "")'") }
        if let problem = ImportTime.problem(startMs, "date '\(field(c.date) ?? field(c.uts) ?? String(startMs))'") { return .error(problem) }
        let duration = ImportTime.seconds(field(c.durationS).flatMap(Double.init))
        let played = ImportTime.seconds(field(c.playedS).flatMap(Double.init)) ?? duration ?? 0
        let counted = field(c.counted).map { $0 != "0" && $0.lowercased() != "false" } ?? true
        let track = Track(title: title, artist: artist, album: field(c.album), durationSeconds: duration,
                          musicBrainz: MusicBrainzIDs(recording: field(c.trackMBID), release: field(c.albumMBID), artist: field(c.artistMBID)))
        var listen = ImportedListen(track: track, startedAtMs: startMs, playedSeconds: played, counted: counted,
                                    player: field(c.player))
        listen.startPrecisionMs = precision
        return .listen(listen)
    }

    /// Columns named by a header row, or nil when the row is data.
    static func header(_ fields: [String]) -> Columns? {
        let names = fields.map { $0.trimmingWhitespace().lowercased() }
        func index(_ candidates: String...) -> Int? {
            for c in candidates { if let i = names.firstIndex(of: c) { return i } }
            return nil
        }
        guard let artist = index("artist", "artist_name", "artist name"),
              let track = index("track", "title", "track_name", "track name", "name", "song") else { return nil }
        var c = Columns()
        c.artist = artist
        c.track = track
        c.album = index("album", "album_name", "album name", "release", "release_name")
        c.uts = index("uts", "timestamp", "unix_timestamp")
        c.date = index("date", "utc_time", "time", "played_at", "datetime", "date_time") ?? -1
        c.startedAtMs = index("started_at_ms")
        c.playedS = index("played_s")
        c.counted = index("counted")
        c.player = index("player")
        c.durationS = index("duration_s")
        c.artistMBID = index("artist_mbid", "artist_mbids")
        c.albumMBID = index("album_mbid", "release_mbid")
        c.trackMBID = index("track_mbid", "recording_mbid")
        guard c.date >= 0 || c.uts != nil || c.startedAtMs != nil else { return nil }
        // A row must reach the last column that carries a required value.
        c.count = [c.artist, c.track, max(c.date, c.uts ?? -1, c.startedAtMs ?? -1)].max()! + 1
        return c
    }
}

/// RFC 4180 records: fields separated by commas, quoted with `"` when they hold commas,
/// quotes (doubled) or line breaks; CRLF or LF line ends.
public struct CSVReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var line = 1

    public init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    public enum Record {
        case fields([String])
        /// An unterminated quote: the rest of the input could not be read.
        case broken(String)
    }

    /// The next record and the line it starts on; nil at the end.
    public mutating func next() -> (record: Record, line: Int)? {
        guard index < bytes.count else { return nil }
        let startLine = line
        var fields: [String] = []
        var field: [UInt8] = []
        var quoted = false
        var wasQuoted = false
        while index < bytes.count {
            let b = bytes[index]
            index += 1
            if quoted {
                if b == UInt8(ascii: "\"") {
                    if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                        field.append(b)
                        index += 1
                    } else {
                        quoted = false
                    }
                } else {
                    if b == 0x0A { line += 1 }
                    field.append(b)
                }
                continue
            }
            switch b {
            case UInt8(ascii: ","):
                fields.append(String(decoding: field, as: UTF8.self))
                field.removeAll(keepingCapacity: true)
                wasQuoted = false
            case UInt8(ascii: "\"") where field.isEmpty && !wasQuoted:
                quoted = true
                wasQuoted = true
            case 0x0A:
                line += 1
                if field.last == 0x0D && !wasQuoted { field.removeLast() }
                fields.append(String(decoding: field, as: UTF8.self))
                return (.fields(fields), startLine)
            case 0x0D where wasQuoted:
                break
            default:
                field.append(b)
            }
        }
        if quoted { return (.broken("a quoted field is not closed (the file may be truncated)"), startLine) }
        fields.append(String(decoding: field, as: UTF8.self))
        return (.fields(fields), startLine)
    }
}

/// Where one CSV record ends, found a piece of input at a time, so that a CSV file is read a
/// record at a time rather than whole: the line feed outside quotes, by `CSVReader`'s own
/// rules (a `"` opens a quoted field only at the start of a field; `""` inside one is a
/// quote), so that each record it finds is the record `CSVReader` reads.
public struct CSVRecordScanner: RecordEndScanner, Sendable {
    private var quoted = false
    /// A `"` inside a quoted field: a quote if another follows, else the field's end.
    private var quoteSeen = false
    private var fieldEmpty = true
    private var wasQuoted = false

    public init() {}

    /// Scans the record's next bytes, carrying on from those scanned before: the index of
    /// the line feed that ends the record, or nil when it goes on past `bytes`.
    public mutating func end(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        for i in 0..<bytes.count {
            let b = bytes[i]
            if quoteSeen {
                quoteSeen = false
                if b == UInt8(ascii: "\"") { continue }
                quoted = false
            } else if quoted {
                if b == UInt8(ascii: "\"") { quoteSeen = true }
                continue
            }
            switch b {
            case UInt8(ascii: ","):
                fieldEmpty = true
                wasQuoted = false
            case UInt8(ascii: "\"") where fieldEmpty && !wasQuoted:
                quoted = true
                wasQuoted = true
            case 0x0A:
                self = CSVRecordScanner()
                return i
            case 0x0D where wasQuoted:
                break
            default:
                fieldEmpty = false
            }
        }
        return nil
    }
}
