import Foundation
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteApp

@Suite struct ConfigTests {
    let home = "/home/listener"

    private func load(_ toml: String? = nil, env: [String: String] = [:], flags: ConfigFlags = ConfigFlags()) throws -> Config {
        let dir = try TemporaryDirectory()
        var flags = flags
        if let toml {
            let path = dir.file("config.toml")
            try toml.write(toFile: path, atomically: true, encoding: .utf8)
            flags.config = flags.config ?? path
        }
        return try ConfigLoader.load(flags: flags, environment: ["HOME": home].merging(env) { $1 })
    }

    @Test func defaultsFollowXDGAndMPDConventions() throws {
        let c = try load()
        #expect(c.http == ListenAddress(host: "127.0.0.1", port: 6680))
        #expect(c.databasePath == "/home/listener/.local/share/pacenote/pacenote.sqlite")
        #expect(c.databaseIsDefault)
        #expect(try c.mpd.endpoint == MPDEndpoint(location: .tcp(host: "localhost", port: 6600)))
        #expect(c.origins["server.http"] == "default")
        let xdg = try load(env: ["XDG_DATA_HOME": "/data"])
        #expect(xdg.databasePath == "/data/pacenote/pacenote.sqlite")
        // A relative XDG_DATA_HOME is invalid per the spec and ignored.
        #expect(try load(env: ["XDG_DATA_HOME": "rel"]).databasePath.hasPrefix("/home/listener/.local/share/"))
    }

    @Test func fileThenEnvironmentThenFlags() throws {
        let toml = """
            [server]
            http = "0.0.0.0:7000"
            [database]
            path = "~/music/pacenote.sqlite"
            [mpd]
            host = "file-host"
            port = 6601
            """
        let fromFile = try load(toml)
        #expect(fromFile.http == ListenAddress(host: "0.0.0.0", port: 7000))
        #expect(fromFile.databasePath == "/home/listener/music/pacenote.sqlite")
        #expect(!fromFile.databaseIsDefault)
        #expect(try fromFile.mpd.endpoint == MPDEndpoint(location: .tcp(host: "file-host", port: 6601)))
        #expect(fromFile.origins["server.http"]?.hasSuffix("config.toml:2") == true)

        let fromEnv = try load(toml, env: ["PACENOTE_HTTP": "127.0.0.1:7001", "MPD_HOST": "pw@env-host", "MPD_PORT": "6602"])
        #expect(fromEnv.http.port == 7001)
        #expect(try fromEnv.mpd.endpoint == MPDEndpoint(location: .tcp(host: "env-host", port: 6602), password: "pw"))
        #expect(fromEnv.origins["mpd.host"] == "env MPD_HOST")

        let fromFlags = try load(toml, env: ["PACENOTE_HTTP": "127.0.0.1:7001", "MPD_PORT": "6602"],
                                 flags: ConfigFlags(db: "/tmp/x.sqlite", http: "[::1]:7002", mpd: "flag-host:6603"))
        #expect(fromFlags.http == ListenAddress(host: "::1", port: 7002))
        #expect(fromFlags.databasePath == "/tmp/x.sqlite")
        #expect(try fromFlags.mpd.endpoint == MPDEndpoint(location: .tcp(host: "flag-host", port: 6603)))
        #expect(fromFlags.origins["mpd.port"] == "--mpd")
    }

    /// Behind a forwarder that adds no X-Forwarded-For every visitor is loopback: with a
    /// public URL, no network is trusted unless the owner names some.
    @Test func aPublicURLTrustsNoNetworkByDefault() throws {
        #expect(try load().trustedNetworks == IPNetwork.homeDefaults)
        let published = try load("[server]\npublic_url = \"https://music.example.org\"\n")
        #expect(published.trustedNetworks.isEmpty)
        #expect(published.origins["server.trusted_networks"] == "default")
        #expect(try load(env: ["PACENOTE_PUBLIC_URL": "https://music.example.org"]).trustedNetworks.isEmpty)
        let chosen = try load("[server]\npublic_url = \"https://music.example.org\"\ntrusted_networks = [\"192.168.1.0/24\"]\n")
        #expect(chosen.trustedNetworks == [IPNetwork("192.168.1.0/24")!])
        let flagged = try load("[server]\npublic_url = \"https://music.example.org\"\n", flags: ConfigFlags(trustedNetworks: "127.0.0.1/32"))
        #expect(flagged.trustedNetworks == [IPNetwork("127.0.0.1/32")!])
    }

