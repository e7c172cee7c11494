import Foundation
import GRDB
import PacenoteCore

/// Friends (`friends`) and the songs of the day their feeds gave (`friend_songs`): written
/// by the site and the API (add, remove), the configuration at start (`replaceConfigFriends`)
/// and the poller (`recordFriendFeed`, `recordFriendNotModified`, `recordFriendError`,
/// `saveFriendCover`). A friend's songs stay when their server is down; a poll only ever
/// replaces what a newer answer says.
extension Store {
    /// How many songs are kept per friend (a feed gives about 30).
    public static let friendSongsKept = 60

    static let friendColumns = """
        id, name, url, added_by, feed_url, etag, last_modified, last_polled_at_ms, last_ok_at_ms, last_error, failures, next_poll_at_ms
        """

    static func friend(_ row: Row) -> Friend {
        Friend(id: row[0], name: row[1], url: row[2], origin: Friend.Origin(rawValue: row[3]) ?? .site, feedURL: row[4],
               etag: row[5], lastModified: row[6], lastPolledAt: (row[7] as Int64?).map { date(milliseconds: $0) },
               lastOKAt: (row[8] as Int64?).map { date(milliseconds: $0) }, lastError: row[9], failures: row[10],
               nextPollAt: (row[11] as Int64?).map { date(milliseconds: $0) })
    }

    static let songColumns = """
        s.id, s.friend_id, s.entry_id, s.day, s.title, s.artist, s.link, s.cover_url, s.note, s.updated_at_ms,
        COALESCE(length(s.cover), 0) > 0
        """

    /// A friend's songs, newest first: by their day, then by when they changed.
    static let songOrder = "day IS NULL, day DESC, updated_at_ms DESC, id DESC"

    static func friendSong(_ row: Row) -> FriendSong {
        FriendSong(id: row[0], friendID: row[1], entryID: row[2], day: row[3], title: row[4], artist: row[5], link: row[6],
                   coverURL: row[7], note: row[8], updatedAt: (row[9] as Int64?).map { date(milliseconds: $0) }, hasCover: row[10])
    }

    // MARK: Reading

    /// Everyone followed, the configuration's first, then by name.
    public func friends() throws(StoreError) -> [Friend] {
        try read { db in try Store.friends(in: db) }
    }

    static func friends(in db: Database) throws -> [Friend] {
        try Row.fetchAll(db, sql: "SELECT \(friendColumns) FROM friends ORDER BY added_by = 'site', name COLLATE NOCASE, id")
            .map(friend)
    }

    public func friend(id: Int64) throws(StoreError) -> Friend? {
        try read { db in try Store.friend(id: id, in: db) }
    }

    static func friend(id: Int64, in db: Database) throws -> Friend? {
        try Row.fetchOne(db, sql: "SELECT \(friendColumns) FROM friends WHERE id = ?", arguments: [id]).map(friend)
    }

