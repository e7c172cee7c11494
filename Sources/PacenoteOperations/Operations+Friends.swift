import Foundation
import PacenoteCore
import PacenoteStore

/// Following friends' songs of the day (issue 20, point 3): a friend added or removed on the
/// site or over the API, checked here once for every caller and announced, so that the
/// poller asks a new friend's feed at once.
extension Operations {
    /// Follows `url` under `name` (the address's host when empty).
    public func addFriend(name: String?, url: String) throws -> Friend {
        let url = url.trimmingCharacters(in: .whitespacesAndNewlines)
        let given = name?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        let name = given.isEmpty ? Friend.defaultName(for: url) : given
        if let problem = Friend.problem(name: name, url: url) {
            throw OperationError.invalid("invalid_friend", "\(problem.field): \(problem.message)")
        }
        let friend: Friend
        do { friend = try store.addFriend(name: name, url: url) } catch { throw OperationError.from(error) }
        if let id = friend.id { announce(.friends(id: id)) }
        return friend
    }

    /// Stops following a friend added on the site; their songs go too.
    @discardableResult
    public func deleteFriend(id: Int64) throws -> Friend {
        let friend: Friend
        do { friend = try store.deleteFriend(id: id) } catch { throw OperationError.from(error) }
        announce(.friends(id: id))
        return friend
    }
}