    @Test func mpdSocketsAndPasswords() throws {
        let socket = try load(env: ["MPD_HOST": "/run/mpd/socket"])
        #expect(try socket.mpd.endpoint == MPDEndpoint(location: .unixSocket("/run/mpd/socket")))
        let withPassword = try load("[mpd]\npassword = \"hunter2\"", env: ["MPD_HOST": "music.lan"])
        #expect(try withPassword.mpd.endpoint.password == "hunter2")
        let embeddedWins = try load("[mpd]\npassword = \"hunter2\"", env: ["MPD_HOST": "other@music.lan"])
        #expect(try embeddedWins.mpd.endpoint.password == "other")
        // The later layer wins between a password in the host and mpd.password.
        let envPasswordWins = try load("[mpd]\nhost = \"old@music.lan\"", env: ["PACENOTE_MPD_PASSWORD": "new"])
        #expect(try envPasswordWins.mpd.endpoint == MPDEndpoint(location: .tcp(host: "music.lan", port: 6600), password: "new"))
        // A password with ':' and '@' in --mpd, and the port given there wins over MPD_PORT.
        let flag = try load(env: ["MPD_PORT": "6602"], flags: ConfigFlags(mpd: "p:w@d@host:6601"))
        #expect(try flag.mpd.endpoint == MPDEndpoint(location: .tcp(host: "host", port: 6601), password: "p:w@d"))
        let printed = PrintedConfig(ConfigPrinter.toml(embeddedWins))
        #expect(!printed.text.contains("hunter2") && !printed.text.contains("other@"))
        #expect(printed.value(of: "mpd.host") == "\"***@music.lan\"")
    }

