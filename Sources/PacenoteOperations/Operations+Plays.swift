import Foundation
import PacenoteCore
import PacenoteStore

extension Operations {
    /// A player's tracker decisions (PlayerService): the finished plays and the play in
    /// progress, in one transaction. Returns the plays that were new.
    @discardableResult
    public func recordPlayer(_ player: String, finished: [FinishedPlay], open: OpenPlayUpdate,
                             now: Date = Date()) throws(StoreError) -> [LoggedPlay] {
        let rules = finished.isEmpty ? RuleSet.empty : try store.currentRules()
        let logged = try store.record(player: player, finished: finished, open: open, rules: rules, now: now)
        announce(logged: logged)
        return logged
    }

    /// Listens a client reports (ListenBrainz `single` and `import` submissions): counted
    /// plays that began at each listen's time, stored once however often they are sent.
    @discardableResult
    public func recordListens(_ listens: [(track: Track, startedAt: Date, client: String?)], source: String,
                              now: Date = Date()) throws(StoreError) -> [LoggedPlay] {
        let logged = try store.recordListens(listens, source: source, rules: try store.currentRules(), now: now)
        announce(logged: logged)
        return logged
    }

    /// Scrobbles from the Last.fm protocols (Audioscrobbler 2.0 and 1.2): like
    /// `recordListens`, and a scrobble of a song already stored within
    /// `Store.scrobbleWindow` is that play (the same play arriving by two routes).
    @discardableResult
    public func recordScrobbles(_ listens: [(track: Track, startedAt: Date, client: String?)], source: String,
                                now: Date = Date()) throws(StoreError) -> [LoggedPlay] {
        let logged = try store.recordListens(listens, source: source, rules: try store.currentRules(),
                                             sameWithin: Store.scrobbleWindow, now: now)
        announce(logged: logged)
        return logged
    }

    /// Plays others report and have decided (webhooks from Jellyfin, Plex and Web Scrobbler;
    /// Maloja's `newscrobble`; a ListenBrainz listen with `duration_played`): counted plays
    /// and skips, deduplicated as scrobbles are (the same play arriving by two routes within
    /// `Store.scrobbleWindow` is stored once; ListenBrainz's listens, as ever, only when
    /// they began at the same moment: `sameWithin: 0`).
    @discardableResult
    public func recordReported(_ plays: [ReportedPlay], source: String, sameWithin: TimeInterval = Store.scrobbleWindow,
                               now: Date = Date()) throws(StoreError) -> [LoggedPlay] {
        let logged = try store.recordReported(plays, source: source, rules: try store.currentRules(), sameWithin: sameWithin, now: now)
        announce(logged: logged)
        return logged
    }

    /// An import of listening history: batches are stored by the store's bulk path (one
    /// transaction each) and each batch that added plays is announced once. Imported plays
    /// are older than their ids say, so followers read the plays again.
    /// The rules in force when the import starts apply to every listen, in the reader's
    /// batcher (`ImportRun.makeBatcher`), before it is batched.
    public func importListens(source: String) -> ImportRun {
        let rules = (try? store.currentRules()) ?? .empty
        return ImportRun(session: ListenImportSession(store: store, source: source, rules: rules), operations: self)
    }
}

/// One import, batch by batch (`Operations.importListens`): its store session, and the
/// batcher its reader makes the batches with. Finish it when done.
public final class ImportRun {
    private let session: ListenImportSession
    private let operations: Operations
    /// Batches `insert(_: [ImportedListen])`'s listens (the reader's batcher is another).
    private lazy var listenBatcher = session.makeBatcher()

    init(session: ListenImportSession, operations: Operations) {
        self.session = session
        self.operations = operations
    }

    /// The batcher for this import's batches, with its separators and curation rules:
    /// one per import (its keys are the session's), used on the reader's thread.
    public func makeBatcher() -> ImportBatcher { session.makeBatcher() }

    /// Stores one batch in one transaction; see `ListenImportSession.insert`.
    public func insert(_ batch: ImportBatch, now: Date = Date()) throws(StoreError) -> (imported: Int, duplicates: Int) {
        var batches = CollectionOfOne(batch).makeIterator()
        return try insert(now: now) { batches.next() }
    }

    /// Stores the batches `next` gives, until it gives nil, in one transaction (their hidden
    /// plays too); see `ListenImportSession.insert(now:batches:)`.
    public func insert(now: Date = Date(), batches next: () -> ImportBatch?) throws(StoreError) -> (imported: Int, duplicates: Int) {
        var overruns: [RuleOverrun] = []
        let result = try session.insert(now: now) {
            guard let batch = next() else { return nil }
            overruns += batch.overruns
            return batch
        }
        if !overruns.isEmpty {
            try? operations.store.noteRuleOverruns(overruns, at: now)  // a report: the import goes on without it
        }
        if result.imported > 0 { operations.announce(.playsRewritten(.imported)) }
        return result
    }

    /// Stores listens given one by one (tests, small uploads).
    public func insert(_ listens: [ImportedListen], now: Date = Date()) throws(StoreError) -> (imported: Int, duplicates: Int) {
        for listen in listens { listenBatcher.add(listen) }
        return try insert(listenBatcher.take(), now: now)
    }

    public func finish() { session.finish() }

    /// Whether `finish()` builds the charts' indexes again (seconds, for a big import).
    public var buildsIndexesAtFinish: Bool { session.buildsIndexesAtFinish }
}
