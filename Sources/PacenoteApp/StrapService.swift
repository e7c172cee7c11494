import Foundation
import Logging
import PacenoteBluetooth
import PacenoteCore
import PacenoteWeb
import Synchronization

/// `[[heart_rate.ble]]`: each strap read straight from BlueZ, every reading stored and made
/// live the moment it comes (as an HTTP push is), with the strap's state for the status.
final class StrapService: Sendable {
    private final class Strap: Sendable {
        let config: Config.Strap
        let strap: HeartRateStrap
        let last: LastReading

        init(config: Config.Strap, strap: HeartRateStrap, last: LastReading) {
            self.config = config
            self.strap = strap
            self.last = last
        }
    }

    /// The last notification's reading, contact, and why it was refused.
    private final class LastReading: Sendable {
        let value = Mutex<(bpm: Int?, contact: Bool?, rejected: String?)>((nil, nil, nil))
        /// A footpod's or cadence sensor's last cadence (per minute) and speed (m/s).
        let motion = Mutex<(cadence: Double?, speed: Double?)>((nil, nil))
    }

    private let straps: [Strap]

    init(configs: [Config.Strap], heartRate: any HeartRateBackend, logger: Logger) {
        straps = configs.map { config in
            let last = LastReading()
            let kind = BLESensorKind(rawValue: config.sensor) ?? .heartRate
            let crank = Mutex(CrankCadence())
            let strap = HeartRateStrap(
                settings: .init(address: config.wantedAddress, adapter: config.adapter, kind: kind),
                log: { logger.info("heart_rate.ble \(config.source): \($0)") },
                onNotification: { bytes, at in
                    guard kind == .heartRate else {
                        // A footpod or a cadence sensor: motion, stored and followed as a push's.
                        let motion: MotionSample?
                        do throws(BLERunningMeasurement.Malformed) {
                            if kind == .footpod {
                                motion = try BLERunningMeasurement(bytes: bytes).sample(at: at)
                            } else {
                                let m = try BLECyclingMeasurement(bytes: bytes)
                                motion = crank.withLock { $0.add(m, at: at) }.map { MotionSample(at: at, cadence: $0) }
                            }
                        } catch {
                            last.value.withLock { $0.rejected = error.message }
                            return
                        }
                        guard let motion else { return }
                        last.value.withLock { $0 = (nil, nil, nil) }
                        last.motion.withLock { $0 = (motion.cadence, motion.speed) }
                        do { _ = try heartRate.ingestMotion([motion], source: config.source) } catch {
                            logger.error("heart_rate.ble \(config.source): storing a reading: \(error)")
                        }
                        return
                    }
                    let measurement = try? BLEHeartRateMeasurement(bytes: bytes)
                    switch HeartRateInput.sample(fromBLE: bytes, at: at) {
                    case .success(let sample):
                        last.value.withLock { $0 = (sample.bpm, measurement?.contact, nil) }
                        do { _ = try heartRate.ingest([sample], source: config.source) } catch {
                            logger.error("heart_rate.ble \(config.source): storing a reading: \(error)")
                        }
                    case .failure(let rejection):
                        last.value.withLock { $0 = ($0.bpm, measurement?.contact, rejection.message) }
                    }
                })
            return Strap(config: config, strap: strap, last: last)
        }
    }

    func start() {
        for strap in straps { strap.strap.start() }
    }

    func stop() {
        for strap in straps { strap.strap.stop(timeout: 2) }
    }

    /// Each strap's state, for `/api/v1/status`.
    func states() -> [HeartRateSourceStatus] {
        straps.map { strap in
            let state = strap.strap.state
            let last = strap.last.value.withLock { $0 }
            let motion = strap.last.motion.withLock { $0 }
            var status = HeartRateSourceStatus(
                source: strap.config.source, kind: "ble", wanted: state.wanted, address: state.address, name: state.name,
                connected: state.connected, streaming: state.streaming, battery: state.battery,
                lastReadingAt: state.lastNotification, lastBPM: last.bpm, contact: last.contact,
                problem: state.problem ?? last.rejected)
            status.sensor = strap.config.sensor
            status.lastCadence = motion.cadence.map { ($0 * 10).rounded() / 10 }
            status.lastSpeed = motion.speed.map { ($0 * 100).rounded() / 100 }
            return status
        }
    }
}
