import Foundation
import PacenoteTestSupport
import Testing

/// Bluetooth footpods and cadence sensors (issue 56): the BlueZ stand-in on a private bus as a
/// footpod (Running Speed and Cadence, 0x1814 / 0x2A53) or a crank sensor (0x1816 / 0x2A5B);
/// Pacenote finds it as it finds a strap, and its cadence drives cadence mode: 160 → 176 steps a
/// minute, the suggestions follow within seconds and the event stream says so.
@Suite(.serialized)
struct FootpodTests {
    static let tracks = [
        TestTrack("now.flac", seconds: 120, title: "Opener", artist: "Warmup", bpm: 120),
        TestTrack("c/160.flac", seconds: 30, title: "Step 160", artist: "Feet", bpm: 160),
        TestTrack("c/176.flac", seconds: 30, title: "Step 176", artist: "Feet", bpm: 176),
    ]

    func top(_ daemon: PacenoteDaemon) -> String? {
        let json = (try? HTTP.get(daemon.base + "/api/v1/recommendations/next?limit=3", headers: ["Authorization": "Token \(daemon.apiKey)"]))?.json
        return ((json?["suggestions"] as? [[String: Any]])?.first?["track"] as? [String: Any])?["title"] as? String
    }

    func following(_ daemon: PacenoteDaemon) -> Double? {
        (try? HTTP.get(daemon.base + "/api/v1/cadence", headers: ["Authorization": "Token \(daemon.apiKey)"]))?.json?["following"] as? Double
    }

    @Test func aFootpodsCadenceLeadsTheSuggestions() throws {
        let bluez = try BlueZStandIn(sensor: "footpod")
        let mpd = try MPDInstance(tracks: Self.tracks)
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)", config: """
            [[heart_rate.ble]]
            address = "auto"
            source = "footpod"
            sensor = "footpod"

            """, environment: bluez.environment)
        // Found by the running service, connected, its measurement subscribed to.
        #expect(bluez.waitFor("discovery on 00001814-0000-1000-8000-00805f9b34fb le") != nil, "\(bluez.output)")
        #expect(bluez.waitFor("connect ok") != nil, "\(bluez.output)")
        #expect(bluez.waitFor("notify on") != nil, "\(bluez.output)")
        _ = try mpd.mpc("add", "now.flac")
        _ = try mpd.mpc("play")
        #expect(eventually(timeout: 15) { (try? daemon.sql("SELECT count(*) FROM tracks WHERE bpm IS NOT NULL"))?.hasPrefix("3") == true })
        #expect(try daemon.post("/api/v1/cadence", body: #"{"mode": "cadence"}"#).status == 200)
        let stream = try TimedEventStream(port: daemon.port, event: "cadence_changed")
        #expect(stream.waitForConnected())

        // Running at 160 (flags: running; 3.5 m/s is 896/256; cadence 160 = 0xa0), at a
        // sensor's pace: each notification a reading of its own time.
        for _ in 0..<5 { bluez.send("notify 04 80 03 a0"); usleep(100_000) }
        #expect(eventually(timeout: 5) { following(daemon) == 160 }, "\(String(describing: following(daemon)))")
        #expect(eventually(timeout: 5) { top(daemon) == "Step 160" }, "\(String(describing: top(daemon)))")
        // Faster: 176 (0xb0) at 4.2 m/s (1075 = 0x0433) with a stride length of 1.43 m (143 = 0x8f).
        let before = stream.events.count
        for _ in 0..<8 { bluez.send("notify 05 33 04 b0 8f 00"); usleep(100_000) }
        #expect(eventually(timeout: 5) { following(daemon) == 176 }, "\(String(describing: following(daemon)))")
        #expect(eventually(timeout: 5) { top(daemon) == "Step 176" }, "\(String(describing: top(daemon)))")
        #expect(stream.waitFor(count: before + 1), "the event stream announced the move: \(stream.events)")
        #expect(stream.events.last?.data.contains(#""following":176"#) == true, "\(stream.events)")
        // Its readings are stored as motion (cadence and speed), as a push's are.
        var stored = ""
        #expect(eventually {
            stored = (try? daemon.sql("SELECT count(*), max(cadence), round(max(speed), 2) FROM motion_samples WHERE source = 'footpod'")) ?? ""
            return stored.hasPrefix("13|176.0|4.2")
        }, "\(stored)")
        // The status names the sensor and shows its last cadence and speed.
        let row = try #require(try BluetoothTests.strap(daemon))
        #expect(row["sensor"] as? String == "footpod" && row["kind"] as? String == "ble", "\(row)")
        #expect(row["last_cadence"] as? Double == 176 && row["last_speed_mps"] as? Double == 4.2 && row["last_bpm"] is NSNull, "\(row)")
        // A malformed notification is refused, not stored: once a good one sent after it
        // (cadence 178 = 0xb2) is stored, it has been handled, and only the good one was kept.
        bluez.send("notify 04 80")
        bluez.send("notify 05 33 04 b2 8f 00")
        #expect(eventually {
            (try? daemon.sql("SELECT count(*) FROM motion_samples WHERE source = 'footpod' AND cadence = 178")) == "1\n"
        })
        #expect(try daemon.sql("SELECT count(*) FROM motion_samples WHERE source = 'footpod'").hasPrefix("14"))
    }

    @Test func aCrankSensorsCadenceIsWorkedOutFromItsRevolutions() throws {
        let bluez = try BlueZStandIn(sensor: "cycling")
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: """
            [[heart_rate.ble]]
            source = "crank"
            sensor = "cycling"

            """, environment: bluez.environment)
        #expect(bluez.waitFor("discovery on 00001816-0000-1000-8000-00805f9b34fb le") != nil, "\(bluez.output)")
        #expect(bluez.waitFor("notify on") != nil, "\(bluez.output)")
        // Crank data only (flags 0x02): revolutions 10, 11, 12 … at one a second (1024 ticks): 60 rpm.
        for i in 0..<6 {
            let revolutions = 10 + i, ticks = 1024 * i
            bluez.send(String(format: "notify 02 %02x %02x %02x %02x", revolutions & 0xff, revolutions >> 8, ticks & 0xff, ticks >> 8))
            usleep(100_000)  // a sensor's pace: each notification a reading of its own time
        }
        #expect(eventually(timeout: 5) { following(daemon) == 60 }, "\(String(describing: following(daemon)))")
        #expect(eventually {
            (try? daemon.sql("SELECT count(*), max(cadence) FROM motion_samples WHERE source = 'crank'"))?.hasPrefix("5|60.0") == true
        })
        let row = try #require(try BluetoothTests.strap(daemon))
        #expect(row["sensor"] as? String == "cycling" && row["last_cadence"] as? Double == 60 && row["last_speed_mps"] is NSNull, "\(row)")
    }
}
