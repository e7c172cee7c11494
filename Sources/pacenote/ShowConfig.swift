import ArgumentParser
import PacenoteApp

struct ShowConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Print the effective configuration and where each value came from.")

    @OptionGroup var options: ServerOptions

    func run() throws {
        print(ConfigPrinter.toml(try options.loadConfig()))
    }
}
