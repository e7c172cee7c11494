import ArgumentParser
import Foundation
import PacenoteApp
import PacenoteCore

struct Analyze: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Detect the tempo of library files that have no BPM, how clear their beat is and how loud they are, from their audio.",
        discussion: """
            Runs sox and bpm-tools' bpm on each file of MPD's library that has no BPM yet (tag, sticker or \
            manual), several at a time, and stores the value with source 'analysis' and a confidence. \
            Then it measures how clear the beat of each file not yet measured is (aubio's beat tracker, \
            libaubio5), which the recommender ranks on when there is a tempo to run to. \
            Then it measures the loudness of each file not yet measured: EBU R 128 integrated loudness \
            (LUFS) and loudness range (LU), with libebur128 (libebur128-1); a mono file is measured as \
            dual mono, as heard on two speakers. \
            Interrupted, it resumes where it stopped. Files are found under mpd.music_directory, or \
            where MPD's `config` command says (over MPD's local socket only). The daemon must have \
            mirrored the library first.
            """)

    @OptionGroup var storage: StorageOptions

    @Option(name: .long, help: ArgumentHelp("MPD (for --write-stickers and the music directory): host, password@host or a socket path.", valueName: "host[:port]"))
    var mpd: String?

    @Option(name: .long, help: ArgumentHelp("Files analysed at a time. Default: the number of cores.", valueName: "n"))
    var jobs: Int?

    @Flag(name: .customLong("write-stickers"), help: "Also store each result as an MPD `bpm` sticker (needs MPD's sticker_file).")
    var writeStickers = false

    func run() throws {
        let config = try storage.loadConfig(mpd: mpd)
        let player = config.mpd
        let analyzer = try BPMAnalyzer()
        let endpoint = try player.endpoint
        guard let directory = BPMAnalyzer.musicDirectory(player) else {
            throw Failure("cannot find the music files: set mpd.music_directory, or connect to MPD over its local socket")
        }
        let progress = ProgressReporter("analyze")
        let store = try PacenoteServer.openStore(config: config)
        defer { try? store.close() }
        let summary = try analyzer.analyseLibrary(
            store: store, musicDirectory: directory, jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount,
            stickers: writeStickers ? endpoint : nil,
            progress: { done, total in progress.update(fraction: total > 0 ? Double(done) / Double(total) : 1, "\(done)/\(total) files") })
        progress.finish()
        for failure in summary.failed {
            Failure.warn("\(failure.uri): \(failure.reason)")
        }
        for failure in summary.beatsFailed {
            Failure.warn("\(failure.uri): beat not measured: \(failure.reason)")
        }
        if let reason = summary.beatsUnavailable {
            Failure.warn("beats not measured: \(reason)")
        }
        for failure in summary.loudnessFailed {
            Failure.warn("\(failure.uri): loudness not measured: \(failure.reason)")
        }
        if let reason = summary.loudnessUnavailable {
            Failure.warn("loudness not measured: \(reason)")
        }
        print("analysed \(counted(summary.analysed, "file")) in \(String(format: "%.1f", summary.seconds)) s, \(summary.failed.count) failed"
              + (writeStickers ? ", \(counted(summary.stickersWritten, "sticker")) written" : "")
              + (summary.beatsUnavailable == nil ? ", beats of \(counted(summary.beatsMeasured, "file")) measured" : "")
              + (summary.beatsFailed.isEmpty ? "" : " (\(summary.beatsFailed.count) not)")
              + (summary.loudnessUnavailable == nil ? ", loudness of \(counted(summary.loudnessMeasured, "file")) measured" : "")
              + (summary.loudnessFailed.isEmpty ? "" : " (\(summary.loudnessFailed.count) not)"))
        if !summary.failed.isEmpty { throw ExitCode.failure }
    }
}
