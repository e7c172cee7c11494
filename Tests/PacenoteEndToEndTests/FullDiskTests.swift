import Foundation
import Glibc
import PacenoteTestSupport
import Testing

/// A full disk loses no play: the database on a small tmpfs, the rest of it filled, songs
/// played on a real MPD. Plays that cannot be stored wait (the status says how many and
/// why), are stored by the retry timer once space returns, and survive a SIGTERM in between:
/// the next start stores each exactly once.
///
/// Needs root and mount(8) (PLATFORM.md "Faults"): without them it fails, with the reason
/// (scripts/test runs as root on our machines); it never skips itself.
@Suite
struct FullDiskTests {
    /// A tmpfs of `megabytes`, unmounted when done.
    final class SmallDisk {
        let directory: TemporaryDirectory
        var path: String { directory.path }
        var filler: String { directory.file("filler") }

        init(megabytes: Int) throws {
            guard geteuid() == 0 else { throw HarnessError("mounting a tmpfs needs root (running as uid \(geteuid()))") }
            directory = try TemporaryDirectory("pacenote-full-disk")
            let r = try run(try Tools.require("mount"), ["-t", "tmpfs", "-o", "size=\(megabytes)m,mode=0700", "tmpfs", directory.path],
                            allowFailure: true)
            guard r.status == 0 else { throw HarnessError("mount -t tmpfs failed: \(r.stderr)") }
        }

        deinit {
            _ = try? run(try Tools.require("umount"), ["-l", directory.path], allowFailure: true)
        }

        /// Writes a file until the disk refuses more; returns its size.
        @discardableResult
        func fill() -> Int {
            let fd = open(filler, O_WRONLY | O_CREAT | O_APPEND, 0o600)
            defer { close(fd) }
            let chunk = [UInt8](repeating: 0xAB, count: 4096)
            var total = 0
            while true {
                let n = chunk.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
                if n <= 0 { break }
                total += n
            }
            fsync(fd)
            return total
        }

        func free() throws { try FileManager.default.removeItem(atPath: filler) }
    }

    static func waiting(_ pacenote: PacenoteDaemon) throws -> (count: Int, error: String?) {
        guard let waiting = try pacenote.status()["plays_waiting"] as? [String: Any] else {
            throw HarnessError("no plays_waiting in the status")
        }
        return ((waiting["count"] as? NSNumber)?.intValue ?? -1, waiting["last_error"] as? String)
    }

    /// The plays in the spool file, by reading its lines (up to the reserved zeros).
    static func spooledLines(_ path: String) throws -> [String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return String(decoding: data.prefix { $0 != 0 }, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test func playsWaitThroughAFullDiskAndAStopThenLandOnce() throws {
        let disk = try SmallDisk(megabytes: 8)
        let titles = ["A", "B", "C", "D"]
        let mpd = try MPDInstance(tracks: titles.map { TestTrack("\($0.lowercased()).flac", seconds: 2.5, title: $0, artist: "Full") })
        let db = disk.path + "/pacenote.sqlite"
        let pacenote = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)", config: "[plays]\nmin_track_s = 1\n", arguments: ["--db", db])
        guard try eventually(timeout: 10, { try pacenote.mpdConnected() }) else { throw HarnessError("pacenote did not connect to mpd") }
        #expect(try Self.waiting(pacenote).count == 0)
        let spool = disk.path + "/spool.jsonl"
        #expect(FileManager.default.fileExists(atPath: spool), "the spool is reserved beside the database at start")

        // 1. The disk fills; two songs play to their end. Both wait, and say why.
        #expect(disk.fill() > 1 << 20)
        try mpd.mpc("add", "a.flac")
        try mpd.mpc("add", "b.flac")
        try mpd.mpc("play")
        #expect(try eventually(timeout: 15) { try Self.waiting(pacenote).count == 2 }, "\(pacenote.process.stderr)")
        let first = try Self.waiting(pacenote)
        #expect(first.error?.contains("full") == true, "the last error: \(first.error ?? "none")")
        #expect(try Self.spooledLines(spool).count == 2, "both are on disk")
        #expect(try pacenote.listens().isEmpty)

        // 2. Space returns: the retry timer stores them, without another play.
        try disk.free()
        #expect(try eventually(timeout: 40, interval: 0.2) { try Self.waiting(pacenote).count == 0 }, "\(pacenote.process.stderr)")
        #expect(try pacenote.listens().map(\.title) == ["A", "B"])
        #expect(try Self.spooledLines(spool).isEmpty, "emptied once stored")

        // 3. Full again; two more songs wait, and the daemon is stopped (SIGTERM) before
        // space returns.
        disk.fill()
        try mpd.mpc("clear")
        try mpd.mpc("add", "c.flac")
        try mpd.mpc("add", "d.flac")
        try mpd.mpc("play")
        #expect(try eventually(timeout: 15) { try Self.waiting(pacenote).count == 2 }, "\(pacenote.process.stderr)")
        try pacenote.stop()
        #expect(try Self.spooledLines(spool).count == 2, "kept on disk through the stop")

        // 4. Space returns while it is down; the next start stores them first, once each.
        try disk.free()
        try pacenote.restart()
        #expect(pacenote.process.stderr.contains("replaying 2 play(s) kept in \(spool)"), "\(pacenote.process.stderr)")
        #expect(try Self.waiting(pacenote).count == 0)
        let listens = try pacenote.listens()
        #expect(listens.map(\.title) == titles, "every counted play exactly once, in order: \(listens)")
        #expect(listens.allSatisfy { $0.counted })
        let rows = try run(try Tools.require("sqlite3"), [db, "SELECT COUNT(*), COUNT(DISTINCT track_id || '@' || started_at_ms) FROM plays"])
        #expect(rows.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "4|4")
        #expect(try Self.spooledLines(spool).isEmpty)
    }
}
