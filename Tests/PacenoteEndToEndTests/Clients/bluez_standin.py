#!/usr/bin/env python3
"""A BlueZ stand-in on a private bus: the real org.bluez interfaces and object paths for an
adapter, a heart-rate strap (with Battery1 and its Heart Rate Measurement characteristic)
and a speaker, as bluetoothd exports them (BlueZ doc/org.bluez.Adapter.rst, Device.rst,
GattService.rst, GattCharacteristic.rst, Battery.rst). Written with dbus-fast.

The bus is DBUS_SYSTEM_BUS_ADDRESS. The test drives it with lines on standard input:
  notify HEX      the strap notifies a Heart Rate Measurement (when notifications are on)
  battery N       the strap's battery level changes
  vanish          the strap goes out of range: disconnected, then forgotten by BlueZ
  comeback        the strap is in range again (found by the next discovery)
  quit
and it reports on standard output, one line each: `ready`, `discovery on UUIDS TRANSPORT`,
`discovery off`, `connect ok`, `connect failed`, `notify on`, `notify off`,
`sent NS` (the time a notification left, in ns since the epoch), `not notifying`.
"""
import asyncio
import os
import signal
import sys
import time

from dbus_fast import BusType, Variant
from dbus_fast.aio import MessageBus
from dbus_fast.errors import DBusError
from dbus_fast.service import PropertyAccess, ServiceInterface, dbus_property, method

HR_SERVICE = "0000180d-0000-1000-8000-00805f9b34fb"
HR_MEASUREMENT = "00002a37-0000-1000-8000-00805f9b34fb"
SENSOR_NAME = "Polar H10 A1B2C3D4"
# STANDIN_SENSOR=footpod: the device is a footpod instead (Running Speed and Cadence, 0x1814,
# its measurement 0x2A53); =cycling, a crank cadence sensor (0x1816, 0x2A5B).
if os.environ.get("STANDIN_SENSOR") == "footpod":
    HR_SERVICE, HR_MEASUREMENT, SENSOR_NAME = "00001814-0000-1000-8000-00805f9b34fb", "00002a53-0000-1000-8000-00805f9b34fb", "Stryd Footpod"
elif os.environ.get("STANDIN_SENSOR") == "cycling":
    HR_SERVICE, HR_MEASUREMENT, SENSOR_NAME = "00001816-0000-1000-8000-00805f9b34fb", "00002a5b-0000-1000-8000-00805f9b34fb", "Wahoo CADENCE"
ADAPTER = "/org/bluez/hci0"
STRAP_ADDRESS = os.environ.get("STRAP_ADDRESS", "C0:FF:EE:00:00:01")
STRAP = ADAPTER + "/dev_" + STRAP_ADDRESS.replace(":", "_")
SPEAKER = ADAPTER + "/dev_AA_00_00_00_00_09"


def say(line):
    print(line, flush=True)


class Adapter(ServiceInterface):
    def __init__(self, world):
        super().__init__("org.bluez.Adapter1")
        self.world = world
        self.discovering = False

    @method()
    def SetDiscoveryFilter(self, filter: "a{sv}"):
        self.world.filter = {k: v.value for k, v in filter.items()}

    @method()
    def StartDiscovery(self):
        if self.discovering:
            raise DBusError("org.bluez.Error.InProgress", "Operation already in progress")
        self.discovering = True
        self.emit_properties_changed({"Discovering": True})
        uuids = ",".join(self.world.filter.get("UUIDs", []))
        say(f"discovery on {uuids} {self.world.filter.get('Transport', '')}")
        self.world.advertise()

    @method()
    def StopDiscovery(self):
        if not self.discovering:
            raise DBusError("org.bluez.Error.Failed", "No discovery started")
        self.discovering = False
        self.emit_properties_changed({"Discovering": False})
        say("discovery off")

    @dbus_property(access=PropertyAccess.READ)
    def Address(self) -> "s":
        return "00:1A:7D:DA:71:13"

    @dbus_property(access=PropertyAccess.READ)
    def Powered(self) -> "b":
        return True

    @dbus_property(access=PropertyAccess.READ)
    def Discovering(self) -> "b":
        return self.discovering


class Device(ServiceInterface):
    def __init__(self, world, address, name, uuids, rssi):
        super().__init__("org.bluez.Device1")
        self.world = world
        # Not `name`: ServiceInterface's `name` is the interface's.
        self.address = address
        self.alias = name
        self.uuids = uuids
        self.rssi = rssi
        self.connected = False
        self.resolved = False

    @method()
    async def Connect(self):
        if self.address != STRAP_ADDRESS or not self.world.in_range:
            say("connect failed")
            raise DBusError("org.bluez.Error.Failed", "le-connection-abort-by-local")
        await asyncio.sleep(0.05)
        self.connected = True
        self.emit_properties_changed({"Connected": True})
        self.world.resolve()
        self.resolved = True
        self.emit_properties_changed({"ServicesResolved": True})
        say("connect ok")

    @method()
    def Disconnect(self):
        self.world.disconnect()

    @dbus_property(access=PropertyAccess.READ)
    def Address(self) -> "s":
        return self.address

    @dbus_property(access=PropertyAccess.READ)
    def Name(self) -> "s":
        return self.alias

    @dbus_property(access=PropertyAccess.READ)
    def Alias(self) -> "s":
        return self.alias

    @dbus_property(access=PropertyAccess.READ)
    def RSSI(self) -> "n":
        return self.rssi

    @dbus_property(access=PropertyAccess.READ)
    def UUIDs(self) -> "as":
        return self.uuids

    @dbus_property(access=PropertyAccess.READ)
    def Connected(self) -> "b":
        return self.connected

    @dbus_property(access=PropertyAccess.READ)
    def ServicesResolved(self) -> "b":
        return self.resolved

    @dbus_property(access=PropertyAccess.READ)
    def Paired(self) -> "b":
        return False

    @dbus_property(access=PropertyAccess.READ)
    def Adapter(self) -> "o":
        return ADAPTER


