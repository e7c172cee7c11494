import Foundation

/// Offline evaluation: replay the history in time order; before each counted play (after a
/// warm-up), hide it, ask each method for 10 tracks from what was known up to then, and
/// check where the hidden track ranks. Every method sees the same candidates (queueable, not
/// the current song, not played in the last `recentHours`) and the zone the play was in.
public enum RecommenderEvaluation {
    public enum Method: String, CaseIterable, Sendable {
        case pacenote, random, mostPlayed = "most-played", sameArtist = "same-artist", markov = "last-track Markov"
    }

    public struct Result: Equatable, Sendable {
        public var method: Method
        public var hitRate: Double
        public var mrr: Double
        public var cases: Int
    }

    public static func run(tracks: [ListeningModel.Candidate], events: [ListeningModel.Event],
                           tempo: TempoTable = .defaults, warmUp: Double = 0.5, k: Int = 10,
                           recentHours: Double = 6, seed: UInt64 = 1, maxCases: Int = .max,
                           weights: Recommender.Weights = .init(), explorationShare: Double = 0.1,
                           useTempo: Bool = true) -> [Result] {
        var model = ListeningModel()
        for t in tracks { model.upsert(t) }
        let texts = ListeningModel.Texts.lookup(tracks)
        let sorted = events.sorted { $0.startedAtMs < $1.startedAtMs }
        let start = Int(Double(sorted.count) * warmUp)
        var hits = [Method: Int](), rr = [Method: Double](), cases = 0
        var previous: ListeningModel.Event?
        var rng = seed
        for (index, event) in sorted.enumerated() {
            defer { model.record(event); previous = event }
            guard index >= start, event.counted, cases < maxCases else { continue }
            let current = previous.flatMap { p in
                event.startedAtMs - p.endedAtMs <= model.sessionGapMs ? p.trackID : nil
            }
            let currentRef = current.map { id in
                let t = texts([id])[id]!
                return Recommender.SongRef(trackID: id, artist: t.artist, title: t.title)
            }
            let target: TempoTarget = !useTempo ? .any : event.zone.map { .window(tempo.window(for: $0)) } ?? .any
            cases += 1
            for method in Method.allCases {
                rng = Recommender.mix(rng)
                let list: [Int64]
                switch method {
                case .pacenote:
                    let request = Recommender.Request(zone: event.zone, target: target, nowMs: event.startedAtMs,
                                                      current: currentRef, recentHours: recentHours, limit: k, seed: rng,
                                                      explorationShare: explorationShare, weights: weights)
                    list = Recommender.suggest(model, request, texts: texts).map(\.track.id)
                default:
                    list = baseline(method, model: model, current: current, nowMs: event.startedAtMs,
                                    recentHours: recentHours, k: k, seed: rng)
                }
                if let rank = list.firstIndex(of: event.trackID) {
                    hits[method, default: 0] += 1
                    rr[method, default: 0] += 1 / Double(rank + 1)
                }
            }
        }
        return Method.allCases.map { m in
            Result(method: m, hitRate: cases == 0 ? 0 : Double(hits[m] ?? 0) / Double(cases),
                   mrr: cases == 0 ? 0 : (rr[m] ?? 0) / Double(cases), cases: cases)
        }
    }

    /// The baselines, over the same candidates as the scorer.
    static func baseline(_ method: Method, model: ListeningModel, current: Int64?, nowMs: Int64,
                         recentHours: Double, k: Int, seed: UInt64) -> [Int64] {
        let recentSince = nowMs - Int64(recentHours * 3_600_000)
        let currentSlot = current.flatMap { model.slot(of: $0) }
        let currentKey = currentSlot.map { model.songKey[$0] }
        func eligible(_ i: Int) -> Bool {
            model.isQueueable(i) && !model.playedSince(song: model.songKey[i], recentSince) && model.songKey[i] != currentKey
        }
        var top = Recommender.TopK(capacity: k)
        let markov = currentSlot.map { model.successors(ofTrack: Int32($0)) } ?? [:]
        let artist = currentSlot.map { model.artistOf[$0] } ?? -1
        for i in 0..<model.trackCount where eligible(i) {
            let tie = Recommender.mix(seed ^ UInt64(bitPattern: model.trackIDs[i]))
            let plays = Double(model.counted[i])
            let score: Double, tier: Int
            switch method {
            case .random: (tier, score) = (0, 0)
            case .mostPlayed: (tier, score) = (0, plays)
            case .sameArtist: (tier, score) = (artist >= 0 && model.artistOf[i] == artist ? 0 : 1, plays)
            case .markov:
                let n = Double(markov[Int32(i)] ?? 0)
                (tier, score) = (n > 0 ? 0 : 1, n > 0 ? n : plays)
            case .pacenote: (tier, score) = (0, 0)
            }
            top.offer(Recommender.Ranked(tier: tier, score: score, tie: tie, slot: Int32(i)))
        }
        return top.sorted().map { model.trackIDs[Int($0.slot)] }
    }
}

