import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The progress of a long command (`import`, `analyze`) on stderr: on a terminal a bar
/// redrawn in place; otherwise (a log, a pipe) a plain line at the first update, then every
/// 2 s or every 10 %; and one line at the end with the last state.
final class ProgressReporter: Sendable {
    private struct State {
        var fraction: Double?
        var detail = ""
        /// The last state shown, to print it again at the end only when it changed.
        var shown: String?
        var lastShown = Date.distantPast
        var lastTenth = -1
        var finished = false
    }

    private let label: String
    private let terminal: Bool
    private let state = Mutex(State())

    /// `label` starts every line (`import FILE`, `analyze`).
    init(_ label: String, terminal: Bool = isatty(STDERR_FILENO) == 1) {
        self.label = label
        self.terminal = terminal
    }

    /// The work done so far: `fraction` from 0 to 1 (nil when the total is unknown) and
    /// the counts as words. Safe from several threads.
    /// `always`: shown even if a line was shown a moment ago (a new step).
    func update(fraction: Double?, _ detail: String, always: Bool = false) {
        let text: String? = state.withLock { s in
            guard !s.finished else { return nil }
            s.fraction = fraction.map { min(1, max(0, $0)) }
            s.detail = detail
            let now = Date()
            let tenth = s.fraction.map { Int($0 * 10) } ?? -1
            let due = terminal ? now.timeIntervalSince(s.lastShown) >= 0.1 || s.fraction == 1
                               : s.shown == nil || now.timeIntervalSince(s.lastShown) >= 2 || tenth != s.lastTenth
            guard due || always else { return nil }
            s.lastShown = now
            s.lastTenth = tenth
            return show(&s)
        }
        if let text { FileHandle.standardError.write(Data(text.utf8)) }
    }

    /// Leaves one line with the last state: the bar ends its line on a terminal, and a
    /// plain line is written if the last state was not shown yet. Only the first call counts.
    func finish() {
        let text: String? = state.withLock { s in
            guard !s.finished, s.shown != nil || !s.detail.isEmpty else {
                s.finished = true
                return nil
            }
            s.finished = true
            let again = s.shown == line(s)
            if terminal { return (again ? "" : show(&s)) + "\n" }
            return again ? nil : show(&s)
        }
        if let text { FileHandle.standardError.write(Data(text.utf8)) }
    }

    private func show(_ s: inout State) -> String {
        let text = line(s)
        s.shown = text
        return terminal ? "\r\u{1B}[K" + text : text + "\n"
    }

    /// `label: 42% detail` as a line; `label [#####-----]  42% detail` on a terminal.
    private func line(_ s: State) -> String {
        guard let fraction = s.fraction else { return "\(label): \(s.detail)" }
        let percent = Int(fraction * 100)
        guard terminal else { return "\(label): \(percent)% \(s.detail)" }
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        return "\(label) [\(bar)] " + String(format: "%3d%% ", percent) + s.detail
    }
}