    /// Everyone followed with their newest song, in the order of `friends()`.
    public func friendsWithLatestSong() throws(StoreError) -> [(friend: Friend, song: FriendSong?)] {
        try read { db in
            let friends = try Store.friends(in: db)
            var songs: [Int64: FriendSong] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT \(Store.songColumns) FROM friends f JOIN friend_songs s ON s.id = (
                  SELECT id FROM friend_songs WHERE friend_id = f.id ORDER BY \(Store.songOrder) LIMIT 1)
                """) {
                let song = Store.friendSong(row)
                songs[song.friendID] = song
            }
            return friends.map { ($0, $0.id.flatMap { songs[$0] }) }
        }
    }

    /// A friend's songs, newest first.
    public func friendSongs(friendID: Int64, limit: Int = 30) throws(StoreError) -> [FriendSong] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Store.songColumns) FROM friend_songs s WHERE s.friend_id = ? ORDER BY \(Store.songOrder) LIMIT ?
                """, arguments: [friendID, limit]).map(Store.friendSong)
        }
    }

    /// The copy of a song's cover, if one was made.
    public func friendCover(songID: Int64) throws(StoreError) -> (bytes: [UInt8], type: String)? {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT cover, cover_type FROM friend_songs WHERE id = ? AND length(cover) > 0",
                                             arguments: [songID]) else { return nil }
            let data: Data = row[0]
            return ([UInt8](data), row[1] ?? "application/octet-stream")
        }
    }

    /// Friends whose next poll is due at `now` (or who were never polled), longest due first.
    public func friendsDue(at now: Date) throws(StoreError) -> [Friend] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Store.friendColumns) FROM friends WHERE next_poll_at_ms IS NULL OR next_poll_at_ms <= ?
                ORDER BY COALESCE(next_poll_at_ms, 0), id
                """, arguments: [Store.milliseconds(now)]).map(Store.friend)
        }
    }

    /// When the next poll of anyone is due; nil when no one is followed.
    public func nextFriendPoll() throws(StoreError) -> Date? {
        try read { db in
            guard try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM friends") ?? 0 > 0 else { return nil }
            let next = try Int64.fetchOne(db, sql: "SELECT MIN(COALESCE(next_poll_at_ms, 0)) FROM friends") ?? 0
            return Store.date(milliseconds: next)
        }
    }

    // MARK: Who is followed

    /// Follows someone from the site or the API. Refused when the address is followed already.
    public func addFriend(name: String, url: String, at now: Date = Date()) throws(StoreError) -> Friend {
        try write { db in
            if let existing = try Row.fetchOne(db, sql: "SELECT \(Store.friendColumns) FROM friends WHERE url = ?", arguments: [url]) {
                throw StoreError.refused(.friendFollowed, "\(url) is followed already, as “\(Store.friend(existing).name)”")
            }
            if try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM friends") ?? 0 >= Friend.maxFriends {
                throw StoreError.refused(.tooManyFriends, "at most \(Friend.maxFriends) friends")
            }
            try db.execute(sql: "INSERT INTO friends (name, url, added_by, created_at_ms) VALUES (?, ?, 'site', ?)",
                           arguments: [name, url, Store.milliseconds(now)])
            return Friend(id: db.lastInsertedRowID, name: name, url: url, origin: .site)
        }
    }

    /// Stops following someone added on the site (their songs go too). The configuration's
    /// friends are refused: they would come back at the next start.
    public func deleteFriend(id: Int64) throws(StoreError) -> Friend {
        try write { db in
            guard let friend = try Store.friend(id: id, in: db) else { throw StoreError.refused(.missing, "no friend \(id)") }
            if friend.origin == .config {
                throw StoreError.refused(.friendFromConfig, "\(friend.name) comes from the configuration file: remove them there")
            }
            try db.execute(sql: "DELETE FROM friends WHERE id = ?", arguments: [id])
            return friend
        }
    }

    /// Puts the configuration's `[[friends]]` in place of those it gave before, at each
    /// start: an address followed already keeps its songs and poll state (and becomes the
    /// configuration's); the file's former friends that it no longer lists are removed.
    /// Returns how many friends the file gave before.
    @discardableResult
    public func replaceConfigFriends(_ friends: [(name: String, url: String)], at now: Date = Date()) throws(StoreError) -> Int {
        try write { db in
            let before = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM friends WHERE added_by = 'config'") ?? 0
            let urls = Set(friends.map(\.url))
            for row in try Row.fetchAll(db, sql: "SELECT id, url FROM friends WHERE added_by = 'config'") where !urls.contains(row[1]) {
                try db.execute(sql: "DELETE FROM friends WHERE id = ?", arguments: [row[0] as Int64])
            }
            for friend in friends {
                try db.execute(sql: """
                    INSERT INTO friends (name, url, added_by, created_at_ms) VALUES (?, ?, 'config', ?)
                    ON CONFLICT (url) DO UPDATE SET name = excluded.name, added_by = 'config'
                    """, arguments: [friend.name, friend.url, Store.milliseconds(now)])
            }
            return before
        }
    }

    // MARK: What the poller learnt

    /// A feed was read: its songs replace those of the same entries (a day's song changes
    /// as the day goes on); songs of the days the feed covers that it no longer lists go
    /// (deleted plays, a pin undone); older ones stay, up to `friendSongsKept`. The
    /// validators, the feed's address and the next poll are kept; errors are forgotten.
    public func recordFriendFeed(id: Int64, songs: [FriendSong], etag: String?, lastModified: String?, feedURL: String?,
                                 at now: Date, nextPollAt: Date) throws(StoreError) {
        try write { db in
            guard try Store.friend(id: id, in: db) != nil else { return }
            let nowMs = Store.milliseconds(now)
            for song in songs {
                // A new picture address drops the old copy; the same address keeps it.
                try db.execute(sql: """
                    INSERT INTO friend_songs (friend_id, entry_id, day, updated_at_ms, title, artist, link, cover_url, note, seen_at_ms)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (friend_id, entry_id) DO UPDATE SET
                      day = excluded.day, updated_at_ms = excluded.updated_at_ms, title = excluded.title, artist = excluded.artist,
                      link = excluded.link, note = excluded.note, seen_at_ms = excluded.seen_at_ms,
                      cover = CASE WHEN cover_url IS excluded.cover_url THEN cover END,
                      cover_type = CASE WHEN cover_url IS excluded.cover_url THEN cover_type END,
                      cover_url = excluded.cover_url
                    """, arguments: [id, song.entryID, song.day, song.updatedAt.map(Store.milliseconds), song.title, song.artist,
                                     song.link, song.coverURL, song.note, nowMs])
            }
            if let oldest = songs.compactMap(\.day).min() {
                let listed = Set(songs.map(\.entryID))
                for row in try Row.fetchAll(db, sql: "SELECT id, entry_id FROM friend_songs WHERE friend_id = ? AND day >= ?",
                                            arguments: [id, oldest]) where !listed.contains(row[1]) {
                    try db.execute(sql: "DELETE FROM friend_songs WHERE id = ?", arguments: [row[0] as Int64])
                }
            }
            try db.execute(sql: """
                DELETE FROM friend_songs WHERE friend_id = ? AND id NOT IN (
                  SELECT id FROM friend_songs WHERE friend_id = ? ORDER BY \(Store.songOrder) LIMIT ?)
                """, arguments: [id, id, Store.friendSongsKept])
            try db.execute(sql: """
                UPDATE friends SET etag = ?, last_modified = ?, feed_url = ?, last_polled_at_ms = ?, last_ok_at_ms = ?,
                  last_error = NULL, failures = 0, next_poll_at_ms = ? WHERE id = ?
                """, arguments: [etag, lastModified, feedURL, nowMs, nowMs, Store.milliseconds(nextPollAt), id])
        }
    }

    /// The feed had not changed (304): only the times move.
    public func recordFriendNotModified(id: Int64, at now: Date, nextPollAt: Date) throws(StoreError) {
        try write { db in
            let nowMs = Store.milliseconds(now)
            try db.execute(sql: """
                UPDATE friends SET last_polled_at_ms = ?, last_ok_at_ms = ?, last_error = NULL, failures = 0, next_poll_at_ms = ?
                WHERE id = ?
                """, arguments: [nowMs, nowMs, Store.milliseconds(nextPollAt), id])
        }
    }

    /// A poll failed: the error is kept (for the pages), the songs stay.
    public func recordFriendError(id: Int64, error: String, at now: Date, nextPollAt: Date) throws(StoreError) {
        try write { db in
            try db.execute(sql: """
                UPDATE friends SET last_polled_at_ms = ?, last_error = ?, failures = failures + 1, next_poll_at_ms = ? WHERE id = ?
                """, arguments: [Store.milliseconds(now), String(error.prefix(500)), Store.milliseconds(nextPollAt), id])
        }
    }

    /// Of a friend's newest `limit` songs, those whose cover has an address but was not
    /// fetched yet (a fetch that got no picture is not tried again for that address).
    public func friendSongsWithoutCover(friendID: Int64, limit: Int = 2) throws(StoreError) -> [FriendSong] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Store.songColumns) FROM friend_songs s WHERE s.id IN (
                  SELECT id FROM friend_songs WHERE friend_id = ? ORDER BY \(Store.songOrder) LIMIT ?)
                AND s.cover_url IS NOT NULL AND s.cover IS NULL
                ORDER BY \(Store.songOrder)
                """, arguments: [friendID, limit]).map(Store.friendSong)
        }
    }

    /// Keeps a copy of a song's cover if the song still has that cover address; empty
    /// `bytes`: the address gave no picture (not asked again until the address changes).
    public func saveFriendCover(songID: Int64, coverURL: String, bytes: [UInt8], type: String?) throws(StoreError) {
        try write { db in
            try db.execute(sql: "UPDATE friend_songs SET cover = ?, cover_type = ? WHERE id = ? AND cover_url = ?",
                           arguments: [Data(bytes), type, songID, coverURL])
        }
    }
}
