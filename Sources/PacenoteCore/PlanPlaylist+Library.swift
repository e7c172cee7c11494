import Foundation

extension PlanPlaylist {
    /// The library made ready for choosing, once per plan and library. A slot is a track's
    /// place in the order by length, then score (higher first; an unknown score last), then
    /// the seed's order. Each target's tracks are split in three tiers (a fitting BPM, no BPM,
    /// any other) and each tier in buckets of one length, still in that order: the best song
    /// of a length left for a target is the first unused one in its bucket.
    ///
    /// Written for a debug build too (the tests, and the lead's checks, run one): flat arrays,
    /// a merge sort of its own and no dictionary per track, as the standard library's generic
    /// sort and hashing are not specialised there and took most of the time.
    struct Library {
        /// The tracks that fill time (1 s to a day), by slot.
        var tracks: [Track] = []
        /// The seed's order of each slot, for ties.
        var ties: [UInt64] = []
        /// Each slot's song, numbered 0, 1, 2, … (its `songKey`, made dense), so the songs
        /// used are an array of flags.
        var songs: [Int32] = []
        var songCount = 0
        /// The distinct lengths, shortest first.
        var lengths: [Int] = []
        /// The buckets' slots, one after the other.
        var slots: [Int32] = []
        /// Where each bucket starts in `slots` (`bucket(target:tier:group:)`), each list of a
        /// target and tier closed by one more entry: its end.
        var starts: [Int32] = []

        static let tiers = 3

        init(_ library: [Track], targets: [TempoTarget], seed: UInt64) {
            order(library, seed: seed)
            numberSongs()
            group(by: targets)
        }

        /// The bucket of the tracks `lengths[group]` long in `tier` of `target`: its slots are
        /// `slots[starts[b]..<starts[b + 1]]`.
        func bucket(target: Int, tier: Int, group: Int) -> Int {
            (target * Self.tiers + tier) * (lengths.count + 1) + group
        }

        /// What a track is ordered by: its length and the top of its score in one number
        /// (which nearly always decides), then the whole score, then the seed's order.
        struct Key {
            var first: UInt64
            var score: UInt64
            var tie: UInt64
            /// Where it is in the caller's library.
            var track: Int

            init(_ track: Track, at index: Int, seed: UInt64) {
                score = Key.descending(track.score)
                // Lengths are at most a day, under 2^17 seconds.
                first = UInt64(track.seconds) << 47 | score >> 17
                tie = Recommender.mix(seed ^ UInt64(bitPattern: track.id))
                self.track = index
            }

            var seconds: Int { Int(first >> 47) }

            static func before(_ a: Key, _ b: Key) -> Bool {
                if a.first != b.first { return a.first < b.first }
                if a.score != b.score { return a.score < b.score }
                return a.tie < b.tie
            }

            /// A score as a number that sorts the higher scores first, an unknown (NaN) score
            /// as the lowest, and 0 and -0 alike.
            static func descending(_ score: Double) -> UInt64 {
                let x = score.isNaN ? -Double.infinity : score == 0 ? 0 : score
                let bits = x.bitPattern
                // IEEE 754 doubles sort as their bits once negative ones are turned over.
                let ascending = bits >> 63 == 0 ? bits | 1 << 63 : ~bits
                return ~ascending
            }
        }

        private mutating func order(_ library: [Track], seed: UInt64) {
            let keys = Self.sort(library.withUnsafeBufferPointer { library in
                [Key](unsafeUninitializedCapacity: library.count) { keys, count in
                    var i = 0
                    while i < library.count {
                        let seconds = library[i].seconds
                        if seconds >= 1, seconds <= WorkoutPlan.maxSeconds {
                            (keys.baseAddress! + count).initialize(to: Key(library[i], at: i, seed: seed))
                            count += 1
                        }
                        i += 1
                    }
                }
            })
            var lengths: [Int] = []
            (tracks, ties) = keys.withUnsafeBufferPointer { keys in
                library.withUnsafeBufferPointer { library in
                    let tracks = [Track](unsafeUninitializedCapacity: keys.count) { tracks, count in
                        while count < keys.count {
                            var t = library[keys[count].track]
                            if t.score.isNaN { t.score = -.infinity }
                            if count == 0 || tracks[count - 1].seconds != t.seconds { lengths.append(t.seconds) }
                            (tracks.baseAddress! + count).initialize(to: t)
                            count += 1
                        }
                    }
                    let ties = [UInt64](unsafeUninitializedCapacity: keys.count) { ties, count in
                        while count < keys.count {
                            ties[count] = keys[count].tie
                            count += 1
                        }
                    }
                    return (tracks, ties)
                }
            }
            self.lengths = lengths
        }

        /// The keys by length (a counting sort: lengths are whole seconds), then each length's
        /// few tracks by `Key.before` (a merge sort: the standard library's sort is generic,
        /// and slow unspecialised in a debug build).
        static func sort(_ keys: [Key]) -> [Key] {
            let n = keys.count
            guard n > 1 else { return keys }
            var sorted = keys, spare = keys
            var longest = 0
            for k in keys { longest = max(longest, k.seconds) }
            // The first place of each length, once counted.
            var place = [Int](repeating: 0, count: longest + 2)
            sorted.withUnsafeMutableBufferPointer { sorted in
                spare.withUnsafeMutableBufferPointer { spare in
                    keys.withUnsafeBufferPointer { keys in
                        place.withUnsafeMutableBufferPointer { place in
                            var i = 0
                            while i < n {
                                place[keys[i].seconds + 1] += 1
                                i += 1
                            }
                            for s in 1..<place.count { place[s] += place[s - 1] }
                            i = 0
                            while i < n {
                                sorted[place[keys[i].seconds]] = keys[i]
                                place[keys[i].seconds] += 1
                                i += 1
                            }
                        }
                    }
                    var low = 0
                    while low < n {
                        var high = low + 1
                        while high < n, sorted[high].seconds == sorted[low].seconds { high += 1 }
                        mergeSort(sorted.baseAddress! + low, spare: spare.baseAddress! + low, count: high - low)
                        low = high
                    }
                }
            }
            return sorted
        }

