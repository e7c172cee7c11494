import Foundation

/// The next track for the current zone: pure and deterministic given a seed.
///
/// A candidate must be queueable (in a library, with a URI), must not be the current song,
/// anything queued, or any version of a song that started in the last `recentHours`
/// (compared by `SongKey`), and must fit the tempo target. Tracks with a fitting BPM form
/// the first tier; tracks without a BPM follow in a second tier. Within a tier the score is
/// the sum of the reasons returned with each suggestion. A small share of the list
/// (`explorationShare`) is kept for tracks never played, picked by the seed.
public enum Recommender {
    /// Cue's genres per effort (issue 58): steady-state zones 2–3 and threshold zones 4–5
    /// each have their preferred genres (`[recommender] steady_genres`, `threshold_genres`).
    public struct GenrePreference: Equatable, Sendable {
        public var steady: [String]
        public var threshold: [String]

        public init(steady: [String] = [], threshold: [String] = []) {
            self.steady = steady
            self.threshold = threshold
        }

        /// `steady` in Z2–Z3, `threshold` in Z4–Z5; nil in Z0, Z1 and without a zone.
        public static func band(_ zone: Zone?) -> String? {
            switch zone {
            case .z2?, .z3?: "steady"
            case .z4?, .z5?: "threshold"
            default: nil
            }
        }

        /// The preferred genres' names in a zone (as configured), none outside the bands.
        public func genres(in zone: Zone?) -> [String] {
            switch Self.band(zone) {
            case "steady"?: steady
            case "threshold"?: threshold
            default: []
            }
        }

        /// Their keys (`EntityKey.genre`), for a look-up of the tracks filed under them.
        public func keys(in zone: Zone?) -> Set<String> { Set(genres(in: zone).map(EntityKey.genre)) }
    }

    /// A song to leave out: the current one or a queued one.
    public struct SongRef: Equatable, Sendable {
        public var trackID: Int64?
        public var artist: String?
        public var title: String

        public init(trackID: Int64? = nil, artist: String?, title: String) {
            self.trackID = trackID
            self.artist = artist
            self.title = title
        }
    }

    public struct Request: Equatable, Sendable {
        public var zone: Zone?
        public var target: TempoTarget
        public var nowMs: Int64
        public var current: SongRef?
        public var queued: [SongRef]
        public var recentHours: Double
        public var limit: Int
        public var seed: UInt64
        public var explorationShare: Double
        public var weights: Weights
        /// Liked tracks: favoured by `Weights.liked`.
        public var liked: Set<Int64> = []
        /// Disliked tracks: never suggested, nor any other version of their song (`SongKey`).
        public var disliked: Set<Int64> = []
        /// Tracks the listener said "not now" to: lowered by `Weights.notNow`.
        public var notNow: Set<Int64> = []
        /// Songs' effect on pace over the runs they played in (`PaceEffect.songs`), by track:
        /// those shown (`isShown`) weigh by `Weights.faster`.
        public var paceEffects: [Int64: PaceEffect.Song] = [:]
        /// Tracks of a genre preferred in this zone (`GenrePreference.genres(in:)`), with the
        /// genre's name: raised by `Weights.preferredGenre`.
        public var preferredGenres: [Int64: String] = [:]

        public init(zone: Zone?, target: TempoTarget, nowMs: Int64, current: SongRef? = nil,
                    queued: [SongRef] = [], recentHours: Double = 6, limit: Int = 10, seed: UInt64 = 0,
                    explorationShare: Double = 0.1, weights: Weights = .init()) {
            self.zone = zone
            self.target = target
            self.nowMs = nowMs
            self.current = current
            self.queued = queued
            self.recentHours = recentHours
            self.limit = limit
            self.seed = seed
            self.explorationShare = explorationShare
            self.weights = weights
        }
    }

