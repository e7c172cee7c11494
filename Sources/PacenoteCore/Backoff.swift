/// Reconnect delays: start at `initial`, double after each failure, never above `maximum`
/// (mpdscribble and most MPD clients retry this way). A success resets it.
public struct Backoff: Equatable, Sendable {
    public let initial: Double
    public let maximum: Double
    public private(set) var next: Double

    public init(initial: Double = 1, maximum: Double = 30) {
        precondition(initial > 0 && maximum >= initial)
        self.initial = initial
        self.maximum = maximum
        self.next = initial
    }

    /// The delay to wait now; the one after it is twice as long (up to `maximum`).
    public mutating func failed() -> Double {
        let delay = next
        next = min(next * 2, maximum)
        return delay
    }

    public mutating func succeeded() { next = initial }
}
