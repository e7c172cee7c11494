import Foundation

/// A finished play that the store could not take (a full disk), as one line of the spool
/// file (`InstanceFiles.spool`): JSON, one object a line, oldest first. The daemon replays
/// the lines at its next start; the store keeps one play per (track, start), so a line
/// replayed twice is stored once.
///
/// ```
/// {"player":"default","uri":"a.flac","tags":{"Title":"A"},"duration_s":212.5,
///  "started_at":1700000000.123,"ended_at":1700000212.6,"played_s":212.5,"counted":true,
///  "error":"database or disk is full"}
/// ```
///
/// Times are seconds since 1970 as JSON doubles, which round-trip exactly, so the replayed
/// start is the very millisecond the first attempt would have stored.
public struct SpooledPlay: Equatable, Sendable {
    public var player: String
    public var play: FinishedPlay
    /// Why the store refused it when it was spooled (shown by `pacenote doctor`).
    public var error: String?

    public init(player: String, play: FinishedPlay, error: String? = nil) {
        self.player = player
        self.play = play
        self.error = error
    }

    /// The spool line for this play, `\n` included. It never contains a NUL byte (JSON
    /// escapes control characters), which is what pads the spool's reserved space.
    public var line: [UInt8] {
        let line = Line(
            player: player, uri: play.song.uri, tags: play.song.tags, duration_s: play.song.durationSeconds,
            last_modified: play.song.lastModified, started_at: play.startedAt.timeIntervalSince1970,
            ended_at: play.endedAt.timeIntervalSince1970, played_s: play.playedSeconds, counted: play.counted,
            error: error)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a struct of strings and numbers cannot fail but for a non-finite number,
        // which the tracker never produces; such a play is written with zeros instead.
        let data = (try? encoder.encode(line)) ?? (try? encoder.encode(line.finite)) ?? Data("{}".utf8)
        return Array(data) + [0x0A]
    }

    /// The plays in a spool's bytes: everything before the first NUL (the reserved space
    /// after the last line is zeros), one JSON object a line. A line that does not parse — a
    /// write cut short by a crash — is counted in `damaged` and skipped.
    public static func parse(_ bytes: [UInt8]) -> (plays: [SpooledPlay], damaged: Int) {
        let used = bytes.prefix { $0 != 0 }
        var plays: [SpooledPlay] = []
        var damaged = 0
        let decoder = JSONDecoder()
        let lines = used.split(separator: 0x0A, omittingEmptySubsequences: true)
        for (index, text) in lines.enumerated() {
            // The last line without its newline was cut off while being written.
            let complete = index < lines.count - 1 || used.last == 0x0A
            guard complete, let line = try? decoder.decode(Line.self, from: Data(text)) else {
                damaged += 1
                continue
            }
            plays.append(line.spooled)
        }
        return (plays, damaged)
    }

    /// The line's JSON, field for field.
    private struct Line: Codable {
        var player: String
        var uri: String
        var tags: [String: String]
        var duration_s: Double?
        var last_modified: Double?
        var started_at: Double
        var ended_at: Double
        var played_s: Double
        var counted: Bool
        var error: String?

        var spooled: SpooledPlay {
            SpooledPlay(
                player: player,
                play: FinishedPlay(
                    song: SongInfo(uri: uri, tags: tags, durationSeconds: duration_s, lastModified: last_modified),
                    startedAt: Date(timeIntervalSince1970: started_at), endedAt: Date(timeIntervalSince1970: ended_at),
                    playedSeconds: played_s, counted: counted),
                error: error)
        }

        var finite: Line {
            func f(_ x: Double) -> Double { x.isFinite ? x : 0 }
            var copy = self
            copy.duration_s = duration_s.map(f)
            copy.last_modified = last_modified.map(f)
            copy.started_at = f(started_at)
            copy.ended_at = f(ended_at)
            copy.played_s = f(played_s)
            return copy
        }
    }
}
