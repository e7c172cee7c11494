import Foundation
import PacenoteTestSupport

/// The Debian package as `scripts/package --no-build` makes it from the release binary that
/// scripts/test built (with the generate-manual tool beside it), and its files unpacked with
/// `dpkg-deb -x`: made once for every package test.
final class BuiltPackage: @unchecked Sendable {
    // @unchecked Sendable: every property is immutable after init; the files are only read.
    let directory: TemporaryDirectory
    /// The .deb itself.
    let deb: String
    /// Its files, unpacked (`dpkg-deb -x`): `tree + "/usr/bin/pacenote"`.
    let tree: String
    /// What the binary says (`pacenote --version`) and `dpkg --print-architecture`.
    let version: String
    let architecture: String
    /// scripts/package's output, for failure messages.
    let log: String

    var binary: String { tree + "/usr/bin/pacenote" }
    var config: String { tree + "/etc/pacenote/config.toml" }
    var systemUnit: String { tree + "/lib/systemd/system/pacenote.service" }
    var userUnit: String { tree + "/usr/lib/systemd/user/pacenote.service" }

    /// The checkout (this file is Tests/PacenoteEndToEndTests/BuiltPackage.swift).
    static let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    private static let built = Result { try BuiltPackage() }
    static func shared() throws -> BuiltPackage { try built.get() }

    private init() throws {
        directory = try TemporaryDirectory("pacenote-package")
        // The unpacked tree is started by an unprivileged user in PackagedServiceTests.
        chmod(directory.path, 0o755)
        let release = try PacenoteProcess.releaseBinary()
        version = try run(release, ["--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        architecture = try run(try Tools.require("dpkg"), ["--print-architecture"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)

        let script = Self.checkout + "/scripts/package"
        let result = try run(script, ["--no-build", "--output", directory.file("out")], allowFailure: true)
        log = result.stdout + result.stderr
        guard result.status == 0, let last = result.stdout.split(separator: "\n").last else {
            throw HarnessError("scripts/package --no-build exited \(result.status):\n\(log)")
        }
        deb = String(last)
        tree = directory.file("tree")
        try run(try Tools.require("dpkg-deb"), ["-x", deb, tree])
    }

    /// `dpkg-deb ARGS` on the package; its standard output.
    func dpkgDeb(_ arguments: [String]) throws -> String {
        try run(try Tools.require("dpkg-deb"), arguments).stdout
    }
}
