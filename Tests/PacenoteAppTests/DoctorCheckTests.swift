import Foundation
import Glibc
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteApp

/// `pacenote doctor`'s judgements as pure functions; the end-to-end tests run the command.
@Suite struct DoctorCheckTests {
    static func networks(_ list: String...) -> [IPNetwork] { list.map { IPNetwork($0)! } }

    @Test func trustedNetworksForWhereItListens() {
        let loopback = ListenAddress(host: "127.0.0.1", port: 6680), all = ListenAddress(host: "0.0.0.0", port: 6680)
        // Everyone trusted, but only this machine can connect: fine.
        #expect(Doctor.trustedNetworks(listen: loopback, trusted: Self.networks("0.0.0.0/0"), proxies: [], publicURL: nil).outcome == .ok)
        // Everyone trusted on every interface: a warning naming the fix.
        let open = Doctor.trustedNetworks(listen: all, trusted: Self.networks("0.0.0.0/0"), proxies: [], publicURL: nil)
        #expect(open.outcome == .warning)
        #expect(open.advice?.contains("server.trusted_networks") == true)
        #expect(Doctor.trustedNetworks(listen: ListenAddress(host: "::", port: 1), trusted: Self.networks("::/0"),
                                       proxies: [], publicURL: nil).outcome == .warning)
        // The home defaults on a LAN: fine.
        #expect(Doctor.trustedNetworks(listen: all, trusted: IPNetwork.homeDefaults, proxies: [], publicURL: nil).outcome == .ok)
        // Public behind a proxy that is not declared: every visitor would be 127.0.0.1.
        let proxied = Doctor.trustedNetworks(listen: loopback, trusted: IPNetwork.homeDefaults, proxies: [],
                                             publicURL: "https://music.example.org")
        #expect(proxied.outcome == .warning)
        #expect(proxied.advice?.contains("server.trusted_proxies") == true)
        // A declared proxy does not help while loopback is trusted: a forwarder on this machine
        // that sends no X-Forwarded-For (ssh -L, socat, a bare proxy_pass) passes as loopback.
        let bare = Doctor.trustedNetworks(listen: loopback, trusted: IPNetwork.homeDefaults, proxies: Self.networks("127.0.0.1"),
                                          publicURL: "https://music.example.org")
        #expect(bare.outcome == .warning)
        #expect(bare.advice?.contains("makes every visitor trusted") == true, "\(bare)")
        #expect(Doctor.trustedNetworks(listen: loopback, trusted: Self.networks("192.168.1.0/24"), proxies: Self.networks("127.0.0.1"),
                                       publicURL: "https://music.example.org").outcome == .ok)
        // The default with a public URL: none, and the check says why.
        let none = Doctor.trustedNetworks(listen: loopback, trusted: [], proxies: [], publicURL: "https://music.example.org", chosen: false)
        #expect(none.outcome == .ok)
        #expect(none.detail.contains("the default with server.public_url set"), "\(none)")
    }

    @Test func keyFilePermissions() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("api-key")
        #expect(Doctor.keyFile(path, environment: [:]).outcome == .note, "no file yet")
        FileManager.default.createFile(atPath: path, contents: Data("pn_x\n".utf8), attributes: [.posixPermissions: 0o600])
        #expect(Doctor.keyFile(path, environment: [:]).outcome == .ok)
        chmod(path, 0o644)
        let open = Doctor.keyFile(path, environment: [:])
        #expect(open.outcome == .failure)
        #expect(open.detail.contains("readable by others (mode 0644)"))
        #expect(open.advice?.contains("chmod 600 \(path)") == true)
        #expect(Doctor.keyFile(path, environment: ["PACENOTE_API_KEY": "k"]).outcome == .note)
    }

    @Test func backupAge() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(Doctor.backup(latest: nil, directory: "/b", now: now).outcome == .warning)
        #expect(Doctor.backup(latest: ("/b/1", now.addingTimeInterval(-3600)), directory: "/b", now: now).outcome == .ok)
        #expect(Doctor.backup(latest: ("/b/1", now.addingTimeInterval(-3 * 86400)), directory: "/b", now: now).outcome == .warning)
    }

    @Test func waitingPlaysFailTheCheckWithTheirReason() throws {
        let dir = try TemporaryDirectory()
        #expect(Doctor.spool(dir.file("spool.jsonl")).outcome == .ok, "no spool at all")
        let spool = try PlaySpool(path: dir.file("spool.jsonl"))
        #expect(Doctor.spool(spool.path).outcome == .ok, "an empty one")
        _ = try spool.append([SpooledPlay(
            player: "default",
            play: FinishedPlay(song: SongInfo(uri: "a.flac"), startedAt: Date(timeIntervalSince1970: 0),
                               endedAt: Date(timeIntervalSince1970: 60), playedSeconds: 60, counted: true),
            error: "database error: database or disk is full")])
        let check = Doctor.spool(spool.path)
        #expect(check.outcome == .failure)
        #expect(check.detail == "1 play(s) from MPD wait to be stored since 1970-01-01T00:01:00.000Z: database error: database or disk is full")
    }

    @Test func statusAndReport() {
        let checks = [DoctorCheck("a", .ok, "fine"), DoctorCheck("b", .note, "so"), DoctorCheck("c", .warning, "hm", advice: "do x")]
        #expect(Doctor.status(checks) == 0, "warnings do not fail")
        #expect(Doctor.status(checks, strict: true) == 1)
        #expect(Doctor.status(checks + [DoctorCheck("d", .failure, "broken")]) == 1)
        #expect(Doctor.report(checks, symbols: false) == """
            ok   a: fine
            info b: so
            WARN c: hm
                -> do x
            0 failed, 1 warning (of 3 checks)

            """)
        #expect(Doctor.report([checks[0]], symbols: true) == "✓ a: fine\nall 1 check passed\n")
    }

    /// The filesystem under the database: memory, nobarrier and network mounts warn.
    @Test func durabilityOfTheDatabasesFilesystem() {
        let table = MountTable("""
            22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard
            30 22 0:26 / /tmp rw,nosuid,nodev shared:5 - tmpfs tmpfs rw,size=8g
            31 22 254:1 / /srv/data rw,relatime shared:6 - ext4 /dev/vdb rw,nobarrier
            32 22 0:40 / /mnt/nas rw,relatime shared:7 - nfs4 nas:/music rw,vers=4.2
            33 22 0:41 / /home/me/My\\040Music rw - fuse.sshfs me@box: rw,user_id=0
            """)
        #expect(table.mounts.count == 5)
        #expect(table.mount(holding: "/var/lib/pacenote")?.point == "/")
        #expect(table.mount(holding: "/tmp/x/pacenote.sqlite")?.type == "tmpfs")
        #expect(table.mount(holding: "/tmpfoo")?.point == "/", "a prefix of a name is not its folder")
        #expect(table.mount(holding: "/home/me/My Music/db")?.type == "fuse.sshfs")
        func outcome(_ path: String) -> DoctorCheck.Outcome? { table.mount(holding: path).map { Doctor.durability(of: $0).outcome } }
        #expect(outcome("/var/lib/pacenote") == .ok)
        #expect(outcome("/tmp/p") == .warning)
        #expect(outcome("/srv/data/p") == .warning)
        #expect(outcome("/mnt/nas/p") == .warning)
        #expect(outcome("/home/me/My Music/p") == .warning)
        #expect(Doctor.durability(of: table.mount(holding: "/srv/data")!).detail.contains("nobarrier"))
    }
}
