import Foundation

/// What the recommender knows about the library and the listening history, kept in flat
/// arrays so a suggestion over 100k tracks is a single pass. Built once from the store and
/// then updated play by play (`record`), so the daemon never re-reads a million plays and
/// the offline evaluation can replay history in time order.
public struct ListeningModel: Sendable {
    /// A track as the recommender sees it: what `upsert` takes, and what a suggestion
    /// returns (its texts then read for it, see `Texts`).
    public struct Candidate: Equatable, Sendable {
        public var id: Int64
        public var uri: String?
        public var title: String
        public var artist: String?
        public var bpm: Double?
        /// In some player's library (so it can be queued).
        public var inLibrary: Bool
        /// How clear the beat is, 0…1 (aubio's confidence; `Track.beatConfidence`).
        public var beatConfidence: Double?

        public init(id: Int64, uri: String?, title: String, artist: String?, bpm: Double?, inLibrary: Bool,
                    beatConfidence: Double? = nil) {
            self.beatConfidence = beatConfidence
            self.id = id
            self.uri = uri
            self.title = title
            self.artist = artist
            self.bpm = bpm
            self.inLibrary = inLibrary
        }
    }

    /// A track's texts. The model keeps none: they were ~4 MiB at 150k tracks, and only
    /// the few tracks a suggestion returns need them, so these are read for those (in the
    /// daemon, from the database: `Recommender.suggest`'s `texts`). The song and artist
    /// keys the scoring compares are made from the texts when a track is upserted.
    public struct Texts: Equatable, Sendable {
        public var uri: String?
        public var title: String
        public var artist: String?

        public init(uri: String?, title: String, artist: String?) {
            self.uri = uri
            self.title = title
            self.artist = artist
        }

        /// A lookup over tracks at hand (the offline evaluation, tests, the command line).
        public static func lookup(_ tracks: [Candidate]) -> @Sendable ([Int64]) -> [Int64: Texts] {
            let byID = Dictionary(tracks.map { ($0.id, Texts(uri: $0.uri, title: $0.title, artist: $0.artist)) },
                                  uniquingKeysWith: { _, last in last })
            return { ids in ids.reduce(into: [:]) { out, id in out[id] = byID[id] } }
        }
    }

    /// One play as the recommender learns from it (skips included: `counted == false`).
    public struct Event: Equatable, Sendable {
        public var trackID: Int64
        public var startedAtMs: Int64
        public var endedAtMs: Int64
        public var counted: Bool
        public var zone: Zone?

        public init(trackID: Int64, startedAtMs: Int64, endedAtMs: Int64, counted: Bool, zone: Zone?) {
            self.trackID = trackID
            self.startedAtMs = startedAtMs
            self.endedAtMs = endedAtMs
            self.counted = counted
            self.zone = zone
        }
    }

    /// Familiarity halves every `familiarityHalfLifeDays` without a play.
    public let familiarityHalfLifeDays: Double = 60
    /// Two plays further apart than this are not a transition (a new session).
    public var sessionGapMs: Int64 = 30 * 60_000

    /// Each slot's track id, and each id's slot (`slotOf`).
    public private(set) var trackIDs = CompactIDs()
    /// Each slot's `inLibrary` (bit 0) and whether it can be queued (bit 1: in a library and
    /// with a URI): one byte a track, not two arrays of `Bool`.
    private var flags: [UInt8] = []
    /// The slot of a track id, if the track was upserted.
    func slotOf(_ id: Int64) -> Int32? { trackIDs.slot(of: id) }

    func inLibrary(_ i: Int) -> Bool { flags[i] & 1 != 0 }
    func isQueueable(_ i: Int) -> Bool { flags[i] & 2 != 0 }

