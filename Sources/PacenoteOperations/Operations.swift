import Foundation
import PacenoteCore
import PacenoteStore

/// The one write path. Every kind of change to what Pacenote knows — a play from any
/// source, an import batch, a pin, a BPM, a deleted play, heart rate given to plays, tempos
/// read from tags, a scrobbler session, the outbox changed by hand — is one operation here:
/// it validates its input, writes in one transaction and, once that committed, announces
/// itself once on the event bus (`.playLogged` for each new play, then one `.changed`) when
/// a derived view may change (keys, reviews' publishing and rule edits announce nothing:
/// the caches see the commit count move).
/// HTTP handlers, forms and commands only turn their input into a call; caches and the
/// recommender follow the announcements instead of each caller remembering to tell them.
///
/// The announcement, `.changed(change, commit:)`, is the one signal for whatever is derived
/// from stored data: `change` says what the operation touched (so a follower can skip what
/// it does not derive from it, `DataChange.touchesPlays`), `commit` is the store's commit
/// count read after the operation's commit, so a cache can remember the commit it was made
/// at and be stale exactly when a later one is announced.
///
/// Rows a service writes as its own bookkeeping stay with their owner and are not announced:
/// the outbox's deliveries (`ForwardService`, the sender), a player's library update time
/// (`PlayerService`), zone settings (`HeartRateService`), friends' feeds and
/// covers (`FriendsPoller`), a key's last use (`NamedKeys`), and the configuration's
/// rules and friends put in place at start, before anything is served (`PacenoteServer`).
///
/// A value type over the store and the bus: cheap to make wherever a writer needs one.
/// Readers use the store they are given, never this one's. Without a bus (a command such as
/// `pacenote import`, which runs in its own process) nothing is announced; a running
/// daemon's caches age out (their `maxAge`).
public struct Operations: Sendable {
    let store: Store
    public let events: EventBus?

    public init(store: Store, events: EventBus?) {
        self.store = store
        self.events = events
    }

    func announce(_ change: DataChange) {
        guard let events else { return }
        events.publish(.changed(change, commit: store.commitCount))
    }

    /// Announces new plays: each for the live page and the heart-rate tagging, then the
    /// change once for the caches and the recommender.
    func announce(logged: [LoggedPlay]) {
        guard !logged.isEmpty else { return }
        for entry in logged {
            events?.publish(.playLogged(id: entry.id, play: entry.play, track: entry.track))
        }
        announce(.playsAdded(ids: logged.map(\.id)))
    }
}

/// Why an operation refused its input: the field it names and what it expects. PacenoteWeb
/// maps it to HTTP once (`APIError.init(_:)`: 400, 404 for `notFound`, 409 for `conflict`);
/// commands print it.
public struct OperationError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable { case invalid, notFound, conflict }

    public var kind: Kind
    /// A stable code for API clients (`invalid_bpm`, `invalid_note`, …).
    public var code: String
    public var message: String

    public init(_ kind: Kind, code: String, _ message: String) {
        self.kind = kind
        self.code = code
        self.message = message
    }

    public var description: String { message }

    static func invalid(_ code: String, _ message: String) -> OperationError { .init(.invalid, code: code, message) }
    static func notFound(_ message: String) -> OperationError { .init(.notFound, code: "not_found", message) }

    /// The store's refusal in an operation's words: the one place a domain refusal gets
    /// its kind and API code (other store errors pass as they are).
    public static func from(_ error: StoreError) -> any Error {
        guard case .refused(let refusal) = error else { return error }
        let (kind, code): (Kind, String) = switch refusal.reason {
        case .missing: (.notFound, "not_found")
        case .nothingToMerge: (.invalid, "invalid_from")
        case .mergeIntoItself, .notAnExportedMerge: (.invalid, "invalid_merge")
        case .alreadyMerged: (.conflict, "already_merged")
        case .duplicatePlay: (.conflict, "duplicate_play")
        case .emptyAlbum: (.invalid, "empty_album")
        case .unknownDuration: (.invalid, "unknown_duration")
        case .alreadyUndone: (.conflict, "already_undone")
        case .undoBlocked: (.conflict, "undo_blocked")
        case .undoConflict: (.conflict, "undo_conflict")
        case .friendFollowed: (.conflict, "friend_exists")
        case .tooManyFriends: (.invalid, "too_many_friends")
        case .friendFromConfig: (.conflict, "config_friend")
        case .ruleFromConfig: (.conflict, "config_rule")
        case .ruleChangesNothing: (.conflict, "nothing_to_change")
        case .invalidRule: (.invalid, "invalid_rule")
        case .planNameTaken: (.conflict, "plan_exists")
        }
        return OperationError(kind, code: code, refusal.message)
    }
}

extension Operations {
    /// Blocks until the operations' commits so far are on disk (group commit): for writers
    /// that acknowledge what they stored outside an HTTP answer (plays from MPD).
    public func waitDurable() throws(StoreError) { try store.waitDurable() }

    /// Syncs the commits so far at once, before a writer drops its other copy of them (the
    /// spool of waiting plays).
    public func makeDurable() throws(StoreError) { try store.makeDurable() }
}
