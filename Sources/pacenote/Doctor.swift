import ArgumentParser
import Foundation
import Glibc
import PacenoteApp

struct Doctor: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the installation: configuration, database, disk, MPD, files, trust, heart rate, backups.",
        discussion: """
            One line per check, with what to do under each that is not fine. Nothing is changed: \
            the database is opened read-only. Exit status 1 when a check failed (with --strict, \
            also when one warned), else 0. Takes the same options as `serve`, so it checks what \
            `serve` would use.
            """)

    @OptionGroup var options: ServerOptions

    @Flag(help: "Exit with status 1 on warnings too (little disk space, an old backup, a risky trust).")
    var strict = false

    func run() throws {
        let symbols = isatty(STDOUT_FILENO) == 1
        let checks: [DoctorCheck]
        do {
            let config = try options.loadConfig()
            checks = PacenoteApp.Doctor.run(config: config, environment: ProcessInfo.processInfo.environment)
        } catch let error as ConfigError {
            checks = [PacenoteApp.Doctor.configuration(error: error)]
        }
        print(PacenoteApp.Doctor.report(checks, symbols: symbols), terminator: "")
        let status = PacenoteApp.Doctor.status(checks, strict: strict)
        if status != 0 { throw ExitCode(status) }
    }
}
