import Foundation
import Synchronization

/// A Bluetooth LE heart-rate strap, through BlueZ on the system bus: finds it (discovery
/// filtered on the Heart Rate service), connects, subscribes to Heart Rate Measurement
/// notifications, and hands each notification's bytes over as they come. When the strap
/// goes (out of range, battery, switched off) it is connected again when it comes back;
/// when BlueZ or the bus goes, they are joined again. Runs on a thread of its own: libdbus
/// calls block.
public final class HeartRateStrap: Sendable {
    /// What the strap is doing, for the status.
    public struct State: Sendable, Equatable {
        /// The address asked for; nil: the first strap seen.
        public var wanted: String?
        public var address: String?
        public var name: String?
        public var connected = false
        /// Notifications are on: readings are coming.
        public var streaming = false
        public var battery: Int?
        public var lastNotification: Date?
        /// What is wrong: BlueZ not running, the adapter off, the strap not found.
        public var problem: String?

        public init(wanted: String?) { self.wanted = wanted }
    }

    public struct Settings: Sendable {
        /// nil: the first heart-rate device seen.
        public var address: String?
        /// `hci0`; nil: any adapter.
        public var adapter: String?
        /// What it is: a heart-rate strap, a footpod or a cycling cadence sensor.
        public var kind: BLESensorKind = .heartRate
        /// Seconds between attempts to connect again (doubling up to `maxRetryDelay`).
        public var retryDelay: Double
        public var maxRetryDelay: Double

        public init(address: String?, adapter: String? = nil, kind: BLESensorKind = .heartRate, retryDelay: Double = 1, maxRetryDelay: Double = 30) {
            self.address = address
            self.adapter = adapter
            self.kind = kind
            self.retryDelay = retryDelay
            self.maxRetryDelay = maxRetryDelay
        }
    }

    private let settings: Settings
    private let onNotification: @Sendable ([UInt8], Date) -> Void
    private let onState: @Sendable (State) -> Void
    private let log: @Sendable (String) -> Void
    private let current: Mutex<State>
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    /// `onNotification` gets each Heart Rate Measurement's bytes and the time it came, on the
    /// strap's thread, in order; `onState` each change of state.
    public init(settings: Settings, log: @escaping @Sendable (String) -> Void,
                onState: @escaping @Sendable (State) -> Void = { _ in },
                onNotification: @escaping @Sendable ([UInt8], Date) -> Void) {
        self.settings = settings
        self.log = log
        self.onState = onState
        self.onNotification = onNotification
        current = Mutex(State(wanted: settings.address))
    }

    public var state: State { current.withLock { $0 } }

    public func start() {
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "pacenote.ble"
        thread.start()
    }

    /// Stops within about half a second (a connection attempt in progress may take longer;
    /// waited for at most `timeout`).
    public func stop(timeout: Double = 2) {
        stopping.store(true, ordering: .sequentiallyConsistent)
        _ = finished.wait(timeout: .now() + timeout)
    }

    private var isStopping: Bool { stopping.load(ordering: .sequentiallyConsistent) }

    private func update(_ change: (inout State) -> Void) {
        let (before, after) = current.withLock { state -> (State, State) in
            let before = state
            change(&state)
            return (before, state)
        }
        if before != after { onState(after) }
    }

    /// Sleeps `seconds`, waking early to stop.
    private func pause(_ seconds: Double) {
        let until = Date().addingTimeInterval(seconds)
        while !isStopping, until.timeIntervalSinceNow > 0 { Thread.sleep(forTimeInterval: min(0.1, until.timeIntervalSinceNow)) }
    }

    private func run() {
        var delay = settings.retryDelay
        while !isStopping {
            do throws(DBusFailure) {
                let bus = try DBusConnection.system()
                try follow(on: bus)
            } catch {
                let problem = error.isServiceUnknown ? "BlueZ (bluetoothd) is not running" : error.description
                if state.problem != problem { log("Bluetooth: \(problem); trying again") }
                update { $0 = State(wanted: settings.address); $0.problem = problem }
                pause(delay)
                delay = min(delay * 2, settings.maxRetryDelay)
                continue
            }
            delay = settings.retryDelay
        }
        update { $0.connected = false; $0.streaming = false }
    }