class Battery(ServiceInterface):
    def __init__(self, level):
        super().__init__("org.bluez.Battery1")
        self.level = level

    @dbus_property(access=PropertyAccess.READ)
    def Percentage(self) -> "y":
        return self.level


class GattService(ServiceInterface):
    def __init__(self):
        super().__init__("org.bluez.GattService1")

    @dbus_property(access=PropertyAccess.READ)
    def UUID(self) -> "s":
        return HR_SERVICE

    @dbus_property(access=PropertyAccess.READ)
    def Primary(self) -> "b":
        return True

    @dbus_property(access=PropertyAccess.READ)
    def Device(self) -> "o":
        return STRAP


class Measurement(ServiceInterface):
    def __init__(self):
        super().__init__("org.bluez.GattCharacteristic1")
        self.value = b""
        self.notifying = False

    @method()
    def StartNotify(self):
        self.notifying = True
        self.emit_properties_changed({"Notifying": True})
        say("notify on")

    @method()
    def StopNotify(self):
        self.notifying = False
        self.emit_properties_changed({"Notifying": False})
        say("notify off")

    @method()
    def ReadValue(self, options: "a{sv}") -> "ay":
        raise DBusError("org.bluez.Error.NotPermitted", "Read not permitted")

    @dbus_property(access=PropertyAccess.READ)
    def UUID(self) -> "s":
        return HR_MEASUREMENT

    @dbus_property(access=PropertyAccess.READ)
    def Service(self) -> "o":
        return STRAP + "/service000c"

    @dbus_property(access=PropertyAccess.READ)
    def Value(self) -> "ay":
        return self.value

    @dbus_property(access=PropertyAccess.READ)
    def Notifying(self) -> "b":
        return self.notifying

    @dbus_property(access=PropertyAccess.READ)
    def Flags(self) -> "as":
        return ["notify"]


class World:
    def __init__(self, bus):
        self.bus = bus
        self.filter = {}
        self.in_range = True
        self.adapter = Adapter(self)
        self.strap = None
        self.battery = None
        self.service = None
        self.measurement = None
        self.battery_level = int(os.environ.get("STRAP_BATTERY", "87"))
        # A speaker BlueZ knows already (paired long ago): never a strap.
        self.speaker = Device(self, "AA:00:00:00:00:09", "Speaker", ["0000110b-0000-1000-8000-00805f9b34fb"], -30)

    def start(self):
        self.bus.export(ADAPTER, self.adapter)
        self.bus.export(SPEAKER, self.speaker)

    def advertise(self):
        """A discovery finds the strap while it is in range."""
        if self.in_range and self.strap is None:
            self.strap = Device(self, STRAP_ADDRESS, SENSOR_NAME, [HR_SERVICE, "0000180f-0000-1000-8000-00805f9b34fb"], -58)
            self.bus.export(STRAP, self.strap)

    def resolve(self):
        self.battery = Battery(self.battery_level)
        self.bus.export(STRAP, self.battery)
        self.service = GattService()
        self.bus.export(STRAP + "/service000c", self.service)
        self.measurement = Measurement()
        self.bus.export(STRAP + "/service000c/char000d", self.measurement)

    def disconnect(self):
        if self.strap is None or not self.strap.connected:
            return
        for path in (STRAP + "/service000c/char000d", STRAP + "/service000c"):
            self.bus.unexport(path)
        if self.battery is not None:
            self.bus.unexport(STRAP, self.battery)
        self.measurement = self.service = self.battery = None
        self.strap.connected = False
        self.strap.resolved = False
        self.strap.emit_properties_changed({"ServicesResolved": False, "Connected": False})

    def vanish(self):
        self.in_range = False
        self.disconnect()
        if self.strap is not None:
            # A device that is neither paired nor connected is forgotten soon after.
            self.bus.unexport(STRAP)
            self.strap = None

    def comeback(self):
        self.in_range = True
        if self.adapter.discovering:
            self.advertise()

    def notify(self, hexbytes):
        if self.measurement is None or not self.measurement.notifying:
            say("not notifying")
            return
        self.measurement.value = bytes.fromhex(hexbytes)
        self.measurement.emit_properties_changed({"Value": self.measurement.value})
        say(f"sent {time.time_ns()}")

    def set_battery(self, level):
        self.battery_level = level
        if self.battery is not None:
            self.battery.level = level
            self.battery.emit_properties_changed({"Percentage": level})


async def main():
    # The test binary blocks SIGTERM in its children: take it back, so a plain kill works.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    bus = await MessageBus(bus_address=os.environ["DBUS_SYSTEM_BUS_ADDRESS"], bus_type=BusType.SYSTEM).connect()
    world = World(bus)
    world.start()
    await bus.request_name("org.bluez")
    say("ready")
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while True:
        line = (await reader.readline()).decode().strip()
        if not line or line == "quit":
            break
        command, _, argument = line.partition(" ")
        if command == "notify":
            world.notify(argument)
        elif command == "battery":
            world.set_battery(int(argument))
        elif command == "vanish":
            world.vanish()
            say("vanished")
        elif command == "comeback":
            world.comeback()
            say("back")
    bus.disconnect()


asyncio.run(main())
