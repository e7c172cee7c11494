import Foundation
import GRDB
import PacenoteCore

/// A play as stored, with its track: what the watcher logged.
public struct LoggedPlay: Equatable, Sendable {
    public var id: Int64
    public var play: Play
    public var track: Track
}

/// What to do with a player's saved play in progress.
public enum OpenPlayUpdate: Equatable, Sendable {
    case keep
    case save(OpenPlay)
    case clear
}

extension Store {
    /// Stores what the play tracker decided, in one transaction: finished plays become
    /// rows of `plays`; the play in progress replaces the player's row of `open_plays`
    /// (deleted when nothing plays). A crash between two calls loses nothing.
    public func record(player: String, finished: [FinishedPlay], open: OpenPlayUpdate,
                       source: String = "mpd", rules: RuleSet = .empty, now: Date = Date()) throws(StoreError) -> [LoggedPlay] {
        // The rules first, before the write lock (tags and stream titles are anyone's text):
        // an ignored play leaves no trace, a hidden one goes to `hidden_plays`, a rewritten
        // one is filed under its new text.
        let outcomes = Store.decide(rules, finished.map { ($0.song.track, $0.playedSeconds, $0.song.uri) })
        return try write { db in
            try Store.noteRuleOverruns(outcomes.flatMap(\.overruns), at: now, in: db)
            var logged: [LoggedPlay] = []
            // A private session hides what it covers, as a `hide` rule would.
            let session = try finished.isEmpty ? nil : Store.privateSession(in: db)
            for (f, outcome) in zip(finished, outcomes) {
                let decision = Store.privateDecision(outcome.decision, start: f.startedAt, end: f.endedAt, session: session)
                guard var track = decision.track else { continue }
                let trackID = try Store.saveTrack(track, at: now, in: db)
                track.id = trackID
                track.albumID = try Store.albumID(ofTrack: trackID, in: db)
                let play = Play(trackID: trackID, startedAt: f.startedAt, endedAt: f.endedAt,
                                playedSeconds: f.playedSeconds, counted: f.counted, source: source, player: player,
                                playedBPM: f.song.tempo?.playedBPM, tempoRatio: f.song.tempo?.ratio)
                if case .hide = decision {
                    try Store.insertHiddenPlay(play, localTime: localTime, in: db)
                    continue
                }
                // The same play scrobbled first by another route (mpdscribble following this
                // MPD): the watcher's own record — exact times, the file, the time really
                // played — takes its place, in the same row (the rollups follow by trigger).
                if f.counted, let scrobbled = try Store.samePlay(track, startedAt: f.startedAt,
                                                                 duration: f.endedAt.timeIntervalSince(f.startedAt),
                                                                 within: Store.scrobbleWindow, source: source,
                                                                 notFrom: source, in: db) {
                    try db.execute(sql: """
                        UPDATE OR IGNORE plays SET track_id = ?, started_at_ms = ?, ended_at_ms = ?, played_s = ?,
                          source = ?, player = ?, local_day = ?, local_hour = ?, played_bpm = ?, tempo_ratio = ?
                        WHERE id = ?
                        """, arguments: [trackID, Store.milliseconds(f.startedAt), Store.milliseconds(f.endedAt), f.playedSeconds,
                                         source, player, localTime.day(of: f.startedAt), localTime.hour(of: f.startedAt),
                                         f.song.tempo?.playedBPM, f.song.tempo?.ratio, scrobbled])
                    continue
                }
                if let id = try Store.insertPlay(play, localTime: localTime, in: db) {
                    var stored = play
                    stored.id = id
                    logged.append(LoggedPlay(id: id, play: stored, track: track))
                }
            }
            switch open {
            case .keep: break
            case .save(let play): try Store.saveOpenPlay(play, player: player, now: now, in: db)
            case .clear: try db.execute(sql: "DELETE FROM open_plays WHERE player = ?", arguments: [player])
            }
            return logged
        }
    }

    static func saveOpenPlay(_ open: OpenPlay, player: String, now: Date, in db: Database) throws {
        // The track row is written once per song; later saves of the same song reuse it.
        let existing = try Row.fetchOne(
            db, sql: "SELECT track_id, song_uri, song_json FROM open_plays WHERE player = ?", arguments: [player])
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys  // stable text, so an unchanged song compares equal
        let json = String(decoding: try encoder.encode(open.song), as: UTF8.self)
        let trackID: Int64
        if let existing, existing["song_uri"] == open.song.uri, existing["song_json"] == json {
            trackID = existing["track_id"]
        } else {
            trackID = try saveTrack(open.song.track, at: now, in: db)
        }
        try db.cachedStatement(sql: """
            INSERT INTO open_plays (player, track_id, song_uri, song_json, mpd_song_id, started_at_ms, played_s,
                                    state, position_s, saved_at_ms, lost_at_ms)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (player) DO UPDATE SET
              track_id = excluded.track_id, song_uri = excluded.song_uri, song_json = excluded.song_json,
              mpd_song_id = excluded.mpd_song_id, started_at_ms = excluded.started_at_ms,
              played_s = excluded.played_s, state = excluded.state, position_s = excluded.position_s,
              saved_at_ms = excluded.saved_at_ms, lost_at_ms = excluded.lost_at_ms
            """).execute(arguments: [
                player, trackID, open.song.uri, json, open.songID, milliseconds(open.startedAt),
                open.playedSeconds, open.isPlaying ? "play" : "pause", open.position,
                milliseconds(open.asOf), open.lostAt.map(milliseconds),
            ])
    }

    /// Saves the play in progress (the periodic save while playing).
    public func saveProgress(player: String, _ open: OpenPlay) throws(StoreError) {
        try write { db in try Store.saveOpenPlay(open, player: player, now: Date(), in: db) }
    }

    /// The play that was in progress on `player` when Pacenote last stopped, if any.
    public func openPlay(player: String) throws(StoreError) -> OpenPlay? {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM open_plays WHERE player = ?", arguments: [player]),
                  let song = try? JSONDecoder().decode(SongInfo.self, from: Data((row["song_json"] as String).utf8))
            else { return nil }
            return OpenPlay(
                song: song, songID: row["mpd_song_id"], startedAt: Store.date(milliseconds: row["started_at_ms"]),
                playedSeconds: row["played_s"], isPlaying: row["state"] == "play",
                asOf: Store.date(milliseconds: row["saved_at_ms"]), position: row["position_s"],
                lostAt: (row["lost_at_ms"] as Int64?).map(Store.date(milliseconds:)))
        }
    }
}
