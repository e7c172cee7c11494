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

    /// An import of listening history: batches are stored by the store's bulk path (one
    /// transaction each) and each batch that added plays is announced once. Imported plays
    /// are older than their ids say, so followers read the plays again.
    /// The rules in force when the import starts apply to every batch (`ImportRun`).
    public func importListens(source: String) -> ImportRun {
        let rules = (try? store.currentRules()) ?? .empty
        // Rules change batches after the reader made them: their tracks are looked up.
        return ImportRun(session: ListenImportSession(store: store, source: source, findingOwnTracks: rules.isEmpty),
                         operations: self, rules: rules, source: source)
    }
}

/// One import, batch by batch (`Operations.importListens`). Finish it when done.
public final class ImportRun {
    private let session: ListenImportSession
    private let operations: Operations
    private let rules: RuleSet
    private let source: String
    /// Each key's track as the export named it (the rules see it so), across batches.
    private var keyTracks: [Int32: Track] = [:]
    /// Keys whose every play an ignore rule takes (their tracks are not even added).
    private var ignoredKeys: Set<Int32> = []
    /// Rules that ran out of steps on this import's text, noted after each insert.
    private var overruns: [RuleOverrun] = []

    init(session: ListenImportSession, operations: Operations, rules: RuleSet, source: String) {
        self.session = session
        self.operations = operations
        self.rules = rules
        self.source = source
    }

    /// The separators the batches' credit text is to be split with.
    public var separators: [String] { session.separators }
    /// See `ListenImportSession.findsOwnTracks`: for the reader's batcher.
    public var findsOwnTracks: Bool { session.findsOwnTracks }

    /// Stores one batch in one transaction; see `ListenImportSession.insert`.
    public func insert(_ batch: ImportBatch, now: Date = Date()) throws(StoreError) -> (imported: Int, duplicates: Int) {
        var given = false
        return try insert(now: now) {
            defer { given = true }
            return given ? nil : batch
        }
    }

    /// Stores the batches `next` gives, until it gives nil, in one transaction; see
    /// `ListenImportSession.insert(now:batches:)`.
    public func insert(now: Date = Date(), batches next: () -> ImportBatch?) throws(StoreError) -> (imported: Int, duplicates: Int) {
        var hidden: [(track: Track, play: Play)] = []
        let result = try session.insert(now: now) {
            guard let batch = next() else { return nil }
            let (kept, ruledOut) = ruled(batch)
            hidden += ruledOut
            return kept
        }
        _ = try operations.store.recordHidden(hidden, now: now)
        noteOverruns(now: now)
        if result.imported > 0 { operations.announce(.playsRewritten(.imported)) }
        return result
    }

    private func decide(_ track: Track, playedSeconds: Double?) -> RuleDecision {
        let outcome = rules.evaluate(track, playedSeconds: playedSeconds, uri: track.uri)
        overruns += outcome.overruns
        return outcome.decision
    }

    private func noteOverruns(now: Date) {
        guard !overruns.isEmpty else { return }
        try? operations.store.noteRuleOverruns(overruns, at: now)  // a report: the import goes on without it
        overruns = []
    }

    /// The batch as the rules leave it: ignored plays out, hidden ones apart (the bulk path
    /// writes only `plays`), rewritten tracks under their new text.
    private func ruled(_ batch: ImportBatch) -> (ImportBatch, hidden: [(track: Track, play: Play)]) {
        guard !rules.isEmpty else { return (batch, []) }
        var out = batch
        out.tracks = []
        for var new in batch.tracks {
            keyTracks[new.key] = new.track
            switch decide(new.track, playedSeconds: nil) {
            case .ignore:
                // Ignores see the text only (a length rule is checked play by play below).
                ignoredKeys.insert(new.key)
                continue
            case .keep(let track), .hide(let track, _):
                if track != new.track {
                    new.credit = track.artist == new.track.artist ? new.credit : track.credit(separators: session.separators)
                    new.track = track
                    new.matchKey = track.matchKey
                    new.album = track.albumIdentity
                }
            }
            out.tracks.append(new)
        }
        out.plays = []
        var hidden: [(track: Track, play: Play)] = []
        for play in batch.plays where !ignoredKeys.contains(play.key) {
            guard let track = keyTracks[play.key] else {
                out.plays.append(play)
                continue
            }
            switch decide(track, playedSeconds: play.playedSeconds) {
            case .ignore: continue
            case .keep: out.plays.append(play)
            case .hide(let ruled, _):
                hidden.append((ruled, Play(trackID: 0, startedAt: Date(timeIntervalSince1970: Double(play.startedAtMs) / 1000),
                                           endedAt: Date(timeIntervalSince1970: Double(play.endedAtMs) / 1000),
                                           playedSeconds: play.playedSeconds, counted: play.counted, source: source,
                                           player: play.player >= 0 ? batch.players[Int(play.player)] : nil)))
            }
        }
        return (out, hidden)
    }

    /// Stores listens given one by one (tests, small uploads).
    public func insert(_ listens: [ImportedListen], now: Date = Date()) throws(StoreError) -> (imported: Int, duplicates: Int) {
        var kept: [ImportedListen] = []
        var hidden: [(track: Track, play: Play)] = []
        for var listen in listens {
            switch decide(listen.track, playedSeconds: listen.playedSeconds) {
            case .ignore: continue
            case .keep(let track):
                listen.track = track
                kept.append(listen)
            case .hide(let track, _):
                hidden.append((track, Play(trackID: 0, startedAt: Date(timeIntervalSince1970: Double(listen.startedAtMs) / 1000),
                                           endedAt: Date(timeIntervalSince1970: Double(listen.endedAtMs) / 1000),
                                           playedSeconds: listen.playedSeconds, counted: listen.counted, source: source,
                                           player: listen.player)))
            }
        }
        let result = try session.insert(kept, now: now)
        _ = try operations.store.recordHidden(hidden, now: now)
        noteOverruns(now: now)
        if result.imported > 0 { operations.announce(.playsRewritten(.imported)) }
        return result
    }

    public func finish() { session.finish() }

    /// Whether `finish()` builds the charts' indexes again (seconds, for a big import).
    public var buildsIndexesAtFinish: Bool { session.buildsIndexesAtFinish }
}
