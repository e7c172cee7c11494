import Foundation

/// Bluetooth LE Running Speed and Cadence Measurement (characteristic 0x2A53 of service
/// 0x1814), as footpods send it (Bluetooth SIG, Running Speed and Cadence Service 1.0):
/// flags; instantaneous speed, 1/256 m/s (uint16); instantaneous cadence, a minute (uint8);
/// then, when flagged, stride length (1/100 m, uint16) and total distance (1/10 m, uint32).
public struct BLERunningMeasurement: Equatable, Sendable {
    public var speed: Double
    public var cadence: Double
    public var strideLength: Double?
    public var totalDistance: Double?
    /// Running (true) or walking, as the pod judges it.
    public var running: Bool

    public struct Malformed: Error, Equatable, Sendable {
        public var message: String
    }

    public init(bytes: [UInt8]) throws(Malformed) {
        guard bytes.count >= 4 else { throw Malformed(message: "a running measurement of \(bytes.count) bytes (at least 4)") }
        let flags = bytes[0]
        let strideFlag = flags & 0x01 != 0, distanceFlag = flags & 0x02 != 0
        let needed = 4 + (strideFlag ? 2 : 0) + (distanceFlag ? 4 : 0)
        guard bytes.count >= needed else { throw Malformed(message: "a running measurement of \(bytes.count) bytes (its flags say \(needed))") }
        speed = Double(UInt16(bytes[1]) | UInt16(bytes[2]) << 8) / 256
        cadence = Double(bytes[3])
        running = flags & 0x04 != 0
        var at = 4
        if strideFlag {
            strideLength = Double(UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8) / 100
            at += 2
        }
        if distanceFlag {
            let raw = UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
            totalDistance = Double(raw) / 10
        }
    }

    /// As a motion sample (steps a minute, m/s).
    public func sample(at: Date) -> MotionSample {
        MotionSample(at: at, speed: speed, cadence: cadence)
    }
}

/// Bluetooth LE Cycling Speed and Cadence Measurement (0x2A5B of service 0x1816): flags; when
/// flagged, cumulative wheel revolutions (uint32) and the last wheel event's time (uint16,
/// 1/1024 s); when flagged, cumulative crank revolutions (uint16) and the last crank event's
/// time (uint16, 1/1024 s). Cadence is not sent: it is the revolutions between two
/// measurements over the time between their events (`CrankCadence`).
public struct BLECyclingMeasurement: Equatable, Sendable {
    public var wheel: (revolutions: UInt32, eventTime: UInt16)?
    public var crank: (revolutions: UInt16, eventTime: UInt16)?

    public static func == (a: Self, b: Self) -> Bool {
        a.wheel?.revolutions == b.wheel?.revolutions && a.wheel?.eventTime == b.wheel?.eventTime
            && a.crank?.revolutions == b.crank?.revolutions && a.crank?.eventTime == b.crank?.eventTime
    }

    public init(bytes: [UInt8]) throws(BLERunningMeasurement.Malformed) {
        guard let flags = bytes.first else { throw .init(message: "an empty cycling measurement") }
        let hasWheel = flags & 0x01 != 0, hasCrank = flags & 0x02 != 0
        let needed = 1 + (hasWheel ? 6 : 0) + (hasCrank ? 4 : 0)
        guard bytes.count >= needed else { throw .init(message: "a cycling measurement of \(bytes.count) bytes (its flags say \(needed))") }
        var at = 1
        func u16(_ i: Int) -> UInt16 { UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8 }
        if hasWheel {
            let revs = UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
            wheel = (revs, u16(at + 4))
            at += 6
        }
        if hasCrank { crank = (u16(at), u16(at + 2)) }
    }
}

/// Pedal cadence from successive cycling measurements: revolutions over time between crank
/// events, both counters wrapping at 65,536. A measurement with no new crank event keeps
/// the last cadence for up to 3 s (a pedal stroke at 40 rpm is 1.5 s), then says 0.
public struct CrankCadence: Sendable {
    private var last: (revolutions: UInt16, eventTime: UInt16, at: Date)?
    private var cadence: Double?

    public init() {}

    public mutating func add(_ m: BLECyclingMeasurement, at: Date) -> Double? {
        guard let crank = m.crank else { return nil }
        defer { if last == nil || crank.eventTime != last!.eventTime { last = (crank.revolutions, crank.eventTime, at) } }
        guard let last else { return nil }
        // Over a minute apart, the 64 s event clock may have wrapped: start again from here.
        if at.timeIntervalSince(last.at) > 60 {
            self.last = nil
            cadence = nil
            return nil
        }
        let revolutions = crank.revolutions &- last.revolutions
        let ticks = crank.eventTime &- last.eventTime
        if ticks == 0 {
            if at.timeIntervalSince(last.at) > 3 { cadence = 0 }
            return cadence
        }
        let rpm = Double(revolutions) / (Double(ticks) / 1024) * 60
        cadence = rpm <= 250 ? rpm : cadence
        return cadence
    }
}
