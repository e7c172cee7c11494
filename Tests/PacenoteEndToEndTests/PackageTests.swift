import Foundation
import PacenoteTestSupport
import Testing

/// scripts/package's .deb: what it holds, what dpkg reads from it, and units that systemd
/// accepts. The packaged binary running is in PackagedServiceTests.
@Suite struct PackageTests {
    /// Every file the package must install, with its mode.
    static let files: [(path: String, mode: String)] = [
        ("./usr/bin/pacenote", "-rwxr-xr-x"),
        ("./lib/systemd/system/pacenote.service", "-rw-r--r--"),
        ("./usr/lib/systemd/user/pacenote.service", "-rw-r--r--"),
        ("./etc/pacenote/config.toml", "-rw-r--r--"),
        ("./usr/share/man/man1/pacenote.1.gz", "-rw-r--r--"),
        ("./usr/share/man/man1/pacenote.serve.1.gz", "-rw-r--r--"),
        ("./usr/share/man/man1/pacenote.import.1.gz", "-rw-r--r--"),
        ("./usr/share/bash-completion/completions/pacenote", "-rw-r--r--"),
        ("./usr/share/zsh/vendor-completions/_pacenote", "-rw-r--r--"),
        ("./usr/share/fish/vendor_completions.d/pacenote.fish", "-rw-r--r--"),
        ("./usr/share/doc/pacenote/copyright", "-rw-r--r--"),
        ("./usr/share/doc/pacenote/changelog.gz", "-rw-r--r--"),
    ]

