import Foundation
import PacenoteCore
import PacenoteTestSupport
import Testing

/// Issue 51, points 5, 6 and 8, against the real binary: a friend's feed cannot make the
/// poller connect to this machine's or the LAN's services; the Audioscrobbler protocols'
/// tokens log in once, their sessions end with their key, no md5 of a key is in the
/// database, and unknown calls count toward the lockout; a `[[forward]]` address's
/// credentials are masked wherever it is shown.
@Suite struct OutboundSafetyTests {
    // MARK: the friends poller

    /// `hostile_friend.py`: the friend on 127.0.0.2, the "LAN" targets on 127.0.0.1 and [::1].
    final class HostileFriend {
        let dir: TemporaryDirectory
        let process = Process()
        let ports: [String: Int]

        init() throws {
            let dir = try TemporaryDirectory("hostile-friend")
            self.dir = dir
            process.executableURL = URL(fileURLWithPath: try Tools.require("python3"))
            process.arguments = [FriendsTests.clients + "/hostile_friend.py", dir.file("log.jsonl"), dir.file("ports"), "127.0.0.2"]
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            var ports: [String: Int] = [:]
            _ = eventually(timeout: 10) {
                let data = (try? Data(contentsOf: URL(fileURLWithPath: dir.file("ports")))) ?? Data()
                ports = (try? JSONSerialization.jsonObject(with: data) as? [String: Int]) ?? [:]
                return ports.count == 3
            }
            guard ports.count == 3 else { throw HarnessError("hostile_friend.py did not start") }
            self.ports = ports
        }

