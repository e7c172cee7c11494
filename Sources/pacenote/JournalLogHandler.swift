#if canImport(Glibc)
import Glibc
#endif
import Logging

/// Log lines for systemd's journal: no timestamp of their own (journald stamps every line
/// it receives) and the level as a syslog priority prefix (`<3>` for errors), which journald
/// reads and strips, so `journalctl -p warning` filters by it (sd-daemon(3), "SD_ERR").
/// Otherwise the line is `StreamLogHandler`'s: `level label: metadata [source] message`.
struct JournalLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String, metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider) {
        self.label = label
        self.metadataProvider = metadataProvider
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let explicit = event.metadata { merged.merge(explicit) { $1 } }
        if let error = event.error {
            merged["error.message"] = "\(error)"
            merged["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        let line = Self.line(level: event.level, label: label, metadata: merged, source: event.source,
                             message: event.message.description)
        // One write(2) per line: lines from different threads never interleave in the stream.
        Array(line.utf8).withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(STDERR_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }

    /// One line as the journal receives it.
    static func line(level: Logger.Level, label: String, metadata: Logger.Metadata, source: String, message: String) -> String {
        let pretty = metadata.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        return "<\(priority(level))>\(level) \(label):\(pretty) [\(source)] \(message)\n"
    }

    /// syslog(3) priorities: LOG_CRIT 2, LOG_ERR 3, LOG_WARNING 4, LOG_NOTICE 5, LOG_INFO 6, LOG_DEBUG 7.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// Whether standard error is connected to the journal: systemd sets `JOURNAL_STREAM` to
    /// `DEVICE:INODE` of that stream, and a program must compare it with its own stderr,
    /// because the variable is inherited by children whose stderr may point elsewhere
    /// (systemd.exec(5), "$JOURNAL_STREAM").
    static func standardErrorIsJournal(_ environment: [String: String]) -> Bool {
        guard let value = environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(STDERR_FILENO, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }
}
