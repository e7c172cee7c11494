import Foundation
import GRDB

/// Everything the store can fail with, in the user's words. SQLite's result codes become
/// these in one place (`StoreError.init(_:path:)`), so callers never see `DatabaseError`.
public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file could not be opened or created as a database.
    case cannotOpen(path: String, reason: String)
    /// The file was written by a newer Pacenote that added migrations this one does not know.
    case newerSchema(path: String, unknownMigrations: [String])
    /// `integrity_check` found problems (its first lines).
    case damaged(path: String, problems: [String])
    /// An SQLite file (or not even that) without Pacenote's schema.
    case notPacenote(path: String)
    /// Another process holds a lock for longer than the busy timeout.
    case busy(path: String)
    /// A row was rejected by a constraint (a duplicate, a check, a foreign key).
    case constraint(String)
    case sqlite(String)
    /// A change the store will not make as asked (a curation whose play is gone, a merge
    /// into itself, an undo that later changes depend on): nothing was written.
    case refused(Refusal)

    /// Why a change was refused: what the store would not do, in the domain's terms, and a
    /// message naming what was asked. How a client sees it (an API code, an HTTP status) is
    /// decided once, by PacenoteOperations' `OperationError.from`.
    public struct Refusal: Equatable, Sendable {
        public enum Reason: Sendable, Equatable {
            /// What the change names (a play, a track, an entry, a rule, a friend) is not stored.
            case missing
            case nothingToMerge, mergeIntoItself, alreadyMerged, notAnExportedMerge
            /// The play asked for is stored already (same track, same start).
            case duplicatePlay
            case emptyAlbum
            /// An album's track has no known length, so its plays cannot be laid out.
            case unknownDuration
            case alreadyUndone
            /// Later entries depend on the one to undo.
            case undoBlocked
            /// A row the undo would put back clashes with one written since.
            case undoConflict
            case friendFollowed, tooManyFriends, friendFromConfig
            case ruleFromConfig, ruleChangesNothing, invalidRule
            /// Another saved plan has this name (names are unique, whatever their case).
            case planNameTaken
        }
        public var reason: Reason
        public var message: String

        public init(_ reason: Reason, _ message: String) {
            self.reason = reason
            self.message = message
        }
    }

    static func refused(_ reason: Refusal.Reason, _ message: String) -> StoreError {
        .refused(Refusal(reason, message))
    }

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open database \(path): \(reason)"
        case .newerSchema(let path, let names):
            "database \(path) was written by a newer Pacenote (unknown migrations: \(names.joined(separator: ", ")))"
        case .damaged(let path, let problems):
            "\(path) is damaged (integrity_check: \(problems.prefix(3).joined(separator: "; ")))"
        case .notPacenote(let path): "\(path) is not a Pacenote database"
        case .busy(let path): "database \(path) is locked by another process"
        case .constraint(let message): "rejected by the database: \(message)"
        case .sqlite(let message): "database error: \(message)"
        case .refused(let refusal): refusal.message
        }
    }

    init(_ error: any Error, path: String) {
        guard let db = error as? DatabaseError else {
            self = (error as? StoreError) ?? .sqlite(Self.describe(error))
            return
        }
        let message = db.message ?? "\(db.resultCode)"
        switch db.resultCode {
        case .SQLITE_CANTOPEN, .SQLITE_NOTADB, .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_AUTH, .SQLITE_CORRUPT:
            self = .cannotOpen(path: path, reason: message)
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            self = .busy(path: path)
        case .SQLITE_CONSTRAINT:
            self = .constraint(message)
        default:
            self = .sqlite(message)
        }
    }

    /// A file error (from `FileManager`, around a backup or a restore) as a user reads it:
    /// the file and the system's words for what went wrong, not Foundation's dump of the
    /// error and its `userInfo`.
    static func describe(_ error: any Error) -> String {
        if let posix = error as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
        let ns = error as NSError
        if ns.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(ns.code))) }
        guard ns.domain == NSCocoaErrorDomain else { return String(describing: error) }
        var reason = ns.localizedDescription
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            reason = String(cString: strerror(Int32(underlying.code)))
        }
        guard let path = ns.userInfo[NSFilePathErrorKey] as? String else { return reason }
        return "\(path): \(reason)"
    }
}
