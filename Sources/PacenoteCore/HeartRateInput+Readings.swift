import Foundation

extension HeartRateInput {
    /// One reading of `hr-feed`: heart rate, motion, or both, at one time.
    public struct Reading: Equatable, Sendable {
        public var heartRate: HeartRateSample?
        public var motion: MotionSample?

        public init(heartRate: HeartRateSample?, motion: MotionSample? = nil) {
            self.heartRate = heartRate
            self.motion = motion
        }

        public var at: Date {
            get { heartRate?.at ?? motion?.at ?? .distantPast }
            set {
                heartRate?.at = newValue
                motion?.at = newValue
            }
        }

        /// The reading as `POST /api/v1/hr` takes it (and `hr-feed`'s buffer file keeps it),
        /// time in Unix milliseconds.
        public var json: String {
            var fields: [String] = []
            if let h = heartRate {
                fields.append("\"bpm\":\(h.bpm)")
                if !h.rr.isEmpty { fields.append("\"rr\":[" + h.rr.map { String(format: "%.1f", $0) }.joined(separator: ",") + "]") }
            }
            fields.append("\"ts\":\(Int64((at.timeIntervalSince1970 * 1000).rounded()))")
            if let m = motion {
                for (key, field) in HeartRateInput.motionKeys {
                    if let v = m[keyPath: field], v.isFinite { fields.append("\"\(key)\":\(v)") }
                }
            }
            return "{" + fields.joined(separator: ",") + "}"
        }
    }

    /// The readings on one line of `hr-feed`'s input: as `parseLine`, with the motion a JSON
    /// line carries beside (or instead of) the heart rate.
    public static func readings(_ line: String, format: LineFormat, now: Date) -> [Result<Reading, Rejection>] {
        let text = line.trimmingCharacters(in: .whitespaces)
        let json = format == .json || (format == .auto && (text.hasPrefix("{") || text.hasPrefix("[")))
        guard json, !text.isEmpty else {
            return parseLine(line, format: format, now: now).map { $0.map { Reading(heartRate: $0) } }
        }
        let batch: Batch
        do { batch = try parseJSON(Array(text.utf8), now: now) } catch { return [.failure(error)] }
        return readings(batch)
    }

    /// A parsed body's samples as readings: heart rate with its motion; motion alone when
    /// the sample had no heart rate; a motion field of the wrong type refuses the motion only.
    public static func readings(_ batch: Batch) -> [Result<Reading, Rejection>] {
        batch.items.enumerated().flatMap { index, item -> [Result<Reading, Rejection>] in
            let motion = index < batch.motion.count ? batch.motion[index] : nil
            switch (item, motion) {
            case (.success(let sample), .success(var m)?):
                m.at = sample.at
                return [.success(Reading(heartRate: sample, motion: m))]
            case (.success(let sample), .failure(let r)?):
                return [.success(Reading(heartRate: sample)), .failure(r)]
            case (.success(let sample), nil):
                return [.success(Reading(heartRate: sample))]
            case (.failure(let r), .success(let m)?) where r.noHeartRate:
                return [.success(Reading(heartRate: nil, motion: m))]
            case (.failure(let r), .failure(let motionRejection)?) where r.noHeartRate:
                return [.failure(motionRejection)]
            case (.failure(let r), _):
                return [.failure(r)]
            }
        }
    }
}
