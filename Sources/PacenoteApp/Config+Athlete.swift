import PacenoteCore

extension Config {
    /// `[athlete]`: who is training, for training load (TRIMP) and calories.
    public struct AthleteSettings: Sendable, Equatable {
        public var restingHR: Int?
        public var maxHR: Int?
        public var age: Int?
        public var weightKg: Double?
        public var sex: Athlete.Sex?

        public init() {}
    }

    /// The athlete the figures use: `[athlete]`'s values, and where one is unset the same
    /// figure from `[heart_rate]` (its zones already know your maximum and resting heart
    /// rate), else a resting heart rate of 60 and Tanaka's maximum from the age, else 190.
    public var athlete: Athlete {
        let age = athleteSettings.age ?? heartRate.age
        let maxHR = athleteSettings.maxHR ?? heartRate.maxHR ?? age.map(ZoneModel.tanakaMaxHR(age:)) ?? 190
        return Athlete(restingHR: athleteSettings.restingHR ?? heartRate.restingHR ?? 60, maxHR: maxHR, sex: athleteSettings.sex,
                       age: age, weightKg: athleteSettings.weightKg)
    }
}

extension ConfigSchema {
    static let athlete = ConfigSection<Config.AthleteSettings>(name: "athlete", doc: """
        Who is training: training load (Banister's TRIMP, from your heart-rate reserve) and the
        calories of a workout without a device's figure need these. Unset values are taken
        from [heart_rate] (max_hr, resting_hr, age) when set there. Stored loads are computed
        again when these change.
        """, keys: [
        ConfigKey("resting_hr", \.restingHR, Codec.integer(25...120).optional, example: "60", doc: """
            Resting heart rate (in bed, just woken). Unset: [heart_rate] resting_hr, else 60.
            """),
        ConfigKey("max_hr", \.maxHR, Codec.integer(100...250).optional, example: "190", doc: """
            Maximum heart rate. Unset: [heart_rate] max_hr, else Tanaka's formula
            (208 − 0.7 × age), else 190.
            """),
        ConfigKey("age", \.age, Codec.integer(5...110).optional, example: "35", doc: "Age in years. Unset: [heart_rate] age."),
        ConfigKey("weight_kg", \.weightKg, Codec.number(20...300).optional, example: "70", doc: "Body weight in kilograms, for calories."),
        ConfigKey("sex", \.sex, word(Athlete.Sex.self).optional, example: #""female""#, doc: """
            "male" or "female": Banister's TRIMP weights heart-rate reserve differently
            (0.64 × e^(1.92 × HRr) for men, 0.86 × e^(1.67 × HRr) for women), and so do calorie
            formulas. Unset: the men's constants, Banister's original ones.
            """),
    ], validate: { (athlete) throws(ConfigError) in
        if let resting = athlete.restingHR, let max = athlete.maxHR, resting >= max {
            throw ConfigError(key: "athlete.resting_hr", message: "must be below max_hr (\(max))")
        }
    })
}