    @Test(arguments: [
        ("[mpd]\nport = \"abc\"", "mpd.port", ":2", "expected an integer"),
        ("[mpd]\nport = 70000", "mpd.port", ":2", "from 1 to 65535"),
        ("[server]\nhttp = \"nowhere\"", "server.http", ":2", "is not HOST:PORT"),
        ("[display]\ntimezone = \"Mars/Olympus\"", "display.timezone", ":2", "IANA"),
        ("[site]\nweek_starts = \"friday\"", "site.week_starts", ":2", "is not one of monday, sunday, saturday"),
        ("[mpd]\nprot = 6600", "mpd.prot", ":2", "did you mean mpd.port?"),
        ("[nonsense]\nx = 1", "nonsense.x", ":2", "unknown key"),
        ("\n\n[log]\nlevel = \"loud\"", "log.level", ":4", "is not one of"),
        ("[server\nhttp = 1", "config", "line 1", "expected ']'"),
    ])
    func fileErrorsNameTheKeyAndTheLine(toml: String, key: String, location: String, fragment: String) {
        #expect {
            _ = try load(toml)
        } throws: { error in
            guard let error = error as? ConfigError else { return false }
            return error.key == key && error.description.contains(location) && error.description.contains(fragment)
                && !error.description.contains("\n")
        }
    }

    @Test func environmentAndFlagErrorsNameTheirSource() {
        #expect {
            _ = try load(env: ["MPD_PORT": "http"])
        } throws: { ($0 as? ConfigError)?.description == "mpd.port (env MPD_PORT): expected an integer from 1 to 65535, got \"http\"" }
        #expect {
            _ = try load(flags: ConfigFlags(http: "localhost"))
        } throws: { ($0 as? ConfigError)?.description.hasPrefix("server.http (--http):") == true }
        #expect {
            _ = try load(flags: ConfigFlags(config: "/nonexistent/pacenote.toml"))
        } throws: { ($0 as? ConfigError)?.description == "config (--config): no such file: /nonexistent/pacenote.toml" }
    }

    @Test func recommenderSettings() throws {
        let c = try load("""
            [mpd]
            music_directory = "/srv/music"
            [recommender]
            tempo_z4 = [128, 142.5]
            recent_hours = 3
            auto_queue = true
            cadence = 165
            exploration = 0
            """)
        #expect(c.mpd.musicDirectory == "/srv/music")
        #expect(c.recommender.tempo.window(for: .z4) == 128...142.5)
        #expect(c.recommender.tempo.window(for: .z3) == 125...135)   // the others keep their defaults
        #expect(c.recommender.recentHours == 3 && c.recommender.autoQueue && c.recommender.cadence == 165)
        #expect(c.recommender.exploration == 0)
        #expect(try load(env: ["PACENOTE_AUTO_QUEUE": "yes"]).recommender.autoQueue)
        #expect(try !load().recommender.autoQueue)
        for bad in ["tempo_z1 = [140, 120]", "tempo_z1 = [120]", "tempo_z1 = \"fast\"", "auto_queue = 2", "exploration = 0.9"] {
            #expect(throws: ConfigError.self, "\(bad)") { try load("[recommender]\n\(bad)\n") }
        }
        #expect(PrintedConfig(ConfigPrinter.toml(c)).value(of: "recommender.tempo_z4") == "[128, 142.5]")
    }

    @Test func weekStartsOnMondayUnlessTheSiteSaysOtherwise() throws {
        #expect(try load().weekStart == .monday)
        let c = try load("[site]\nweek_starts = \"sunday\"\n")
        #expect(c.weekStart == .sunday)
        #expect(c.origins["site.week_starts"]?.hasSuffix(":2") == true)
        #expect(try load(env: ["PACENOTE_WEEK_STARTS": "saturday"]).weekStart == .saturday)
        #expect(PrintedConfig(ConfigPrinter.toml(c)).value(of: "site.week_starts") == "\"sunday\"")
    }

    @Test func backupSettings() throws {
        let defaults = try load()
        #expect(defaults.backup.interval == .every(seconds: 86_400) && defaults.backup.keep == 7)
        #expect(defaults.backupDirectory == "/home/listener/.local/share/pacenote/backups")
        let c = try load("[backup]\ninterval = \"6h\"\nkeep = 3\ndirectory = \"~/bak\"\n")
        #expect(c.backup.interval == .every(seconds: 21_600) && c.backup.keep == 3)
        #expect(c.backupDirectory == "/home/listener/bak")
        #expect(try load(env: ["PACENOTE_BACKUP_INTERVAL": "off"]).backup.interval == .off)
        #expect(PrintedConfig(ConfigPrinter.toml(c)).value(of: "backup.interval") == "\"6h\"")
        #expect {
            _ = try load("[backup]\ninterval = \"sometimes\"\n")
        } throws: { ($0 as? ConfigError)?.description.contains("backup.interval") == true }
        #expect(throws: ConfigError.self) { try load("[backup]\nkeep = 0\n") }
    }
}

@Suite struct PlayersConfigTests {
    private func load(_ toml: String, env: [String: String] = [:]) throws -> Config {
        try loadConfigFile(toml, env: env)
    }

    @Test func severalPlayersFromArrayTables() throws {
        let c = try load("""
            [[mpd]]
            name = "kitchen"
            host = "kitchen.lan"
            [[mpd]]
            name = "studio"
            host = "pw@/run/mpd/socket"
            [plays]
            min_track_s = 10
            """, env: ["MPD_PORT": "6601"])
        #expect(c.players.map(\.name) == ["kitchen", "studio"])
        #expect(try c.players[0].endpoint == MPDEndpoint(location: .tcp(host: "kitchen.lan", port: 6601)))
        #expect(try c.players[1].endpoint == MPDEndpoint(location: .unixSocket("/run/mpd/socket"), password: "pw"))
        #expect(c.playRule.minimumDuration == 10)
        let printed = PrintedConfig(ConfigPrinter.toml(c))
        #expect(printed.value(of: "mpd.name") == "\"kitchen\"")
        #expect(printed.value(of: "mpd[2].name") == "\"studio\"")
        #expect(printed.value(of: "mpd[2].host") == "\"***@/run/mpd/socket\"")
        #expect(printed.comment(of: "mpd[2].name")?.hasSuffix("c.toml:5") == true)
    }

