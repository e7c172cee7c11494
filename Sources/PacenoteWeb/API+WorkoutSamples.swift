import Foundation
import PacenoteCore
import PacenoteStore

extension API {
    // MARK: GET /api/v1/workouts/{id}/samples

    /// A workout's stored series at full resolution, for charts and exports: its heart rate,
    /// its motion (one source: `Store.motionSamples(workout:)`), its laps and the device's
    /// calories. Units are `MotionSample`'s (SI); a value the device did not record is null.
    func workoutSamples(_ id: Int64) throws -> JSONValue {
        guard let w = try context.store.workout(id: id) else { throw APIError.notFound("no workout \(id)") }
        let heartRate = try context.store.samples(from: w.startedAt, to: w.endedAt ?? .distantFuture)
        let motion = try context.store.motionSamples(workout: w)
        let laps = try context.store.laps(workout: id)
        return .object([
            ("id", .int(id)),
            ("calories", .optional(w.calories)),
            ("heart_rate", .array(heartRate.map { .object([("at", APIJSON.timestamp($0.at)), ("bpm", .int(Int64($0.bpm)))]) })),
            ("motion", .array(motion.map { m in
                .object([
                    ("at", APIJSON.timestamp(m.at)), ("speed", .optional(m.speed)), ("distance", .optional(m.distance)),
                    ("altitude", .optional(m.altitude)), ("cadence", .optional(m.cadence)), ("power", .optional(m.power)),
                    ("lat", .optional(m.latitude)), ("lon", .optional(m.longitude)),
                ])
            })),
            ("laps", .array(laps.map { lap in
                .object([("start", APIJSON.timestamp(lap.start)), ("end", APIJSON.timestamp(lap.end)), ("calories", .optional(lap.calories))])
            })),
        ])
    }
}
