import PacenoteCore

extension Config {
    /// `[heart_rate]`: zones and workout detection.
    public struct HeartRate: Sendable, Equatable {
        public var zoneModel = "percent_max"
        public var maxHR: Int?
        public var age: Int?
        public var restingHR: Int?
        public var lthr: Int?
        public var zoneBounds: [Int]?
        public var workoutStartAfterSeconds = 60.0
        public var workoutEndAfterSeconds = 300.0
        /// The current heart rate is shown while its last reading is at most this old.
        public var freshForSeconds = 15.0

        public init() {}

        /// The maximum heart rate: measured if given, else Tanaka's formula from the age,
        /// else 190.
        public var effectiveMaxHR: Int { maxHR ?? age.map(ZoneModel.tanakaMaxHR(age:)) ?? 190 }

        public var model: ZoneModel {
            get throws(ConfigError) {
                switch zoneModel {
                case "percent_max": return .percentMax(maxHR: effectiveMaxHR)
                case "hrr":
                    guard let restingHR else { throw ConfigError(key: "heart_rate.resting_hr", message: "the hrr zone model needs resting_hr") }
                    guard restingHR < effectiveMaxHR else { throw ConfigError(key: "heart_rate.resting_hr", message: "must be below the maximum heart rate") }
                    return .heartRateReserve(maxHR: effectiveMaxHR, restingHR: restingHR)
                case "lthr_run", "lthr_bike":
                    guard let lthr else { throw ConfigError(key: "heart_rate.lthr", message: "the \(zoneModel) zone model needs lthr") }
                    return .lactateThreshold(lthr: lthr, sport: zoneModel == "lthr_run" ? .run : .bike)
                default:
                    guard let zoneBounds, zoneBounds.count == 5, zip(zoneBounds, zoneBounds.dropFirst()).allSatisfy({ $0 < $1 }) else {
                        throw ConfigError(key: "heart_rate.zone_bounds", message: "the custom zone model needs 5 ascending bpm values (the lower bounds of Z1 to Z5)")
                    }
                    return .custom(lowerBounds: zoneBounds)
                }
            }
        }
    }
}

extension Config {
    /// `[[heart_rate.ble]]`: a Bluetooth LE heart-rate strap, read through BlueZ.
    public struct Strap: Sendable, Equatable {
        /// `AA:BB:CC:DD:EE:FF`, or `auto`: the first heart-rate strap seen.
        public var address = "auto"
        /// The name its samples are stored under.
        public var source = "strap"
        /// `hci0`; nil: any adapter.
        public var adapter: String?
        /// `heart_rate` (a strap), `footpod` (running speed and cadence) or `cycling` (a
        /// cadence sensor on the crank).
        public var sensor = "heart_rate"

        public init() {}

        /// nil for `auto`.
        public var wantedAddress: String? { address == "auto" ? nil : address }
    }
}

