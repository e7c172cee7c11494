import Foundation

extension PlanPlaylist {
    /// Where a song of one length lands when it starts at a given second.
    struct Placement {
        /// Into `spans`: the segment holding most of the song (the earlier one on a tie).
        var span: Int
        /// Into `targets`: that segment's tempo where the song plays (a ramp's zone there).
        var target: Int
        /// Seconds it plays under other segments (within the plan), in `spillStep`s.
        var spill: Int
    }

    /// One fill of the plan: the songs used so far and, per bucket (`Library`), how far the
    /// used ones have been skipped. Songs are only ever added, so what was skipped stays
    /// skipped and each bucket is walked once over a whole fill.
    struct Fill {
        let plan: PlanPlaylist
        let library: Library
        var used: [Bool]
        var cursors: [Int32]
        /// Reused for each song: the placement of each length.
        var placements: [Placement]

        init(_ plan: PlanPlaylist) {
            self.plan = plan
            library = plan.library
            used = [Bool](repeating: false, count: library.songCount)
            cursors = library.starts
            placements = []
            placements.reserveCapacity(library.lengths.count)
        }

        /// Leaves the track's song out of what is still to come (nil: a track not in the
        /// library, which leaves nothing out).
        mutating func use(_ slot: Int?) {
            if let slot { used[Int(library.songs[slot])] = true }
        }

        /// The playlist: `kept` as it is, then songs from where it ends to the plan's end.
        mutating func run(after kept: [Entry], previousArtist: Int32) -> Playlist {
            guard plan.planSeconds > 0 else { return Playlist(entries: kept, planSeconds: 0, short: .emptyPlan) }
            var entries = kept
            var previousArtist = previousArtist
            var start = kept.last?.end ?? 0
            while start < plan.planSeconds {
                guard let (slot, tier) = next(at: start, after: previousArtist) else {
                    let short: Short = library.tracks.isEmpty ? .emptyLibrary : .songsUsedUp(library.songCount)
                    return Playlist(entries: entries, planSeconds: plan.planSeconds, short: short)
                }
                use(slot)
                let reason: Reason = switch tier {
                case 0: .tempoFits
                case 1: .noBPM
                default: .nothingFits
                }
                let entry = entry(slot: slot, at: start, reason: reason)
                entries.append(entry)
                previousArtist = library.tracks[slot].artist
                start = entry.end
            }
            return Playlist(entries: entries, planSeconds: plan.planSeconds, short: nil)
        }

        /// The entry for the track in `slot` starting at `start`: where it mostly plays and
        /// how its BPM fits there.
        func entry(slot: Int, at start: Int, reason: Reason) -> Entry {
            let track = library.tracks[slot]
            let place = plan.place(at: start, seconds: track.seconds, from: plan.span(at: start))
            let target = plan.targets[place.target]
            var reason = reason
            if reason == .tempoFits, case .any = target { reason = .anyTempo }
            return Entry(trackID: track.id, start: start, seconds: track.seconds, segment: plan.spans[place.span].index,
                         tempo: track.bpm.flatMap { target.fit(bpm: $0) }, reason: reason)
        }

        /// The next song at `start` and its tier, or nil when every song is used.
        mutating func next(at start: Int, after previousArtist: Int32) -> (slot: Int, tier: Int)? {
            let first = plan.span(at: start)
            placements.removeAll(keepingCapacity: true)
            for length in library.lengths { placements.append(plan.place(at: start, seconds: length, from: first)) }
            for tier in 0..<Library.tiers {
                // The best of another artist, and the best of the same one in case there is none.
                var other: Candidate?
                var same: Candidate?
                for (g, place) in placements.enumerated() {
                    let b = library.bucket(target: place.target, tier: tier, group: g)
                    let end = Int(library.starts[b + 1])
                    var i = Int(cursors[b])
                    while i < end, used[Int(library.songs[Int(library.slots[i])])] { i += 1 }
                    cursors[b] = Int32(i)
                    guard i < end else { continue }
                    let slot = Int(library.slots[i])
                    guard previousArtist >= 0, library.tracks[slot].artist == previousArtist else {
                        other = better(Candidate(slot: slot, group: g), than: other)
                        continue
                    }
                    same = better(Candidate(slot: slot, group: g), than: same)
                    // The first of another artist further down this bucket.
                    for j in (i + 1)..<max(end, i + 1) {
                        let s = Int(library.slots[j])
                        if !used[Int(library.songs[s])], library.tracks[s].artist != previousArtist {
                            other = better(Candidate(slot: s, group: g), than: other)
                            break
                        }
                    }
                }
                if let pick = other ?? same { return (pick.slot, tier) }
            }
            return nil
        }

        /// A track in the running, with its length group (whose placement it shares).
        struct Candidate {
            var slot: Int
            var group: Int
        }

        /// Whichever comes first: less spill, higher score, the seed's order.
        func better(_ c: Candidate, than current: Candidate?) -> Candidate {
            guard let current else { return c }
            let a = placements[c.group].spill, b = placements[current.group].spill
            if a != b { return a < b ? c : current }
            let x = library.tracks[c.slot].score, y = library.tracks[current.slot].score
            if x != y { return x > y ? c : current }
            return library.ties[c.slot] < library.ties[current.slot] ? c : current
        }
    }

    /// The span that `second` falls in (the last one past the plan's end).
    func span(at second: Int) -> Int {
        var lo = 0, hi = spans.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if spans[mid].start <= second { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    /// Where a song of `seconds` starting at `start` (in span `first`) mostly plays, the tempo
    /// it is held to there, and how much of it plays elsewhere. A ramp's zone is read at the
    /// middle of the song's part in it.
    func place(at start: Int, seconds: Int, from first: Int) -> Placement {
        let end = min(start + seconds, planSeconds)
        var best = first, most = -1, middle2 = 0
        var s = first
        while s < spans.count, spans[s].start < end {
            let lo = max(spans[s].start, start), hi = min(spans[s].end, end)
            if hi - lo > most {
                best = s
                most = hi - lo
                middle2 = lo + hi
            }
            s += 1
        }
        var zone = 0
        if let ramp = spans[best].ramp {
            let fraction = (Double(middle2) / 2 - Double(spans[best].start)) / Double(spans[best].end - spans[best].start)
            zone = Self.zone(ramp.zone(at: fraction) ?? 0)
        }
        return Placement(span: best, target: Int(spanTargets[best * 6 + zone]), spill: max(end - start - most, 0) / Self.spillStep)
    }
}