    /// One session with BlueZ: returns when stopping, throws when BlueZ or the bus goes.
    private func follow(on bus: DBusConnection) throws(DBusFailure) {
        try bus.addMatch("type='signal',sender='org.bluez',interface='org.freedesktop.DBus.ObjectManager'")
        try bus.addMatch("type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'")
        try bus.addMatch("type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.bluez'")
        var objects = BlueZObjects()
        guard let managed = try bus.call("org.bluez", "/", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects").first else {
            throw DBusFailure(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "BlueZ answered GetManagedObjects with nothing")
        }
        objects.load(managed)
        update { $0.problem = nil }

        var strapPath: String?
        var notifying: String?
        var discoveringOn: String?
        var nextAttempt = Date.distantPast
        var delay = settings.retryDelay
        defer {
            if let notifying { _ = try? bus.call("org.bluez", notifying, BlueZObjects.characteristicInterface, "StopNotify", timeout: 1) }
            if let discoveringOn { _ = try? bus.call("org.bluez", discoveringOn, BlueZObjects.adapterInterface, "StopDiscovery", timeout: 1) }
        }

        while !isStopping {
            // Which strap, and is it there?
            if strapPath == nil || objects.device(at: strapPath!) == nil {
                strapPath = objects.strap(address: settings.address, adapter: adapterPath(objects), kind: settings.kind)?.path
                notifying = nil
            }
            let strap = strapPath.flatMap(objects.device(at:))
            update { state in
                state.address = strap?.address
                state.name = strap?.name
                state.connected = strap?.connected ?? false
                if !(strap?.connected ?? false) { state.streaming = false }
            }

            if let strap {
                if !strap.connected {
                    notifying = nil
                    if Date() >= nextAttempt {
                        do throws(DBusFailure) {
                            log("Bluetooth: connecting to \(strap.name ?? strap.address) (\(strap.address))")
                            _ = try bus.call("org.bluez", strap.path, BlueZObjects.deviceInterface, "Connect", timeout: 15)
                            delay = settings.retryDelay
                        } catch {
                            if error.isServiceUnknown { throw error }
                            update { $0.problem = "cannot connect to \(strap.address): \(error.message)" }
                            nextAttempt = Date().addingTimeInterval(delay)
                            delay = min(delay * 2, settings.maxRetryDelay)
                            // Seen again by a discovery, it may answer.
                            if discoveringOn == nil { discoveringOn = try startDiscovery(bus, objects) }
                        }
                    }
                } else if notifying == nil, strap.servicesResolved,
                          let characteristic = objects.characteristic(settings.kind.measurement, of: strap.path) {
                    _ = try bus.call("org.bluez", characteristic, BlueZObjects.characteristicInterface, "StartNotify")
                    notifying = characteristic
                    log("Bluetooth: \(strap.name ?? strap.address) (\(strap.address)) connected; reading its \(settings.kind == .heartRate ? "heart rate" : "cadence")")
                    if let adapter = discoveringOn {
                        _ = try? bus.call("org.bluez", adapter, BlueZObjects.adapterInterface, "StopDiscovery")
                        discoveringOn = nil
                    }
                    let battery = try readBattery(bus, objects, strap.path)
                    update { $0.streaming = true; $0.problem = nil; $0.battery = battery }
                }
            } else if discoveringOn == nil {
                discoveringOn = try startDiscovery(bus, objects)
                if discoveringOn != nil {
                    update { $0.problem = self.settings.address.map { "looking for \($0)" } ?? "looking for a \(self.settings.kind.noun)" }
                }
            }

            // Wait for BlueZ to say something (or for the next attempt).
            guard let signal = try bus.nextSignal(timeout: 0.25) else { continue }
            if signal.member == "NameOwnerChanged" {
                if signal.arguments.count >= 3, signal.arguments[2].string?.isEmpty == true {
                    throw DBusFailure(name: "org.freedesktop.DBus.Error.ServiceUnknown", message: "BlueZ stopped")
                }
                continue
            }
            let wasConnected = strapPath.flatMap(objects.device(at:))?.connected ?? false
            guard let changed = objects.apply(signal) else { continue }
            if changed == notifying, signal.member == "PropertiesChanged",
               signal.arguments.first?.string == BlueZObjects.characteristicInterface,
               let bytes = signal.arguments[1]["Value"]?.bytes {
                let at = Date()
                update { $0.lastNotification = at }
                onNotification(bytes, at)
                continue
            }
            if let strapPath, changed == strapPath {
                if let battery = objects.batteryPercentage(of: strapPath) { update { $0.battery = battery } }
                let device = objects.device(at: strapPath)
                if wasConnected, device?.connected != true {
                    log("Bluetooth: \(device?.name ?? device?.address ?? strapPath) disconnected; waiting for it to come back")
                    notifying = nil
                    nextAttempt = Date().addingTimeInterval(settings.retryDelay)
                }
            }
        }
    }

