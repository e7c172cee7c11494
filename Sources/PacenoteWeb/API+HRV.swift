import Foundation
import PacenoteCore
import PacenoteStore

extension API {
    // MARK: /api/v1/hrv

    /// Resting readings in [from, to) (default: the last year), oldest first.
    func hrvReadingsJSON(_ query: [String: String]) throws -> JSONValue {
        let to = try Query.instant(query, "to", localTime, endOfDay: true) ?? context.clock.now().addingTimeInterval(1)
        let from = try Query.instant(query, "from", localTime) ?? to.addingTimeInterval(-365 * 86_400)
        guard from < to else { throw APIError.badRequest("'from' must be before 'to'", code: "invalid_from") }
        return .object([("readings", .array(try context.store.hrvReadings(from: from, to: to).map(APIJSON.hrvReading)))])
    }

    func hrvReadingJSON(_ id: Int64) throws -> JSONValue {
        guard let reading = try context.store.hrvReading(id: id) else { throw APIError.notFound("no HRV reading \(id)") }
        return APIJSON.hrvReading(reading)
    }

    /// Starts a resting reading: `{"seconds": 120}` from now (sit still with the strap on), or
    /// `{"start": …, "seconds": …}` over readings already stored (a watch that synced them).
    /// 201 with the reading, done when its window has already passed; else 202, measuring.
    func startHRVReading(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let backend = context.heartRate else { throw APIError.unavailable("heart rate is not enabled") }
        let now = context.clock.now()
        let object = request.body.isEmpty ? [:] : try Self.jsonObject(request)
        let seconds = try Self.hrvSeconds(object["seconds"])
        var start = now
        if let raw = object["start"] {
            let text = (raw as? String) ?? (raw as? NSNumber).map { "\(Int64($0.doubleValue))" }
            guard let text, let date = Instant.parse(text, in: localTime) else {
                throw APIError.badRequest("'start' must be an ISO 8601 time with offset or Unix seconds", code: "invalid_start")
            }
            guard date <= now else { throw APIError.badRequest("'start' must not be in the future", code: "invalid_start") }
            start = date
        }
        let reading = try backend.startRestingReading(from: start, seconds: seconds, now: now)
        return .json(APIJSON.hrvReading(reading), status: reading.done ? 201 : 202)
    }

    static func hrvSeconds(_ value: Any?) throws(APIError) -> Double {
        guard let value else { return HRVReading.standardSeconds }
        let range = HRVReading.allowedSeconds
        guard let number = value as? NSNumber, !isJSONBool(number), range.contains(number.doubleValue) else {
            throw APIError.badRequest("'seconds' must be a number from \(Int(range.lowerBound)) to \(Int(range.upperBound))",
                                      code: "invalid_seconds")
        }
        return number.doubleValue
    }

    /// A workout's heart-rate variability from the RR intervals stored during it; nil without
    /// enough clean intervals. (Measured while moving it mostly says how hard it was: RMSSD
    /// falls as heart rate rises. The resting readings are the ones to compare day to day.)
    func workoutHRV(_ w: Workout, end: Date) throws -> HeartRateVariability? {
        HeartRateVariability(rr: try context.store.rrIntervals(from: w.startedAt, to: end))
    }
}

extension APIJSON {
    static func hrv(_ h: HeartRateVariability?) -> JSONValue {
        guard let h else { return .null }
        return .object([
            ("rmssd_ms", .double(h.rmssd)), ("sdnn_ms", .double(h.sdnn)), ("mean_nn_ms", .double(h.meanNN)),
            ("beats", .int(Int64(h.beats))), ("outliers", .int(Int64(h.outliers))), ("ectopic", .int(Int64(h.ectopic))),
        ])
    }

    static func hrvReading(_ r: HRVReading) -> JSONValue {
        .object([
            ("id", .int(r.id)),
            ("started_at", timestamp(r.startedAt)),
            ("ends_at", timestamp(r.endsAt)),
            ("done", .bool(r.done)),
            ("hrv", hrv(r.figures)),
        ])
    }
}
