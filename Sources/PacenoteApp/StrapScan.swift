import PacenoteBluetooth

/// `pacenote hr-scan`: the heart-rate straps BlueZ sees, for the command line.
public enum StrapScan {
    public struct Strap: Sendable, Equatable {
        public var name: String?
        public var address: String
        public var rssi: Int?
        public var connected: Bool
        public var paired: Bool
        /// `heart_rate`, `footpod`, `cycling`: the sensors' services it offers.
        public var kinds: [String]
    }

    public struct Problem: Error, CustomStringConvertible {
        public var description: String
    }

    public static func run(seconds: Double, adapter: String?) throws(Problem) -> [Strap] {
        do {
            return try HeartRateStrap.scan(seconds: seconds, adapter: adapter).map {
                Strap(name: $0.name, address: $0.address, rssi: $0.rssi, connected: $0.connected, paired: $0.paired, kinds: $0.kinds.map(\.rawValue))
            }
        } catch {
            throw Problem(description: error.isServiceUnknown ? "BlueZ (bluetoothd) is not running: cannot search for straps" : "Bluetooth: \(error.message.isEmpty ? error.name : error.message)")
        }
    }
}
