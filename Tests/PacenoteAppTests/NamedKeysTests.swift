import Foundation
import PacenoteApp
import PacenoteCore
import PacenoteStore
import PacenoteTestSupport
import Testing

/// Named keys on a real database: stored hashed, looked up on each use, revoked at once,
/// last use written at most once a minute.
@Suite struct NamedKeysTests {
    @Test func keysAreHashedScopedRevokedAndTheirUseNoted() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        let keys = NamedKeys(store: store)
        let phone = try NamedKeys.add(name: "phone", scope: .submit, store: store)
        let widget = try NamedKeys.add(name: "widget", scope: .read, store: store)
        #expect(phone.hasPrefix("pn_") && phone.count == 46 && phone != widget)
        #expect(throws: (any Error).self) { try NamedKeys.add(name: "phone", scope: .admin, store: store) }
        #expect(throws: (any Error).self) { try NamedKeys.add(name: "a phone", scope: .admin, store: store) }

        let start = Date()
        #expect(keys.scope(of: phone, now: start) == .submit)
        #expect(keys.scope(of: widget, now: start) == .read)
        #expect(keys.scope(of: phone + "x", now: start) == nil)
        #expect(keys.scope(of: "", now: start) == nil)
        var stored = try store.keys()
        #expect(stored.map(\.name) == ["phone", "widget"])
        #expect(stored[0].prefix == String(phone.prefix(7)) && stored[0].lastUsedAt != nil)
        let firstUse = try #require(stored[0].lastUsedAt)
        _ = keys.scope(of: phone, now: start.addingTimeInterval(30))
        #expect(try store.keys()[0].lastUsedAt == firstUse, "not written again within the minute")
        _ = keys.scope(of: phone, now: start.addingTimeInterval(61))
        #expect(try store.keys()[0].lastUsedAt != firstUse)

        try NamedKeys.revoke(name: "phone", store: store)
        #expect(keys.scope(of: phone) == nil, "refused from the next use")
        #expect(throws: (any Error).self) { try NamedKeys.revoke(name: "phone", store: store) }
        stored = try store.keys()
        #expect(stored[0].revokedAt != nil)
        // The name may be used again; the old key stays dead.
        let again = try NamedKeys.add(name: "phone", scope: .submit, store: store)
        #expect(keys.scope(of: again) == .submit && keys.scope(of: phone) == nil)
    }
}
