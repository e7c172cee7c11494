import PacenoteCore

// `[[friends]]`: other Pacenotes (or any Atom feed) whose songs of the day are followed,
// none by default. At each start `serve` puts them in the database in place of the file's
// previous ones (`Store.replaceConfigFriends`); friends added on the site stay, and the
// site does not remove the file's.
extension Config {
    public struct FriendFeed: Sendable, Equatable {
        public var name = ""
        /// A friend's `/sotd.atom`, or any page of theirs that names it (a share page).
        public var url = ""

        public init(name: String = "", url: String = "") {
            self.name = name
            self.url = url
        }

        var invalidity: (key: String, message: String)? {
            Friend.problem(name: name, url: url).map { (key: $0.field, message: $0.message) }
        }
    }
}

extension ConfigSchema {
    static let friends = ConfigSection<Config.FriendFeed>(name: "friends", doc: """
        Friends whose songs of the day are shown on the dashboard and on /friends, none by
        default: one [[friends]] table each. Every Pacenote publishes its songs of the day at
        /sotd.atom (an Atom feed: the song, its share page and cover, nothing else of the
        history); url is that feed, or a share page of theirs, which names it. Each feed is asked
        at most every 15 minutes, with its ETag and Last-Modified (an unchanged feed costs a
        304), 10 s and 1 MiB at most; errors wait longer each time, up to 6 hours. The last song
        seen stays on the pages while a friend's server is down. Friends can also be added on
        /friends; at each start `pacenote serve` replaces the friends this file gave before
        with these (the site's stay). For example:

          [[friends]]
          name = "Sam"
          url = "https://sam.example.org/pacenote/sotd.atom"
        """, keys: [
        ConfigKey("name", \.name, Codec.string { (text) throws(ConfigProblem) in text }, example: #""Sam""#, doc: """
            How the friend is shown (at most 100 characters).
            """),
        ConfigKey("url", \.url, Codec.string { (text) throws(ConfigProblem) in text }, example: #""https://sam.example.org/sotd.atom""#,
                  doc: """
            Their feed (http:// or https://, ending in /sotd.atom for a Pacenote), or a share page of
            theirs (/sotd/YYYY-MM-DD), whose <link rel="alternate"> names the feed.
            """),
    ])

    static let friendList = ConfigList<Config.FriendFeed>(
        element: { _ in Config.FriendFeed() },
        noun: "friends",
        unique: (key: "url", of: { $0.url }),
        required: ["name", "url"],
        problem: { $0.invalidity })
}
