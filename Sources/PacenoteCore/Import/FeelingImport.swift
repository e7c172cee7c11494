import Foundation

/// A like or dislike read from an export, with what names its track.
public struct ImportedFeeling: Equatable, Sendable {
    public var feeling: Feeling
    public var recordingMBID: String?
    public var recordingMSID: String?
    public var artist: String?
    public var title: String?

    public init(feeling: Feeling, recordingMBID: String? = nil, recordingMSID: String? = nil, artist: String? = nil, title: String? = nil) {
        self.feeling = feeling
        self.recordingMBID = recordingMBID
        self.recordingMSID = recordingMSID
        self.artist = artist
        self.title = title
    }
}

/// ListenBrainz's `feedback.jsonl` (in its export zip, or alone): one JSON object a line,
/// `{"created", "recording_mbid", "recording_msid", "score", "track_metadata", "user_id"}`.
/// Score 1 is a like, -1 a dislike; 0 (none) lines are passed over.
public enum ListenBrainzFeedback {
    /// Whether a file beginning with `head` is feedback lines rather than listens: its first
    /// object has a `score` and a recording id, and no `listened_at`.
    public static func isFeedback(head: [UInt8]) -> Bool {
        let text = String(decoding: head, as: UTF8.self)
        guard let first = text.split(whereSeparator: \.isNewline).first(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }),
              let object = try? JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any] else { return false }
        return object["score"] != nil && (object["recording_msid"] != nil || object["recording_mbid"] != nil) && object["listened_at"] == nil
    }

    /// One line: a feeling, nil for a line to pass over (score 0, blank), or an error.
    public static func parse(line: some StringProtocol) -> Result<ImportedFeeling?, ImportLineError> {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return .success(nil) }
        guard let object = try? JSONSerialization.jsonObject(with: Data(trimmed.utf8)) as? [String: Any] else {
            return .failure(ImportLineError("not a JSON object"))
        }
        guard let number = object["score"] as? NSNumber, let score = Int(exactly: number.doubleValue),
              let feeling = Feeling(listenBrainzScore: score) else {
            return .failure(ImportLineError("score: 1, 0 or -1"))
        }
        guard feeling != .none else { return .success(nil) }
        func text(_ value: Any?) -> String? {
            guard let s = value as? String else { return nil }
            let t = s.trimmingCharacters(in: .whitespaces)
            return t.isEmpty ? nil : t
        }
        let metadata = object["track_metadata"] as? [String: Any]
        let mbid = text(object["recording_mbid"]) ?? text((metadata?["mbid_mapping"] as? [String: Any])?["recording_mbid"])
        let item = ImportedFeeling(feeling: feeling, recordingMBID: mbid, recordingMSID: text(object["recording_msid"]),
                                   artist: text(metadata?["artist_name"]), title: text(metadata?["track_name"]))
        guard item.recordingMBID != nil || item.recordingMSID != nil || (item.artist != nil && item.title != nil) else {
            return .failure(ImportLineError("no recording_mbid, recording_msid or track_metadata"))
        }
        return .success(item)
    }
}

/// Last.fm loved tracks as CSV, all likes:
/// - with a header naming at least `artist` and `track` (or `title`, `name`), in any order,
///   `track_mbid` (or `recording_mbid`, `mbid`) used when present — lastfm.ghan.nl's loved
///   tracks export (`uts,utc_time,artist,artist_mbid,track,track_mbid`) is one;
/// - without a header: `artist,track`, or `artist,album,track,date` (lastfm-to-csv's layout).
public enum LovedTracksCSV {
    public static func parse(_ bytes: [UInt8]) -> (feelings: [ImportedFeeling], errors: [(line: Int, message: String)]) {
        var out: [ImportedFeeling] = []
        var errors: [(Int, String)] = []
        bytes.withUnsafeBufferPointer { buffer in
            var reader = CSVReader(buffer)
            var columns: (artist: Int, track: Int, mbid: Int?)?
            var first = true
            while let (record, line) = reader.next() {
                guard case .fields(let fields) = record else {
                    errors.append((line, "an unterminated quote"))
                    break
                }
                if fields.count == 1 && fields[0].trimmingCharacters(in: .whitespaces).isEmpty { continue }
                if first {
                    first = false
                    let names = fields.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                    func index(_ c: [String]) -> Int? { c.lazy.compactMap { names.firstIndex(of: $0) }.first }
                    if let artist = index(["artist", "artist_name", "artist name"]),
                       let track = index(["track", "title", "track_name", "track name", "name", "song"]) {
                        columns = (artist, track, index(["track_mbid", "recording_mbid", "mbid"]))
                        continue
                    }
                    columns = fields.count >= 4 ? (0, 2, nil) : (0, 1, nil)
                }
                guard let c = columns else { continue }
                func field(_ i: Int?) -> String? {
                    guard let i, i < fields.count else { return nil }
                    let v = fields[i].trimmingCharacters(in: .whitespaces)
                    return v.isEmpty ? nil : v
                }
                guard let artist = field(c.artist), let title = field(c.track) else {
                    errors.append((line, "no artist or track"))
                    continue
                }
                out.append(ImportedFeeling(feeling: .like, recordingMBID: field(c.mbid), artist: artist, title: title))
            }
        }
        return (out, errors)
    }
}

/// Why a line of an import could not be read.
public struct ImportLineError: Error, Equatable, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

extension ListenBrainzFeedback {
    /// One line of a `feedback.jsonl` as ListenBrainz exports it (what `pacenote export
    /// --feedback` writes, and what the import reads back): the track's metadata is
    /// included so that the line names its track even without a recording id.
    public static func line(track: Track, feeling: Feeling, createdAt: Date, user: String = "pacenote") -> String {
        var metadata: [String: Any] = ["track_name": track.title]
        if let artist = track.artist ?? track.albumArtist { metadata["artist_name"] = artist }
        if let album = track.album { metadata["release_name"] = album }
        let object: [String: Any] = [
            "created": Int64(createdAt.timeIntervalSince1970),
            "recording_mbid": track.musicBrainz.recording as Any? ?? NSNull(),
            "recording_msid": PacenoteMSID.msid(trackID: track.id ?? 0),
            "score": feeling.listenBrainzScore,
            "track_metadata": metadata,
            "user_id": user,
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
