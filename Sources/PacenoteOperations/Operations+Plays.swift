import Foundation
import PacenoteCore
import PacenoteStore

extension Operations {
    /// A player's tracker decisions (PlayerService): the finished plays and the play in
    /// progress, in one transaction. Returns the plays that were new.
    @discardableResult
    public func recordPlayer(_ player: String, finished: [FinishedPlay], open: OpenPlayUpdate,
                             now: Date = Date()) throws(StoreError) -> [LoggedPlay] {
        let logged = try store.record(player: player, finished: finished, open: open, now: now)
        announce(logged: logged)
        return logged
    }

    /// Listens a client reports (ListenBrainz `single` and `import` submissions): counted
    /// plays that began at each listen's time, stored once however often they are sent.
    @discardableResult
    public func recordListens(_ listens: [(track: Track, startedAt: Date, client: String?)], source: String,
                              now: Date = Date()) throws(StoreError) -> [LoggedPlay] {
        let logged = try store.recordListens(listens, source: source, now: now)
        announce(logged: logged)
        return logged
    }

    /// An import of listening history: batches are stored by the store's bulk path (one
    /// transaction each) and each batch that added plays is announced once. Imported plays
    /// are older than their ids say, so followers read the plays again.
    public func importListens(source: String) -> ImportRun {
        ImportRun(session: ListenImportSession(store: store, source: source), operations: self)
    }
}

/// One import, batch by batch (`Operations.importListens`). Finish it when done.
public final class ImportRun {
    private let session: ListenImportSession
    private let operations: Operations

    init(session: ListenImportSession, operations: Operations) {
        self.session = session
        self.operations = operations
    }

    /// The separators the batches' credit text is to be split with.
    public var separators: [String] { session.separators }

    /// Stores one batch in one transaction; see `ListenImportSession.insert`.
    public func insert(_ batch: ImportBatch, now: Date = Date()) throws(StoreError) -> (imported: Int, duplicates: Int) {
        let result = try session.insert(batch, now: now)
        if result.imported > 0 { operations.announce(.playsRewritten(.imported)) }
        return result
    }

    /// Stores listens given one by one (tests, small uploads).
    public func insert(_ listens: [ImportedListen], now: Date = Date()) throws(StoreError) -> (imported: Int, duplicates: Int) {
        let result = try session.insert(listens, now: now)
        if result.imported > 0 { operations.announce(.playsRewritten(.imported)) }
        return result
    }

    public func finish() { session.finish() }
}
