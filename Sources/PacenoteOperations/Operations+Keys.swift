import Foundation
import PacenoteCore
import PacenoteStore

extension Operations {
    /// Names a key may have: what `pacenote key list` shows and `key revoke` takes.
    public static let keyNameCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")

    /// Stores a new named key by its SHA-256 (the key itself is shown once, by the caller,
    /// and never stored), and its MD5, which the Last.fm protocols' tokens are made of,
    /// sealed with `scrobblerSecret` (`ScrobblerCredentials`; without one, the key logs in
    /// to those protocols by its text only). Keys are credentials, not listening data:
    /// nothing is announced.
    public func addKey(name: String, scope: KeyScope, key: String, scrobblerSecret: [UInt8]? = nil) throws {
        guard (1...64).contains(name.count), name.allSatisfy(Self.keyNameCharacters.contains) else {
            throw OperationError.invalid("invalid_name", "a key's name: 1 to 64 letters, digits, '.', '_' or '-'")
        }
        let hash = SHA256.hex(key)
        let sealed = scrobblerSecret.flatMap { ScrobblerCredentials.seal(md5Hex: MD5.hex(key), keySHA256: hash, secret: $0) }
        guard try store.addKey(name: name, scope: scope, hash: hash, prefix: String(key.prefix(7)), md5Sealed: sealed) else {
            throw OperationError.invalid("duplicate_name", "there is already a key named '\(name)': revoke it first")
        }
    }

    /// Revokes the named key: a running server refuses it from its next request, and the
    /// sessions it opened (Last.fm protocols) end with it.
    public func revokeKey(name: String) throws {
        guard try store.revokeKey(name: name) else { throw OperationError.notFound("no key named '\(name)'") }
    }
}
