import ArgumentParser
import Foundation
import PacenoteApp
import PacenoteCore

struct HRFeed: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hr-feed",
        abstract: "Send heart rate from a Bluetooth strap or standard input to a running pacenote.",
        discussion: """
            With --ble, readings come straight from a Bluetooth LE heart-rate strap through BlueZ \
            (the first one seen, or the one at ADDRESS; `pacenote hr-scan` lists them), each sent as it \
            comes; the strap is connected again when it comes back. Otherwise each line of standard input is a reading: a number, `heartRate:72`, a JSON object as POST /api/v1/hr takes, or \
            (with --format ble) Heart Rate Measurement bytes in hex as `gatttool --listen` prints them:
              gatttool -b MAC --char-write-req --handle=0x0010 --value=0100 --listen | pacenote hr-feed --format ble
            While the server cannot be reached, readings are kept in a file (--buffer) and sent when it answers.
            SIGINT or SIGTERM stops it cleanly: a last try to send, and what is left stays in the file.
            """)

    @OptionGroup var storage: StorageOptions

    @Flag(help: "Read a Bluetooth LE heart-rate strap through BlueZ instead of standard input.")
    var ble = false

    @Argument(help: ArgumentHelp("With --ble: the strap's address (default: the first strap seen).", valueName: "address"))
    var address: String?

    @Option(help: ArgumentHelp("With --ble: the Bluetooth adapter (default: any).", valueName: "hci0"))
    var adapter: String?

    @Option(help: ArgumentHelp("The server. Default: the configured server.http.", valueName: "url"))
    var url: String?

    @Option(help: ArgumentHelp("auto, number, json, text or ble.", valueName: "format"))
    var format: String = "auto"

    @Option(help: ArgumentHelp("Name of this source (samples are unique per source and time). Default: feed; with --ble strap.", valueName: "name"))
    var source: String?

    @Option(help: ArgumentHelp("Readings per request at most (each is sent as it comes; those read while a request is on its way go together).", valueName: "n"))
    var batch: Int = 100

    @Option(help: ArgumentHelp("Where to keep readings while the server is away. Default: beside the database.", valueName: "path"))
    var buffer: String?

    func run() throws {
        // The signals first: a service manager may stop the feed while it starts.
        ProcessSignals.shared.install()
        let config = try storage.loadConfig()
        guard let lineFormat = HeartRateInput.LineFormat(rawValue: format) else {
            throw Failure("--format: '\(format)' is not one of \(HeartRateInput.LineFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if let address {
            guard ble else { throw Failure("'\(address)': an address is for --ble; readings come from standard input otherwise") }
            guard BluetoothAddress.isValid(address) else { throw Failure("'\(address)' is not a Bluetooth address like C0:FF:EE:12:34:56") }
        }
        if let adapter, !ble { throw Failure("--adapter \(adapter): only with --ble") }
        guard (1...10_000).contains(batch) else { throw Failure("--batch: 1 to 10000") }
        let server = try ServerClient.serverURL(config: config, url: url)
        let key = try APIKey.load(database: config.databasePath, environment: ProcessInfo.processInfo.environment)
        let bufferPath = buffer ?? InstanceFiles(config: config).hrFeedBuffer
        let feed = HeartRateFeed(
            settings: .init(url: server, key: key, format: lineFormat, source: source ?? (ble ? "strap" : "feed"), batchSize: batch, bufferPath: bufferPath),
            log: { FileHandle.standardError.write(Data("pacenote hr-feed: \($0)\n".utf8)) })
        // Stopped by a signal (a service manager, Ctrl-C): the lines already in the pipe are
        // read, nothing is written after the feed stops, and the readings not sent are in the
        // buffer file for the next run.
        let drain = InputDrain()
        // On a thread of its own: a signal that came while it started is handled at once, on
        // this thread, which must go on to read the pipe.
        ProcessSignals.shared.onSignal { [ble] _ in
            Thread.detachNewThread {
                if !ble { drain.stopReading() }
                let left = feed.stop()
                if left > 0 { Failure.warn("\(counted(left, "reading")) kept in \(bufferPath); the next hr-feed sends them") }
                Foundation.exit(0)
            }
        }
        if ble {
            try feed.run(strap: .init(address: address?.uppercased(), adapter: adapter))
            return
        }
        guard let left = try feed.run(input: FileHandle.standardInput, drain: drain) else {
            while true { pause() }  // the signal's handler ends the process
        }
        if left > 0 { throw Failure("\(counted(left, "reading")) kept in \(bufferPath); the next hr-feed sends them") }
    }
}
