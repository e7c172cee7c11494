import ArgumentParser
import Foundation
import PacenoteApp

struct TempoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tempo",
        abstract: "Tempo-matched playback's renderer, by hand.",
        subcommands: [Render.self])

    struct Render: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Render an audio file time-stretched with its pitch kept, as [tempo] does for a queued song.",
            discussion: """
                Reads FLAC, WAV, Ogg Vorbis or MP3 (libsndfile) and writes FLAC, 16-bit, through a \
                .part file renamed when whole: a failed render leaves nothing. --ratio 1.05 plays 5 % \
                faster (the copy lasts 1/1.05 as long); or give the song's tempo and the one wanted \
                (--from 163 --to 170). Prints the lengths and how long the render took.
                """)

        @Argument(help: "The file to render.") var source: String
        @Argument(help: "Where the copy goes (FLAC).") var destination: String
        @Option(help: ArgumentHelp("Tempo factor, 0.5 to 2.", valueName: "x")) var ratio: Double?
        @Option(help: ArgumentHelp("The song's tempo, with --to.", valueName: "bpm")) var from: Double?
        @Option(help: ArgumentHelp("The tempo wanted, with --from.", valueName: "bpm")) var to: Double?
        @Option(help: "fast, balanced or best.") var quality = "balanced"
        @Flag(help: "A soft click on each beat (aubio's beat tracker).") var click = false

        func validate() throws {
            guard ["fast", "balanced", "best"].contains(quality) else { throw ValidationError("--quality: fast, balanced or best, not \(quality)") }
            switch (ratio, from, to) {
            case (let r?, nil, nil) where (0.5...2).contains(r): break
            case (nil, let f?, let t?) where f > 0 && t > 0 && (0.5...2).contains(t / f): break
            default: throw ValidationError("give --ratio (0.5 to 2), or --from and --to (a change of 0.5 to 2 times)")
            }
        }

        func run() throws {
            let factor = ratio ?? (to! / from!)
            // Ctrl-C stops the render: the copy under way (`DESTINATION.part`) goes, nothing is left.
            let partial = destination + ".part"
            ProcessSignals.shared.onSignal { _ in
                unlink(partial)
                FileHandle.standardError.write(Data("pacenote: render stopped; nothing was written\n".utf8))
                Foundation.exit(130)
            }
            print(try TempoService.renderFile(source: source, destination: destination, ratio: factor, quality: quality, click: click))
        }
    }
}
