import PacenoteCore

extension Config {
    /// `[workouts]`: what Pacenote keeps of a workout beyond its heart rate.
    public struct Workouts: Sendable, Equatable {
        /// Whether positions (latitude, longitude) are stored with the other motion samples.
        public var keepPositions = false

        public init() {}
    }
}

extension ConfigSchema {
    static let workouts = ConfigSection<Config.Workouts>(name: "workouts", doc: "", keys: [
        ConfigKey("keep_positions", \.keepPositions, Codec.boolean, doc: """
            Whether the positions of a workout file (GPX, TCX, FIT) or a live push are stored.
            false: they give the distance when the file has none, and are then dropped, as a
            run's start is usually someone's home. Speed, distance, altitude, cadence and power
            are stored either way.
            """),
    ])
}
