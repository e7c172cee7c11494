import Foundation

/// Plays written out for other services and for Pacenote itself.
public enum ListenExport {
    public enum Format: String, Sendable, CaseIterable { case listenbrainz, csv }

    /// One ListenBrainz listen as a JSON line (the layout of ListenBrainz's own export and
    /// of `submit-listens` payload items). `listened_at` is whole seconds as ListenBrainz
    /// requires; the `pacenote_*` fields in `additional_info` (which ListenBrainz keeps as
    /// it is) carry what a re-import into Pacenote needs to restore the play exactly.
    public static func listenBrainzLine(play: Play, track: Track) -> String {
        let startMs = milliseconds(play.startedAt)
        var info: [(String, String)] = []
        if let d = track.durationSeconds { info.append(("duration_ms", String(Int64((d * 1000).rounded())))) }
        if let v = track.musicBrainz.recording { info.append(("recording_mbid", quote(v))) }
        if let v = track.musicBrainz.release { info.append(("release_mbid", quote(v))) }
        if let listed = track.listedCredit {
            // ListenBrainz's own fields for a credit it knows artist by artist.
            info.append(("artist_names", "[" + listed.names.map(quote).joined(separator: ", ") + "]"))
            let ids = listed.artists.compactMap(\.mbid)
            if ids.count == listed.artists.count { info.append(("artist_mbids", "[" + ids.map(quote).joined(separator: ", ") + "]")) }
            else if let v = track.musicBrainz.artist { info.append(("artist_mbids", "[" + quote(v) + "]")) }
        } else if let v = track.musicBrainz.artist { info.append(("artist_mbids", "[" + quote(v) + "]")) }
        if let v = track.trackNumber { info.append(("tracknumber", String(v))) }
        if let v = play.player { info.append(("media_player", quote(v))) }
        info.append(("submission_client", quote("pacenote")))
        info.append(("pacenote_started_at_ms", String(startMs)))
        info.append(("pacenote_ended_at_ms", String(milliseconds(play.endedAt))))
        info.append(("pacenote_played_s", number(play.playedSeconds)))
        info.append(("pacenote_counted", play.counted ? "true" : "false"))
        info.append(("pacenote_source", quote(play.source)))
        var metadata = [("artist_name", quote(track.artist ?? track.albumArtist ?? "")), ("track_name", quote(track.title))]
        if let album = track.album { metadata.append(("release_name", quote(album))) }
        metadata.append(("additional_info", object(info)))
        let seconds = startMs >= 0 ? startMs / 1000 : (startMs - 999) / 1000
        return object([("listened_at", String(seconds)), ("track_metadata", object(metadata))])
    }

    public static let csvHeader =
        "uts,utc_time,artist,artist_mbid,album,album_mbid,track,track_mbid,started_at_ms,played_s,counted,player,duration_s,source"

    /// One row under `csvHeader`: the Last.fm exporter's columns first (so that tools made
    /// for those files read it), then what Pacenote needs to restore the play exactly.
    public static func csvLine(play: Play, track: Track) -> String {
        let startMs = milliseconds(play.startedAt)
        let fields: [String?] = [
            String(startMs >= 0 ? startMs / 1000 : (startMs - 999) / 1000), ImportTime.iso(startMs / 1000 * 1000),
            track.artist ?? track.albumArtist, track.musicBrainz.artist, track.album, track.musicBrainz.release,
            track.title, track.musicBrainz.recording, String(startMs), number(play.playedSeconds),
            play.counted ? "1" : "0", play.player, track.durationSeconds.map(number), play.source,
        ]
        return fields.map { csvField($0 ?? "") }.joined(separator: ",")
    }

    static func csvField(_ s: String) -> String {
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) || s.first?.isWhitespace == true
                || s.last?.isWhitespace == true else { return s }
        return "\"" + s.replacingAll("\"", with: "\"\"") + "\""
    }

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// The shortest text that reads back as the same Double.
    static func number(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return "\(v)"
    }

    static func object(_ members: [(String, String)]) -> String {
        "{" + members.map { quote($0.0) + ": " + $0.1 }.joined(separator: ", ") + "}"
    }

    static func quote(_ s: String) -> String { QuotedString.literal(s) }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        components(separatedBy: target).joined(separator: replacement)
    }
}
