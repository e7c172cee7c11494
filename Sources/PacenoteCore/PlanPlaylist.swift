import Foundation

/// The playlist for a planned workout, made before the run (issue 55, point 3): songs laid end
/// to end over the plan's time, each chosen for the segment it will mostly play in, so the
/// music's tempo changes with the song that carries the runner into the next segment (it
/// starts a little before the change), not with the song after it.
///
/// Greedy and deterministic: each next song starts where the one before ends and is, among the
/// songs not in the playlist yet, the first by
/// 1. its tier: a BPM that fits the tempo of the segment it mostly plays in (`TempoTarget.fit`,
///    half and double time included), else a track without a BPM, else any track;
/// 2. another artist than the song before, when its tier offers one;
/// 3. the fewest seconds it would play under another segment's target, in steps of
///    `spillStep`: a song that ends near its segment's end rather than far into the next one
///    (what plays past the plan's end counts for nothing: no target is missed there);
/// 4. the caller's score, higher first; 5. the seed's order.
///
/// No song (`SongKey`) comes twice. It stops once the songs reach the plan's end, so the
/// playlist is at most one song longer than the plan. An open-ended segment counts for
/// `openSeconds`.
///
/// Made once per plan and library, when the tempo fits are worked out (once per distinct
/// target and BPM, not per song and segment); `build()` and the listener's swaps (`rebalance`,
/// `remove`) then weigh each distinct track length once per song and walk the tracks grouped
/// by target, tier and length: a 90-minute plan over 20,000 tracks is prepared and built in
/// tens of milliseconds, even in a debug build.
public struct PlanPlaylist: Sendable {
    /// A song may spill into the next segment by less than this much without counting
    /// against it: a few seconds are no reason to pass over a better-liked song.
    public static let spillStep = 15
    /// What an open-ended segment counts for when nothing else is said: five minutes.
    public static let defaultOpenSeconds = 300

    /// A track the playlist may take.
    public struct Track: Equatable, Sendable {
        public var id: Int64
        /// Its length in seconds; a track without one (0) is left out: it fills no time.
        public var seconds: Int
        public var bpm: Double?
        /// The song, shared by its versions (`SongKey`): a song comes once in a playlist.
        public var songKey: Int32
        /// -1 when unknown: an unknown artist is never "the same artist again".
        public var artist: Int32
        /// The caller's preference (the recommender's score, a rating): higher is better.
        public var score: Double

        public init(id: Int64, seconds: Int, bpm: Double?, songKey: Int32, artist: Int32 = -1, score: Double = 0) {
            self.id = id
            self.seconds = seconds
            self.bpm = bpm
            self.songKey = songKey
            self.artist = artist
            self.score = score
        }
    }

    /// How a segment's target becomes a tempo for its music.
    public struct Tempos: Sendable {
        public var table: TempoTable
        /// The zone of a heart rate: a heart-rate range asks for the zone of its middle.
        public var zoneOfHeartRate: @Sendable (Double) -> Zone

        public init(table: TempoTable = .defaults, zoneOfHeartRate: @escaping @Sendable (Double) -> Zone) {
            self.table = table
            self.zoneOfHeartRate = zoneOfHeartRate
        }

        /// Heart-rate ranges read with the listener's zone model.
        public init(table: TempoTable = .defaults, model: ZoneModel) {
            self.init(table: table) { model.zone(for: $0) }
        }

        /// The tempo `target` asks for `fraction` (0…1) of the way through its segment (only
        /// a ramp changes on the way): a zone's or heart rate's window (`TempoTable`), the
        /// middle of a cadence range, a tempo range as it is, or any tempo for a free segment.
        public func tempo(for target: WorkoutPlan.Target, at fraction: Double) -> TempoTarget {
            func window(_ zone: Double) -> TempoTarget {
                .window(table.window(for: Zone(rawValue: PlanPlaylist.zone(zone)) ?? .z0))
            }
            switch target {
            case .free: return .any
            case .zone, .ramp: return window(target.zone(at: fraction) ?? 0)
            case .heartRate(let r): return window(Double(zoneOfHeartRate(Double(r.lowerBound + r.upperBound) / 2).rawValue))
            case .cadence(let r): return .cadence(stepsPerMinute: Double(r.lowerBound + r.upperBound) / 2)
            case .tempo(let r): return .window(Double(r.lowerBound)...Double(r.upperBound))
            }
        }
    }

