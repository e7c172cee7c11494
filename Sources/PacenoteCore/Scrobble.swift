import Foundation

/// Scrobbles as the Last.fm protocols send them: Audioscrobbler 2.0's `track.scrobble` and
/// `track.updateNowPlaying` (https://www.last.fm/api/show/track.scrobble) and the 1.2
/// submission protocol's `submissions` and `nowplaying` (the protocol mpdscribble speaks).
/// Both send form fields; an item the protocol would ignore is kept with Last.fm's reason
/// code, so that the answer (2.0) and the submission log can say why.
public enum Scrobble {
    /// One scrobble as sent, read into a track and its start, or ignored with a reason.
    public struct Item: Equatable, Sendable {
        public var track: Track
        public var startedAt: Date
        /// Last.fm's `ignoredMessage` code: 0 accepted, 1 artist, 2 track, 3 timestamp too
        /// old, 4 timestamp too new.
        public var ignoredCode: Int
        public var ignoredMessage: String
        /// The text as sent (echoed in 2.0's answer even when ignored).
        public var artist: String
        public var title: String
        public var album: String
        public var albumArtist: String
        public var timestamp: String
        public var accepted: Bool { ignoredCode == 0 }
    }

    /// The earliest accepted start: 2002-10-01, before which no scrobbling existed.
    public static let minimumTimestamp = 1_033_430_400
    /// How far ahead of the server's clock a start may be: a day of clock skew.
    public static let futureSlack: TimeInterval = 86_400
    /// Audioscrobbler 1.2 takes up to 50 scrobbles a request, 2.0 up to 50 too.
    public static let maxBatch = 50

    /// `application/x-www-form-urlencoded` fields (`+` is a space); a field given twice keeps
    /// the first.
    public static func formFields(_ body: [UInt8]) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            guard let name = parts.first, !name.isEmpty, fields[name] == nil else { continue }
            fields[name] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }

    /// A MusicBrainz id as it must look (a UUID); anything else is dropped, never the listen.
    public static func validMBID(_ text: String?) -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespaces).lowercased(), text.count == 36,
              UUID(uuidString: text) != nil else { return nil }
        return text
    }

    /// 2.0's `track.scrobble`: `artist`, `track`, `timestamp` (required), `album`,
    /// `albumArtist`, `duration`, `trackNumber`, `mbid` — either plain (one scrobble) or
    /// indexed `artist[0]`… (a batch of up to 50). Nil when the request holds none.
    public static func v2Scrobbles(_ fields: [String: String], now: Date = Date()) -> [Item]? {
        if fields["artist"] != nil || fields["track"] != nil {
            return [item(fields, suffix: "", names: .v2, now: now)]
        }
        return indexed(fields, names: .v2, now: now)
    }

    /// 2.0's `track.updateNowPlaying`: the same fields without a timestamp.
    public static func v2NowPlaying(_ fields: [String: String]) -> Item {
        item(fields, suffix: "", names: .v2, now: Date(), nowPlaying: true)
    }

    /// 1.2's `submissions`: `a[i]` artist, `t[i]` title, `i[i]` start (Unix seconds),
    /// `o[i]` source, `r[i]` rating, `l[i]` length, `b[i]` album, `n[i]` track number,
    /// `m[i]` MusicBrainz recording id.
    public static func legacySubmissions(_ fields: [String: String], now: Date = Date()) -> [Item]? {
        indexed(fields, names: .legacy, now: now)
    }

    /// 1.2's `nowplaying`: `a`, `t`, `b`, `l`, `n`, `m`.
    public static func legacyNowPlaying(_ fields: [String: String]) -> Item {
        item(fields, suffix: "", names: .legacy, now: Date(), nowPlaying: true)
    }

    struct Names {
        var artist, title, timestamp, album, albumArtist, duration, trackNumber, mbid: String
        static let v2 = Names(artist: "artist", title: "track", timestamp: "timestamp", album: "album",
                              albumArtist: "albumArtist", duration: "duration", trackNumber: "trackNumber", mbid: "mbid")
        static let legacy = Names(artist: "a", title: "t", timestamp: "i", album: "b", albumArtist: "-",
                                  duration: "l", trackNumber: "n", mbid: "m")
    }

    private static func indexed(_ fields: [String: String], names: Names, now: Date) -> [Item]? {
        var items: [Item] = []
        for i in 0..<maxBatch {
            let suffix = "[\(i)]"
            guard fields[names.artist + suffix] != nil || fields[names.title + suffix] != nil
                    || fields[names.timestamp + suffix] != nil else { break }
            items.append(item(fields, suffix: suffix, names: names, now: now))
        }
        return items.isEmpty ? nil : items
    }

    private static func item(_ fields: [String: String], suffix: String, names: Names, now: Date,
                             nowPlaying: Bool = false) -> Item {
        func text(_ name: String) -> String? {
            fields[name + suffix]?.trimmingCharacters(in: .whitespacesAndNewlines).nilIfEmpty
        }
        let artist = text(names.artist), title = text(names.title)
        let timestampText = text(names.timestamp) ?? ""
        var duration = text(names.duration).flatMap(Double.init)
        if let d = duration, !(d > 0 && d <= Double(ListenBrainzSubmission.maxDurationSeconds)) { duration = nil }
        let track = Track(
            title: title ?? "", artist: artist, album: text(names.album), albumArtist: text(names.albumArtist),
            trackNumber: text(names.trackNumber).flatMap { Int($0) }, durationSeconds: duration,
            musicBrainz: MusicBrainzIDs(recording: validMBID(text(names.mbid))))
        var out = Item(track: track, startedAt: now, ignoredCode: 0, ignoredMessage: "",
                       artist: fields[names.artist + suffix] ?? "", title: fields[names.title + suffix] ?? "",
                       album: fields[names.album + suffix] ?? "", albumArtist: fields[names.albumArtist + suffix] ?? "",
                       timestamp: timestampText)
        if artist == nil {
            (out.ignoredCode, out.ignoredMessage) = (1, "Artist name missing")
        } else if title == nil {
            (out.ignoredCode, out.ignoredMessage) = (2, "Track name missing")
        } else if !nowPlaying {
            if let seconds = Int(timestampText) {
                out.startedAt = Date(timeIntervalSince1970: Double(seconds))
                if seconds < minimumTimestamp {
                    (out.ignoredCode, out.ignoredMessage) = (3, "Timestamp too old")
                } else if Double(seconds) > now.timeIntervalSince1970 + futureSlack {
                    (out.ignoredCode, out.ignoredMessage) = (4, "Timestamp too new")
                }
            } else {
                (out.ignoredCode, out.ignoredMessage) = (3, "Timestamp missing or not a whole number of seconds")
            }
        }
        return out
    }
}
