/// What BlueZ exports on the system bus (`org.bluez`), as `GetManagedObjects` gives it and
/// its signals change it: object paths, each with its interfaces and their properties
/// (BlueZ's doc/org.bluez.Adapter.rst, org.bluez.Device.rst, org.bluez.GattCharacteristic.rst).
/// Kept current from `InterfacesAdded`, `InterfacesRemoved` and `PropertiesChanged`.
public struct BlueZObjects: Sendable, Equatable {
    public static let adapterInterface = "org.bluez.Adapter1"
    public static let deviceInterface = "org.bluez.Device1"
    public static let batteryInterface = "org.bluez.Battery1"
    public static let characteristicInterface = "org.bluez.GattCharacteristic1"

    /// The Heart Rate service (0x180D) and its Heart Rate Measurement characteristic (0x2A37);
    /// the Battery service (0x180F) and its Battery Level (0x2A19).
    public static let heartRateService = "0000180d-0000-1000-8000-00805f9b34fb"
    public static let heartRateMeasurement = "00002a37-0000-1000-8000-00805f9b34fb"
    public static let batteryLevel = "00002a19-0000-1000-8000-00805f9b34fb"
    /// Running Speed and Cadence (0x1814, footpods) and its measurement (0x2A53); Cycling
    /// Speed and Cadence (0x1816) and its measurement (0x2A5B).
    public static let runningService = "00001814-0000-1000-8000-00805f9b34fb"
    public static let runningMeasurement = "00002a53-0000-1000-8000-00805f9b34fb"
    public static let cyclingService = "00001816-0000-1000-8000-00805f9b34fb"
    public static let cyclingMeasurement = "00002a5b-0000-1000-8000-00805f9b34fb"

    /// path → interface → property → value.
    public private(set) var objects: [String: [String: [String: DBusValue]]] = [:]

    public init() {}

    /// Replaces everything with a `GetManagedObjects` reply (`a{oa{sa{sv}}}`).
    public mutating func load(_ managed: DBusValue) {
        objects = [:]
        for (path, interfaces) in managed.dict ?? [:] {
            objects[path] = (interfaces.dict ?? [:]).mapValues { $0.dict ?? [:] }
        }
    }

    /// Applies a signal from BlueZ; returns the path it changed, if it changed one.
    @discardableResult
    public mutating func apply(_ signal: DBusSignal) -> String? {
        switch (signal.interface, signal.member) {
        case ("org.freedesktop.DBus.ObjectManager", "InterfacesAdded"):
            guard signal.arguments.count >= 2, let path = signal.arguments[0].string, let added = signal.arguments[1].dict else { return nil }
            for (interface, properties) in added {
                objects[path, default: [:]][interface] = properties.dict ?? [:]
            }
            return path
        case ("org.freedesktop.DBus.ObjectManager", "InterfacesRemoved"):
            guard signal.arguments.count >= 2, let path = signal.arguments[0].string, let removed = signal.arguments[1].strings else { return nil }
            for interface in removed { objects[path]?[interface] = nil }
            if objects[path]?.isEmpty == true { objects[path] = nil }
            return path
        case ("org.freedesktop.DBus.Properties", "PropertiesChanged"):
            guard signal.arguments.count >= 2, let interface = signal.arguments[0].string,
                  let changed = signal.arguments[1].dict, objects[signal.path] != nil else { return nil }
            for (name, value) in changed { objects[signal.path]?[interface, default: [:]][name] = value }
            for name in signal.arguments.count > 2 ? signal.arguments[2].strings ?? [] : [] {
                objects[signal.path]?[interface]?[name] = nil
            }
            return signal.path
        default:
            return nil
        }
    }

    public func properties(_ path: String, _ interface: String) -> [String: DBusValue]? {
        objects[path]?[interface]
    }

    /// The adapters' paths, in order (`/org/bluez/hci0` first); only `name` (`hci1`) if given.
    public func adapters(named name: String? = nil) -> [String] {
        objects.filter { $0.value[Self.adapterInterface] != nil }.keys
            .filter { name == nil || $0.hasSuffix("/\(name!)") }
            .sorted()
    }

    /// Whether the adapter at `path` is on.
    public func isPowered(_ adapter: String) -> Bool {
        objects[adapter]?[Self.adapterInterface]?["Powered"]?.bool ?? false
    }