    public struct Reason: Equatable, Sendable {
        /// `tempo`, `no_bpm`, `zone_record`, `familiarity`, `skips`, `follows_track`,
        /// `follows_artist`, `liked`, `not_now`, `faster` (or slower), `genre`, `exploration`.
        public var kind: String
        /// What it added to the score.
        public var weight: Double
        public var detail: String
    }

    public struct Suggestion: Equatable, Sendable {
        public var track: ListeningModel.Candidate
        public var score: Double
        /// 0: a BPM that fits; 1: no BPM known.
        public var tier: Int
        public var tempo: TempoFit?
        public var reasons: [Reason]
    }

    /// The ranked suggestions, best first. `texts`: the texts of the tracks with these ids
    /// (the model keeps none); a track it does not return (deleted meanwhile) is left out.
    public static func suggest(_ model: ListeningModel, _ request: Request,
                               texts: ([Int64]) throws -> [Int64: ListeningModel.Texts]) rethrows -> [Suggestion] {
        try answer(model, request, texts: texts).suggestions
    }

    /// The suggestions and the census of the library they were chosen from: what an empty
    /// or short list is explained by (`Census.emptyReason`).
    public static func answer(_ model: ListeningModel, _ request: Request,
                              texts: ([Int64]) throws -> [Int64: ListeningModel.Texts]) rethrows -> Answer {
        var census = Census()
        guard request.limit > 0 else { return Answer(suggestions: [], census: census) }
        func keys(_ refs: [SongRef]) -> Set<Int32> {
            var keys = Set<Int32>()
            for ref in refs {
                if let id = ref.trackID, let slot = model.slotOf(id) { keys.insert(model.songKey[Int(slot)]) }
                if let key = model.songKeySlot(artist: ref.artist, title: ref.title) { keys.insert(key) }
            }
            return keys
        }
        let playingKeys = keys([request.current].compactMap { $0 })
        let queuedKeys = keys(request.queued)
        var dislikedKeys = Set<Int32>()
        for id in request.disliked {
            if let slot = model.slotOf(id) { dislikedKeys.insert(model.songKey[Int(slot)]) }
        }
        let excludedKeys = playingKeys.union(queuedKeys).union(dislikedKeys)
        let recentSince = request.nowMs - Int64(request.recentHours * 3_600_000)
        let recentSecond = ListeningModel.second(recentSince)
        let currentSlot = request.current?.trackID.flatMap { model.slotOf($0) } ?? -1
        let currentArtist: Int32 = currentSlot >= 0 ? model.artistOf[Int(currentSlot)]
            : (request.current.map { model.artistSlot(of: $0.artist) } ?? -1)
        let scorer = Scorer(model: model, request: request, currentSlot: currentSlot, currentArtist: currentArtist)

        let explorationSlots = request.limit >= 5 && request.explorationShare > 0 ? max(1, Int((Double(request.limit) * request.explorationShare).rounded(.down))) : 0
        let keep = request.limit * 2 + 4
        var best = TopK(capacity: keep)
        // Room for the draws that turn out to have earned a place on score (at most the
        // list's length), with some to spare.
        var explore = TopK(capacity: explorationSlots > 0 ? request.limit + explorationSlots + 2 : 0)
        let n = model.trackCount
        for i in 0..<n {
            guard model.isQueueable(i) else { continue }
            census.library += 1
            let key = model.songKey[i]
            let recent = model.keyLastPlayed[Int(key)] >= recentSecond
            if recent || excludedKeys.contains(key) {
                // Every reason that holds is counted: the way forward is to lift all of them.
                census.leftOut += 1
                if recent { census.recentlyPlayed += 1 }
                if playingKeys.contains(key) { census.playing += 1 }
                if queuedKeys.contains(key) { census.queued += 1 }
                if queuedKeys.contains(key) || playingKeys.contains(key) { census.inQueue += 1 }
                if dislikedKeys.contains(key) { census.disliked += 1 }
                continue
            }
            guard let (tier, score) = scorer.score(i) else {
                census.offTempo += 1
                continue
            }
            if model.bpm(at: i).isNaN { census.withoutBPM += 1 }
            let tie = mix(request.seed ^ UInt64(bitPattern: model.trackIDs[i]))
            if explorationSlots > 0, tier == 0, model.counted[i] == 0, model.skips[i] == 0,
               !request.notNow.contains(model.trackIDs[i]) {
                explore.offer(Ranked(tier: 0, score: Double(tie >> 11) / Double(1 << 53), tie: tie, slot: Int32(i)))
            }
            best.offer(Ranked(tier: tier, score: score, tie: tie, slot: Int32(i)))
        }

        // The places a score earns come first. Exploration then draws only among never-played
        // tracks that did not earn one: a draw that had would only be moved down the list (so
        // the best fit's place would hang on the seed, which the daemon takes from the day).
        var picked: [Int32] = []
        var seenKeys = Set<Int32>()
        let ranking = best.sorted()
        for r in ranking where picked.count < request.limit - explorationSlots {
            if seenKeys.insert(model.songKey[Int(r.slot)]).inserted { picked.append(r.slot) }
        }
        var exploring: [Int32] = []
        for r in explore.sorted() where exploring.count < explorationSlots {
            if seenKeys.insert(model.songKey[Int(r.slot)]).inserted { exploring.append(r.slot) }
        }
        // Places no draw took go back to the ranking, in its order.
        for r in ranking where picked.count < request.limit - exploring.count {
            if seenKeys.insert(model.songKey[Int(r.slot)]).inserted { picked.append(r.slot) }
        }
        // Exploration takes the last places of the first tier, so the familiar picks lead and
        // tracks without a BPM still come after every track with a fitting one.
        let found = try texts((picked + exploring).map { model.trackIDs[Int($0)] })
        func explained(_ slots: [Int32], exploring: Bool) -> [Suggestion] {
            slots.compactMap { slot in
                found[model.trackIDs[Int(slot)]].map { scorer.explain(Int(slot), exploring: exploring, texts: $0) }
            }
        }
        let ranked = explained(picked, exploring: false)
        var out = ranked.filter { $0.tier == 0 }
        out += explained(exploring, exploring: true)
        out += ranked.filter { $0.tier != 0 }
        return Answer(suggestions: out, census: census)
    }

