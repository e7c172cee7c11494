import Foundation
@testable import PacenoteApp
import PacenoteTestSupport
import Testing

/// doctor's judgements of the database's files and of a configuration file that is not
/// there (issue 52: "quick_check ok … all checks passed" with the database at 0444; "fix that
/// key" for a missing file).
@Suite struct DoctorFilesTests {
    @Test func writableFilesPassAndAReadOnlySideFileIsNamedWithItsFix() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("p.sqlite")
        #expect(FileManager.default.createFile(atPath: db, contents: nil, attributes: [.posixPermissions: 0o600]))
        #expect(Doctor.databaseFiles(db).outcome == .ok, "\(Doctor.databaseFiles(db))")
        // Its owner may not write it: found whoever runs doctor (root writes it anyway).
        #expect(FileManager.default.createFile(atPath: db + "-shm", contents: nil, attributes: [.posixPermissions: 0o444]))
        let check = Doctor.databaseFiles(db)
        #expect(check.outcome == .failure)
        #expect(check.detail.hasPrefix("\(db)-shm is not writable"), "\(check.detail)")
        #expect(check.advice == "`chmod u+w \(db)-shm`; then start pacenote again", "\(check.advice ?? "")")
        #expect(Doctor.status([check]) == 1)
    }

    @Test func aMissingConfigurationFileIsToBeMadeNotFixed() {
        let missing = Doctor.configuration(error: ConfigError(key: "config", message: "no such file: /etc/pacenote/config.toml",
                                                              origin: "env PACENOTE_CONFIG"))
        #expect(missing.advice?.hasPrefix("create it: copy docs/pacenote.example.toml (every key, commented) to /etc/pacenote/config.toml")
                == true, "\(missing.advice ?? "")")
        #expect(missing.advice?.contains("without env PACENOTE_CONFIG") == true)
        #expect(missing.advice?.contains("fix that key") == false)
        let wrong = Doctor.configuration(error: ConfigError(key: "mpd.port", message: "expected an integer", origin: "c.toml:3"))
        #expect(wrong.advice?.hasPrefix("fix that key") == true)
    }
}
