import ArgumentParser
import Dispatch
import Foundation
import Logging
import PacenoteApp
import PacenoteCore
import PacenoteStore

struct Recommend: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Suggest the next tracks for a zone, or evaluate the recommender offline.",
        discussion: """
            Suggestions leave out what the API leaves out: the song MPD plays, the songs queued after \
            it, disliked songs and songs started in the last [recommender] recent_hours (any version \
            of each). When nothing can be suggested it says why and what to do, and exits with \
            status 2; a shorter list than --limit is noted on stderr. Without --zone or --cadence \
            there is no tempo target (the command reads no heart rate).

            --evaluate replays the listening history in time order, hides each next counted play and \
            reports hit-rate@10 and MRR@10 for Pacenote's scorer and for baselines (random, most-played, \
            same-artist, last-track Markov). --synthetic evaluates on a generated history instead \
            (docs/RECOMMENDER.md). --bench times suggestions over the database.
            """)

    /// Nothing could be suggested (the reason is on stderr): not an error of the command.
    static let nothingToSuggest: Int32 = 2

    @OptionGroup var storage: StorageOptions

    @Option(name: .long, help: ArgumentHelp("MPD whose playing song and queue are left out: host, password@host or a socket path. Default: [mpd] of the configuration.", valueName: "host[:port]"))
    var mpd: String?

    @Option(name: .long, help: ArgumentHelp("Zone 0–5 to suggest for.", valueName: "n"))
    var zone: Int?

    @Option(name: .long, help: "How many suggestions.")
    var limit = 10

    @Option(name: .long, help: ArgumentHelp("Cadence mode: steps per minute.", valueName: "spm"))
    var cadence: Double?

    @Flag(name: .long, help: "Evaluate the scorer and the baselines on the history.")
    var evaluate = false

    @Flag(name: .long, help: "With --evaluate: on a generated history, not the database.")
    var synthetic = false

    @Option(name: .long, help: "Seed of the generated history.")
    var seed: UInt64 = 7

    @Option(name: .long, help: ArgumentHelp("Share of the list kept for never-played tracks (default: recommender.exploration).", valueName: "share"))
    var exploration: Double?

    @Option(name: .long, help: ArgumentHelp("Time this many suggestions and print the latency.", valueName: "n"))
    var bench: Int?

    func validate() throws {
        if let zone, Zone(rawValue: zone) == nil { throw ValidationError("--zone: a zone from 0 to 5, not \(zone)") }
        if limit < 1 || limit > 1000 { throw ValidationError("--limit: 1 to 1000, not \(limit)") }
        if let cadence, !(60...240).contains(cadence) { throw ValidationError("--cadence: 60 to 240 steps per minute, not \(cadence)") }
    }

    func run() throws {
        if evaluate && synthetic {
            let history = SyntheticHistory.generate(seed: seed)
            Self.printEvaluation(RecommenderEvaluation.run(tracks: history.tracks, events: history.events,
                                                           explorationShare: exploration ?? 0.1),
                                 what: "generated history (seed \(seed)): \(counted(history.tracks.count, "track")), \(counted(history.events.count, "play"))")
            return
        }
        let config = try storage.loadConfig(mpd: mpd)
        let store = try PacenoteServer.openStore(config: config)
        defer { try? store.close() }
        if evaluate {
            let tracks = try store.recommenderCandidates()
            let events = try store.recommenderEvents(afterID: 0).events
            Self.printEvaluation(RecommenderEvaluation.run(tracks: tracks, events: events, tempo: config.recommender.tempo,
                                                           recentHours: config.recommender.recentHours,
                                                           explorationShare: exploration ?? config.recommender.exploration),
                                 what: "\(config.databasePath): \(counted(tracks.count, "track")), \(counted(events.count, "play"))")
            return
        }
        let z = zone.flatMap(Zone.init(rawValue:))
        guard let bench else {
            try suggest(config: config, store: store, zone: z)
            return
        }
        let started = Date()
        var model = ListeningModel()
        for t in try store.recommenderCandidates() { model.upsert(t) }
        // As the daemon does: the texts of the few tracks a suggestion returns, read for them.
        let texts = { (ids: [Int64]) throws -> [Int64: ListeningModel.Texts] in try store.recommenderTexts(ids: ids) }
        for e in try store.recommenderEvents(afterID: 0).events { model.record(e) }
        // As the daemon does after a build: transitions merged, zone rows in slot order.
        model.settle()
        let built = Date().timeIntervalSince(started)
        let target: TempoTarget = cadence.map { .cadence(stepsPerMinute: $0) }
            ?? z.map { .window(config.recommender.tempo.window(for: $0)) } ?? .any
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        try Self.bench(model, texts: texts, count: bench, zone: z, target: target, now: now, limit: limit, built: built,
                       settings: config.recommender)
    }

    /// The suggestions as the API gives them, then why the list is empty or short.
    func suggest(config: Config, store: Store, zone: Zone?) throws {
        let answer = try RecommenderService.once(config: config, store: store, zone: zone, cadence: cadence, limit: limit,
                                                 exploration: exploration, logger: makeLogger(level: .warning))
        if let problem = answer.queueError {
            Failure.warn("note: \(problem); the song it plays and its queue are not left out")
        }
        for (i, s) in answer.suggestions.enumerated() {
            print(String(format: "%2d. %6.2f  ", i + 1, s.score) + "\(s.track.artist ?? "?") – \(s.track.title)"
                  + (s.track.bpm.map { String(format: "  (%.0f bpm)", $0) } ?? ""))
            for r in s.reasons { print(String(format: "      %+6.2f  ", r.weight) + "\(r.kind): \(r.detail)") }
        }
        if let note = answer.note { Failure.warn("note: \(note)") }
        if let why = answer.emptyReason {
            Failure.warn("no suggestion: \(why.message)\n\(why.fix)")
            throw ExitCode(Self.nothingToSuggest)
        }
        if answer.suggestions.count < limit {
            let c = answer.census
            Failure.warn("note: \(answer.suggestions.count) of the \(limit) asked for: of \(c.library) \(c.library == 1 ? "song" : "songs") "
                         + "in the library, \(c.leftOut) \(c.leftOut == 1 ? "is" : "are") left out and \(c.offTempo) "
                         + "\(c.offTempo == 1 ? "does" : "do") not fit the tempo")
        }
    }

    static func printEvaluation(_ results: [RecommenderEvaluation.Result], what: String) {
        print("offline evaluation on \(what); \(results.first?.cases ?? 0) hidden next plays")
        print("| method | hit-rate@10 | MRR@10 |")
        print("|---|---:|---:|")
        for r in results {
            print(String(format: "| %@ | %.3f | %.3f |", r.method.rawValue, r.hitRate, r.mrr))
        }
    }

    static func bench(_ model: ListeningModel, texts: ([Int64]) throws -> [Int64: ListeningModel.Texts], count: Int, zone: Zone?, target: TempoTarget, now: Int64, limit: Int,
                      built: Double, settings: Config.Recommender) throws {
        var times: [Double] = []
        var rng = SyntheticHistory.RNG(seed: 1)
        for i in 0..<count {
            // A different current track each time, so the transition lookups vary.
            let id = model.trackIDs[Int(rng.next() % UInt64(model.trackCount))]
            let current = model.candidate(at: model.slot(of: id)!, texts: try texts([id])[id]!)
            let request = Recommender.Request(
                zone: zone, target: target, nowMs: now, current: .init(trackID: current.id, artist: current.artist, title: current.title),
                recentHours: settings.recentHours, limit: limit, seed: UInt64(i), explorationShare: settings.exploration)
            let t0 = DispatchTime.now().uptimeNanoseconds
            let list = try Recommender.suggest(model, request, texts: texts)
            times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
            precondition(!list.isEmpty || model.trackCount == 0)
        }
        times.sort()
        func pct(_ p: Double) -> Double { times[min(times.count - 1, Int(Double(times.count) * p))] }
        print(String(format: "model: %d tracks, %d plays, built in %.2f s", model.trackCount, model.eventCount, built))
        print(String(format: "suggestion latency over %d requests (limit %d): p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms",
                     times.count, limit, pct(0.5), pct(0.9), pct(0.99), times.last ?? 0))
    }
}