    private static func flags(_ track: Candidate) -> UInt8 {
        (track.inLibrary ? 1 : 0) | (track.inLibrary && track.uri != nil ? 2 : 0)
    }
    /// Interned `SongKey` per slot, and the last time any version of that song started.
    /// Keys are interned by a 64-bit hash of their text (`SongKey.hash`), not the text.
    var songKey: [Int32] = []
    var keyIndex = HashInterner()
    /// The time as `second(_:)` gives it: 4 bytes a song where milliseconds took 8 (0.6 MiB
    /// at 150k songs), so "played recently" is decided to the second. 0: never.
    var keyLastPlayed: [UInt32] = []

    /// A time as `keyLastPlayed` keeps it: whole seconds since 1970 (rounded down), plus one,
    /// within 1...UInt32.max (until 2106; a time before 1970 is 1970's first second).
    static func second(_ ms: Int64) -> UInt32 {
        let seconds = ms / 1000 - (ms % 1000 < 0 ? 1 : 0)
        return UInt32(min(max(seconds, 0), Int64(UInt32.max) - 1)) + 1
    }

    /// Whether any version of the song `key` started at `ms` or later (to the second: a
    /// start in the same second as `ms` counts).
    func playedSince(song key: Int32, _ ms: Int64) -> Bool { keyLastPlayed[Int(key)] >= Self.second(ms) }
    /// Interned primary artist per slot (`SongKey.artistKey`, by its hash as song keys are);
    /// -1 without an artist.
    var artistOf: [Int32] = []
    private var artistIndex = HashInterner()

    /// The interned primary artist of an artist text (`SongKey.artistKey`), -1 if no track has it.
    func artistSlot(of artist: String?) -> Int32 {
        let name = SongKey.artistKey(artist)
        return name.isEmpty ? -1 : artistIndex.id(of: SongKey.hash(name)) ?? -1
    }
    /// Each slot's tempo (NaN: none). Empty until a track with a tempo arrives: a history
    /// imported without tempos never spends the 8 bytes a track (1.2 MiB at 150k tracks).
    private var tempos: [Double] = []

    func bpm(at i: Int) -> Double { tempos.isEmpty ? .nan : tempos[i] }

    private mutating func setBPM(_ bpm: Double?, slot i: Int) {
        if tempos.isEmpty {
            guard let bpm else { return }
            tempos = Array(repeating: .nan, count: trackIDs.count)
            tempos[i] = bpm
        } else {
            tempos[i] = bpm ?? .nan
        }
    }

    /// Each slot's beat confidence in 250ths (255: not measured), one byte a track; empty
    /// until a measured track arrives, as `tempos` is.
    private var beatClarity: [UInt8] = []

    /// The beat confidence of a slot, 0…1, or NaN when not measured.
    func beatConfidence(at i: Int) -> Double {
        guard !beatClarity.isEmpty, beatClarity[i] != 255 else { return .nan }
        return Double(beatClarity[i]) / 250
    }

    private mutating func setBeatConfidence(_ value: Double?, slot i: Int) {
        let byte: UInt8 = value.map { $0.isFinite ? UInt8((min(max($0, 0), 1) * 250).rounded()) : 255 } ?? 255
        if beatClarity.isEmpty {
            guard byte != 255 else { return }
            beatClarity = Array(repeating: 255, count: trackIDs.count)
        }
        beatClarity[i] = byte
    }

    /// Counted plays and skips of each slot, two bytes a count (`SmallCounts`): 0.6 MiB less
    /// than 4-byte counts at 150k tracks.
    var counted = SmallCounts()
    var skips = SmallCounts()
    /// Counted plays and skips per zone, for the tracks that have a play with a zone: row `r`
    /// at `r * 12 + zone` and `r * 12 + 6 + zone`, and `zoneRow[slot]` the slot's row (-1:
    /// none). Both empty until a play with a zone arrives: a history without heart rate never
    /// spends anything on them. Two bytes a count (4-byte counts cost 3.6 MiB more at 150k
    /// tracks), and rows only for tracks played in some zone: where workouts cover a few
    /// thousand of 150k tracks, 4 bytes a track and 24 a zoned track, against 24 bytes for
    /// every track (3.5 MiB) when every slot had its row.
    private var zoneRow: [Int32] = []
    private var zoneRecords = SmallCounts()
    /// The highest slot with a row, and whether rows are in slot order. The scorer reads
    /// every slot's row in slot order: rows in the order tracks were first played in a zone
    /// made that a cache miss a slot (a suggestion 4.1 → 6.3 ms at 100k tracks), so
    /// `settle()` puts them back in slot order.
    private var lastZonedSlot = -1
    private var zoneRowsInOrder = true