    /// The zone a target means at a point (`Target.zone(at:)`, 2.6 a while into a ramp from
    /// Z2), as a whole zone: the nearest, within Z0–Z5.
    static func zone(_ zone: Double) -> Int { min(max(Int(zone.rounded()), 0), 5) }

    /// Why a song is where it is, in the words the plan's page shows.
    public enum Reason: String, Equatable, Sendable {
        /// Its BPM fits the tempo of the segment it mostly plays in.
        case tempoFits = "tempo_fits"
        /// The segment is free: any tempo does.
        case anyTempo = "any_tempo"
        /// No song left fits the tempo: one whose BPM is not known.
        case noBPM = "no_bpm"
        /// No song left fits the tempo nor lacks a BPM: the best of the rest.
        case nothingFits = "nothing_fits"
        /// The listener put it there (`rebalance`).
        case chosen
    }

    /// A song in the playlist.
    public struct Entry: Equatable, Sendable {
        public var trackID: Int64
        /// Seconds from the plan's start (open-ended segments at their assumed length).
        public var start: Int
        /// The track's length.
        public var seconds: Int
        /// The timeline's index (`WorkoutPlan.Planned.index`) of the segment it mostly plays in.
        public var segment: Int
        /// How its BPM fits that segment's tempo there; nil without a BPM or when it does not fit.
        public var tempo: TempoFit?
        public var reason: Reason

        public init(trackID: Int64, start: Int, seconds: Int, segment: Int, tempo: TempoFit?, reason: Reason) {
            self.trackID = trackID
            self.start = start
            self.seconds = seconds
            self.segment = segment
            self.tempo = tempo
            self.reason = reason
        }

        public var end: Int { start + seconds }
    }

    public struct Playlist: Equatable, Sendable {
        public var entries: [Entry]
        /// The plan's length, open-ended segments at the assumed length.
        public var planSeconds: Int
        /// Why the songs end before the plan does; nil when they reach its end.
        public var short: Short?

        public init(entries: [Entry], planSeconds: Int, short: Short? = nil) {
            self.entries = entries
            self.planSeconds = planSeconds
            self.short = short
        }

        /// Where the last song ends.
        public var seconds: Int { entries.last?.end ?? 0 }
    }

    /// Why a playlist ends before its plan.
    public enum Short: Equatable, Sendable, CustomStringConvertible {
        /// The plan has no time to fill.
        case emptyPlan
        /// No track in the library has a length.
        case emptyLibrary
        /// The library's songs (this many) are all in the playlist, or were taken out of it,
        /// and the plan goes on.
        case songsUsedUp(Int)

        public var description: String {
            switch self {
            case .emptyPlan: "the plan has no segments to fill with music"
            case .emptyLibrary: "the library has no tracks with a known length to fill the plan with"
            case .songsUsedUp(let n): "the library has only \(n) songs, too few to fill the plan"
            }
        }
    }