    public func device(at path: String) -> BluetoothDevice? {
        guard let properties = objects[path]?[Self.deviceInterface] else { return nil }
        let uuids = (properties["UUIDs"]?.strings ?? []).map { $0.lowercased() }
        return BluetoothDevice(
            path: path,
            address: properties["Address"]?.string ?? "",
            name: properties["Alias"]?.string ?? properties["Name"]?.string,
            rssi: properties["RSSI"]?.int,
            connected: properties["Connected"]?.bool ?? false,
            servicesResolved: properties["ServicesResolved"]?.bool ?? false,
            paired: properties["Paired"]?.bool ?? false,
            heartRate: uuids.contains(Self.heartRateService),
            adapter: properties["Adapter"]?.string,
            kinds: BLESensorKind.allCases.filter { uuids.contains($0.service) })
    }

    /// Every device BlueZ knows, sorted by address.
    public var devices: [BluetoothDevice] {
        objects.keys.compactMap(device(at:)).sorted { $0.address < $1.address }
    }

    /// The sensor to use: the device with `address` (any letter case), or with nil ("auto")
    /// the first device of `kind` (a heart-rate strap by default), a connected one before
    /// others, then the strongest signal.
    public func strap(address: String?, adapter: String?, kind: BLESensorKind = .heartRate) -> BluetoothDevice? {
        let candidates = devices.filter { adapter == nil || $0.adapter == adapter }
        if let address {
            return candidates.first { $0.address.caseInsensitiveCompare(address) == .orderedSame }
        }
        return candidates.filter { $0.kinds.contains(kind) }.min { a, b in
            if a.connected != b.connected { return a.connected }
            return (a.rssi ?? -1000) > (b.rssi ?? -1000)
        }
    }

    /// The characteristic with `uuid` under `device` (its services' objects), if resolved.
    public func characteristic(_ uuid: String, of device: String) -> String? {
        objects.filter { path, interfaces in
            path.hasPrefix(device + "/")
                && interfaces[Self.characteristicInterface]?["UUID"]?.string?.lowercased() == uuid
        }.keys.sorted().first
    }

    /// The battery level in %: BlueZ's Battery1 (its battery plugin claims the Battery
    /// service), else nil (read 0x2A19 directly).
    public func batteryPercentage(of device: String) -> Int? {
        objects[device]?[Self.batteryInterface]?["Percentage"]?.int
    }
}

/// A Bluetooth device as BlueZ describes it.
public struct BluetoothDevice: Sendable, Equatable {
    public var path: String
    public var address: String
    public var name: String?
    /// The signal strength in dBm, while it is being seen.
    public var rssi: Int?
    public var connected: Bool
    public var servicesResolved: Bool
    public var paired: Bool
    /// Whether it offers the Heart Rate service.
    public var heartRate: Bool
    public var adapter: String?
    /// The sensors' services it offers: heart rate, running or cycling speed and cadence.
    public var kinds: [BLESensorKind]

    public init(path: String, address: String, name: String?, rssi: Int?, connected: Bool, servicesResolved: Bool,
                paired: Bool, heartRate: Bool, adapter: String?, kinds: [BLESensorKind]? = nil) {
        self.kinds = kinds ?? (heartRate ? [.heartRate] : [])
        self.path = path
        self.address = address
        self.name = name
        self.rssi = rssi
        self.connected = connected
        self.servicesResolved = servicesResolved
        self.paired = paired
        self.heartRate = heartRate
        self.adapter = adapter
    }
}

/// The Bluetooth LE sensors Pacenote reads: a heart-rate strap, a footpod (running speed and
/// cadence) or a bike's cadence sensor (cycling speed and cadence). Each is found by its
/// service and read from its measurement's notifications.
public enum BLESensorKind: String, Sendable, CaseIterable {
    case heartRate = "heart_rate", footpod, cycling

    public var service: String {
        switch self {
        case .heartRate: BlueZObjects.heartRateService
        case .footpod: BlueZObjects.runningService
        case .cycling: BlueZObjects.cyclingService
        }
    }

    public var measurement: String {
        switch self {
        case .heartRate: BlueZObjects.heartRateMeasurement
        case .footpod: BlueZObjects.runningMeasurement
        case .cycling: BlueZObjects.cyclingMeasurement
        }
    }

    /// In words, for the log and the status: "heart-rate strap", "footpod", "cadence sensor".
    public var noun: String {
        switch self {
        case .heartRate: "heart-rate strap"
        case .footpod: "footpod"
        case .cycling: "cadence sensor"
        }
    }
}
