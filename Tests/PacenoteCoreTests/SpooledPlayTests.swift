import Foundation
import PacenoteCore
import Testing

/// The spool's line format: what a full disk leaves behind must come back exactly.
@Suite struct SpooledPlayTests {
    static func play(_ uri: String, at start: Double, tags: [String: String] = ["Title": "T", "Artist": "A"],
                     counted: Bool = true) -> FinishedPlay {
        FinishedPlay(song: SongInfo(uri: uri, tags: tags, durationSeconds: 212.5, lastModified: 1_700_000_000),
                     startedAt: Date(timeIntervalSince1970: start), endedAt: Date(timeIntervalSince1970: start + 212.6),
                     playedSeconds: 212.6, counted: counted)
    }

    @Test func linesComeBackExactlyAndInOrder() {
        let plays = [
            SpooledPlay(player: "default", play: Self.play("a.flac", at: 1_700_000_000.123), error: "database or disk is full"),
            // Text JSON must escape: quotes, a newline, a tab, a backslash, accents, emoji.
            SpooledPlay(player: "kitchen", play: Self.play("dir/\"b\"\n.flac", at: 1_700_000_300.0004,
                                                           tags: ["Title": "Tab\there \\ é 🎵", "Name": "x\u{1}y"], counted: false)),
            SpooledPlay(player: "default", play: Self.play("http://radio.example/stream", at: 0.001)),
        ]
        let bytes = plays.flatMap(\.line)
        #expect(!bytes.contains(0), "a line never holds the padding byte")
        #expect(bytes.filter { $0 == 0x0A }.count == 3, "one line each")
        let parsed = SpooledPlay.parse(bytes)
        #expect(parsed.plays == plays)
        #expect(parsed.damaged == 0)
        // Times round-trip to the bit, so a replay stores the same millisecond.
        #expect(parsed.plays.map(\.play.startedAt.timeIntervalSince1970) == plays.map(\.play.startedAt.timeIntervalSince1970))
    }

    @Test func thePaddingEndsTheLines() {
        let one = SpooledPlay(player: "p", play: Self.play("a.flac", at: 100))
        let bytes = one.line + [UInt8](repeating: 0, count: 4096) + Array("{\"stale\":true}\n".utf8)
        let parsed = SpooledPlay.parse(bytes)
        #expect(parsed.plays == [one])
        #expect(parsed.damaged == 0)
        #expect(SpooledPlay.parse([UInt8](repeating: 0, count: 65536)).plays.isEmpty)
        #expect(SpooledPlay.parse([]).plays.isEmpty)
    }

    @Test func aLineCutShortIsSkippedAndCounted() {
        let a = SpooledPlay(player: "p", play: Self.play("a.flac", at: 100))
        let b = SpooledPlay(player: "p", play: Self.play("b.flac", at: 400))
        // A crash in the middle of writing b: its half line has no newline.
        let torn = a.line + b.line.prefix(20)
        #expect(SpooledPlay.parse(torn).plays == [a])
        #expect(SpooledPlay.parse(torn).damaged == 1)
        // A half line followed by a later line (written after a restart) spoils only itself.
        let glued = a.line + b.line.prefix(20) + [0x0A] + b.line
        #expect(SpooledPlay.parse(glued).plays == [a, b])
        #expect(SpooledPlay.parse(glued).damaged == 1)
        // Not JSON at all, or JSON of another shape.
        #expect(SpooledPlay.parse(Array("garbage\n{\"player\":1}\n".utf8)) == ([], 2))
    }
}
