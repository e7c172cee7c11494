import ArgumentParser
import Foundation
import PacenoteApp
import PacenoteCore
import PacenoteOperations
import PacenoteStore

struct Credits: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show, or apply, how a change of credit separators would split artists.",
        discussion: """
            Credit text is split on feat., ft., featuring and (with …) always, and on the \
            separators of [credits] separators besides. --preview lists every track whose \
            artists a change would split differently (and its plays, which move in the artist \
            charts); --apply splits them so, exactly as previewed, and keeps the separators for \
            new tracks. Without --separators, those of the configuration.
            """)

    @OptionGroup var storage: StorageOptions
    @Flag(help: "List what the separators would change; change nothing.") var preview = false
    @Flag(help: "Split past credits with the separators.") var apply = false
    @Option(help: ArgumentHelp("The separators, between spaces (e.g. \"& , ;\").", valueName: "list")) var separators: String?

    func validate() throws {
        guard preview != apply else { throw ValidationError("give one of --preview or --apply") }
    }

    func run() throws {
        let config = try storage.loadConfig()
        var chosen = config.credits.separators
        if let separators {
            switch ArtistCredit.validSeparators(separators.split(whereSeparator: { $0.isWhitespace }).map(String.init)) {
            case .success(let s): chosen = s
            case .failure(let e): throw ValidationError(e.description)
            }
        }
        let store = try PacenoteServer.openStore(config: config)
        defer { try? store.close() }
        let changes = apply ? try Operations(store: store, events: nil).setCreditSeparators(chosen)
                            : try store.creditChanges(separators: chosen)
        for c in changes {
            print("\(c.text) — \(c.title): \(c.before.joined(separator: " | ")) -> \(c.after.joined(separator: " | ")) (\(counted(c.plays, "play")))")
        }
        if apply && chosen != config.credits.separators {
            Failure.warn("[credits] separators in the configuration differ: the daemon splits past credits again as configured at its next start")
        }
        let listed = chosen.isEmpty ? "none" : chosen.map { "\"\($0)\"" }.joined(separator: " ")
        print("\(apply ? "split" : "would split") \(changes.count) track\(changes.count == 1 ? "" : "s") differently (separators: \(listed))")
    }
}
