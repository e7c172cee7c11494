import ArgumentParser
import Foundation
import PacenoteApp
import PacenoteCore

struct HRScan: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hr-scan",
        abstract: "List the Bluetooth LE heart-rate straps, footpods and cadence sensors in range.",
        discussion: """
            Searches through BlueZ for devices offering the Heart Rate service and lists each with its name, \\
            address and signal strength, strongest first. Put the address in [[heart_rate.ble]] or give it \\
            to `pacenote hr-feed --ble ADDRESS`. A strap only shows while it is worn (most wake on skin contact).
            """)

    @Option(help: ArgumentHelp("How long to search, in seconds.", valueName: "s"))
    var seconds: Double = 10

    @Option(help: ArgumentHelp("The Bluetooth adapter (default: the first).", valueName: "hci0"))
    var adapter: String?

    @Flag(help: "Print JSON.")
    var json = false

    func run() throws {
        guard seconds > 0, seconds <= 300 else { throw Failure("--seconds: more than 0, at most 300") }
        let straps = try StrapScan.run(seconds: seconds, adapter: adapter)
        if json {
            let items = straps.map { strap -> [String: Any] in
                var item: [String: Any] = ["address": strap.address, "connected": strap.connected, "paired": strap.paired]
                item["name"] = strap.name ?? NSNull()
                item["rssi"] = strap.rssi ?? NSNull()
                item["sensors"] = strap.kinds
                return item
            }
            let data = try JSONSerialization.data(withJSONObject: items, options: [.prettyPrinted, .sortedKeys])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        guard !straps.isEmpty else {
            print("No heart-rate strap found in \(Int(seconds)) s. Wear it (most wake on skin contact) and try again.")
            return
        }
        let nameWidth = max(4, straps.map { ($0.name ?? "").count }.max() ?? 0)
        print("NAME".padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  ADDRESS            SIGNAL    SENSOR")
        for strap in straps {
            let signal = strap.rssi.map { "\($0) dBm" } ?? (strap.connected ? "connected" : "")
            print((strap.name ?? "").padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  \(strap.address)  \(signal)"
                  + "  " + strap.kinds.joined(separator: ", "))
        }
    }
}