        /// A stable bottom-up merge sort of `count` keys, with as many spare places.
        private static func mergeSort(_ keys: UnsafeMutablePointer<Key>, spare: UnsafeMutablePointer<Key>, count n: Int) {
            var from = keys, to = spare
            var width = 1
            while width < n {
                var low = 0
                while low < n {
                    let middle = min(low + width, n), high = min(low + 2 * width, n)
                    var i = low, j = middle, k = low
                    while k < high {
                        if i < middle, j >= high || !Key.before(from[j], from[i]) {
                            to[k] = from[i]
                            i += 1
                        } else {
                            to[k] = from[j]
                            j += 1
                        }
                        k += 1
                    }
                    low = high
                }
                swap(&from, &to)
                width *= 2
            }
            if from != keys { keys.update(from: from, count: n) }
        }

        /// Numbers the songs: directly when the keys are small numbers (the listening model's
        /// song slots), through a dictionary when they are not.
        private mutating func numberSongs() {
            var low = Int32.max, high = Int32.min
            for t in tracks {
                low = min(low, t.songKey)
                high = max(high, t.songKey)
            }
            var count: Int32 = 0
            func next() -> Int32 {
                count += 1
                return count - 1
            }
            songs = tracks.withUnsafeBufferPointer { tracks in
                [Int32](unsafeUninitializedCapacity: tracks.count) { songs, done in
                    if !tracks.isEmpty, Int(high) - Int(low) < 4 * tracks.count + 1024 {
                        var number = [Int32](repeating: -1, count: Int(high) - Int(low) + 1)
                        number.withUnsafeMutableBufferPointer { number in
                            while done < tracks.count {
                                let key = Int(tracks[done].songKey) - Int(low)
                                if number[key] < 0 { number[key] = next() }
                                songs[done] = number[key]
                                done += 1
                            }
                        }
                    } else {
                        var number: [Int32: Int32] = [:]
                        while done < tracks.count {
                            let key = tracks[done].songKey
                            if number[key] == nil { number[key] = next() }
                            songs[done] = number[key]!
                            done += 1
                        }
                    }
                }
            }
            songCount = Int(count)
        }

        /// Fills the buckets: every track is in one tier of each target. A fit is worked out
        /// once per target and distinct BPM.
        private mutating func group(by targets: [TempoTarget]) {
            // Each slot's BPM as a number into `bpms`, -1 without one; where each length ends.
            var bpms: [Double] = []
            var numberOf: [Double: Int32] = [:]
            var tempoOf = [Int32](repeating: -1, count: tracks.count)
            var groupEnds: [Int] = []
            for slot in tracks.indices {
                let t = tracks[slot]
                if slot + 1 == tracks.count || tracks[slot + 1].seconds != t.seconds { groupEnds.append(slot + 1) }
                guard let bpm = t.bpm else { continue }
                if let n = numberOf[bpm] {
                    tempoOf[slot] = n
                } else {
                    bpms.append(bpm)
                    numberOf[bpm] = Int32(bpms.count - 1)
                    tempoOf[slot] = Int32(bpms.count - 1)
                }
            }
            let n = tracks.count, groups = groupEnds.count
            slots = [Int32](repeating: 0, count: targets.count * n)
            starts = [Int32](repeating: 0, count: targets.count * Self.tiers * (groups + 1))
            var tierOf = [Int8](repeating: 0, count: n)
            var filled = 0, bucket = 0
            for target in targets {
                let fits = bpms.map { target == .any || target.fit(bpm: $0) != nil }
                tierOf.withUnsafeMutableBufferPointer { tierOf in
                    tempoOf.withUnsafeBufferPointer { tempoOf in
                        for slot in 0..<n {
                            let tempo = Int(tempoOf[slot])
                            tierOf[slot] = target == .any || (tempo >= 0 && fits[tempo]) ? 0 : tempo < 0 ? 1 : 2
                        }
                    }
                }
                slots.withUnsafeMutableBufferPointer { slots in
                    starts.withUnsafeMutableBufferPointer { starts in
                        tierOf.withUnsafeBufferPointer { tierOf in
                            for tier in 0..<Int8(Self.tiers) {
                                var slot = 0
                                for end in groupEnds {
                                    starts[bucket] = Int32(filled)
                                    bucket += 1
                                    while slot < end {
                                        if tierOf[slot] == tier {
                                            slots[filled] = Int32(slot)
                                            filled += 1
                                        }
                                        slot += 1
                                    }
                                }
                                starts[bucket] = Int32(filled)
                                bucket += 1
                            }
                        }
                    }
                }
            }
        }

        /// The slots of these tracks (the shortest, should an id come twice): one pass over
        /// the library for the few songs a swap keeps.
        func slots(of ids: Set<Int64>) -> [Int64: Int] {
            var found: [Int64: Int] = [:]
            tracks.withUnsafeBufferPointer { tracks in
                var slot = 0
                while slot < tracks.count {
                    let id = tracks[slot].id
                    if ids.contains(id), found[id] == nil { found[id] = slot }
                    slot += 1
                }
            }
            return found
        }
    }
}
