import Foundation

extension APIJSON {
    /// A `[[heart_rate.ble]]` strap, footpod or cadence sensor in `/api/v1/status` (OpenAPI `HeartRateSource`).
    static func heartRateSource(_ s: HeartRateSourceStatus) -> JSONValue {
        .object([
            ("source", .string(s.source)),
            ("kind", .string(s.kind)),
            ("sensor", .string(s.sensor)),
            ("address", .optional(s.address ?? s.wanted)),
            ("auto", .bool(s.wanted == nil)),
            ("name", .optional(s.name)),
            ("connected", .bool(s.connected)),
            ("streaming", .bool(s.streaming)),
            ("battery_percent", .optional(s.battery)),
            ("last_reading_at", timestamp(s.lastReadingAt)),
            ("last_bpm", .optional(s.lastBPM)),
            ("last_cadence", .optional(s.lastCadence)),
            ("last_speed_mps", .optional(s.lastSpeed)),
            ("contact", s.contact.map(JSONValue.bool) ?? .null),
            ("problem", .optional(s.problem)),
        ])
    }
}
