import Foundation
import PacenoteCore
import PacenoteOperations
import PacenoteStore

/// Friends over the API: `/api/v1/friends` (whom this Pacenote follows, with each one's
/// newest song of the day and how their feed answered) and `/api/v1/friends/{id}`. Private
/// like the history; following and unfollowing are writes.
extension API {
    func friendsJSON() throws -> JSONValue {
        .object([("friends", .array(try context.store.friendsWithLatestSong().map { friend, song in
            APIJSON.friend(friend, latest: song, cover: friendCoverPath)
        }))])
    }

    func addFriend(_ request: HTTPRequest) throws -> HTTPResponse {
        let body = try Self.jsonObject(request)
        if let unknown = body.keys.first(where: { $0 != "name" && $0 != "url" }) {
            throw APIError.badRequest("unknown field '\(unknown)'", code: "invalid_friend")
        }
        guard let url = body["url"] as? String else { throw APIError.badRequest("'url' is required: the friend's feed", code: "invalid_friend") }
        if let name = body["name"], !(name is String) && !(name is NSNull) {
            throw APIError.badRequest("'name' must be text", code: "invalid_friend")
        }
        let friend = try context.operations.addFriend(name: body["name"] as? String, url: url)
        return .json(APIJSON.friend(friend, latest: nil, cover: friendCoverPath), status: 201)
    }

    func unfollow(_ id: Int64) throws -> JSONValue {
        APIJSON.friend(try context.operations.deleteFriend(id: id), latest: nil, cover: friendCoverPath)
    }

    func friend(_ id: Int64) throws -> HTTPResponse {
        guard let friend = try context.store.friend(id: id) else { throw APIError.notFound("no friend \(id)") }
        let songs = try context.store.friendSongs(friendID: id)
        guard case .object(var fields) = APIJSON.friend(friend, latest: songs.first, cover: friendCoverPath) else { return .json(.null) }
        fields.append(("songs", .array(songs.map { APIJSON.friendSong($0, cover: friendCoverPath) })))
        return .json(.object(fields))
    }

    /// Where the site serves the copy of a friend's song's cover. The address names the
    /// picture's source (a day's song, and so its cover, can change under the same row), so
    /// that a browser's copy never outlives it.
    func friendCoverPath(_ song: FriendSong) -> String? {
        guard song.hasCover, let id = song.id, let source = song.coverURL else { return nil }
        return url("/friends/covers/\(id)?v=\(HTTPServer.fnv1a(Array(source.utf8)))")
    }
}

extension APIJSON {
    static func friend(_ f: Friend, latest: FriendSong?, cover: (FriendSong) -> String?) -> JSONValue {
        .object([
            ("id", .optional(f.id)),
            ("name", .string(f.name)),
            ("url", .string(f.url)),
            ("feed_url", .string(f.pollURL)),
            ("origin", .string(f.origin.rawValue)),
            ("last_polled_at", timestamp(f.lastPolledAt)),
            ("last_ok_at", timestamp(f.lastOKAt)),
            ("last_error", .optional(f.lastError)),
            ("next_poll_at", timestamp(f.nextPollAt)),
            ("latest", latest.map { friendSong($0, cover: cover) } ?? .null),
        ])
    }

    static func friendSong(_ s: FriendSong, cover: (FriendSong) -> String?) -> JSONValue {
        .object([
            ("day", .optional(s.day)),
            ("title", .string(s.title)),
            ("artist", .optional(s.artist)),
            ("link", .optional(s.link)),
            ("note", .optional(s.note)),
            ("cover", .optional(cover(s))),
            ("cover_url", .optional(s.coverURL)),
            ("updated_at", timestamp(s.updatedAt)),
        ])
    }
}
