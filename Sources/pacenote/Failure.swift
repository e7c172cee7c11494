import ArgumentParser
import Foundation
import PacenoteApp
import PacenoteStore

/// A command that cannot go on, in its own words (`--batch: 1 to 10000`).
struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }

    /// The one mapping from a command's error to its last line and exit status: one line
    /// on stderr (`pacenote: …`, never a stack trace) and status 1 — configuration problems
    /// as `config error: …`, the database's under `database.path`, startup problems and
    /// everything else as they describe themselves. Exit codes and the argument parser's
    /// own outcomes (help, usage errors) keep theirs.
    static func exit(_ error: any Error) -> Never {
        switch error {
        case let code as ExitCode: Foundation.exit(code.rawValue)
        case _ where isArgumentParsers(error): Pacenote.exit(withError: error)
        case let error as ConfigError: line("config error: \(error.description)")
        case let error as StoreError: line("database.path: \(error.description)")
        case let error as StartupError: line(error.description)
        default: line("\(error)")
        }
        Foundation.exit(1)
    }

    /// Help, `--version` and usage errors reach `run()` as the parser's own errors (some of
    /// them internal types), which it prints and maps itself.
    private static func isArgumentParsers(_ error: any Error) -> Bool {
        error is CleanExit || error is ValidationError || String(reflecting: type(of: error)).hasPrefix("ArgumentParser.")
    }

    /// A line on stderr that does not end the command (a file that could not be read).
    /// `newline`: on a terminal, on a line of its own below a progress bar being drawn.
    static func warn(_ message: String, newline: Bool = false) {
        line(message, after: newline && isatty(STDERR_FILENO) == 1 ? "\n" : "")
    }

    private static func line(_ message: String, after start: String = "") {
        FileHandle.standardError.write(Data("\(start)pacenote: \(message)\n".utf8))
    }
}