/// A realistic listening history to evaluate on, from a seed: a library of artists and
/// albums with tempos (some unknown), a listener whose taste depends on the zone (faster
/// tracks when working harder, a favourite set per zone), Zipf-like favourites, albums and
/// playlists played in order (repeated sequences), shuffles, and skips of disliked tracks
/// and of tracks too slow or fast for the effort.
public enum SyntheticHistory {
    public struct Generated: Sendable {
        public var tracks: [ListeningModel.Candidate]
        public var events: [ListeningModel.Event]
    }

    public struct RNG: RandomNumberGenerator {
        var state: UInt64
        public init(seed: UInt64) { state = seed }
        public mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            return Recommender.mix(state)
        }
        mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    }

    public static func generate(seed: UInt64 = 7, artists: Int = 60, albumsPerArtist: Int = 2,
                                tracksPerAlbum: Int = 10, days: Int = 240,
                                startMs: Int64 = 1_735_689_600_000) -> Generated {
        var rng = RNG(seed: seed)
        var tracks: [ListeningModel.Candidate] = []
        var albums: [[Int]] = []
        var appeal: [Double] = []
        var disliked: [Bool] = []
        var trueBPM: [Double] = []
        for a in 0..<artists {
            let artistTempo = 85 + rng.unit() * 85   // an artist's tracks share a tempo range
            for b in 0..<albumsPerArtist {
                var album: [Int] = []
                for t in 0..<tracksPerAlbum {
                    let bpm = (artistTempo + (rng.unit() - 0.5) * 30).rounded()
                    let id = Int64(tracks.count + 1)
                    album.append(tracks.count)
                    trueBPM.append(bpm)
                    tracks.append(.init(id: id, uri: "artist\(a)/album\(b)/\(t).flac", title: "Song \(a)-\(b)-\(t)",
                                        artist: "Artist \(a)", bpm: rng.unit() < 0.1 ? nil : bpm, inLibrary: true))
                    // Zipf-like appeal: a few favourites, a long tail.
                    appeal.append(1 / pow(Double(tracks.count % 97 + 1), 0.8) * (0.5 + rng.unit()))
                    disliked.append(rng.unit() < 0.12)
                }
                albums.append(album)
            }
        }
        // Playlists for workouts: fixed sequences of fitting tracks, played in order.
        let table = TempoTable.defaults
        func fits(_ i: Int, _ zone: Zone) -> Bool { TempoTarget.window(table.window(for: zone)).fit(bpm: trueBPM[i]) != nil }
        var playlists: [Zone: [[Int]]] = [:]
        for zone in Zone.allCases {
            let pool = tracks.indices.filter { fits($0, zone) && !disliked[$0] }
            for _ in 0..<3 where pool.count >= 8 {
                var list: [Int] = []
                while list.count < 8 { let c = pool[Int(rng.next() % UInt64(pool.count))]; if !list.contains(c) { list.append(c) } }
                playlists[zone, default: []].append(list)
            }
        }
        func weightedPick(_ pool: [Int]) -> Int {
            let total = pool.reduce(0) { $0 + appeal[$1] }
            var r = rng.unit() * total
            for i in pool { r -= appeal[i]; if r <= 0 { return i } }
            return pool.last!
        }
        var events: [ListeningModel.Event] = []
        var lastPlayed = [Int64](repeating: .min, count: tracks.count)
        for day in 0..<days {
            let sessions = 1 + Int(rng.next() % 2)
            for s in 0..<sessions {
                var t = startMs + Int64(day) * 86_400_000 + Int64(7 + s * 10) * 3_600_000 + Int64(rng.next() % 3_600_000)
                // Half the sessions are workouts in Z1–Z5, a fifth are easy listening with the strap
                // on (Z0), the rest have no heart rate at all.
                let kind = rng.unit()
                let workout = kind < 0.5
                let zone: Zone? = workout ? Zone(rawValue: 1 + Int(rng.next() % 5)) : kind < 0.7 ? .z0 : nil
                var queue: [Int] = []
                let style = rng.unit()
                if let zone, style < 0.55, let lists = playlists[zone] {
                    queue = lists[Int(rng.next() % UInt64(lists.count))]
                } else if zone == nil, style < 0.75 {
                    queue = albums[Int(rng.next() % UInt64(albums.count))]
                }
                let length = 8 + Int(rng.next() % 8)
                for position in 0..<length {
                    var pick: Int
                    if position < queue.count {
                        pick = queue[position]
                    } else {
                        // Shuffle by taste: fitting tracks in a workout zone, anything otherwise.
                        let pool = tracks.indices.filter { i in
                            lastPlayed[i] < t - 6 * 3_600_000 && (zone == nil || fits(i, zone!) || rng.unit() < 0.05)
                        }
                        pick = weightedPick(pool.isEmpty ? Array(tracks.indices) : pool)
                    }
                    var skip = disliked[pick] ? rng.unit() < 0.8 : rng.unit() < 0.06
                    if let zone, !fits(pick, zone) { skip = skip || rng.unit() < 0.6 }
                    let seconds: Int64 = skip ? 5 + Int64(rng.next() % 20) : 150 + Int64(rng.next() % 150)
                    events.append(.init(trackID: tracks[pick].id, startedAtMs: t, endedAtMs: t + seconds * 1000,
                                        counted: !skip, zone: zone))
                    lastPlayed[pick] = t
                    t += seconds * 1000 + 2000
                }
            }
        }
        return Generated(tracks: tracks, events: events)
    }
}
