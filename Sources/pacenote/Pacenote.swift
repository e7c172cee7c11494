import ArgumentParser
import Foundation
import PacenoteCore

@main
struct Pacenote: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pacenote",
        abstract: "Logs what MPD plays, with your heart rate, and serves a dashboard.",
        discussion: """
            Configuration is read from defaults, then the TOML file (--config, $PACENOTE_CONFIG, \
            or $XDG_CONFIG_HOME/pacenote/config.toml), then environment variables, then flags. \
            Every key is documented in docs/pacenote.example.toml.
            """,
        version: PacenoteVersion.current,
        subcommands: [Serve.self, Migrate.self, Credits.self, ShowConfig.self, Key.self, Backup.self, Restore.self, HRFeed.self, HRScan.self, HRV.self, Import.self, Export.self, Analyze.self,
                      Recommend.self, Plan.self, WorkoutCommand.self, TempoCommand.self, Demo.self, Doctor.self, Forward.self, Bench.self],
        defaultSubcommand: Serve.self
    )

    /// Parses the command line and runs the command. Commands throw; `Failure.exit` is the
    /// one place an error becomes the last line and the exit status.
    static func main() {
        // Before anything is written, in every command: what Pacenote creates (the
        // database, keys, exports, covers, uploads) is its owner's only, from the first
        // byte, even where a library creates a file with the default mode (docs/SECURITY.md).
        umask(0o077)
        var command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            exit(withError: error)
        }
        do {
            try command.run()
        } catch {
            Failure.exit(error)
        }
    }
}
