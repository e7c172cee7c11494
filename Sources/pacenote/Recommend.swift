import ArgumentParser
import Dispatch
import Foundation
import PacenoteApp
import PacenoteCore

struct Recommend: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Suggest the next tracks for a zone, or evaluate the recommender offline.",
        discussion: """
            --evaluate replays the listening history in time order, hides each next counted play and \
            reports hit-rate@10 and MRR@10 for Pacenote's scorer and for baselines (random, most-played, \
            same-artist, last-track Markov). --synthetic evaluates on a generated history instead \
            (docs/RECOMMENDER.md). --bench times suggestions over the database.
            """)

    @OptionGroup var storage: StorageOptions

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

    func run() throws {
        if evaluate && synthetic {
            let history = SyntheticHistory.generate(seed: seed)
            Self.printEvaluation(RecommenderEvaluation.run(tracks: history.tracks, events: history.events,
                                                           explorationShare: exploration ?? 0.1),
                                 what: "generated history (seed \(seed)): \(counted(history.tracks.count, "track")), \(counted(history.events.count, "play"))")
            return
        }
        let config = try storage.loadConfig()
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
        let started = Date()
        var model = ListeningModel()
        for t in try store.recommenderCandidates() { model.upsert(t) }
        // As the daemon does: the texts of the few tracks a suggestion returns, read for them.
        let texts = { (ids: [Int64]) throws -> [Int64: ListeningModel.Texts] in try store.recommenderTexts(ids: ids) }
        for e in try store.recommenderEvents(afterID: 0).events { model.record(e) }
        // As the daemon does after a build: transitions merged, zone rows in slot order.
        model.settle()
        let built = Date().timeIntervalSince(started)
        let z = zone.flatMap(Zone.init(rawValue:))
        let target: TempoTarget = cadence.map { .cadence(stepsPerMinute: $0) }
            ?? z.map { .window(config.recommender.tempo.window(for: $0)) } ?? .any
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        if let bench {
            try Self.bench(model, texts: texts, count: bench, zone: z, target: target, now: now, limit: limit, built: built,
                           settings: config.recommender)
            return
        }
        let list = try Recommender.suggest(model, .init(zone: z, target: target, nowMs: now, recentHours: config.recommender.recentHours,
                                                    limit: limit, seed: UInt64(now / 86_400_000),
                                                    explorationShare: config.recommender.exploration), texts: texts)
        for (i, s) in list.enumerated() {
            print(String(format: "%2d. %6.2f  ", i + 1, s.score) + "\(s.track.artist ?? "?") – \(s.track.title)"
                  + (s.track.bpm.map { String(format: "  (%.0f bpm)", $0) } ?? ""))
            for r in s.reasons { print(String(format: "      %+6.2f  ", r.weight) + "\(r.kind): \(r.detail)") }
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
