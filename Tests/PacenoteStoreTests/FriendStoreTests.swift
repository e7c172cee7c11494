import Foundation
import GRDB
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteStore

private let utc = TimeZone(identifier: "UTC")!

/// Friends in the store (issue 20, point 3): who is followed (the configuration's and the
/// site's), what their feeds gave, kept while they are down, and the days the public feed
/// lists.
@Suite struct FriendStoreTests {
    static func open() throws -> (TemporaryDirectory, Store) {
        let dir = try TemporaryDirectory()
        return (dir, try Store.open(path: dir.file("p.sqlite"), timeZone: utc))
    }

    static func song(_ friend: Int64, _ day: String, _ title: String, cover: String? = nil, updated: Double = 0) -> FriendSong {
        FriendSong(friendID: friend, entryID: "http://b.example/sotd/\(day)", day: day, title: title, artist: "Someone",
                   link: "http://b.example/sotd/\(day)", coverURL: cover, updatedAt: Date(timeIntervalSince1970: updated))
    }

    @Test func theConfigurationsFriendsReplaceTheFilesFormerOnesAndTheSitesStay() throws {
        let (_, store) = try Self.open()
        defer { try? store.close() }
        let site = try store.addFriend(name: "Kim", url: "http://kim.example/sotd.atom")
        #expect(site.origin == .site && site.id != nil)
        #expect(throws: StoreError.self) { try store.addFriend(name: "Kim again", url: "http://kim.example/sotd.atom") }
        #expect(try store.replaceConfigFriends([("Sam", "http://sam.example/sotd.atom"), ("Alex", "http://alex.example/sotd.atom")]) == 0)
        #expect(try store.friends().map(\.name) == ["Alex", "Sam", "Kim"], "the configuration's first, then by name")
        let sam = try #require(try store.friends().first { $0.name == "Sam" })
        try store.recordFriendFeed(id: sam.id!, songs: [Self.song(sam.id!, "2026-11-26", "Dog Days")], etag: "\"1\"", lastModified: nil,
                                   feedURL: nil, at: Date(), nextPollAt: Date())
        // The next start: Sam renamed, Alex gone, Kim's address now in the file too.
        #expect(try store.replaceConfigFriends([("Samantha", "http://sam.example/sotd.atom"), ("Kim", "http://kim.example/sotd.atom")]) == 2)
        let friends = try store.friends()
        #expect(friends.map(\.name) == ["Kim", "Samantha"])
        #expect(friends.allSatisfy { $0.origin == .config })
        #expect(friends.first { $0.name == "Samantha" }?.id == sam.id, "the same row: songs and poll state kept")
        #expect(friends.first { $0.name == "Samantha" }?.etag == "\"1\"")
        #expect(try store.friendSongs(friendID: sam.id!).map(\.title) == ["Dog Days"])
        // The configuration's friends are not removed from the site.
        #expect(throws: StoreError.refused(.init(.friendFromConfig,
                                                 "Samantha comes from the configuration file: remove them there"))) {
            try store.deleteFriend(id: sam.id!)
        }
        _ = try store.replaceConfigFriends([])
        #expect(try store.friends().isEmpty)
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM friend_songs") } == 0, "their songs went with them")
    }

    @Test func songsAreKeptWhileAFriendIsDownAndReplacedByNewerAnswers() throws {
        let (_, store) = try Self.open()
        defer { try? store.close() }
        let friend = try store.addFriend(name: "Sam", url: "http://sam.example/sotd.atom")
        let id = try #require(friend.id)
        let t0 = Date(timeIntervalSince1970: 1_795_700_000)
        #expect(try store.friendsDue(at: t0).map(\.id) == [id], "a new friend is due at once")
        try store.recordFriendFeed(id: id, songs: [Self.song(id, "2026-11-26", "Morning", cover: "http://b.example/c1.png", updated: 10),
                                                   Self.song(id, "2026-11-25", "Yesterday")],
                                   etag: "W/\"a\"", lastModified: "Thu, 26 Nov 2026 08:00:00 GMT", feedURL: nil,
                                   at: t0, nextPollAt: t0.addingTimeInterval(900))
        #expect(try store.friendsDue(at: t0.addingTimeInterval(899)).isEmpty)
        #expect(try store.friendsDue(at: t0.addingTimeInterval(900)).map(\.id) == [id])
        #expect(try store.nextFriendPoll() == t0.addingTimeInterval(900))
        var latest = try #require(try store.friendsWithLatestSong().first?.song)
        #expect(latest.title == "Morning" && latest.day == "2026-11-26" && !latest.hasCover)
        #expect(try store.friendSongsWithoutCover(friendID: id).map(\.title) == ["Morning"])
        try store.saveFriendCover(songID: latest.id!, coverURL: "http://b.example/c1.png", bytes: [0x89, 0x50], type: "image/png")
        #expect(try store.friendCover(songID: latest.id!)?.type == "image/png")
        #expect(try store.friendSongsWithoutCover(friendID: id).isEmpty)

        // Down: the error is kept, and so are the songs.
        try store.recordFriendError(id: id, error: "timed out", at: t0.addingTimeInterval(900), nextPollAt: t0.addingTimeInterval(1800))
        var state = try #require(try store.friend(id: id))
        #expect(state.lastError == "timed out" && state.failures == 1 && state.lastOKAt == t0)
        #expect(try store.friendsWithLatestSong().first?.song?.title == "Morning")
        try store.recordFriendError(id: id, error: "refused", at: t0.addingTimeInterval(1800), nextPollAt: t0.addingTimeInterval(3600))
        #expect(try store.friend(id: id)?.failures == 2)

        // Back: the day's song changed since (same entry, new song and cover): the old copy goes.
        try store.recordFriendFeed(id: id, songs: [Self.song(id, "2026-11-26", "Evening", cover: "http://b.example/c2.png", updated: 20),
                                                   Self.song(id, "2026-11-25", "Yesterday")],
                                   etag: "W/\"b\"", lastModified: nil, feedURL: "http://sam.example/feed.atom",
                                   at: t0.addingTimeInterval(3600), nextPollAt: t0.addingTimeInterval(4500))
        state = try #require(try store.friend(id: id))
        #expect(state.lastError == nil && state.failures == 0 && state.etag == "W/\"b\"" && state.pollURL == "http://sam.example/feed.atom")
        latest = try #require(try store.friendsWithLatestSong().first?.song)
        #expect(latest.title == "Evening" && !latest.hasCover)
        #expect(try store.friendCover(songID: latest.id!) == nil)
        // A 304 moves only the times.
        try store.recordFriendNotModified(id: id, at: t0.addingTimeInterval(4500), nextPollAt: t0.addingTimeInterval(5400))
        #expect(try store.friend(id: id)?.lastOKAt == t0.addingTimeInterval(4500))
        #expect(try store.friendSongs(friendID: id).map(\.title) == ["Evening", "Yesterday"])

        // A day the feed still covers but no longer lists goes; older days stay.
        try store.recordFriendFeed(id: id, songs: [Self.song(id, "2026-11-26", "Evening", cover: "http://b.example/c2.png", updated: 20)],
                                   etag: nil, lastModified: nil, feedURL: nil, at: t0.addingTimeInterval(5400), nextPollAt: t0)
        #expect(try store.friendSongs(friendID: id).map(\.title) == ["Evening", "Yesterday"])
        try store.recordFriendFeed(id: id, songs: [Self.song(id, "2026-11-24", "Older")], etag: nil, lastModified: nil, feedURL: nil,
                                   at: t0.addingTimeInterval(5400), nextPollAt: t0)
        #expect(try store.friendSongs(friendID: id).map(\.title) == ["Older"])
    }

    @Test func atMostSixtySongsAreKeptPerFriend() throws {
        let (_, store) = try Self.open()
        defer { try? store.close() }
        let id = try #require(try store.addFriend(name: "Sam", url: "http://sam.example/").id)
        let start = CivilDate.days(of: "2026-01-01")!
        for batch in 0..<3 {
            let songs = (0..<30).map { i -> FriendSong in
                let c = CivilDate.civil(days: start + batch * 30 + i)
                return Self.song(id, LocalTime.format(year: c.year, month: c.month, day: c.day), "Song \(batch * 30 + i)")
            }
            try store.recordFriendFeed(id: id, songs: songs, etag: nil, lastModified: nil, feedURL: nil, at: Date(), nextPollAt: Date())
        }
        let kept = try store.friendSongs(friendID: id, limit: 1000)
        #expect(kept.count == Store.friendSongsKept)
        #expect(kept.first?.title == "Song 89" && kept.last?.title == "Song 30")
    }

    @Test func theFeedsDaysAreTheRecentDaysWithASong() throws {
        let (_, store) = try Self.open()
        defer { try? store.close() }
        #expect(try store.recentSOTDDays(limit: 30).isEmpty)
        let track = Track(uri: "a.flac", title: "A", artist: "X")
        // 2026-11-20 10:00 and 12:00 UTC, 2026-11-22 09:00, and a skip on 2026-11-23.
        let a = try CreditStoreTests.play(store, track, at: 1_795_168_800)
        _ = try CreditStoreTests.play(store, track, at: 1_795_176_000)
        _ = try CreditStoreTests.play(store, Track(uri: "b.flac", title: "B", artist: "Y"), at: 1_795_338_000)
        let skipTrack = try store.saveTrack(Track(uri: "c.flac", title: "C", artist: "Z"))
        _ = try store.insertPlay(Play(trackID: skipTrack, startedAt: Date(timeIntervalSince1970: 1_795_420_800),
                                      endedAt: Date(timeIntervalSince1970: 1_795_420_810), playedSeconds: 10, counted: false, source: "mpd"))
        // A pin on a day without plays counts too, with when it was pinned; the plays' times
        // are not read (the feed says days only: issue 51).
        #expect(try store.pinSOTD(day: "2026-11-24", trackID: a, note: "n"))
        let days = try store.recentSOTDDays(limit: 30)
        #expect(days.map(\.day) == ["2026-11-24", "2026-11-22", "2026-11-20"])
        #expect(days[1].pinnedAt == nil && days[2].pinnedAt == nil)
        #expect((days[0].pinnedAt?.timeIntervalSinceNow ?? -100) > -60)
        #expect(try store.recentSOTDDays(limit: 2).map(\.day) == ["2026-11-24", "2026-11-22"])
    }
}