extension ConfigSchema {
    static let strap = ConfigSection<Config.Strap>(name: "heart_rate.ble", doc: """
        Bluetooth LE heart-rate straps (chest straps, arm bands, watches that broadcast heart
        rate) and footpods or bike cadence sensors (`sensor`), read straight from BlueZ on the system bus: none by default. Pacenote searches
        for the strap, connects, reads each Heart Rate Measurement as the strap sends it
        (1–4 a second), connects again when it comes back (out of range, battery), and shows
        its state and battery in /api/v1/status. `pacenote hr-scan` lists the straps in range.
        The strap needs no pairing. The service's user needs to be allowed to use BlueZ (on
        Debian: the bluetooth group). For example:

          [[heart_rate.ble]]
          address = "auto"
          source = "chest-strap"
        """, keys: [
        ConfigKey("address", \.address, Codec.string { (text) throws(ConfigProblem) in
            guard text == "auto" || BluetoothAddress.isValid(text) else {
                throw ConfigProblem("expected auto or a Bluetooth address like C0:FF:EE:12:34:56")
            }
            return text == "auto" ? text : text.uppercased()
        }, example: #""auto""#, doc: "The strap's address (`pacenote hr-scan` shows it), or auto: the first heart-rate strap seen."),
        ConfigKey("source", \.source, Codec.string { (text) throws(ConfigProblem) in
            guard !text.isEmpty, text.count <= 64 else { throw ConfigProblem("must be 1 to 64 characters") }
            return text
        }, example: #""strap""#, doc: "The name its samples are stored under (a source, as hr-feed --source names one)."),
        ConfigKey("adapter", \.adapter, Codec.optionalString { (text) throws(ConfigProblem) in
            guard text.hasPrefix("hci"), text.dropFirst(3).allSatisfy(\.isNumber), text.count > 3 else {
                throw ConfigProblem("expected an adapter name like hci0")
            }
            return text
        }, example: #""hci0""#, doc: "The Bluetooth adapter to use; unset: any."),
        ConfigKey("sensor", \.sensor, Codec.oneOf(["heart_rate", "footpod", "cycling"]), doc: """
            What it is: "heart_rate" (a strap: Heart Rate service), "footpod" (Running Speed and
            Cadence: cadence in steps a minute and speed, for cadence mode and the workout's
            measures) or "cycling" (Cycling Speed and Cadence: pedal cadence). Found, connected
            and read as a strap is; `pacenote hr-scan` lists all three.
            """),
    ])

    static let strapList = ConfigList<Config.Strap>(
        element: { _ in Config.Strap() },
        noun: "straps",
        unique: (key: "source", of: { $0.source }))

    static let heartRate = ConfigSection<Config.HeartRate>(name: "heart_rate", doc: "", keys: [
        ConfigKey("zone_model", \.zoneModel, Codec.oneOf(["percent_max", "hrr", "lthr_run", "lthr_bike", "custom"]),
                  env: ["PACENOTE_ZONE_MODEL"], doc: """
            How heart rate maps to zones Z0–Z5:
              percent_max  % of max_hr: Z1 from 50 %, Z2 60 %, Z3 70 %, Z4 80 %, Z5 90 % (the default)
              hrr          Karvonen: the same percentages of the reserve (max_hr − resting_hr), plus resting_hr
              lthr_run     Friel's running zones from your lactate threshold heart rate (lthr):
                           Z1 from 65 %, Z2 85 %, Z3 90 %, Z4 95 %, Z5 100 % of lthr
              lthr_bike    Friel's cycling zones: Z1 from 65 %, Z2 81 %, Z3 90 %, Z4 94 %, Z5 100 %
              custom       your own lower bounds of Z1..Z5 in zone_bounds
            Zone settings apply from the time Pacenote starts with them: past workouts keep the
            zones they were computed with.
            """),
        ConfigKey("max_hr", \.maxHR, Codec.integer(100...250).optional, env: ["PACENOTE_MAX_HR"], example: "190",
                  inEffect: { String($0.effectiveMaxHR) }, doc: """
            Your maximum heart rate, measured (a hard effort test) if you can: the formulas carry
            about ±10 bpm for an individual. Without it, Pacenote uses Tanaka's formula
            (208 − 0.7 × age) if age is set, else 190.
            """),
        ConfigKey("age", \.age, Codec.integer(5...110).optional, example: "35", doc: ""),
        ConfigKey("resting_hr", \.restingHR, Codec.integer(25...120).optional, example: "60",
                  doc: "Resting heart rate, for the hrr model."),
        ConfigKey("lthr", \.lthr, Codec.integer(80...230).optional, example: "170",
                  doc: "Lactate threshold heart rate, for the lthr_run and lthr_bike models."),
        ConfigKey("zone_bounds", \.zoneBounds, Codec.integers(25...250, unit: "bpm", expected: "an array of 5 integers").optional,
                  example: "[95, 114, 133, 152, 171]",
                  doc: "Lower bpm bounds of Z1, Z2, Z3, Z4 and Z5 (ascending), for the custom model."),
        ConfigKey("workout_start_after_s", \.workoutStartAfterSeconds, Codec.number(1...3600), doc: """
            A workout starts once readings have kept coming for this many seconds (gaps shorter
            than workout_end_after_s are bridged) and ends when none has come for
            workout_end_after_s seconds, at its last reading.
            """),
        ConfigKey("workout_end_after_s", \.workoutEndAfterSeconds, Codec.number(1...86400), doc: ""),
        ConfigKey("fresh_for_s", \.freshForSeconds, Codec.number(1...3600), doc: """
            The live heart rate (in /api/v1/status) is shown while its last reading is at most
            this many seconds old.
            """),
    ], validate: { (heartRate) throws(ConfigError) in _ = try heartRate.model })  // the zone settings together

    static let plays = ConfigSection<PlayRule>(name: "plays", doc: "", keys: [
        ConfigKey("min_track_s", \.minimumDuration, Codec.number(0...3600), doc: """
            When a play counts as a listen; plays that do not count are kept as skips, with the
            time played. The default is Last.fm's scrobbling rule, as mpdscribble applies it:
            a track of at least min_track_s seconds counts once played for more than
            min_fraction of its length, or for more than always_count_after_s seconds.
            Played time is real playing time: pauses do not count, seeks neither add nor remove.
            """),
        ConfigKey("min_fraction", \.fraction, Codec.number(0.01...1), doc: ""),
        ConfigKey("always_count_after_s", \.sufficientSeconds, Codec.number(1...86400), doc: ""),
        ConfigKey("stream_count_after_s", \.streamSeconds, Codec.number(1...86400),
                  doc: "A stream has no length: each title in it counts after this many seconds of playing."),
    ])
}