    /// Why a swap cannot be made.
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
        public init(_ message: String) { self.message = message }
    }

    // MARK: What is worked out once

    /// The plan's length, open-ended segments at `openSeconds`.
    public let planSeconds: Int
    /// The laid-out segments in time, in the order they come.
    let spans: [Span]
    /// The distinct tempo targets of the plan's segments.
    let targets: [TempoTarget]
    /// Each span's target (into `targets`) by zone 0…5: `spanTargets[span * 6 + zone]`. Only
    /// a ramp's differ by zone; for any other target the six are the same.
    let spanTargets: [Int32]
    /// The library, ordered and grouped for choosing (`PlanPlaylist+Library`).
    let library: Library

    struct Span {
        var index: Int
        var start: Int
        var end: Int
        /// The ramp, when the segment is one: its tempo follows the zone where a song plays.
        var ramp: WorkoutPlan.Target?
    }

    /// - Parameters:
    ///   - timeline: the plan's `timeline()`.
    ///   - library: the tracks it may take; those without a length are left out.
    ///   - tempos: how the segments' targets become tempos.
    ///   - openSeconds: how long an open-ended segment is taken to last.
    ///   - seed: the order of tracks that tie on everything else.
    public init(timeline: [WorkoutPlan.Planned], library: [Track], tempos: Tempos,
                openSeconds: Int = PlanPlaylist.defaultOpenSeconds, seed: UInt64 = 0) {
        var targets: [TempoTarget] = []
        func targetIndex(_ t: TempoTarget) -> Int32 {
            if let i = targets.firstIndex(of: t) { return Int32(i) }
            targets.append(t)
            return Int32(targets.count - 1)
        }
        var spans: [Span] = []
        var spanTargets: [Int32] = []
        var offset = 0
        for planned in timeline {
            let seconds = max(planned.seconds ?? openSeconds, 1)
            let target = planned.target
            var ramp: WorkoutPlan.Target?
            if case .ramp(let a, let b) = target {
                ramp = target
                spanTargets += (0...5).map { z in targetIndex(tempos.tempo(for: .zone(min(max(z, min(a, b)), max(a, b))), at: 0)) }
            } else {
                spanTargets += Array(repeating: targetIndex(tempos.tempo(for: target, at: 0)), count: 6)
            }
            spans.append(Span(index: planned.index, start: offset, end: offset + seconds, ramp: ramp))
            offset += seconds
        }
        self.spans = spans
        self.targets = targets
        self.spanTargets = spanTargets
        planSeconds = offset

        self.library = Library(library, targets: targets, seed: seed)
    }

    // MARK: Building and swapping

    /// The playlist over the whole plan.
    public func build() -> Playlist {
        var fill = Fill(self)
        return fill.run(after: [], previousArtist: -1)
    }

    /// The listener swaps the song at `index` for the track `trackID` (or takes it out: nil).
    /// The songs before it stay as they are, the chosen track comes where the swapped song
    /// started, and the rest is chosen again from where those end, so the playlist still
    /// fills the plan. The song taken out does not come back later in the playlist.
    public func rebalance(_ entries: [Entry], swapping index: Int, with trackID: Int64?) throws(Problem) -> Playlist {
        guard !spans.isEmpty else { throw Problem("the plan has no segments to fill with music") }
        guard entries.indices.contains(index) else {
            throw Problem("there is no song \(index + 1) in a playlist of \(entries.count) songs")
        }
        let kept = Array(entries[..<index])
        let slotOf = library.slots(of: Set(entries[...index].map(\.trackID) + [trackID].compactMap { $0 }))
        var fill = Fill(self)
        for entry in kept { fill.use(slotOf[entry.trackID]) }
        var previousArtist = kept.last.flatMap { slotOf[$0.trackID] }.map { library.tracks[$0].artist } ?? -1
        var chosen: [Entry] = []
        if let trackID {
            guard let slot = slotOf[trackID] else {
                throw Problem("track \(trackID) is not in the library, or its length is not known")
            }
            if let twin = kept.first(where: { slotOf[$0.trackID].map { library.songs[$0] } == library.songs[slot] }) {
                throw Problem("that song is already in the playlist, at \(WorkoutPlan.clock(twin.start))")
            }
            fill.use(slot)
            chosen = [fill.entry(slot: slot, at: kept.last?.end ?? 0, reason: .chosen)]
            previousArtist = library.tracks[slot].artist
        }
        fill.use(slotOf[entries[index].trackID])
        return fill.run(after: kept + chosen, previousArtist: previousArtist)
    }

    /// A playlist as a page or a client keeps it — its tracks in order — laid end to end from
    /// the plan's start as `build()` lays them, each entry's segment and tempo fit worked out
    /// again: what `rebalance` takes. Songs that would start after the plan's end are refused.
    public func entries(of trackIDs: [Int64]) throws(Problem) -> [Entry] {
        let slotOf = library.slots(of: Set(trackIDs))
        let fill = Fill(self)
        var out: [Entry] = []
        for id in trackIDs {
            let start = out.last?.end ?? 0
            guard start < planSeconds else { throw Problem("the playlist goes on after the plan's end (\(WorkoutPlan.clock(planSeconds)))") }
            guard let slot = slotOf[id] else { throw Problem("track \(id) is not in the library, or its length is not known") }
            var entry = fill.entry(slot: slot, at: start, reason: .tempoFits)
            if entry.tempo == nil { entry.reason = library.tracks[slot].bpm == nil ? .noBPM : .nothingFits }
            out.append(entry)
        }
        return out
    }

    /// The song at `index` taken out, the rest chosen again (`rebalance` with no track).
    public func remove(_ entries: [Entry], at index: Int) throws(Problem) -> Playlist {
        try rebalance(entries, swapping: index, with: nil)
    }
}
