extension Recommender {
    /// What each reason weighs in a suggestion's score (the reasons a suggestion returns).
    public struct Weights: Equatable, Sendable {
        public var tempo = 1.0
        /// Counted plays against skips in this zone.
        public var zoneRecord = 1.5
        /// log(1 + recency-weighted counted plays).
        public var familiarity = 0.4
        /// Overall share of skips.
        public var skipPenalty = 1.5
        /// P(candidate | current track), learned from consecutive plays.
        public var trackTransition = 12.0
        /// P(candidate's artist | current artist).
        public var artistTransition = 6.0
        /// A liked track (within the tempo window: it never lifts a track out of its tier).
        public var liked = 1.0
        /// "Not now" said of the track a short while ago (`Request.notNow`).
        public var notNow = -4.0
        /// A song that made you faster on runs (`Request.paceEffects`), per unit of its speed
        /// change: 4 % faster adds 0.4; capped at ±1 (a tenth faster or slower), so a song
        /// never leaves its tempo tier for it. Only with heart rate or a cadence target: on
        /// the move.
        public var faster = 10.0
        /// A track of a genre preferred in this zone's effort (`GenrePreference`,
        /// `Request.preferredGenres`): within its tier, as a like.
        public var preferredGenre = 0.75
        /// How clear the beat is (aubio's confidence, measured by `pacenote analyze`), as
        /// Beatrun ranks on it: `beat × 2 × (min(confidence, 0.5) − 0.25)`, from −0.5 (no beat
        /// at all) to +0.5. aubio's figure is not a probability: a held chord with no beat
        /// reads 0.10, a kick under that chord 0.43, bare percussion saturates at 1 (measured
        /// in `TempoBeatsTests` and the analyze test), so the scale is centred on 0.25 and
        /// anything at 0.5 or over counts as fully clear. Only with a tempo target (steps or a
        /// zone's window), when the beat is what one runs to; within the tier, as a like.
        public var beat = 1.0

        public init() {}
    }
}
