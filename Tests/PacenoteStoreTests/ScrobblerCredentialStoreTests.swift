import Foundation
import GRDB
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteStore

/// The Last.fm protocols' credentials on a real database: a token is taken once and
/// forgotten when it could not be taken anyway; sessions end with age and with their key;
/// a plain md5(key) of an older key is sealed and cleared.
@Suite struct ScrobblerCredentialStoreTests {
    static func store() throws -> (TemporaryDirectory, Store) {
        let dir = try TemporaryDirectory()
        return (dir, try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!))
    }

    @Test func aTokenIsTakenOnceAndForgottenWhenItHasExpired() throws {
        let (_, store) = try Self.store()
        defer { try? store.close() }
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(try store.useScrobbleToken(id: "a", keySHA256: "k", expiresAt: now.addingTimeInterval(60), at: now))
        #expect(try !store.useScrobbleToken(id: "a", keySHA256: "k", expiresAt: now.addingTimeInterval(60), at: now.addingTimeInterval(30)))
        // Past its expiry it is forgotten (it could not be taken then anyway: the caller checks the time).
        #expect(try store.useScrobbleToken(id: "a", keySHA256: "k", expiresAt: now.addingTimeInterval(200), at: now.addingTimeInterval(61)))
        // One without a time stays until its key's sessions end.
        #expect(try store.useScrobbleToken(id: "b", keySHA256: "k", expiresAt: nil, at: now))
        #expect(try !store.useScrobbleToken(id: "b", keySHA256: "k", expiresAt: nil, at: now.addingTimeInterval(1e9)))
        try store.endScrobbleSessions(keySHA256: "k")
        #expect(try store.useScrobbleToken(id: "b", keySHA256: "k", expiresAt: nil, at: now))
    }

    @Test func sessionsEndNinetyDaysAfterTheirLastUseAndWithTheirKey() throws {
        let (_, store) = try Self.store()
        defer { try? store.close() }
        let start = Date(timeIntervalSince1970: 1_800_000_000), day = 86_400.0
        let session = ScrobbleSession(key: "s1", keySHA256: SHA256.hex("key"), protocolVersion: "2.0", client: "c", user: "u",
                                      createdAt: start)
        try store.addScrobbleSession(session)
        #expect(try store.scrobbleSession("s1", at: start.addingTimeInterval(89 * day)) != nil)
        #expect(try store.scrobbleSession("s1", at: start.addingTimeInterval(91 * day)) == nil)
        // Used on day 80: it lasts until day 170.
        try store.touchScrobbleSession(session, at: start.addingTimeInterval(80 * day))
        #expect(try store.scrobbleSession("s1", at: start.addingTimeInterval(169 * day)) != nil)
        #expect(try store.scrobbleSession("s1", at: start.addingTimeInterval(171 * day)) == nil)
        // A named key's revocation ends its sessions.
        #expect(try store.addKey(name: "phone", scope: .submit, hash: SHA256.hex("key"), prefix: "key"))
        #expect(try store.revokeKey(name: "phone"))
        #expect(try store.scrobbleSession("s1", at: start) == nil)
    }

    @Test func aPlainMD5IsSealedAndCleared() throws {
        let (_, store) = try Self.store()
        defer { try? store.close() }
        let key = "pn_an-older-key-with-a-plain-md5", secret = [UInt8](repeating: 3, count: 32)
        #expect(try store.addKey(name: "old", scope: .submit, hash: SHA256.hex(key), prefix: "pn_an-o"))
        try store.write { db in try db.execute(sql: "UPDATE api_keys SET key_md5 = ? WHERE name = 'old'", arguments: [MD5.hex(key)]) }
        #expect(try store.liveKeySealedMD5s().isEmpty)
        #expect(try store.sealScrobblerMD5s { ScrobblerCredentials.seal(md5Hex: $0, keySHA256: $1, secret: secret) } == 1)
        let sealed = try #require(try store.liveKeySealedMD5s().first)
        #expect(sealed.sealedMD5 != MD5.hex(key))
        #expect(ScrobblerCredentials.unseal(sealed.sealedMD5, keySHA256: sealed.sha256, secret: secret) == MD5.hex(key))
        #expect(try store.read { db in try String.fetchOne(db, sql: "SELECT key_md5 FROM api_keys") } == nil)
        #expect(try store.sealScrobblerMD5s { _, _ in "x" } == 0, "nothing left to seal")
    }
}