    func countedInZone(_ zone: Int, slot i: Int) -> Int32 { zoneCount(zone, slot: i) }
    func skipsInZone(_ zone: Int, slot i: Int) -> Int32 { zoneCount(6 + zone, slot: i) }

    @inline(__always)
    private func zoneCount(_ column: Int, slot i: Int) -> Int32 {
        guard !zoneRow.isEmpty else { return 0 }
        let row = Int(zoneRow[i])
        return row < 0 ? 0 : zoneRecords[row * 12 + column]
    }

    private mutating func countInZone(_ zone: Zone, slot i: Int, skip: Bool) {
        if zoneRow.isEmpty { zoneRow = [Int32](repeating: -1, count: trackIDs.count) }
        if zoneRow[i] < 0 {
            zoneRow[i] = Int32(zoneRecords.count / 12)
            zoneRecords.appendZeros(12)
            if i < lastZonedSlot { zoneRowsInOrder = false }
            lastZonedSlot = max(lastZonedSlot, i)
        }
        zoneRecords.increment(Int(zoneRow[i]) * 12 + (skip ? 6 : 0) + zone.rawValue)
    }

    /// Puts the zone rows in slot order (their counts unchanged).
    private mutating func sortZoneRows() {
        var sorted = SmallCounts()
        sorted.reserveCapacity(zoneRecords.count)
        var next: Int32 = 0
        for i in zoneRow.indices where zoneRow[i] >= 0 {
            let old = Int(zoneRow[i]) * 12
            for column in 0..<12 { sorted.append(zoneRecords[old + column]) }
            zoneRow[i] = next
            next += 1
        }
        zoneRecords = sorted
        zoneRowsInOrder = true
    }

    /// Tracks with a row of zone counts, and whether the rows are in slot order (for tests).
    var zonedTracks: Int { zoneRecords.count / 12 }
    var zoneRowsAreInSlotOrder: Bool { zoneRowsInOrder }
    /// Each slot's familiarity, an exponentially decayed count of counted plays, as one number
    /// that needs no time beside it: log2 of the count plus the half-lives since the epoch at
    /// its last change. Its value at `ms` is 2^(level - ms / half-life), so decaying is a
    /// subtraction (`decayedFamiliarity`); -inf: never played. 8 bytes a track where the count
    /// and its time took 16 (1.2 MiB at 150k tracks).
    private var familiarityLevel: [Double] = []

    /// How often each track was followed by a counted play of another track.
    var trackNext = Transitions()

    /// How often each track followed the track in `slot`.
    func successors(ofTrack slot: Int32) -> [Int32: Float] { trackNext.successors(of: slot) }

    /// Counted plays that followed the track in `slot` in a session.
    func transitions(fromTrack slot: Int32) -> Float { trackNext.total(from: slot) }

    /// How often each artist's tracks followed a track of `artist`: the track transitions
    /// summed by artist when asked. Kept apart they cost as much again (3M distinct artist
    /// pairs at 5M plays over 15k artists, ~14 MiB); summing is one pass over the slots and
    /// the artist's rows, well under a millisecond. Tracks count under the artist they
    /// have now (a retag moves their transitions with them).
    func successors(ofArtist artist: Int32) -> [Int32: Float] {
        var out: [Int32: Float] = [:]
        for i in artistOf.indices where artistOf[i] == artist {
            trackNext.forEach(from: Int32(i)) { to, n in
                let next = Int(to) < artistOf.count ? artistOf[Int(to)] : -1
                if next >= 0 { out[next, default: 0] += n }
            }
        }
        trackNext.forEachRecent { from, to in
            let next = artistOf[Int(to)]
            if artistOf[Int(from)] == artist, next >= 0 { out[next, default: 0] += 1 }
        }
        return out
    }