    @Test func playerErrorsNameTheirTable() {
        #expect {
            _ = try load("[[mpd]]\nname = \"a\"\n[[mpd]]\nname = \"a\"\n")
        } throws: { ($0 as? ConfigError)?.key == "mpd[2].name" }
        #expect {
            _ = try load("[[mpd]]\nhost = \"a\"\n[[mpd]]\nprot = 1\n")
        } throws: { ($0 as? ConfigError)?.description.contains("mpd[2].prot") == true }
        #expect {
            _ = try load("[plays]\nmin_fraction = 2\n")
        } throws: { ($0 as? ConfigError)?.key == "plays.min_fraction" }
        #expect {
            _ = try load("[[mpd]]\nname = \"a\"\n[[mpd]]\nname = \"b\"\n", env: ["PACENOTE_MPD_NAME": "b"])
        } throws: { ($0 as? ConfigError)?.description.contains("'b' names two players") == true }
    }
}

@Suite struct RulesConfigTests {
    private func load(_ toml: String, env: [String: String] = [:]) throws -> Config {
        try loadConfigFile(toml, env: env)
    }

    /// The error `toml` gives: its key and its origin's line in c.toml.
    private func failure(_ toml: String) -> (key: String, line: String?, message: String)? {
        do {
            _ = try load(toml)
            return nil
        } catch let error as ConfigError {
            return (error.key, error.origin.flatMap { $0.split(separator: ":").last.map(String.init) }, error.message)
        } catch {
            return nil
        }
    }

    @Test func noRulesByDefaultAndTheListMayStayEmpty() throws {
        #expect(try load("").rules.isEmpty)
        #expect(try load("rules = []\n").rules.isEmpty)
        #expect(Config(databasePath: "").rules.isEmpty)
        // `[mpd]` and `[[mpd]]` behave as before: an empty list of players is refused.
        #expect(failure("mpd = []\n")?.key == "mpd")
        #expect(try load("").players.map(\.name) == ["default"])
    }

