import Foundation
import PacenoteTestSupport

/// sox and aubio for the tempo tests (`TempoRendererTests`, `TempoBeatsTests`): the tools a
/// listener would trust make the tracks and hear the renders. A missing tool is an error, never
/// a skip (`Tools.require`; `scripts/test` installs them).
enum AudioTools {
    /// Runs `args[0]` with the rest; its standard output, or with `stderr` its standard error
    /// (sox's `stat` reports there). A failure throws with its stderr.
    @discardableResult
    static func run(_ args: [String], stderr wantsStderr: Bool = false) throws -> String {
        let result = try PacenoteTestSupport.run(try Tools.require(args[0]), Array(args.dropFirst()), allowFailure: true)
        guard result.status == 0 else {
            throw HarnessError("\(args.joined(separator: " ")) exited \(result.status): \(result.stderr)")
        }
        return wantsStderr ? result.stderr : result.stdout
    }

    /// A fresh directory for one test, removed by the caller's `defer`.
    static func scratch() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tempo-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Onset times in seconds, as `aubio onset` hears them.
    static func onsets(_ path: String) throws -> [Double] {
        try run(["aubio", "onset", "-i", path]).split(whereSeparator: \.isNewline).compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }
}
