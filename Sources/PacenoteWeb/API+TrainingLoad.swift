import Foundation
import PacenoteCore
import PacenoteStore

extension API {
    /// The longest range `/api/v1/training-load` answers at once (days).
    static let maxTrainingLoadDays = 20 * 366

    // MARK: GET /api/v1/training-load

    func trainingLoadJSON(_ query: [String: String]) throws -> JSONValue {
        let now = context.clock.now()
        let to = try Query.instant(query, "to", localTime, endOfDay: true) ?? now
        let from = try Query.instant(query, "from", localTime) ?? to.addingTimeInterval(-365 * 86_400)
        guard from < to else { throw APIError.badRequest("'from' must be before 'to'", code: "invalid_from") }
        let days = try trainingLoad(from: from, to: to)
        guard days.count <= Self.maxTrainingLoadDays else {
            throw APIError.badRequest("at most \(Self.maxTrainingLoadDays) days at once", code: "invalid_from")
        }
        return .object([
            ("from", .optional(days.first.map { Self.dayText($0.day) })),
            ("to", .optional(days.last.map { Self.dayText($0.day) })),
            ("fitness_days", .double(TrainingLoadModel.fitnessDays)),
            ("fatigue_days", .double(TrainingLoadModel.fatigueDays)),
            ("athlete", athleteJSON),
            ("days", .array(days.map { d in
                .object([("day", .string(Self.dayText(d.day))), ("load", .double(d.load)), ("fitness", .double(d.fitness)),
                         ("fatigue", .double(d.fatigue)), ("form", .double(d.form))])
            })),
        ])
    }

    /// What the loads were computed with; null when heart rate is off (no loads are stored).
    private var athleteJSON: JSONValue {
        guard let athlete = context.heartRate?.athlete else { return .null }
        return .object([("resting_hr", .int(Int64(athlete.restingHR))), ("max_hr", .int(Int64(athlete.maxHR))),
                        ("sex", .optional(athlete.sex?.rawValue))])
    }

    /// Fitness, fatigue and form for each local day of [from, to), from every stored workout
    /// load before `to` (`TrainingLoadModel`).
    func trainingLoad(from: Date, to: Date) throws -> [TrainingLoadModel.Day] {
        var walker = LocalTime.Walker(timeZone: localTime.timeZone)
        var loads: [Int: Double] = [:]
        for load in try context.store.workoutLoads(before: to) {
            loads[walker.slot(ms: Chart.milliseconds(load.startedAt)).dayNumber, default: 0] += load.trimp
        }
        let first = walker.slot(ms: Chart.milliseconds(from)).dayNumber
        let last = walker.slot(ms: Chart.milliseconds(to) - 1).dayNumber
        return TrainingLoadModel.days(loads: loads, from: first, through: last)
    }

    /// `YYYY-MM-DD` of a day number (days since 1970-01-01, local), without a calendar: five
    /// years of days are 1,826.
    static func dayText(_ day: Int) -> String {
        let c = CivilDate.civil(days: day)
        return LocalTime.format(year: c.year, month: c.month, day: c.day)
    }
}
