import Foundation
import PacenoteTestSupport
import Testing

/// Genres as entities (issue 58, point 5) through the real binary and a real MPD: a file
/// tagged with two `Genre` values counts for both in `/api/v1/stats?by=genre` and on the
/// stats page; case variants are one genre; a merge of genres moves the plays.
@Suite struct GenresTests {
    /// `GET /api/v1/stats?range=all&by=genre`'s top_genres as name → plays.
    static func topGenres(_ daemon: PacenoteDaemon) throws -> [String: Int] {
        let r = try HTTP.get(daemon.base + "/api/v1/stats?range=all&by=genre&limit=100")
        guard r.status == 200, let rows = r.json?["top_genres"] as? [[String: Any]] else {
            throw HarnessError("stats by genre answered \(r.status): \(r.text)")
        }
        var out: [String: Int] = [:]
        for row in rows { out[row["genre"] as? String ?? "?"] = row["plays"] as? Int ?? -1 }
        return out
    }

    @Test func aFileWithTwoGenreTagsCountsForBothGenres() throws {
        let mpd = try MPDInstance(tracks: [
            TestTrack("01.flac", seconds: 2, title: "Amen Break", artist: "Breaks Crew", repeatedTags: ["GENRE=Drum & Bass", "GENRE=Jungle"]),
            // A case variant of the first genre: the same genre.
            TestTrack("02.flac", seconds: 2, title: "Roller", artist: "Breaks Crew", tags: ["GENRE": "drum & bass"]),
            // One text naming two.
            TestTrack("03.flac", seconds: 2, title: "Ballad", artist: "Slow Band", tags: ["GENRE": "Rock/Pop"]),
        ])
        // MPD itself reports both Genre values, one line each.
        let info = try mpd.command("lsinfo 01.flac")
        #expect(info.contains("Genre: Drum & Bass\n") && info.contains("Genre: Jungle\n"), "\(info)")

        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)", config: "[plays]\nmin_track_s = 1\n")
        guard try eventually(timeout: 10, { try daemon.mpdConnected() }) else { throw HarnessError("pacenote did not connect to mpd") }
        _ = try mpd.mpc("add", "/")
        _ = try mpd.mpc("play")
        var listens: [PacenoteDaemon.Listen] = []
        _ = try eventually(timeout: 20) {
            listens = try daemon.listens()
            return listens.count >= 3
        }
        #expect(listens.map(\.title) == ["Amen Break", "Roller", "Ballad"], "\(listens)")
        #expect(listens.allSatisfy { $0.counted }, "\(listens)")

        // Each genre of a play has it: the first file counts for both of its genres, the
        // second under the first's spelling.
        #expect(try Self.topGenres(daemon) == ["Drum & Bass": 2, "Jungle": 1, "Rock": 1, "Pop": 1])
        #expect(try daemon.sql("SELECT g.name FROM track_genres tg JOIN genres g ON g.id = tg.genre_id JOIN tracks t ON t.id = tg.track_id "
                               + "WHERE t.uri = '01.flac' ORDER BY tg.position") == "Drum & Bass\nJungle\n")
        // The same range as the other charts: this year's genres are all time's here.
        let year = try HTTP.get(daemon.base + "/api/v1/stats?range=year&by=genre&limit=1")
        let first = (year.json?["top_genres"] as? [[String: Any]])?.first
        #expect(year.status == 200 && (year.json?["top_genres"] as? [Any])?.count == 1 && first?["genre"] as? String == "Drum & Bass"
                && first?["rank"] as? Int == 1 && (year.json?["totals"] as? [String: Any])?["plays"] as? Int == 3, "\(year.text)")
        // A `by` it does not know is a 400 with a JSON error.
        let bad = try HTTP.get(daemon.base + "/api/v1/stats?by=mood")
        #expect(bad.status == 400 && (bad.json?["error"] as? [String: Any])?["code"] as? String == "invalid_by", "\(bad.status) \(bad.text)")

        // The stats page shows the genre chart.
        let page = try HTTP.get(daemon.base + "/stats?range=all")
        #expect(page.status == 200 && page.text.contains("Top genres") && page.text.contains("Drum &amp; Bass</span>")
                && page.text.contains(">Jungle</span>"), "\(page.status)")

        // Jungle merged into Drum & Bass (by name, as the artists'): the file under both
        // keeps one link, and its play counts once.
        let merge = try daemon.post("/api/v1/merges", body: #"{"kind": "genre", "from": ["jungle"], "into": "Drum & Bass"}"#)
        #expect(merge.status == 201, "\(merge.status) \(merge.text)")
        #expect(try Self.topGenres(daemon) == ["Drum & Bass": 2, "Rock": 1, "Pop": 1])
        // Undone, the genres are as they were.
        let entry = try #require(merge.json?["id"] as? Int)
        let undo = try daemon.post("/api/v1/curation/\(entry)/undo", body: "")
        #expect(undo.status == 200, "\(undo.status) \(undo.text)")
        #expect(try Self.topGenres(daemon) == ["Drum & Bass": 2, "Jungle": 1, "Rock": 1, "Pop": 1])
    }
}
