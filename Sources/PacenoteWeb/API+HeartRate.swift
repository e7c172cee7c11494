import Foundation
import PacenoteCore
import PacenoteStore

extension API {
    static let maxBatch = 10_000

    var backend: any HeartRateBackend {
        get throws(APIError) {
            guard let backend = context.heartRate else { throw APIError.unavailable("heart rate is not enabled") }
            return backend
        }
    }

    // MARK: POST /api/v1/hr

    func ingestHeartRate(_ request: HTTPRequest) throws -> HTTPResponse {
        let backend = try backend
        let now = context.clock.now()
        let batch: HeartRateInput.Batch
        do {
            let format = HeartRateInput.format(contentType: request.header("Content-Type"), body: request.body)
            batch = try HeartRateInput.parse(request.body, format: format, now: now)
        } catch {
            throw APIError.badRequest("\(error.field): \(error.message)", code: "invalid_\(error.field)")
        }
        guard batch.items.count <= Self.maxBatch else {
            throw APIError.badRequest("samples: at most \(Self.maxBatch) in one request", code: "invalid_samples")
        }
        let source = try Self.source(request.query["source"] ?? request.header("X-Source") ?? batch.source)
        var good: [HeartRateSample] = []
        var motion: [MotionSample] = []
        var rejected: [JSONValue] = []
        func reject(_ index: Int, _ r: HeartRateInput.Rejection) {
            rejected.append(.object([("index", .int(Int64(index))), ("field", .string(r.field)), ("message", .string(r.message))]))
        }
        for (index, item) in batch.items.enumerated() {
            let moved = index < batch.motion.count ? batch.motion[index] : nil
            switch (item, moved) {
            case (.success(let sample), _): good.append(sample)
            // Motion alone (a foot pod, a bike computer): no heart rate is no fault.
            case (.failure(let r), .some) where r.noHeartRate: break
            case (.failure(let r), _): reject(index, r)
            }
            switch moved {
            case .success(let m)?: motion.append(m)
            case .failure(let r)?: reject(index, r)
            case nil: break
            }
        }
        if good.isEmpty, motion.isEmpty, case .failure(let first)? = batch.items.first {
            // Nothing usable: the whole request is refused, naming the field.
            let body: JSONValue = .object([
                ("error", .object([("code", .string("invalid_\(first.field)")), ("message", .string("\(first.field): \(first.message)"))])),
                ("rejected", .array(rejected)),
            ])
            return .json(body, status: 400)
        }
        let stored = try backend.ingest(good, source: source)
        // What no body can do is dropped before it is stored, and said.
        let (cleaned, report) = MotionCleaning.clean(motion.sorted { $0.at < $1.at })
        let storedMotion = cleaned.isEmpty ? 0 : try backend.ingestMotion(cleaned, source: source)
        var fields: [(String, JSONValue)] = [
            ("stored", .int(Int64(stored))),
            ("duplicates", .int(Int64(good.count - stored))),
            ("rejected", .array(rejected)),
            ("source", .string(source)),
        ]
        if !motion.isEmpty {
            fields.append(("motion_stored", .int(Int64(storedMotion))))
            fields.append(("cleaned", .array(report.lines.map { .string($0) })))
        }
        return .json(.object(fields))
    }

    /// Samples are unique per source and time: the source names the device or app.
    static func source(_ raw: String?) throws(APIError) -> String {
        guard let raw, !raw.isEmpty else { return "http" }
        guard raw.count <= 64, raw.allSatisfy({ $0.isLetter || $0.isNumber || "-_.:@ ".contains($0) }) else {
            throw APIError.badRequest("source: at most 64 letters, digits and - _ . : @", code: "invalid_source")
        }
        return raw
    }

    // MARK: Workouts

    func workouts(_ query: [String: String]) throws -> JSONValue {
        let limit = try Query.int(query, "limit", default: 50, in: 1...500)
        let before = try Query.instant(query, "before", localTime)
        let workouts = try context.store.workouts(limit: limit, before: before).map { w throws in try soFar(w) }
        return .object([("workouts", .array(workouts.map { APIJSON.workout($0, now: context.clock.now()) }))])
    }

    func workout(_ id: Int64) throws -> JSONValue {
        let r = try reading(id)
        let (w, samples, during, plays) = (r.workout, r.samples, r.during, r.plays)
        var fields: [(String, JSONValue)] = []
        if case .object(let base) = APIJSON.workout(w, now: context.clock.now()) { fields = base }
        fields.append(("trimp", .optional(try context.store.workoutLoad(id: id)?.total)))
        fields.append(("hrv", APIJSON.hrv(try workoutHRV(w, end: r.end))))
        fields.append(("measures", APIJSON.measures(r.measures)))
        fields.append(("splits", .array(r.measures.splits.map(APIJSON.split))))
        fields.append(("laps", .array(r.measures.laps.map(APIJSON.split))))
        // A planned workout: each segment's target beside what happened.
        fields.append(("plan_report", try planReport(r).map { APIJSON.planReport($0, timeline: w.plan?.timeline() ?? []) } ?? .null))
        fields.append(("samples", .array(Downsample.series(during, points: 600).map { point in
            .object([("at", APIJSON.timestamp(point.at)), ("bpm", .double((point.bpm * 10).rounded() / 10))])
        })))
        fields.append(("plays", .array(plays.map { p in
            let lift = HeartRateLift.lift(samples: samples, start: p.play.startedAt, end: p.play.endedAt)
            var item: [(String, JSONValue)] = []
            if case .object(let listen) = APIJSON.listen(p) { item = listen }
            item.append(("hr_lift", .optional(lift.map { ($0 * 10).rounded() / 10 })))
            item.append(("pace_effect", p.play.id.flatMap { r.paces[$0] }.map(APIJSON.paceEffect) ?? .null))
            return .object(item)
        })))
        return .object(fields)
    }