    @Test func theDebHoldsEveryFileOwnedByRoot() throws {
        let package = try BuiltPackage.shared()
        #expect((package.deb as NSString).lastPathComponent == "pacenote_\(package.version)_\(package.architecture).deb")
        // `dpkg-deb -c`: "-rwxr-xr-x root/root 123 2026-11-23 18:44 ./usr/bin/pacenote".
        var listed: [String: (mode: String, owner: String)] = [:]
        for line in try package.dpkgDeb(["-c", package.deb]).split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6 else { continue }
            listed[String(fields[5])] = (String(fields[0]), String(fields[1]))
        }
        for file in Self.files {
            #expect(listed[file.path]?.mode == file.mode, "\(file.path): \(String(describing: listed[file.path]))")
        }
        #expect(listed.values.allSatisfy { $0.owner == "root/root" }, "--root-owner-group: \(listed.filter { $0.value.owner != "root/root" })")
        // A man page per command, each a gzip file that names its command.
        let commands = ["serve", "migrate", "config", "key", "hr-feed", "import", "export", "demo", "analyze", "recommend"]
        for command in commands {
            #expect(listed["./usr/share/man/man1/pacenote.\(command).1.gz"] != nil, "no man page for \(command)")
        }
    }

    @Test func itsControlFieldsNameVersionArchitectureAndTheLibrariesTheBinaryLinks() throws {
        let package = try BuiltPackage.shared()
        let fields = try package.dpkgDeb(["-f", package.deb, "Package", "Version", "Architecture", "Depends", "Installed-Size"])
        #expect(fields.contains("Package: pacenote\n"))
        #expect(fields.contains("Version: \(package.version)\n"))
        #expect(fields.contains("Architecture: \(package.architecture)\n"))
        let depends = try package.dpkgDeb(["-f", package.deb, "Depends"])
        // The libraries the binary needs (objdump -p: NEEDED), by their Debian package names.
        let needed = try run(try Tools.require("objdump"), ["-p", package.binary]).stdout
        for (library, debianPackage) in [("libsqlite3.so.0", "libsqlite3-0"), ("libmicrohttpd.so.12", "libmicrohttpd12"),
                                         ("libmpdclient.so.2", "libmpdclient2"), ("libc.so.6", "libc6")] {
            #expect(needed.contains("NEEDED               \(library)"), "\(library) no longer linked? update this list")
            #expect(depends.contains(debianPackage + " ") || depends.contains(debianPackage + ","), "Depends: \(depends)")
        }
        // libcurl is loaded on the first outgoing request and libdbus on the first strap
        // (dlopen), not linked, yet depended on; libxml2 is neither (workout files are read by
        // Core's XML reader).
        #expect(!needed.contains("libcurl.so"), "libcurl is linked again: \(needed)")
        #expect(depends.range(of: #"libcurl4[a-z0-9]*($|,| )"#, options: .regularExpression) != nil, "Depends: \(depends)")
        #expect(!needed.contains("libdbus-1.so"), "libdbus is linked again: \(needed)")
        #expect(depends.range(of: #"libdbus-1-3($|,| )"#, options: .regularExpression) != nil, "Depends: \(depends)")
        #expect(!needed.contains("libxml2.so"), "libxml2 is linked again")
        // Tempo-matched playback's libraries are loaded on the first render, libebur128 on
        // analyze's first loudness: recommended.
        for library in ["librubberband.so", "libsndfile.so", "libaubio.so", "libebur128.so"] {
            #expect(!needed.contains(library), "\(library) is linked again: \(needed)")
        }
        let recommends = try package.dpkgDeb(["-f", package.deb, "Recommends"])
        for debianPackage in ["librubberband2", "libsndfile1", "libaubio5", "libebur128-1"] {
            #expect(recommends.contains(debianPackage), "Recommends: \(recommends)")
        }
        #expect(depends.contains("adduser | passwd"), "the postinst makes its user with adduser or useradd")
        // The config is a conffile (an admin's edits survive upgrades); the scripts make the user.
        #expect(try package.dpkgDeb(["-I", package.deb, "conffiles"]) == "/etc/pacenote/config.toml\n")
        let postinst = try package.dpkgDeb(["-I", package.deb, "postinst"])
        #expect(postinst.contains("adduser --system") && postinst.contains("useradd --system"))
        #expect(postinst.contains("dpkg-statoverride --update --add root pacenote 0640 /etc/pacenote/config.toml"))
        // The maintainer scripts, unpacked by `dpkg-deb -e`: valid sh and executable.
        let control = package.directory.file("control")
        try run(try Tools.require("dpkg-deb"), ["-e", package.deb, control])
        for script in ["postinst", "prerm", "postrm"] {
            #expect(try run(try Tools.require("sh"), ["-n", control + "/" + script], allowFailure: true).status == 0, "\(script) is not valid sh")
            #expect(FileManager.default.isExecutableFile(atPath: control + "/" + script))
        }
    }

    @Test func manPagesAndCompletionsComeFromTheCommandLineHelp() throws {
        let package = try BuiltPackage.shared()
        let man1 = package.tree + "/usr/share/man/man1/"
        let main = try run(try Tools.require("gzip"), ["-dc", man1 + "pacenote.1.gz"]).stdout
        #expect(main.contains(".Nm pacenote") && main.contains("Logs what MPD plays"), "\(main.prefix(400))")
        let serve = try run(try Tools.require("gzip"), ["-dc", man1 + "pacenote.serve.1.gz"]).stdout
        #expect(serve.contains("Fl -db Ar path") && serve.contains("Fl -trusted-networks Ar cidrs"), "\(serve.prefix(400))")

        let bash = try String(contentsOfFile: package.tree + "/usr/share/bash-completion/completions/pacenote", encoding: .utf8)
        #expect(bash.contains("complete") && bash.contains("hr-feed") && bash.contains("--db"))
        let zsh = try String(contentsOfFile: package.tree + "/usr/share/zsh/vendor-completions/_pacenote", encoding: .utf8)
        #expect(zsh.hasPrefix("#compdef pacenote") && zsh.contains("hr-feed"))
        let fish = try String(contentsOfFile: package.tree + "/usr/share/fish/vendor_completions.d/pacenote.fish", encoding: .utf8)
        #expect(fish.contains("complete -c 'pacenote'") && fish.contains("hr-feed"))
    }

    /// The packaged config is the documented example with one change: the database lives
    /// where the service's StateDirectory is. The packaged binary accepts it.
    @Test func theConfigIsTheExampleWithTheDatabaseInVarLib() throws {
        let package = try BuiltPackage.shared()
        let packaged = try String(contentsOfFile: package.config, encoding: .utf8)
        let example = try String(contentsOfFile: BuiltPackage.checkout + "/docs/pacenote.example.toml", encoding: .utf8)
        let changed = example.replacingOccurrences(of: "\n# path = \"~/.local/share/pacenote/pacenote.sqlite\"\n",
                                                   with: "\npath = \"/var/lib/pacenote/pacenote.sqlite\"\n")
        #expect(changed != example, "the example's database line moved: update scripts/package")
        #expect(packaged.hasPrefix("# /etc/pacenote/config.toml") && packaged.hasSuffix(changed))

        let shown = try run(package.binary, ["config", "--config", package.config],
                            environment: PacenoteProcess.cleanEnvironment(["HOME": package.directory.path]))
        #expect(shown.stdout.contains("path = \"/var/lib/pacenote/pacenote.sqlite\""), "\(shown.stdout)")
    }

    /// `systemd-analyze verify` on both units, with no warning at all (it exits 0 even for an
    /// unknown key or a misspelt value, so its output must be empty too).
    @Test func bothUnitsPassSystemdAnalyzeVerify() throws {
        let package = try BuiltPackage.shared()
        let analyze = try Tools.require("systemd-analyze")
        // The system unit as installed: a root holding the package's files and the system's
        // own units (the targets it is ordered after), so ExecStart= is the packaged binary.
        let root = package.directory.file("verify-root")
        try run(try Tools.require("cp"), ["-a", package.tree, root])
        try run(try Tools.require("cp"), ["-an", "/lib/systemd/system/.", root + "/lib/systemd/system/"])
        let system = try run(analyze, ["verify", "--man=no", "--root=\(root)", "/lib/systemd/system/pacenote.service"],
                             allowFailure: true)
        #expect(system.status == 0 && system.stdout.isEmpty && system.stderr.isEmpty,
                "system unit: exit \(system.status)\n\(system.stdout)\(system.stderr)")

        // The user unit: the user manager has no --root; its ExecStart= points at the
        // unpacked binary instead of /usr/bin (nothing else changes).
        let userDirectory = package.directory.file("verify-user")
        try FileManager.default.createDirectory(atPath: userDirectory + "/runtime", withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let unit = try String(contentsOfFile: package.userUnit, encoding: .utf8)
        #expect(unit.contains("ExecStart=/usr/bin/pacenote serve\n"))
        try unit.replacingOccurrences(of: "ExecStart=/usr/bin/pacenote", with: "ExecStart=\(package.binary)")
            .write(toFile: userDirectory + "/pacenote.service", atomically: true, encoding: .utf8)
        let user = try run(analyze, ["--user", "verify", "--man=no", userDirectory + "/pacenote.service"],
                           environment: ["XDG_RUNTIME_DIR": userDirectory + "/runtime", "HOME": userDirectory,
                                         "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"],
                           allowFailure: true)
        #expect(user.status == 0 && user.stdout.isEmpty && user.stderr.isEmpty,
                "user unit: exit \(user.status)\n\(user.stdout)\(user.stderr)")
    }

    /// What the system unit promises: its own user, its state directory, the sandbox.
    @Test func theSystemUnitRunsAsItsOwnUserInASandbox() throws {
        let package = try BuiltPackage.shared()
        let unit = try String(contentsOfFile: package.systemUnit, encoding: .utf8)
        let settings = Set(unit.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") && $0.contains("=") })
        for setting in ["User=pacenote", "Group=pacenote", "StateDirectory=pacenote", "StateDirectoryMode=0700",
                        "ConfigurationDirectory=pacenote", "ExecStart=/usr/bin/pacenote serve --config /etc/pacenote/config.toml",
                        "UMask=0077", "NoNewPrivileges=yes", "CapabilityBoundingSet=", "ProtectSystem=strict",
                        "ProtectHome=yes", "PrivateTmp=yes", "PrivateDevices=yes", "ProtectKernelTunables=yes",
                        "ProtectKernelModules=yes", "ProtectKernelLogs=yes", "ProtectControlGroups=yes",
                        "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6", "RestrictNamespaces=yes",
                        "LockPersonality=yes", "MemoryDenyWriteExecute=yes", "SystemCallFilter=@system-service",
                        "SystemCallFilter=~@privileged", "WantedBy=multi-user.target"] {
            #expect(settings.contains(setting), "\(setting) missing from pacenote.service")
        }
    }
}
