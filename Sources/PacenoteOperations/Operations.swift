import Foundation
import PacenoteCore
import PacenoteStore

/// The one write path. Every kind of change to what Pacenote knows — a play from any
/// source, an import batch, a pin, a BPM, a deleted play (and the coming edits, merges and
/// likes) — is one operation here: it validates its input, writes in one transaction and,
/// once that committed, announces itself once on the event bus (`.changed`, and
/// `.playLogged` for each new play). HTTP handlers, forms and commands only turn their
/// input into a call; caches and the recommender follow the announcements instead of each
/// caller remembering to tell them.
///
/// A value type over the store and the bus: cheap to make wherever a writer needs one.
/// Without a bus (a command such as `pacenote import`, which runs in its own process)
/// nothing is announced; a running daemon's caches age out (`ResultCache.maxAge`).
public struct Operations: Sendable {
    public let store: Store
    public let events: EventBus?

    public init(store: Store, events: EventBus?) {
        self.store = store
        self.events = events
    }

    func announce(_ change: DataChange) {
        events?.publish(.changed(change))
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
/// maps it to HTTP once (400, or 404 for `notFound`); commands print it.
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

    /// The store's refusal in an operation's words (other store errors pass as they are).
    public static func from(_ error: StoreError) -> any Error {
        guard case .refused(let refusal) = error else { return error }
        let kind: Kind = switch refusal.kind {
        case .notFound: .notFound
        case .invalid: .invalid
        case .conflict: .conflict
        }
        return OperationError(kind, code: refusal.code, refusal.message)
    }
}