    /// Moves the transitions recorded lately into the compact rows (after a batch of plays:
    /// a suggestion then reads a short list of recent pairs, not up to a quarter of all).
    public mutating func settle() {
        trackNext.merge(ifMoreThan: 4096)
        if !zoneRowsInOrder { sortZoneRows() }
    }

    var lastSlot: Int32 = -1
    var lastEndMs: Int64 = .min
    public private(set) var eventCount = 0

    /// A model whose transitions are kept in `transitions` (in memory unless told).
    public init(transitions storage: any TransitionStorage = InMemoryTransitionStorage()) {
        trackNext = Transitions(storage: storage)
    }

    public var trackCount: Int { trackIDs.count }

    /// The track in `slot` (0..<trackCount), with its texts as read for it.
    public func candidate(at slot: Int, texts: Texts) -> Candidate {
        Candidate(id: trackIDs[slot], uri: texts.uri, title: texts.title, artist: texts.artist,
                  bpm: bpm(at: slot).isNaN ? nil : bpm(at: slot), inLibrary: inLibrary(slot))
    }

    /// The interned song of an artist and title, if some track has it.
    public func songKeySlot(artist: String?, title: String) -> Int32? {
        keyIndex.id(of: SongKey.hash(SongKey.make(artist: artist, title: title)))
    }

    /// Adds a track or updates its tags and tempo (its history is kept).
    public mutating func upsert(_ track: Candidate) {
        upsert(Prepared(track))
    }

    /// A track with the hashes of its song and artist keys, which `upsert` interns. Making
    /// the keys is most of an upsert's time (folding case and marks, dropping bracketed
    /// versions and credits: 2 s for 150k tracks with Foundation's folding), and needs no
    /// model: the daemon prepares every track of a refresh before it takes the model's
    /// lock, which a refresh of 150k tracks held for 2 s while every dashboard view waited.
    public struct Prepared: Sendable {
        public var track: Candidate
        var songHash: UInt64
        /// nil: no artist key.
        var artistHash: UInt64?

        public init(_ track: Candidate) {
            self.track = track
            songHash = SongKey.hash(SongKey.make(artist: track.artist, title: track.title))
            let artistName = SongKey.artistKey(track.artist)
            artistHash = artistName.isEmpty ? nil : SongKey.hash(artistName)
        }
    }

    /// Adds a prepared track or updates its tags and tempo (its history is kept).
    public mutating func upsert(_ prepared: Prepared) {
        let track = prepared.track
        let (keySlot, isNewKey) = keyIndex.intern(prepared.songHash)
        if isNewKey { keyLastPlayed.append(0) }
        let artistSlot = prepared.artistHash.map { artistIndex.intern($0).id } ?? -1
        if let slot = slotOf(track.id) {
            let i = Int(slot)
            // A retag that changes the song key carries its last play over.
            if songKey[i] != keySlot {
                keyLastPlayed[Int(keySlot)] = max(keyLastPlayed[Int(keySlot)], keyLastPlayed[Int(songKey[i])])
            }
            flags[i] = Self.flags(track)
            songKey[i] = keySlot
            artistOf[i] = artistSlot
            setBPM(track.bpm, slot: i)
            setBeatConfidence(track.beatConfidence, slot: i)
            return
        }
        trackIDs.append(track.id)
        flags.append(Self.flags(track))
        songKey.append(keySlot)
        artistOf.append(artistSlot)
        if !tempos.isEmpty { tempos.append(.nan) }
        setBPM(track.bpm, slot: trackIDs.count - 1)
        if !beatClarity.isEmpty { beatClarity.append(255) }
        setBeatConfidence(track.beatConfidence, slot: trackIDs.count - 1)
        counted.appendZeros(1)
        skips.appendZeros(1)
        if !zoneRow.isEmpty { zoneRow.append(-1) }
        familiarityLevel.append(-.infinity)
    }