        deinit {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        var friend: String { "http://127.0.0.2:\(ports["friend"] ?? 0)" }

        /// What the servers logged: connections and requests.
        func log() -> [[String: String]] {
            ((try? String(contentsOfFile: dir.file("log.jsonl"), encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?.compactMapValues { $0 as? String }
            }
        }

        /// Everything the targets (loopback and [::1]) saw.
        func targetLog() -> [[String: String]] { log().filter { $0["server"] != "friend" } }

        func config(_ friends: [(String, String)]) -> String {
            friends.map { "[[friends]]\nname = \"\($0.0)\"\nurl = \"\(friend)\($0.1)\"\n" }.joined(separator: "\n")
        }
    }

    static func errors(_ daemon: PacenoteDaemon) throws -> [String: String] {
        Dictionary(try FriendsTests.friends(daemon).map { ($0["name"] as? String ?? "", $0["last_error"] as? String ?? "") }) { a, _ in a }
    }

    /// The friend stands for one on the internet (its address taken as public, the one thing
    /// only tests can set): nothing it names on loopback is connected to, whether named by
    /// address, by a name that resolves there, in IPv4-mapped form, as 0.0.0.0 or [::1];
    /// each refusal is the friend's error, on /friends too. Its own address still serves.
    @Test func aFriendOnTheInternetCannotMakeThePollerConnectToThisMachine() throws {
        let hostile = try HostileFriend()
        let names = [("loopback", "/to-loopback.atom"), ("localhost", "/to-localhost.atom"), ("mapped", "/to-mapped.atom"),
                     ("unspecified", "/to-unspecified.atom"), ("v6", "/to-v6.atom"), ("page", "/page.html"),
                     ("covers", "/covers.atom"), ("self", "/to-self.atom")]
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: hostile.config(names), environment: FriendsTests.quickPolls.merging(
            ["PACENOTE_TEST_FRIENDS_PUBLIC_ADDRESSES": "127.0.0.2"]) { a, _ in a })
        #expect(try eventually(timeout: 20) {
            let friends = try FriendsTests.friends(daemon)
            let covers = try Self.friendCovers(daemon)
            return friends.count == names.count && friends.allSatisfy { $0["last_polled_at"] is String } && covers.count == 3
        }, "\((try? FriendsTests.friends(daemon)) ?? [])")
        // A few more rounds: a refusal is not retried into a connection later either. Each of
        // the six refused friends is polled twice more (its wait after an error: 1 s, then 2 s).
        #expect(eventually(timeout: 30) {
            (try? daemon.sql("SELECT COUNT(*) FROM friends WHERE failures >= 3")) == "6\n"
        }, "\((try? daemon.sql("SELECT name, failures FROM friends")) ?? "")")
        let errors = try Self.errors(daemon)
        let publicFriend = "the friend was added with a public address"
        #expect(errors["loopback"] == "refused to connect to 127.0.0.1, a loopback address: \(publicFriend)", "\(errors)")
        #expect(errors["localhost"]?.contains("a loopback address: \(publicFriend)") == true, "\(errors)")
        #expect(errors["mapped"] == "refused to connect to ::ffff:127.0.0.1, a loopback address: \(publicFriend)", "\(errors)")
        #expect(errors["unspecified"] == "refused to connect to 0.0.0.0, an unspecified address (0.0.0.0, ::): \(publicFriend)",
                "\(errors)")
        #expect(errors["v6"] == "refused to connect to ::1, a loopback address: \(publicFriend)", "\(errors)")
        #expect(errors["page"] == "refused to connect to 127.0.0.1, a loopback address: \(publicFriend)", "\(errors)")
        #expect(errors["covers"] == "" && errors["self"] == "", "\(errors)")
        // The songs came; the covers on loopback were not fetched (remembered as none), the
        // friend's own was.
        let covers = try Self.friendCovers(daemon)
        #expect(covers["Loopback Cover"] == 0 && covers["V6 Cover"] == 0 && (covers["Own Cover"] ?? 0) > 60, "\(covers)")
        #expect(hostile.targetLog().isEmpty, "the targets were connected to: \(hostile.targetLog())")
        #expect(hostile.log().contains { $0["path"] == "/cover.png" && $0["server"] == "friend" })
        let page = try HTTP.get(daemon.base + "/friends").text
        #expect(page.contains("refused to connect to 127.0.0.1, a loopback address"), "the refusal is on /friends")
        try daemon.stop()
    }

    /// A friend added by a loopback address may be polled on loopback (its own class), the
    /// way a friend on the LAN may be on the LAN: its redirect to another loopback address
    /// is followed. 0.0.0.0, another class, is still refused and never connected to.
    @Test func aFriendsOwnClassOfAddressIsAllowedAndNoOther() throws {
        let hostile = try HostileFriend()
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: hostile.config([("lan", "/to-feed.atom"),
                                                                                     ("unspecified", "/to-unspecified.atom")]),
                                        environment: FriendsTests.quickPolls)
        #expect(try eventually(timeout: 20) {
            let polled = try FriendsTests.friends(daemon).allSatisfy { $0["last_polled_at"] is String }
            let latest = try FriendsTests.friend(daemon, named: "lan")?["latest"] as? [String: Any]
            return polled && latest?["cover"] is String
        }, "\((try? FriendsTests.friends(daemon)) ?? [])")
        let errors = try Self.errors(daemon)
        #expect(errors["lan"] == "", "\(errors)")
        #expect(errors["unspecified"] == "refused to connect to 0.0.0.0, an unspecified address (0.0.0.0, ::): "
                + "the friend was added with a loopback address", "\(errors)")
        let paths = hostile.targetLog().compactMap { $0["path"] }
        #expect(Set(paths) == ["/feed.atom", "/cover.png"], "only the allowed feed and its cover: \(paths)")
        try daemon.stop()
    }

    static func friendCovers(_ daemon: PacenoteDaemon) throws -> [String: Int] {
        var out: [String: Int] = [:]
        for line in try daemon.sql("SELECT title, length(cover) FROM friend_songs WHERE cover IS NOT NULL").split(separator: "\n") {
            let parts = line.split(separator: "|")
            if parts.count == 2 { out[String(parts[0])] = Int(parts[1]) }
        }
        return out
    }

    // MARK: Audioscrobbler credentials

    static func form(_ fields: [(String, String)]) -> Data {
        Data(fields.map { "\($0.0)=\(URLText.component($0.1))" }.joined(separator: "&").utf8)
    }

    static func v2(_ daemon: PacenoteDaemon, _ fields: [(String, String)]) throws -> HTTPResult {
        try HTTP.request("POST", daemon.base + "/apis/audioscrobbler/2.0/",
                         headers: ["Content-Type": "application/x-www-form-urlencoded"], body: form(fields + [("format", "json")]))
    }

    static func handshake(_ daemon: PacenoteDaemon, key: String, t: Int) throws -> String {
        let token = MD5.hex(MD5.hex(key) + String(t))
        return try HTTP.get(daemon.base + "/apis/audioscrobbler_legacy/?hs=true&p=1.2&c=tst&v=1.0&u=player&t=\(t)&a=\(token)").text
    }

    static func nowPlaying(_ daemon: PacenoteDaemon, session: String) throws -> HTTPResult {
        try v2(daemon, [("method", "track.updateNowPlaying"), ("sk", session), ("artist", "Dool"), ("track", "Vantablack")])
    }

    static func key(_ daemon: PacenoteDaemon, _ arguments: [String]) throws -> String {
        let r = try PacenoteProcess.run(["key"] + arguments + ["--config", daemon.dir.file("config.toml"), "--db", daemon.db])
        guard r.status == 0 else { throw HarnessError("pacenote key \(arguments): \(r.stderr)") }
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Tokens log in once: a replayed 2.0 authToken and a replayed 1.2 handshake token are
    /// refused (and a 1.2 token 20 minutes old is); a named key's token works, though the
    /// database holds no md5 of any key (only a sealed form, with the secret in its own
    /// 0600 file).
    @Test func replayedTokensAreRefusedAndNoMD5OfAKeyIsStored() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let admin = daemon.apiKey
        let phone = try Self.key(daemon, ["add", "phone", "--scope", "submit"])
        for (user, key) in [("pylast-like", admin), ("phone", phone)] {
            let login = [("method", "auth.getMobileSession"), ("username", user), ("authToken", MD5.hex(user + MD5.hex(key))),
                         ("api_key", "k")]
            let first = try Self.v2(daemon, login)
            let session = try #require((first.json?["session"] as? [String: Any])?["key"] as? String, "\(first.text)")
            #expect(try Self.nowPlaying(daemon, session: session).status == 200)
            let replay = try Self.v2(daemon, login)
            #expect(replay.status == 403 && replay.json?["error"] as? Int == 4, "\(user): \(replay.status) \(replay.text)")
            #expect(replay.text.contains("authToken has been used"), "\(replay.text)")
            // The key itself as the password still logs in.
            let byPassword = try Self.v2(daemon, [("method", "auth.getMobileSession"), ("username", user), ("password", key)])
            #expect(byPassword.status == 200, "\(byPassword.text)")
        }

        let now = Int(Date().timeIntervalSince1970)
        for key in [admin, phone] {
            let first = try Self.handshake(daemon, key: key, t: now)
            #expect(first.hasPrefix("OK\n"), "\(first)")
            #expect(try Self.handshake(daemon, key: key, t: now) == "BADAUTH\n", "a replayed 1.2 token")
            #expect(try Self.handshake(daemon, key: key, t: now + 1).hasPrefix("OK\n"), "a new timestamp is a new token")
        }
        #expect(try Self.handshake(daemon, key: admin, t: now - 20 * 60) == "BADTIME\n")
        let log = try #require(try HTTP.get(daemon.base + "/api/v1/submissions").json?["submissions"] as? [[String: Any]])
        #expect(log.contains { ($0["reason"] as? String)?.contains("used before") == true }, "\(log)")

        // No md5 of either key anywhere in the database's files; the secret is beside it, 0600.
        try daemon.stop()
        for file in [daemon.db, daemon.db + "-wal"] where FileManager.default.fileExists(atPath: file) {
            let bytes = try String(contentsOfFile: file, encoding: .isoLatin1)
            for key in [admin, phone] {
                #expect(!bytes.contains(MD5.hex(key)) && !bytes.lowercased().contains(MD5.hex(key)), "md5(key) in \(file)")
                #expect(!bytes.contains(key), "the key in \(file)")
            }
        }
        #expect(try daemon.sql("SELECT count(*) FROM api_keys WHERE key_md5 IS NULL AND length(key_md5_sealed) = 32") == "1\n")
        let secret = daemon.dir.file("scrobbler-secret")
        let mode = try FileManager.default.attributesOfItem(atPath: secret)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    /// Sessions end with their key (`key revoke`, `key --new`, `key --revoke`) and after 90 days unused; a
    /// key made before sealing had its plain md5 in the database: sealed at the next start.
    @Test func sessionsEndWithTheirKeyAndWithAge() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let phone = try Self.key(daemon, ["add", "phone", "--scope", "submit"])
        func login(_ key: String, _ user: String) throws -> String {
            let r = try Self.v2(daemon, [("method", "auth.getMobileSession"), ("username", user), ("password", key)])
            return try #require((r.json?["session"] as? [String: Any])?["key"] as? String, "\(r.text)")
        }
        let phoneSession = try login(phone, "phone")
        let adminSession = try login(daemon.apiKey, "desk")
        #expect(try Self.nowPlaying(daemon, session: phoneSession).status == 200)
        _ = try Self.key(daemon, ["revoke", "phone"])
        let refused = try Self.nowPlaying(daemon, session: phoneSession)
        #expect(refused.status == 403 && refused.json?["error"] as? Int == 9, "\(refused.text)")
        #expect(try daemon.sql("SELECT count(*) FROM scrobble_sessions WHERE session_key = '\(phoneSession)'") == "0\n")

        #expect(try Self.nowPlaying(daemon, session: adminSession).status == 200)
        _ = try Self.key(daemon, ["show", "--new"])
        // The server reads the key file again within a second: the session ends then.
        #expect(try eventually(timeout: 10) { try Self.nowPlaying(daemon, session: adminSession).json?["error"] as? Int == 9 })
        #expect(try daemon.sql("SELECT count(*) FROM scrobble_sessions WHERE session_key = '\(adminSession)'") == "0\n")

        // 90 days unused: ended. 89: live, and its use is noted.
        let newAdmin = try Self.key(daemon, [])
        // The new key too is read from its file within a second (the run's other jobs can
        // make that later): the first login waits for it.
        // Once a second: a refused login counts toward the client's lockout.
        #expect(try eventually(timeout: 10, interval: 1) {
            try Self.v2(daemon, [("method", "auth.getMobileSession"), ("username", "old"), ("password", newAdmin)]).json?["session"] != nil
        })
        let old = try login(newAdmin, "old"), recent = try login(newAdmin, "recent")
        let day: Int64 = 86_400_000, now = Int64(Date().timeIntervalSince1970 * 1000)
        _ = try daemon.sql("UPDATE scrobble_sessions SET last_used_at_ms = \(now - 91 * day) WHERE session_key = '\(old)'")
        _ = try daemon.sql("UPDATE scrobble_sessions SET last_used_at_ms = \(now - 89 * day) WHERE session_key = '\(recent)'")
        #expect(try Self.nowPlaying(daemon, session: old).json?["error"] as? Int == 9)
        #expect(try Self.nowPlaying(daemon, session: recent).status == 200)
        let used = Int64(try daemon.sql("SELECT last_used_at_ms FROM scrobble_sessions WHERE session_key = '\(recent)'")
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(used > now - day, "a session in use is renewed")
        // `key --revoke`: the admin key's sessions end too.
        _ = try Self.key(daemon, ["show", "--revoke"])
        #expect(try eventually(timeout: 10) { try Self.nowPlaying(daemon, session: recent).json?["error"] as? Int == 9 })
        #expect(try daemon.sql("SELECT count(*) FROM scrobble_sessions") == "0\n")

        // A key stored the old way (plain md5, no sealed form) is sealed at the next start, and logs in by token.
        let tablet = try Self.key(daemon, ["add", "tablet", "--scope", "submit"])
        try daemon.stop()
        _ = try daemon.sql("UPDATE api_keys SET key_md5 = '\(MD5.hex(tablet))', key_md5_sealed = NULL WHERE name = 'tablet'")
        try daemon.restart()
        #expect(try daemon.sql("SELECT key_md5 IS NULL, length(key_md5_sealed) FROM api_keys WHERE name = 'tablet'") == "1|32\n")
        let byToken = try Self.v2(daemon, [("method", "auth.getMobileSession"), ("username", "tab"),
                                           ("authToken", MD5.hex("tab" + MD5.hex(tablet)))])
        #expect(byToken.status == 200, "\(byToken.text)")
        try daemon.stop()
    }

    /// Unknown methods and malformed calls count toward the lockout like wrong keys: ten in
    /// a minute, and the client's next call is refused before it is looked at, even with the
    /// right key.
    @Test func unknownAndMalformedCallsCountTowardTheLockout() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        for i in 0..<10 {
            let r = i % 2 == 0 ? try Self.v2(daemon, [("method", "user.getInfo\(i)")])
                : try Self.v2(daemon, [("method", "auth.getMobileSession"), ("username", "")])
            #expect(r.status == 400, "\(r.text)")
        }
        let locked = try Self.v2(daemon, [("method", "auth.getMobileSession"), ("username", "x"), ("password", daemon.apiKey)])
        #expect(locked.status == 429, "\(locked.status) \(locked.text)")
        // 1.2's handshake: a malformed one counts too (a fresh daemon, a fresh count).
        let other = try PacenoteDaemon(mpd: "127.0.0.1:1")
        for _ in 0..<10 {
            #expect(try HTTP.get(other.base + "/apis/audioscrobbler_legacy/?hs=true").text.hasPrefix("FAILED"))
        }
        #expect(try HTTP.get(other.base + "/apis/audioscrobbler_legacy/?hs=true").status == 429)
        try daemon.stop()
        try other.stop()
    }

    // MARK: secrets in [[forward]] addresses

    /// A token in a `[[forward]]` address's query and a password in its user information are
    /// masked in `pacenote config`, the status, /submissions and `pacenote forward status`,
    /// and never logged.
    @Test func aForwardTargetsCredentialsAreMaskedWhereverItsAddressIsShown() throws {
        let url = "http://alice:Hunter2Secret@127.0.0.1:1/apis/listenbrainz?token=TokenSecret123&user=me"
        let masked = "http://alice:***@127.0.0.1:1/apis/listenbrainz?token=***&user=me"
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: """

            [[forward]]
            name = "lb"
            kind = "listenbrainz"
            url = "\(url)"
            token = "FieldSecret456"
            """)
        let secrets = ["Hunter2Secret", "TokenSecret123", "FieldSecret456"]
        func clean(_ text: String, _ what: String) {
            for secret in secrets { #expect(!text.contains(secret), "\(secret) in \(what):\n\(text)") }
        }
        let args = ["--config", daemon.dir.file("config.toml"), "--db", daemon.db]
        let config = try PacenoteProcess.run(["config"] + args)
        #expect(config.stdout.contains("url = \"\(masked)\""), "\(config.stdout)")
        clean(config.stdout + config.stderr, "pacenote config")

        let status = try HTTP.get(daemon.statusURL, headers: ["Authorization": "Token \(daemon.apiKey)"])
        let target = try #require((status.json?["forward"] as? [[String: Any]])?.first, "\(status.text)")
        #expect(target["url"] as? String == masked)
        clean(status.text, "the status")

        let page = try HTTP.get(daemon.base + "/submissions", headers: ["Authorization": "Token \(daemon.apiKey)"])
        #expect(page.status == 200 && page.text.contains(masked.replacingOccurrences(of: "&", with: "&amp;")), "\(page.text)")
        clean(page.text, "/submissions")

        for extra in [[], ["--json"]] {
            let forward = try PacenoteProcess.run(["forward", "status"] + extra + args)
            #expect(forward.status == 0 && forward.stdout.contains(extra.isEmpty ? masked : masked.replacingOccurrences(of: "/", with: "\\/")),
                    "\(forward.stdout)\(forward.stderr)")
            clean(forward.stdout + forward.stderr, "pacenote forward status \(extra)")
        }
        try daemon.stop()
        clean(daemon.process.stderr, "the log")
    }
}