    @Test func rulesFromArrayTables() throws {
        let c = try load(#"""
            [[rules]]
            action = "ignore"
            field = "genre"
            value = "Podcast"
            [[rules]]
            action = "rewrite"
            field = "title"
            match = "regex"
            value = " - Remastered \\d{4}$"
            replacement = ""
            [[rules]]
            action = "hide"
            field = "duration"
            match = "shorter_than"
            value = "20"
            enabled = false
            [[rules]]
            action = "ignore"
            field = "duration"
            value = 12.5
            [[rules]]
            action = "rewrite"
            field = "album"
            value = " \\(Deluxe\\)$"
            replacement = ""
            [mpd]
            name = "kitchen"
            """#)
        #expect(c.rules == [
            CurationRule(action: .ignore, field: .genre, match: .equals, value: "Podcast", fromConfig: true),
            CurationRule(action: .rewrite, field: .title, match: .regex, value: #" - Remastered \d{4}$"#, replacement: "",
                         fromConfig: true),
            CurationRule(action: .hide, field: .duration, match: .shorterThan, value: "20", enabled: false, fromConfig: true),
            // Without a match: shorter_than for a duration, regex for a rewrite (as the API).
            CurationRule(action: .ignore, field: .duration, match: .shorterThan, value: "12.5", fromConfig: true),
            CurationRule(action: .rewrite, field: .album, match: .regex, value: #" \(Deluxe\)$"#, replacement: "", fromConfig: true),
        ])
        #expect(c.origins["rules[4].match"] == nil)  // a default: never set
        #expect(c.players.map(\.name) == ["kitchen"])
        #expect(c.origins["rules.value"]?.hasSuffix("c.toml:4") == true)
        #expect(c.origins["rules[2].replacement"]?.hasSuffix("c.toml:10") == true)
        // The rules work as a rule set: the rewrite strips the suffix.
        let track = Track(title: "Song - Remastered 2011", artist: "A")
        #expect(RuleSet(c.rules).apply(to: track, playedSeconds: 100, uri: nil).track?.title == "Song")
    }

    @Test func forwardTargetsAreTablesWithWhatTheirKindNeeds() throws {
        #expect(try load("").forward.isEmpty)
        let c = try load("""
            [[forward]]
            name = "listenbrainz"
            kind = "listenbrainz"
            token = "abc"
            [[forward]]
            name = "maloja"
            kind = "lastfm"
            url = "http://maloja.lan:42010/apis/audioscrobbler/2.0/"
            api_key = "k"
            api_secret = "s"
            batch_size = 1
            sources = ["mpd", "mpdscribble"]
            now_playing = false
            """)
        #expect(c.forward.map(\.name) == ["listenbrainz", "maloja"])
        #expect(c.forward[0].effectiveURL == "https://api.listenbrainz.org" && c.forward[0].effectiveBatchSize == 500)
        #expect(c.forward[1].kind == .lastfm && c.forward[1].effectiveBatchSize == 1 && !c.forward[1].nowPlaying)
        #expect(c.forward[1].spec.sources == ["mpd", "mpdscribble"] && c.forward[1].spec.players == nil)
        // Each error names the target, the key and the line.
        var f = failure("[[forward]]\nname = \"lb\"\nkind = \"listenbrainz\"\n")
        #expect(f?.key == "forward[1].token", "\(String(describing: f))")
        f = failure("[[forward]]\nname = \"fm\"\nkind = \"lastfm\"\napi_key = \"k\"\n")
        #expect(f?.key == "forward[1].api_secret", "\(String(describing: f))")
        f = failure("[[forward]]\nname = \"x\"\nkind = \"scrobbler\"\ntoken = \"t\"\n")
        #expect(f?.key == "forward[1].kind" && f?.line == "3", "\(String(describing: f))")
        f = failure("[[forward]]\nname = \"x\"\nkind = \"listenbrainz\"\ntoken = \"t\"\nurl = \"ftp://x\"\n")
        #expect(f?.key == "forward[1].url", "\(String(describing: f))")
        f = failure("[[forward]]\nname = \"fm\"\nkind = \"lastfm\"\napi_key = \"k\"\napi_secret = \"s\"\nbatch_size = 100\n")
        #expect(f?.key == "forward[1].batch_size" && f?.message.contains("at most 50") == true, "\(String(describing: f))")
        f = failure("[[forward]]\nname = \"x\"\nkind = \"listenbrainz\"\ntoken = \"t\"\nsources = []\n")
        #expect(f?.key == "forward[1].sources", "\(String(describing: f))")
        f = failure("[[forward]]\nname = \"a\"\nkind = \"listenbrainz\"\ntoken = \"t\"\n[[forward]]\nname = \"a\"\nkind = \"listenbrainz\"\ntoken = \"t\"\n")
        #expect(f?.key.hasPrefix("forward[2]") == true, "the same name twice: \(String(describing: f))")
    }

    @Test func friendsAreTablesOfNameAndAddress() throws {
        #expect(try load("").friends.isEmpty)
        let c = try load("""
            [[friends]]
            name = "Sam"
            url = "https://sam.example.org/pacenote/sotd.atom"
            [[friends]]
            name = "Kim"
            url = "http://kim.lan:6680/sotd/2026-11-26"
            """)
        #expect(c.friends == [Config.FriendFeed(name: "Sam", url: "https://sam.example.org/pacenote/sotd.atom"),
                              Config.FriendFeed(name: "Kim", url: "http://kim.lan:6680/sotd/2026-11-26")])
        #expect(c.origins["friends[2].url"]?.hasSuffix("c.toml:6") == true)
        // Each error names the friend, the key and the line.
        var f = failure("[[friends]]\nname = \"Sam\"\nurl = \"ftp://sam.example.org/f\"\n")
        #expect(f?.key == "friends[1].url" && f?.line == "3" && f?.message == "an http:// or https:// address")
        f = failure("[[friends]]\nname = \"Sam\"\nurl = \"https://me:secret@sam.example.org/sotd.atom\"\n")
        #expect(f?.key == "friends[1].url" && f?.message == "no user name or password in the address")
        f = failure("[[friends]]\nname = \" \"\nurl = \"https://sam.example.org/sotd.atom\"\n")
        #expect(f?.key == "friends[1].name" && f?.line == "2")
        f = failure("[[friends]]\nname = \"Sam\"\n")
        #expect(f?.key == "friends[1].url" && f?.message.contains("name, url") == true, "\(String(describing: f))")
        f = failure("[[friends]]\nname = \"A\"\nurl = \"http://a.example/\"\n[[friends]]\nname = \"B\"\nurl = \"http://a.example/\"\n")
        #expect(f?.key.hasPrefix("friends[2]") == true, "the same address twice: \(String(describing: f))")
        #expect(PacenoteServer.friendsPollInterval(environment: [:]) == 900)
        #expect(PacenoteServer.friendsPollInterval(environment: ["PACENOTE_TEST_FRIENDS_POLL_S": "1"]) == 1)
        #expect(PacenoteServer.friendsPollInterval(environment: ["PACENOTE_TEST_FRIENDS_POLL_S": "0"]) == 0.2)
        #expect(PacenoteServer.friendsPollInterval(environment: ["PACENOTE_TEST_FRIENDS_POLL_S": "86400"]) == 900, "never less polite")
        #expect(PacenoteServer.friendsPollInterval(environment: ["PACENOTE_TEST_FRIENDS_POLL_S": "nan"]) == 900)
    }

    /// How often the daemon looks for indexes a dead import set aside: a minute, shorter
    /// only for the end-to-end tests, and never less often.
    /// A build that keeps failing the same way is told once; a new failure, or a build that
    /// works at last, is told with what the check said.
    @Test func aBuildThatKeepsFailingIsToldOnce() {
        var told = AbandonedIndexes.Told()
        let building = "building the charts' indexes again, which an import that did not finish had dropped"
        let full = "the charts' indexes could not be built (disk full); the charts are right but slower until they are"
        let other = "the charts' indexes could not be built (I/O error); the charts are right but slower until they are"
        #expect(!told.quiet && told.heldBack(after: [building, full], built: false).isEmpty, "told as it happened")
        #expect(told.quiet && told.heldBack(after: [building, full], built: false).isEmpty, "the same again: held back")
        #expect(told.heldBack(after: [building, other], built: false) == [building, other], "another failure: told")
        #expect(told.heldBack(after: [building], built: true) == [building], "built at last: told")
        #expect(!told.quiet && told.heldBack(after: [], built: false).isEmpty)
    }

    @Test func theDaemonLooksForAbandonedIndexesEveryMinute() {
        #expect(AbandonedIndexes.interval(environment: [:]) == 60)
        #expect(AbandonedIndexes.interval(environment: ["PACENOTE_TEST_INDEX_CHECK_S": "0.5"]) == 0.5)
        #expect(AbandonedIndexes.interval(environment: ["PACENOTE_TEST_INDEX_CHECK_S": "0"]) == 0.2)
        #expect(AbandonedIndexes.interval(environment: ["PACENOTE_TEST_INDEX_CHECK_S": "3600"]) == 60)
        #expect(AbandonedIndexes.interval(environment: ["PACENOTE_TEST_INDEX_CHECK_S": "nan"]) == 60)
    }

    @Test func ruleErrorsNameTheRuleTheKeyAndTheLine() {
        // A value that is not one of the words.
        var f = failure("[[rules]]\naction = \"ignore\"\nfield = \"genre\"\nvalue = \"x\"\n[[rules]]\naction = \"drop\"\n")
        #expect(f?.key == "rules[2].action" && f?.line == "6" && f?.message.contains("ignore, hide, rewrite") == true)
        f = failure("[[rules]]\naction = \"ignore\"\nfield = \"year\"\nvalue = \"x\"\n")
        #expect(f?.key == "rules[1].field" && f?.line == "3")
        f = failure("[[rules]]\naction = \"ignore\"\nfield = \"title\"\nmatch = \"like\"\nvalue = \"x\"\n")
        #expect(f?.key == "rules[1].match" && f?.line == "4")
        f = failure("[[rules]]\naction = \"ignore\"\nfield = \"title\"\nvalue = \"x\"\nenabled = \"yes\"\n")
        #expect(f?.key == "rules[1].enabled" && f?.line == "5")
        // An unknown key, with a hint.
        f = failure("[[rules]]\naction = \"ignore\"\nfield = \"title\"\nvalue = \"x\"\nmatchs = \"prefix\"\n")
        #expect(f?.key == "rules[1].matchs" && f?.line == "5" && f?.message.contains("did you mean rules.match?") == true)
        // A missing key.
        f = failure("[[rules]]\naction = \"ignore\"\nvalue = \"x\"\n")
        #expect(f?.key == "rules[1].field" && f?.line == "2" && f?.message.contains("action, field, value") == true)
        f = failure("[[rules]]\n")
        #expect(f?.key == "rules[1].action" && f?.line == "1")
        // What CurationRule.problem says, on the key it is about, where that key was set.
        f = failure("[[rules]]\naction = \"ignore\"\nfield = \"title\"\nvalue = \"\"\n")
        #expect(f?.key == "rules[1].value" && f?.line == "4" && f?.message == "'value' must not be empty")
        f = failure("[[rules]]\naction = \"ignore\"\nfield = \"genre\"\nvalue = \"x\"\n[[rules]]\naction = \"ignore\"\nfield = \"title\"\nmatch = \"regex\"\nvalue = \"(\"\n")
        #expect(f?.key == "rules[2].value" && f?.line == "9" && f?.message.contains("not a valid regular expression") == true)
        f = failure("[[rules]]\naction = \"ignore\"\nfield = \"duration\"\nmatch = \"equals\"\nvalue = \"20\"\n")
        #expect(f?.key == "rules[1].match" && f?.message == "the field 'duration' takes the match 'shorter_than'")
        f = failure("[[rules]]\naction = \"ignore\"\nfield = \"duration\"\nmatch = \"shorter_than\"\nvalue = \"soon\"\n")
        #expect(f?.key == "rules[1].value" && f?.line == "5")
        f = failure("[[rules]]\naction = \"rewrite\"\nfield = \"genre\"\nmatch = \"regex\"\nvalue = \"x\"\nreplacement = \"\"\n")
        #expect(f?.key == "rules[1].field" && f?.line == "3")
        f = failure("[[rules]]\naction = \"rewrite\"\nfield = \"title\"\nmatch = \"prefix\"\nvalue = \"x\"\nreplacement = \"y\"\n")
        #expect(f?.key == "rules[1].match" && f?.message == "a rewrite takes the match 'regex'")
        // A missing replacement: the rule's table is where it should be.
        f = failure("[[rules]]\naction = \"rewrite\"\nfield = \"title\"\nmatch = \"regex\"\nvalue = \"x\"\n")
        #expect(f?.key == "rules[1].replacement" && f?.line == "2" && f?.message.contains("needs a 'replacement'") == true)
        f = failure("[[rules]]\naction = \"hide\"\nfield = \"title\"\nvalue = \"x\"\nreplacement = \"y\"\n")
        #expect(f?.key == "rules[1].replacement" && f?.line == "5")
        // A list is written as [[rules]] tables.
        f = failure("[rules]\naction = \"ignore\"\nfield = \"title\"\nvalue = \"x\"\n")
        #expect(f?.key == "rules" && f?.message.contains("[[rules]]") == true)
        f = failure("rules = [1]\n")
        #expect(f?.key == "rules")
    }

    @Test func rulesPrintAsArrayTablesAndReadBackTheSame() throws {
        let c = try load(#"""
            [[rules]]
            action = "rewrite"
            field = "artist"
            match = "regex"
            value = "^The \"(.+)\"$"
            replacement = "$1"
            [[rules]]
            action = "ignore"
            field = "stream"
            match = "prefix"
            value = "http://radio.example/"
            """#)
        let text = ConfigPrinter.toml(c)
        #expect(text.components(separatedBy: "\n[[rules]]\n").count == 3)
        let printed = PrintedConfig(text)
        #expect(printed.value(of: "rules.replacement") == "\"$1\"")
        #expect(printed.comment(of: "rules.value")?.hasSuffix("c.toml:5") == true)
        #expect(printed.value(of: "rules[2].replacement") == nil)  // unset, a comment
        #expect(printed.comment(of: "rules[2].enabled") == "default")
        #expect(try load(text).rules == c.rules)
        // One rule prints as [[rules]] too, and none as a comment.
        let one = try load("[[rules]]\naction = \"ignore\"\nfield = \"genre\"\nvalue = \"Podcast\"\n")
        #expect(ConfigPrinter.toml(one).contains("\n[[rules]]\n"))
        #expect(try load(ConfigPrinter.toml(one)).rules == one.rules)
        let none = ConfigPrinter.toml(try load(""))
        #expect(none.contains("# No [[rules]]") && !none.contains("\n[[rules]]") && !none.contains("\n[rules]"))
        #expect(try load(none).rules.isEmpty)
    }
}