    private func adapterPath(_ objects: BlueZObjects) -> String? {
        settings.adapter.flatMap { objects.adapters(named: $0).first }
    }

    /// Starts discovery filtered on the Heart Rate service on the adapter; returns its path.
    private func startDiscovery(_ bus: DBusConnection, _ objects: BlueZObjects) throws(DBusFailure) -> String? {
        guard let adapter = objects.adapters(named: settings.adapter).first else {
            update { $0.problem = settings.adapter.map { "no Bluetooth adapter \($0)" } ?? "no Bluetooth adapter" }
            return nil
        }
        do throws(DBusFailure) {
            try Self.discover(bus, adapter: adapter, services: [settings.kind.service])
            return adapter
        } catch {
            if error.isServiceUnknown { throw error }
            update { $0.problem = Self.explain(error, adapter: adapter) }
            return nil
        }
    }

    static func discover(_ bus: DBusConnection, adapter: String, services: [String]) throws(DBusFailure) {
        _ = try bus.call("org.bluez", adapter, BlueZObjects.adapterInterface, "SetDiscoveryFilter",
                         [.options([("UUIDs", .strings(services)), ("Transport", .string("le"))])])
        do throws(DBusFailure) {
            _ = try bus.call("org.bluez", adapter, BlueZObjects.adapterInterface, "StartDiscovery")
        } catch where error.name == "org.bluez.Error.InProgress" {
            // Someone else is discovering already: the devices come all the same.
        }
    }

    static func explain(_ error: DBusFailure, adapter: String) -> String {
        let name = adapter.split(separator: "/").last.map(String.init) ?? adapter
        switch error.name {
        case "org.bluez.Error.NotReady": return "the Bluetooth adapter \(name) is off (bluetoothctl power on)"
        case "org.bluez.Error.NotAuthorized", "org.freedesktop.DBus.Error.AccessDenied":
            return "not allowed to use Bluetooth (\(error.message)); the service user needs the bluetooth group"
        default: return "cannot search on \(name): \(error.description)"
        }
    }

    private func readBattery(_ bus: DBusConnection, _ objects: BlueZObjects, _ device: String) throws(DBusFailure) -> Int? {
        if let level = objects.batteryPercentage(of: device) { return level }
        guard let characteristic = objects.characteristic(BlueZObjects.batteryLevel, of: device) else { return nil }
        let value = try? bus.call("org.bluez", characteristic, BlueZObjects.characteristicInterface, "ReadValue", [.options([])])
        return value?.first?.bytes?.first.map(Int.init)
    }

    /// What BlueZ knows now (one `GetManagedObjects`), for `pacenote doctor`.
    public static func survey() throws(DBusFailure) -> BlueZObjects {
        let bus = try DBusConnection.system()
        var objects = BlueZObjects()
        objects.load(try bus.call("org.bluez", "/", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects", timeout: 3).first ?? .dict([:]))
        return objects
    }

    /// `pacenote hr-scan`: searches for heart-rate devices for `seconds` and lists those seen
    /// (or connected), strongest signal first.
    public static func scan(seconds: Double, adapter: String?) throws(DBusFailure) -> [BluetoothDevice] {
        let bus = try DBusConnection.system()
        try bus.addMatch("type='signal',sender='org.bluez',interface='org.freedesktop.DBus.ObjectManager'")
        try bus.addMatch("type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'")
        var objects = BlueZObjects()
        objects.load(try bus.call("org.bluez", "/", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects").first ?? .dict([:]))
        guard let adapterPath = objects.adapters(named: adapter).first else {
            throw DBusFailure(name: "org.bluez.Error.NoSuchAdapter", message: adapter.map { "no Bluetooth adapter \($0)" } ?? "no Bluetooth adapter")
        }
        do throws(DBusFailure) {
            try discover(bus, adapter: adapterPath, services: BLESensorKind.allCases.map(\.service))
        } catch {
            throw DBusFailure(name: error.name, message: explain(error, adapter: adapterPath))
        }
        let deadline = Date().addingTimeInterval(seconds)
        while deadline.timeIntervalSinceNow > 0 {
            if let signal = try bus.nextSignal(timeout: deadline.timeIntervalSinceNow) { objects.apply(signal) }
        }
        _ = try? bus.call("org.bluez", adapterPath, BlueZObjects.adapterInterface, "StopDiscovery", timeout: 2)
        return objects.devices
            .filter { !$0.kinds.isEmpty && ($0.rssi != nil || $0.connected) && $0.adapter.map { $0 == adapterPath } ?? true }
            .sorted { ($0.rssi ?? 0, $0.address) > ($1.rssi ?? 0, $1.address) }
    }
}