    /// Learns from one play. Plays must arrive in time order; a play of an unknown track is
    /// ignored (upsert the track first).
    public mutating func record(_ event: Event) {
        guard let slot = slotOf(event.trackID) else { return }
        let i = Int(slot)
        eventCount += 1
        let key = Int(songKey[i])
        keyLastPlayed[key] = max(keyLastPlayed[key], Self.second(event.startedAtMs))
        if event.counted {
            counted.increment(i)
            if let zone = event.zone { countInZone(zone, slot: i, skip: false) }
            let halfLives = Double(event.startedAtMs) / halfLifeMs
            familiarityLevel[i] = log2(decayedFamiliarity(i, at: event.startedAtMs) + 1) + halfLives
            if lastSlot >= 0, lastSlot != slot, event.startedAtMs - lastEndMs <= sessionGapMs {
                trackNext.add(from: lastSlot, to: slot)
            }
        } else {
            skips.increment(i)
            if let zone = event.zone { countInZone(zone, slot: i, skip: true) }
        }
        lastSlot = slot
        lastEndMs = event.endedAtMs
    }

    /// A slot's familiarity at `ms`: the sum over its counted plays of 2^(-(ms - start) /
    /// half-life). Adding a play adds its term whatever the order plays arrive in, so a
    /// back-dated listen read after newer ones counts as if it had come in order.
    func decayedFamiliarity(_ i: Int, at ms: Int64) -> Double {
        let level = familiarityLevel[i]
        guard level > -.infinity else { return 0 }
        return exp2(level - Double(ms) / halfLifeMs)
    }

    private var halfLifeMs: Double { familiarityHalfLifeDays * 86_400_000 }

    public func slot(of trackID: Int64) -> Int? { slotOf(trackID).map(Int.init) }

    /// Counted plays and skips of a track (all zones, or one).
    public func record(of trackID: Int64, in zone: Zone? = nil) -> (counted: Int, skips: Int) {
        guard let i = slot(of: trackID) else { return (0, 0) }
        if let zone { return (Int(countedInZone(zone.rawValue, slot: i)), Int(skipsInZone(zone.rawValue, slot: i))) }
        return (Int(counted[i]), Int(skips[i]))
    }

    /// When any version of this track's song last started, if ever: to the second (the
    /// millisecond it started is rounded down).
    public func lastPlayedMs(songOf trackID: Int64) -> Int64? {
        guard let i = slot(of: trackID) else { return nil }
        let v = keyLastPlayed[Int(songKey[i])]
        return v == 0 ? nil : (Int64(v) - 1) * 1000
    }
}

/// Counts that are almost always small, two bytes each: `UInt16.max` means "see `overflow`",
/// which holds the few that reached 65,535 (a track played that often), exactly.
struct SmallCounts: Sendable {
    private var values: [UInt16] = []
    private var overflow: [Int: Int32] = [:]

    var isEmpty: Bool { values.isEmpty }
    var count: Int { values.count }

    subscript(index: Int) -> Int32 {
        let n = values[index]
        return n == .max ? overflow[index]! : Int32(n)
    }

    mutating func appendZeros(_ n: Int) {
        values.append(contentsOf: repeatElement(0, count: n))
    }

    mutating func reserveCapacity(_ n: Int) { values.reserveCapacity(n) }

    /// Appends a count (0 or more).
    mutating func append(_ value: Int32) {
        if value < Int32(UInt16.max) {
            values.append(UInt16(value))
        } else {
            overflow[values.count] = value
            values.append(.max)
        }
    }

    mutating func increment(_ index: Int) {
        switch values[index] {
        case .max: overflow[index]! += 1
        case .max - 1:
            values[index] = .max
            overflow[index] = Int32(UInt16.max)
        default: values[index] += 1
        }
    }
}
