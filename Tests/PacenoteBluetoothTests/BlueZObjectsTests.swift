import PacenoteBluetooth
import Testing

/// BlueZ's object tree as `GetManagedObjects` and its signals describe it.
@Suite struct BlueZObjectsTests {
    static let adapter = "/org/bluez/hci0"
    static let strap = "/org/bluez/hci0/dev_C0_FF_EE_00_00_01"
    static let other = "/org/bluez/hci0/dev_C0_FF_EE_00_00_02"
    static let speaker = "/org/bluez/hci0/dev_AA_00_00_00_00_09"

    static func device(_ address: String, name: String, uuids: [String], rssi: Int? = nil, connected: Bool = false) -> DBusValue {
        var properties: [String: DBusValue] = [
            "Address": .string(address), "Alias": .string(name), "Name": .string(name),
            "UUIDs": .array(uuids.map(DBusValue.string)), "Connected": .bool(connected),
            "ServicesResolved": .bool(connected), "Paired": .bool(false), "Adapter": .string(adapter),
        ]
        if let rssi { properties["RSSI"] = .int(Int64(rssi)) }
        return .dict([BlueZObjects.deviceInterface: .dict(properties)])
    }

    static var tree: BlueZObjects {
        var objects = BlueZObjects()
        objects.load(.dict([
            "/org/bluez": .dict(["org.bluez.AgentManager1": .dict([:])]),
            adapter: .dict([BlueZObjects.adapterInterface: .dict(["Address": .string("00:1A:7D:DA:71:13"), "Powered": .bool(true)])]),
            speaker: device("AA:00:00:00:00:09", name: "Speaker", uuids: ["0000110b-0000-1000-8000-00805f9b34fb"], rssi: -30),
            strap: device("C0:FF:EE:00:00:01", name: "Polar H10", uuids: [BlueZObjects.heartRateService.uppercased()], rssi: -70),
            other: device("C0:FF:EE:00:00:02", name: "TICKR", uuids: [BlueZObjects.heartRateService], rssi: -50),
        ]))
        return objects
    }

    @Test func loadsAdaptersAndDevicesWithTheirHeartRateService() {
        let objects = Self.tree
        #expect(objects.adapters() == [Self.adapter])
        #expect(objects.adapters(named: "hci1").isEmpty)
        #expect(objects.devices.map(\.name) == ["Speaker", "Polar H10", "TICKR"])
        #expect(objects.devices.map(\.heartRate) == [false, true, true], "UUIDs compare without letter case")
        #expect(objects.device(at: Self.strap)?.rssi == -70)
    }

    @Test func autoPicksTheStrongestHeartRateDeviceAndAnAddressPicksItsDevice() {
        let objects = Self.tree
        #expect(objects.strap(address: nil, adapter: nil)?.name == "TICKR", "the speaker is louder but no strap")
        #expect(objects.strap(address: "c0:ff:ee:00:00:01", adapter: nil)?.name == "Polar H10")
        #expect(objects.strap(address: "C0:FF:EE:00:00:03", adapter: nil) == nil)
        #expect(objects.strap(address: nil, adapter: "/org/bluez/hci1") == nil)
    }

    @Test func aConnectedStrapComesBeforeAStrongerOne() {
        var objects = Self.tree
        objects.apply(DBusSignal(path: Self.strap, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                                 arguments: [.string(BlueZObjects.deviceInterface), .dict(["Connected": .bool(true)]), .array([])]))
        #expect(objects.strap(address: nil, adapter: nil)?.name == "Polar H10")
    }

    @Test func signalsAddChangeAndRemoveObjects() {
        var objects = Self.tree
        let service = Self.strap + "/service000c", characteristic = service + "/char000d", battery = service + "/char0010"
        #expect(objects.characteristic(BlueZObjects.heartRateMeasurement, of: Self.strap) == nil)
        let added = objects.apply(DBusSignal(
            path: "/", interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesAdded",
            arguments: [.string(characteristic), .dict([BlueZObjects.characteristicInterface: .dict([
                "UUID": .string(BlueZObjects.heartRateMeasurement.uppercased()), "Service": .string(service)])])]))
        objects.apply(DBusSignal(
            path: "/", interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesAdded",
            arguments: [.string(battery), .dict([BlueZObjects.characteristicInterface: .dict(["UUID": .string(BlueZObjects.batteryLevel)])])]))
        #expect(added == characteristic)
        #expect(objects.characteristic(BlueZObjects.heartRateMeasurement, of: Self.strap) == characteristic)
        #expect(objects.characteristic(BlueZObjects.batteryLevel, of: Self.strap) == battery)
        #expect(objects.characteristic(BlueZObjects.heartRateMeasurement, of: Self.other) == nil, "another device's is not this one's")

        // A notification's value, then a property invalidated.
        let changed = objects.apply(DBusSignal(
            path: Self.strap, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
            arguments: [.string(BlueZObjects.deviceInterface), .dict(["RSSI": .int(-40)]), .array([.string("Alias")])]))
        #expect(changed == Self.strap)
        #expect(objects.device(at: Self.strap)?.rssi == -40)
        #expect(objects.device(at: Self.strap)?.name == "Polar H10", "the Name remains when the Alias is invalidated")

        // Battery1 appears with the Battery service.
        objects.apply(DBusSignal(path: "/", interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesAdded",
                                 arguments: [.string(Self.strap), .dict([BlueZObjects.batteryInterface: .dict(["Percentage": .byte(87)])])]))
        #expect(objects.batteryPercentage(of: Self.strap) == 87)
        #expect(objects.device(at: Self.strap)?.name == "Polar H10", "adding an interface keeps the others")

        // The strap goes out of range and BlueZ forgets it.
        objects.apply(DBusSignal(path: "/", interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesRemoved",
                                 arguments: [.string(Self.strap), .array([.string(BlueZObjects.deviceInterface), .string(BlueZObjects.batteryInterface)])]))
        #expect(objects.device(at: Self.strap) == nil)
        #expect(objects.strap(address: "C0:FF:EE:00:00:01", adapter: nil) == nil)
    }

    @Test func signalsAboutUnknownObjectsOrOfOtherShapesChangeNothing() {
        var objects = Self.tree
        let before = objects
        #expect(objects.apply(DBusSignal(path: "/org/bluez/hci0/dev_X", interface: "org.freedesktop.DBus.Properties",
                                         member: "PropertiesChanged", arguments: [.string(BlueZObjects.deviceInterface), .dict([:])])) == nil)
        #expect(objects.apply(DBusSignal(path: "/", interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesAdded",
                                         arguments: [.int(3)])) == nil)
        #expect(objects.apply(DBusSignal(path: "/", interface: "org.example", member: "Other", arguments: [])) == nil)
        #expect(objects == before)
    }

    @Test func valuesReadTheWayBlueZWritesThem() {
        #expect(DBusValue.array([.byte(0x16), .byte(0x48)]).bytes == [0x16, 0x48])
        #expect(DBusValue.array([.byte(1), .int(2)]).bytes == nil)
        #expect(DBusValue.array([.string("a"), .string("b")]).strings == ["a", "b"])
        #expect(DBusValue.uint(87).int == 87)
        #expect(DBusValue.string("x").int == nil)
    }
}
