/// Rows of the JSON exports Pacenote imports, each read into an `ImportRow`.
public enum ExportRows {
    /// A listen of a ListenBrainz export (one line of its JSONL files, or one element of
    /// the older JSON array), with the fields `submit-listens` takes
    /// (https://listenbrainz.readthedocs.io/en/latest/users/json.html): `listened_at`,
    /// `track_metadata.artist_name`/`track_name`/`release_name` and `additional_info`
    /// (`duration_ms` or `duration`, the MusicBrainz ids, `tracknumber`, the player).
    /// Pacenote's own export adds `pacenote_*` fields to `additional_info` so that a play
    /// comes back exactly (start in ms, end, seconds played, skip or not).
    public static func listenBrainz(_ json: ImportJSON) -> ImportRow {
        guard case .object = json else { return .error("a listen must be a JSON object") }
        guard let seconds = json["listened_at"]?.number else { return .error("no listened_at") }
        guard let metadata = json["track_metadata"], case .object = metadata else { return .error("no track_metadata") }
        guard let artist = metadata["artist_name"]?.text else { return .error("no track_metadata.artist_name") }
        guard let title = metadata["track_name"]?.text else { return .error("no track_metadata.track_name") }
        let info = metadata["additional_info"] ?? .null
        guard var startMs = ImportTime.milliseconds(seconds: seconds) else {
            return .error("listened_at \(json["listened_at"].map(Self.describe) ?? "") is not a Unix time from 1990 to 2099")
        }
        if let exact = info["pacenote_started_at_ms"]?.wholeNumber, exact / 1000 == startMs / 1000 { startMs = exact }
        var duration: Double?
        if let ms = info["duration_ms"]?.number, ms > 0 { duration = ImportTime.seconds(ms / 1000) }
        else if let s = info["duration"]?.number, s > 0 { duration = ImportTime.seconds(s) }
        let played = ImportTime.seconds(info["pacenote_played_s"]?.number) ?? duration ?? 0
        var counted = true
        if case .bool(let b)? = info["pacenote_counted"] { counted = b }
        let track = Track(
            title: title, artist: artist, album: metadata["release_name"]?.text,
            trackNumber: info["tracknumber"]?.wholeNumber.map { Int($0) },
            durationSeconds: duration,
            musicBrainz: MusicBrainzIDs(
                recording: info["recording_mbid"]?.text, release: info["release_mbid"]?.text,
                artist: info["artist_mbids"]?.array?.first?.text),
            listedCredit: info["artist_names"]?.array.flatMap { names in
                ArtistCredit(listed: names.compactMap(\.text), mbids: info["artist_mbids"]?.array?.compactMap(\.text) ?? [])
            })
        // Pacenote's own export names the player only in media_player (submission_client is Pacenote).
        let player = info["pacenote_source"] != nil ? info["media_player"]?.text
            : info["media_player"]?.text ?? info["submission_client"]?.text ?? info["listening_from"]?.text
        // An end more than two days after the start is not this play's.
        let endMs = info["pacenote_ended_at_ms"]?.wholeNumber.flatMap { $0 - startMs < 172_800_000 ? $0 : nil }
        return .listen(ImportedListen(track: track, startedAtMs: startMs, endedAtMs: endMs, playedSeconds: played,
                                      counted: counted, player: player))
    }

    /// Spotify's streaming history: the extended one (`Streaming_History_Audio_*.json`,
    /// `endsong_*.json`: `ts` is when playback *ended*, `ms_played`,
    /// `master_metadata_*`) and the short yearly one (`StreamingHistory*.json`:
    /// `endTime`, `artistName`, `trackName`, `msPlayed`). Under 30 s played is a skip
    /// (Spotify's own threshold for a stream to count); podcast episodes are left out.
    public static func spotify(_ json: ImportJSON) -> ImportRow {
        guard case .object = json else { return .error("a stream must be a JSON object") }
        let extended = json["ms_played"] != nil
        guard let msPlayed = (extended ? json["ms_played"] : json["msPlayed"])?.number,
              let seconds = ImportTime.seconds(msPlayed / 1000) else { return .error("no readable ms_played") }
        guard let endText = (extended ? json["ts"] : json["endTime"])?.text, let endMs = ImportTime.parse(endText) else {
            return .error("no readable ts")
        }
        if json["episode_name"]?.text != nil || json["spotify_episode_uri"]?.text != nil { return .skipped("podcast episode") }
        let title = (extended ? json["master_metadata_track_name"] : json["trackName"])?.text
        let artist = (extended ? json["master_metadata_album_artist_name"] : json["artistName"])?.text
        guard let title, let artist else { return .skipped("no track (a podcast, audiobook or video)") }
        let startMs = endMs - Int64((seconds * 1000).rounded())
        if let problem = ImportTime.problem(startMs, "ts \(endText)") { return .error(problem) }
        let track = Track(title: title, artist: artist, album: json["master_metadata_album_album_name"]?.text)
        return .listen(ImportedListen(track: track, startedAtMs: startMs, endedAtMs: endMs, playedSeconds: seconds,
                                      counted: seconds >= 30, player: nil))
    }

    /// A scrobble of Maloja's export (`maloja export`: `{"scrobbles": [...]}`): `time`
    /// (Unix seconds), `track.artists`, `track.title`, `track.album.albumtitle`,
    /// `track.length`, and `duration` (seconds listened, when the client said).
    public static func maloja(_ json: ImportJSON) -> ImportRow {
        guard case .object = json else { return .error("a scrobble must be a JSON object") }
        guard let seconds = json["time"]?.number else { return .error("no time") }
        guard let trackJSON = json["track"] else { return .error("no track") }
        let artists = (trackJSON["artists"]?.array ?? []).compactMap(\.text)
        guard !artists.isEmpty else { return .error("no track.artists") }
        guard let title = trackJSON["title"]?.text else { return .error("no track.title") }
        guard let startMs = ImportTime.milliseconds(seconds: seconds.rounded(.towardZero)) else {
            return .error("time \(json["time"].map(Self.describe) ?? "") is not a Unix time from 1990 to 2099")
        }
        let album = trackJSON["album"]
        let length = ImportTime.seconds(trackJSON["length"]?.number).flatMap { $0 > 0 ? $0 : nil }
        let track = Track(title: title, artist: artists.joined(separator: ", "),
                          album: album?["albumtitle"]?.text ?? album?["name"]?.text, durationSeconds: length)
        let played = ImportTime.seconds(json["duration"]?.number).flatMap { $0 > 0 ? $0 : nil } ?? length ?? 0
        let origin = json["origin"]?.text
        return .listen(ImportedListen(track: track, startedAtMs: startMs, playedSeconds: played,
                                      player: origin.map { $0.hasPrefix("client:") ? String($0.dropFirst(7)) : $0 },
                                      artists: artists))
    }

    /// A JSON value as a message quotes it.
    static func describe(_ value: ImportJSON) -> String {
        switch value {
        case .number(let n): n.isFinite && abs(n) < 9_007_199_254_740_992 && n == n.rounded() ? String(Int64(n)) : String(n)
        case .string(let s): "'\(s.prefix(40))'"
        default: "(not a number)"
        }
    }
}