    /// A workout as the API and the site show it. One in progress has only zeros stored until
    /// it ends: it gets its figures so far instead, summed over its readings up to the latest
    /// by `WorkoutFigures`, as they will be summed when it ends.
    func soFar(_ w: Workout, samples during: [HeartRateSample]? = nil) throws -> Workout {
        guard w.endedAt == nil else { return w }
        let samples = try during ?? context.store.samples(from: w.startedAt, to: .distantFuture)
        let figures = WorkoutFigures(samples, model: try context.store.zoneSettings().model(settingsID: w.zoneSettingsID, at: w.startedAt))
        var shown = w
        shown.heartRateAverage = figures.average
        shown.heartRateMax = figures.maximum
        shown.secondsInZone = figures.secondsInZone()
        return shown
    }

    /// A workout's samples, from 30 s before it (a first song's lift needs them) to its end,
    /// and that end: for one in progress, now or its latest reading if later.
    static func samples(of w: Workout, in store: Store, now: Date) throws -> (samples: [HeartRateSample], end: Date) {
        let samples = try store.samples(from: w.startedAt.addingTimeInterval(-30), to: w.endedAt ?? .distantFuture)
        return (samples, w.endedAt ?? max(now, samples.last?.at ?? .distantPast))
    }

    func startWorkout(_ request: HTTPRequest) throws -> HTTPResponse {
        var name: String?
        if !request.body.isEmpty {
            guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any] else {
                throw APIError.badRequest("body: expected a JSON object such as {\"name\": \"Intervals\"}", code: "invalid_body")
            }
            if let n = object["name"] {
                guard let text = n as? String, text.count <= 200 else {
                    throw APIError.badRequest("name: a text of at most 200 characters", code: "invalid_name")
                }
                name = text
            }
        }
        let id = try backend.startWorkout(name: name, now: context.clock.now())
        return .json(.object([("id", .int(id))]), status: 201)
    }

    func stopWorkout(_ id: Int64) throws -> JSONValue {
        guard try context.store.workout(id: id) != nil else { throw APIError.notFound("no workout \(id)") }
        guard try backend.stopWorkout(id: id, now: context.clock.now()) else {
            throw APIError(kind: .conflict, code: "not_in_progress", message: "workout \(id) is not in progress")
        }
        return .object([("id", .int(id)), ("stopped", .bool(true))])
    }
}

/// Fewer points for charts: the average of equal time buckets.
enum Downsample {
    static func series(_ samples: [HeartRateSample], points: Int) -> [(at: Date, bpm: Double)] {
        guard samples.count > points, let first = samples.first?.at, let last = samples.last?.at else {
            return samples.map { ($0.at, Double($0.bpm)) }
        }
        let span = last.timeIntervalSince(first) / Double(points)
        var buckets: [Int: (Double, Double, Int)] = [:]  // index: (sum of times, sum of bpm, count)
        for s in samples {
            let i = min(points - 1, Int(s.at.timeIntervalSince(first) / span))
            let b = buckets[i] ?? (0, 0, 0)
            buckets[i] = (b.0 + s.at.timeIntervalSince1970, b.1 + Double(s.bpm), b.2 + 1)
        }
        return buckets.keys.sorted().map { i in
            let b = buckets[i]!
            return (Date(timeIntervalSince1970: b.0 / Double(b.2)), b.1 / Double(b.2))
        }
    }
}

extension APIJSON {
    /// `workout_progress` on the event stream: a workout in progress's figures so far (as
    /// `/api/v1/workouts/{id}` gives them) and the readings that update counted.
    static func workoutProgress(_ p: WorkoutProgress) -> JSONValue {
        let latest = p.figures.latest?.at
        return .object([
            ("id", .int(p.id)),
            ("started_at", timestamp(p.startedAt)),
            ("at", timestamp(latest)),
            ("duration_s", .double((latest ?? p.startedAt).timeIntervalSince(p.startedAt).rounded())),
            ("hr_avg", .optional(p.figures.average)),
            ("hr_max", .optional(p.figures.maximum)),
            ("time_in_zone_s", .array(p.figures.secondsInZone().map { .double(($0 * 10).rounded() / 10) })),
            ("samples", .array(p.samples.map { .object([("at", timestamp($0.at)), ("bpm", .int(Int64($0.bpm)))]) })),
        ])
    }

    static func workout(_ w: Workout, now: Date) -> JSONValue {
        let end = w.endedAt ?? now
        return .object([
            ("id", .int(w.id)),
            ("started_at", timestamp(w.startedAt)),
            ("ended_at", timestamp(w.endedAt)),
            ("in_progress", .bool(w.endedAt == nil)),
            ("duration_s", .double(end.timeIntervalSince(w.startedAt).rounded())),
            ("kind", .string(w.kind)),
            ("name", .optional(w.name)),
            ("sport", .optional(w.sport)),
            ("hr_avg", .optional(w.heartRateAverage)),
            ("hr_max", .optional(w.heartRateMax)),
            ("time_in_zone_s", .array(w.secondsInZone.map { .double(($0 * 10).rounded() / 10) })),
        ])
    }
}