    /// SplitMix64's finaliser: a seeded, well-spread order for ties and exploration.
    static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    struct Ranked {
        var tier: Int
        var score: Double
        var tie: UInt64
        var slot: Int32

        /// Better first: lower tier, higher score, then the seeded order.
        func beats(_ other: Ranked) -> Bool {
            if tier != other.tier { return tier < other.tier }
            if score != other.score { return score > other.score }
            return tie < other.tie
        }
    }

    /// The best `capacity` items seen, kept sorted (capacity is small: a few dozen).
    struct TopK {
        let capacity: Int
        var items: [Ranked] = []

        init(capacity: Int) {
            self.capacity = capacity
            items.reserveCapacity(capacity + 1)
        }

        mutating func offer(_ r: Ranked) {
            if items.count == capacity, let worst = items.last, !r.beats(worst) { return }
            var lo = 0, hi = items.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if items[mid].beats(r) { lo = mid + 1 } else { hi = mid }
            }
            items.insert(r, at: lo)
            if items.count > capacity { items.removeLast() }
        }

        func sorted() -> [Ranked] { items }
    }

    struct Scorer {
        let model: ListeningModel
        let request: Request
        let currentSlot: Int32
        let currentArtist: Int32
        let nextTrack: [Int32: Float]
        let nextTrackTotal: Float
        let nextArtist: [Int32: Float]
        let nextArtistTotal: Float
        let zoneIndex: Int
        let usesTiers: Bool
        /// Heart rate is live or a cadence is the target: a song's effect on pace counts.
        let onTheMove: Bool

        init(model: ListeningModel, request: Request, currentSlot: Int32, currentArtist: Int32) {
            self.model = model
            self.request = request
            self.currentSlot = currentSlot
            self.currentArtist = currentArtist
            nextTrack = currentSlot >= 0 ? model.successors(ofTrack: currentSlot) : [:]
            // The counts are whole numbers well under 2^24: their Float sum is exact in any
            // order, so this is `transitions(fromTrack:)` without reading the row again.
            nextTrackTotal = nextTrack.values.reduce(0, +)
            nextArtist = currentArtist >= 0 ? model.successors(ofArtist: currentArtist) : [:]
            nextArtistTotal = nextArtist.values.reduce(0, +)
            zoneIndex = request.zone?.rawValue ?? -1
            if case .any = request.target { usesTiers = false } else { usesTiers = true }
            // The service gives the effects only on the move (heart rate live, a cadence to
            // match); a zone without either is not running.
            if case .cadence = request.target { onTheMove = true } else { onTheMove = request.zone != nil }
        }

        struct Parts {
            var tempo = 0.0
            var zoneRecord = 0.0
            var familiarity = 0.0
            var skips = 0.0
            var followsTrack = 0.0
            var followsArtist = 0.0
            var liked = 0.0
            var notNow = 0.0
            var faster = 0.0
            var genre = 0.0
            var beat = 0.0
            var sum: Double {
                tempo + zoneRecord + familiarity + skips + followsTrack + followsArtist + liked + notNow + faster + genre + beat
            }
        }

        func tempoFit(_ i: Int) -> (tier: Int, fit: TempoFit?)? {
            let bpm = model.bpm(at: i)
            if bpm.isNaN { return (usesTiers ? 1 : 0, nil) }
            guard let fit = request.target.fit(bpm: bpm) else { return nil }
            return (0, fit)
        }

        func parts(_ i: Int, fit: TempoFit?) -> Parts {
            let w = request.weights
            var p = Parts()
            if let fit { p.tempo = w.tempo * fit.fit }
            if zoneIndex >= 0 {
                let c = Double(model.countedInZone(zoneIndex, slot: i)), s = Double(model.skipsInZone(zoneIndex, slot: i))
                if c + s > 0 { p.zoneRecord = w.zoneRecord * (c - 1.5 * s) / (c + s + 1) }
            }
            let f = model.decayedFamiliarity(i, at: request.nowMs)
            if f > 0 { p.familiarity = w.familiarity * log1p(f) }
            let c = Double(model.counted[i]), s = Double(model.skips[i])
            if s > 0 { p.skips = -w.skipPenalty * s / (c + s + 1) }
            if nextTrackTotal > 0, let n = nextTrack[Int32(i)] {
                p.followsTrack = w.trackTransition * Double(n) / Double(nextTrackTotal + 1)
            }
            let artist = model.artistOf[i]
            if nextArtistTotal > 0, artist >= 0, let n = nextArtist[artist] {
                p.followsArtist = w.artistTransition * Double(n) / Double(nextArtistTotal + 1)
            }
            let id = model.trackIDs[i]
            if request.liked.contains(id) { p.liked = w.liked }
            if request.notNow.contains(id) { p.notNow = w.notNow }
            if onTheMove, let effect = request.paceEffects[id], effect.isShown {
                p.faster = max(-1, min(1, w.faster * effect.speedChange))
            }
            if request.preferredGenres[id] != nil { p.genre = w.preferredGenre }
            if usesTiers, fit != nil {
                let clarity = model.beatConfidence(at: i)
                if !clarity.isNaN { p.beat = w.beat * 2 * (min(clarity, 0.5) - 0.25) }
            }
            return p
        }

        func score(_ i: Int) -> (Int, Double)? {
            guard let (tier, fit) = tempoFit(i) else { return nil }
            return (tier, parts(i, fit: fit).sum)
        }

        func explain(_ i: Int, exploring: Bool, texts: ListeningModel.Texts) -> Suggestion {
            let (tier, fit) = tempoFit(i) ?? (0, nil)
            let p = parts(i, fit: fit)
            var reasons: [Reason] = []
            if let fit {
                let detail: String
                switch request.target {
                case .any: detail = "no tempo target"
                case .window(let w):
                    detail = String(format: "%.0f bpm%@ in %.0f–%.0f", fit.effectiveBPM, factorText(fit.factor), w.lowerBound, w.upperBound)
                case .cadence(let steps, _):
                    detail = String(format: "%.0f bpm%@ for %.0f steps/min (%+.1f %%)", fit.effectiveBPM, factorText(fit.factor), steps, (fit.change ?? 0) * 100)
                }
                reasons.append(Reason(kind: "tempo", weight: p.tempo, detail: detail))
            } else {
                reasons.append(Reason(kind: "no_bpm", weight: 0, detail: "tempo unknown: ranked after the tracks with a fitting BPM"))
            }
            if let zone = request.zone {
                let c = model.countedInZone(zone.rawValue, slot: i), s = model.skipsInZone(zone.rawValue, slot: i)
                if c + s > 0 {
                    reasons.append(Reason(kind: "zone_record", weight: p.zoneRecord, detail: "\(c) plays, \(s) skips in Z\(zone.rawValue)"))
                }
            }
            if p.familiarity > 0 {
                reasons.append(Reason(kind: "familiarity", weight: p.familiarity, detail: "\(model.counted[i]) plays, recent ones weigh more"))
            }
            if p.skips < 0 {
                reasons.append(Reason(kind: "skips", weight: p.skips, detail: "skipped \(model.skips[i]) of \(model.skips[i] + model.counted[i]) times"))
            }
            if p.followsTrack > 0 {
                reasons.append(Reason(kind: "follows_track", weight: p.followsTrack,
                                      detail: "followed the current track \(Int(nextTrack[Int32(i)] ?? 0)) times"))
            }
            if p.followsArtist > 0 {
                reasons.append(Reason(kind: "follows_artist", weight: p.followsArtist,
                                      detail: "its artist followed the current artist \(Int(nextArtist[model.artistOf[i]] ?? 0)) times"))
            }
            if p.liked != 0 {
                reasons.append(Reason(kind: "liked", weight: p.liked, detail: "you like it"))
            }
            if p.notNow != 0 {
                reasons.append(Reason(kind: "not_now", weight: p.notNow, detail: "you said not now a short while ago"))
            }
            if p.faster != 0, let effect = request.paceEffects[model.trackIDs[i]] {
                reasons.append(Reason(kind: "faster", weight: p.faster,
                                      detail: "\(PaceEffect.words(effect.speedChange)) than in the 3 minutes before it, over "
                                          + "\(effect.plays) plays on \(effect.runs) runs"))
            }
            if p.genre != 0, let genre = request.preferredGenres[model.trackIDs[i]] {
                let band = GenrePreference.band(request.zone) == "threshold" ? "a threshold genre (Z4–5)" : "a steady-state genre (Z2–3)"
                reasons.append(Reason(kind: "genre", weight: p.genre, detail: "\(genre): \(band)"))
            }
            if p.beat != 0 {
                let confidence = model.beatConfidence(at: i)
                reasons.append(Reason(kind: "beat", weight: p.beat,
                                      detail: String(format: "a %@ beat (confidence %.2f)", Track.beatWords(confidence), confidence)))
            }
            if exploring {
                reasons.append(Reason(kind: "exploration", weight: 0, detail: "never played: a new one to try"))
            }
            return Suggestion(track: model.candidate(at: i, texts: texts), score: p.sum, tier: tier, tempo: fit, reasons: reasons)
        }

        func factorText(_ factor: Double) -> String {
            factor == 1 ? "" : factor == 2 ? " (double time)" : " (half time)"
        }
    }
}
