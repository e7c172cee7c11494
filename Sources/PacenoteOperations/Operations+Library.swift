import Foundation
import PacenoteCore
import PacenoteStore

extension Operations {
    /// The longest note a pinned song of the day keeps.
    public static let maxNoteLength = 500
    /// Tempos outside this range are not tempos (a mistyped value, a year).
    public static let bpmRange = 20.0...400.0

    /// Pins `trackID` as the song of `day` (YYYY-MM-DD in the display time zone), with a
    /// note: trimmed, empty meaning none, at most `maxNoteLength` characters.
    public func pin(day: String, trackID: Int64, note: String?) throws {
        let day = try validDay(day)
        guard trackID > 0 else { throw OperationError.invalid("invalid_track_id", "track_id: a track's id") }
        let trimmed = note?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let trimmed, trimmed.count > Self.maxNoteLength {
            throw OperationError.invalid("invalid_note", "note: a text of at most \(Self.maxNoteLength) characters")
        }
        guard try store.pinSOTD(day: day, trackID: trackID, note: trimmed?.isEmpty == false ? trimmed : nil) else {
            throw OperationError.notFound("no track \(trackID)")
        }
        announce(.songOfTheDay(day: day))
    }

    /// Unpins the song of `day`; false when none was pinned (nothing changes then).
    @discardableResult
    public func unpin(day: String) throws -> Bool {
        let day = try validDay(day)
        let removed = try store.unpinSOTD(day: day)
        if removed { announce(.songOfTheDay(day: day)) }
        return removed
    }

    /// Sets a track's tempo from `source` (a hand-set one is `manual`: never replaced by
    /// tags, stickers or analysis). Returns the track as stored afterwards.
    @discardableResult
    public func setBPM(trackID: Int64, value: Double, source: BPM.Source = .manual,
                       confidence: Double? = 1) throws -> Track {
        guard value.isFinite, Self.bpmRange.contains(value) else {
            throw OperationError.invalid("invalid_bpm", "bpm: a tempo from \(Int(Self.bpmRange.lowerBound)) to \(Int(Self.bpmRange.upperBound))")
        }
        guard try store.track(id: trackID) != nil else { throw OperationError.notFound("no track \(trackID)") }
        try store.setBPM(trackID: trackID, BPM(value: value, source: source, confidence: confidence))
        guard let track = try store.track(id: trackID) else { throw OperationError.notFound("no track \(trackID)") }
        announce(.trackBPM(trackID: trackID))
        return track
    }

    /// Stores how clear a track's beat is (aubio's confidence, 0…1, from `pacenote analyze`).
    /// The recommender's candidates change with it, announced as a change of the track's tempo.
    public func setBeatConfidence(trackID: Int64, _ value: Double) throws {
        guard value.isFinite, (0...1).contains(value) else {
            throw OperationError.invalid("invalid_beat_confidence", "beat confidence: a value from 0 to 1")
        }
        guard try store.setBeatConfidence(trackID: trackID, (value * 1000).rounded() / 1000) else {
            throw OperationError.notFound("no track \(trackID)")
        }
        announce(.trackBPM(trackID: trackID))
    }

    /// What a measured loudness can be (`tracks.loudness_lufs`): from the silence floor
    /// (`Track.silentLUFS`) to well above anything mastered.
    public static let loudnessRange = Track.silentLUFS...20.0
    /// What a loudness range can be (`tracks.loudness_range_lu`).
    public static let loudnessRangeLURange = 0.0...120.0

    /// Stores a track's measured energy: its EBU R 128 integrated loudness (LUFS) and
    /// loudness range (LU), from `pacenote analyze`, to a hundredth. Announced as a change of
    /// the track's measured figures, as the beat confidence is.
    public func setLoudness(trackID: Int64, lufs: Double, rangeLU: Double) throws {
        guard lufs.isFinite, Self.loudnessRange.contains(lufs) else {
            throw OperationError.invalid("invalid_loudness", "loudness: from \(Int(Self.loudnessRange.lowerBound)) to \(Int(Self.loudnessRange.upperBound)) LUFS")
        }
        guard rangeLU.isFinite, Self.loudnessRangeLURange.contains(rangeLU) else {
            throw OperationError.invalid("invalid_loudness_range",
                                         "loudness range: from \(Int(Self.loudnessRangeLURange.lowerBound)) to \(Int(Self.loudnessRangeLURange.upperBound)) LU")
        }
        guard try store.setLoudness(trackID: trackID, lufs: (lufs * 100).rounded() / 100, rangeLU: (rangeLU * 100).rounded() / 100) else {
            throw OperationError.notFound("no track \(trackID)")
        }
        announce(.trackBPM(trackID: trackID))
    }

    func validDay(_ day: String) throws -> String {
        guard day.count == 10, store.localTime.startOfDay(day) != nil else {
            throw OperationError.invalid("invalid_day", "'\(day)' is not a day (YYYY-MM-DD)")
        }
        return day
    }
}

extension Operations {
    /// Splits every credit that came as text with these separators (validated against
    /// `ArtistCredit.configurableSeparators`) and keeps them for new tracks: exactly the
    /// changes `Store.creditChanges` previews. Artist charts change, so it is announced as a
    /// rewrite of the plays.
    @discardableResult
    public func setCreditSeparators(_ values: [String]) throws -> [CreditChange] {
        let separators: [String]
        switch ArtistCredit.validSeparators(values) {
        case .success(let s): separators = s
        case .failure(let e): throw OperationError.invalid("invalid_separator", e.description)
        }
        let changes = try store.applyCreditSeparators(separators)
        if !changes.isEmpty { announce(.playsRewritten(.credits)) }
        return changes
    }
}

extension Operations {
    /// Mirrors what `player`'s library listing found (files changed and gone, tempos from
    /// `bpm` stickers) and announces it (`.library`) when anything changed.
    @discardableResult
    public func mirrorLibrary(player: String, changed: [SongInfo], removed: [String], stickers: [String: Double]?,
                              now: Date = Date()) throws -> LibraryMirrorSummary {
        let summary = try store.applyLibrary(player: player, changed: changed, removed: removed, stickers: stickers, now: now)
        if summary.added + summary.updated + summary.removed + summary.bpmFromStickers > 0 { announce(.library(player: player)) }
        return summary
    }

    /// Stores the tempos some files' tags give (none: a tag tempo they had goes) and marks
    /// them read; announced as `.library`. Returns how many had a tempo.
    @discardableResult
    public func applyTagBPM(player: String, _ files: [(uri: String, modifiedMs: Int64, bpm: Double?)]) throws -> Int {
        let withBPM = try store.applyTagBPM(player: player, files)
        if !files.isEmpty { announce(.library(player: player)) }
        return withBPM
    }

    /// Saves a player's play in progress (on each tick, so a crash loses at most a tick)
    /// and announces it (`.playInProgress`): without it, the commit would look like an
    /// unannounced write and drop every cache of the web layer each tick.
    public func saveProgress(player: String, _ open: OpenPlay) throws(StoreError) {
        try store.saveProgress(player: player, open)
        announce(.playInProgress(player: player))
    }
}
