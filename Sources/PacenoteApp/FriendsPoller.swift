import Foundation
import Logging
import PacenoteCore
import PacenoteNet
import PacenoteStore
import Synchronization

/// Reads friends' feeds of songs of the day (`[[friends]]` and those added on the site), on
/// a thread of its own, politely: each feed at most every `interval` (15 minutes), with a
/// conditional GET (`If-None-Match`, `If-Modified-Since`: an unchanged feed is a 304 and
/// nothing more), 10 s and 1 MiB at most, a `User-Agent` that names Pacenote, and after an
/// error a wait that doubles up to 6 hours (or as long as a `Retry-After` asks). When the
/// poll is due is kept in the database, so a restart does not ask everyone again at once.
/// A friend just added (announced as `.changed(.friends)`) is asked at once.
///
/// What a feed gives is stored (`Store.recordFriendFeed`); the newest songs' covers are
/// copied (PNG, JPEG, GIF or WebP, told by their bytes). An error is stored with the friend
/// and their songs stay: the pages keep showing the last one seen.
///
/// Every address a feed names (a redirect, a page's feed link, a cover) is someone else's
/// choice: no connection is made to a loopback, private, link-local, … address unless the
/// friend was added with an address of that class (`OutboundPolicy`), checked on the
/// address connected to, after DNS. A refusal is the friend's error (or, for a cover, no cover).
public final class FriendsPoller: Sendable {
    private let store: Store
    private let client: HTTPClient
    private let events: EventBus?
    private let logger: Logger
    /// Between two polls of one feed; shorter only in tests (`PACENOTE_TEST_FRIENDS_POLL_S`).
    let interval: Double
    /// Addresses taken as public: only the end-to-end tests name any
    /// (`PACENOTE_TEST_FRIENDS_PUBLIC_ADDRESSES`), to stand in for a friend on the internet
    /// with a server on loopback.
    let treatedAsPublic: [[UInt8]]
    private let worker = WorkerThread(name: "pacenote.friends")

    public init(store: Store, events: EventBus?, interval: Double = FriendPolling.interval,
                client: HTTPClient = HTTPClient(userAgent: ForwardService.userAgent), treatedAsPublic: [[UInt8]] = [],
                logger: Logger) {
        self.treatedAsPublic = treatedAsPublic
        self.store = store
        self.events = events
        self.interval = interval
        self.client = client
        self.logger = logger
    }

    public func start() {
        worker.start(events: events, wakeOn: { event in
            if case .changed(.friends, _) = event { return true }
            return false
        }, round: { [weak self] in self?.round() ?? .distantFuture })
    }

    /// Stops after the request in flight (waiting for it at most `timeout` seconds).
    public func stop(timeout: Double = 12) {
        worker.stop(events: events, timeout: timeout)
    }

    private var stopping: Bool { worker.stopping }

    /// Polls the friends that are due; returns when the next poll is: at most a minute
    /// away, so a friend added by another process is seen too.
    private func round() -> Date {
        let due = (try? store.friendsDue(at: Date())) ?? []
        for friend in due where !stopping { poll(friend) }
        var until = Date().addingTimeInterval(60)
        if let next = try? store.nextFriendPoll() { until = min(until, next) }
        return until
    }

    // MARK: One poll

    /// Why a poll did not give a feed, in the words the pages show.
    struct Failure: Error {
        var message: String
        var retryAfter: Double?
        /// Refused by the friend's `OutboundPolicy`: nothing was sent.
        var refused = false
    }

    /// What the friend's connections may reach: its `OutboundPolicy`, from the address it
    /// was added with (`url`, never a feed address it led to).
    func addressCheck(for friend: Friend) -> @Sendable ([UInt8]) -> String? {
        let treatedAsPublic = self.treatedAsPublic
        let host = OutboundPolicy.host(of: friend.url).flatMap(IPNetwork.parseAddress)
        let policy = host.map { treatedAsPublic.contains($0) } == true ? .publicOnly : OutboundPolicy.forFriend(url: friend.url)
        return { address in treatedAsPublic.contains(address) ? nil : policy.refusal(address) }
    }

    /// Asks one friend's feed and stores what it said.
    func poll(_ friend: Friend) {
        guard let id = friend.id else { return }
        let now = Date()
        let check = addressCheck(for: friend)
        do {
            switch try fetchFeed(friend, check: check) {
            case .notModified:
                try store.recordFriendNotModified(id: id, at: now, nextPollAt: FriendPolling.next(after: now, interval: interval, failures: 0))
            case .feed(let feed, let response, let feedURL):
                let songs = feed.entries.prefix(Store.friendSongsKept).map { FriendSong(friendID: id, entry: $0) }
                try store.recordFriendFeed(id: id, songs: Array(songs), etag: response.field("etag"),
                                           lastModified: response.field("last-modified"), feedURL: feedURL, at: now,
                                           nextPollAt: FriendPolling.next(after: now, interval: interval, failures: 0))
                copyCovers(of: id, check: check)
            }
            if friend.lastError != nil { logger.info("friends: \(friend.name)'s feed answers again") }
        } catch let failure as Failure {
            let next = FriendPolling.next(after: now, interval: interval, failures: friend.failures + 1, retryAfter: failure.retryAfter)
            // Said once when it starts failing, then quietly while it goes on.
            if friend.lastError == nil {
                logger.warning("friends: \(friend.name) (\(LogText.escaped(URLSecrets.masked(friend.pollURL)))): \(LogText.escaped(failure.message))")
            } else {
                logger.debug("friends: \(friend.name): \(LogText.escaped(failure.message))")
            }
            do { try store.recordFriendError(id: id, error: failure.message, at: now, nextPollAt: next) } catch {
                logger.error("friends: storing \(friend.name)'s error: \(error)")
            }
        } catch {
            logger.error("friends: storing \(friend.name)'s feed: \(error)")
        }
    }

    enum Fetched {
        case notModified
        /// The feed, the answer it came in, and its address when it is not the friend's `url`.
        case feed(AtomFeed, HTTPClient.Response, feedURL: String?)
    }

    /// GETs the feed with the validators of the last answer, following up to three
    /// redirects (a permanent one becomes the feed's address) and, once, a page's
    /// `<link rel="alternate">` to its feed.
    func fetchFeed(_ friend: Friend, check: @escaping @Sendable ([UInt8]) -> String?) throws -> Fetched {
        var address = friend.pollURL
        var feedURL = friend.feedURL
        var validators = true
        var discovered = false
        var redirects = 0
        while true {
            var headers = [("Accept", "application/atom+xml, application/xml;q=0.9, text/html;q=0.5, */*;q=0.1")]
            if validators {
                if let etag = friend.etag { headers.append(("If-None-Match", etag)) }
                if let lastModified = friend.lastModified { headers.append(("If-Modified-Since", lastModified)) }
            }
            let response = try get(address, headers: headers, limit: FriendPolling.maxFeedBytes, what: "the feed", check: check)
            switch response.status {
            case 304 where validators:
                return .notModified
            case 301, 302, 303, 307, 308:
                guard redirects < FriendPolling.maxRedirects, let location = AtomFeed.resolve(response.field("location"), against: address)
                else { throw Failure(message: "too many redirects, or one to nowhere (HTTP \(response.status))") }
                redirects += 1
                address = location
                if response.status == 301 || response.status == 308 { feedURL = location == friend.url ? nil : location }
                validators = false
                continue
            case 200:
                break
            case 429, 503:
                throw Failure(message: "busy (HTTP \(response.status))",
                              retryAfter: FriendPolling.retryAfter(response.field("retry-after"), now: Date()))
            default:
                throw Failure(message: "HTTP \(response.status)")
            }
            do {
                return .feed(try AtomFeed.parse(response.body, address: address), response, feedURL: feedURL)
            } catch {
                // A page that names its feed (a share page): follow it once, and keep its address.
                if !discovered, let link = FeedDiscovery.atomLink(inHTML: response.body, address: address), link != address {
                    discovered = true
                    address = link
                    feedURL = link
                    validators = false
                    continue
                }
                throw Failure(message: error.description)
            }
        }
    }

    /// Copies the covers of a friend's newest songs that have none yet.
    func copyCovers(of friendID: Int64, check: @escaping @Sendable ([UInt8]) -> String?) {
        guard let songs = try? store.friendSongsWithoutCover(friendID: friendID) else { return }
        for song in songs where !stopping {
            guard let id = song.id, let address = song.coverURL else { continue }
            do {
                let response = try get(address, headers: [("Accept", "image/png, image/jpeg, image/webp, image/gif")],
                                       limit: FriendPolling.maxCoverBytes, what: "the cover", check: check)
                let type = response.status == 200 ? ImageKind.mediaType(Array(response.body.prefix(16))) : nil
                // No picture there (an error page, SVG, HTML): remembered as none for this address.
                try store.saveFriendCover(songID: id, coverURL: address, bytes: type == nil ? [] : response.body, type: type)
            } catch let failure as Failure where failure.refused {
                // Not to be asked, now or later: remembered as none for this address.
                logger.info("friends: cover \(LogText.escaped(URLSecrets.masked(address))): \(failure.message)")
                try? store.saveFriendCover(songID: id, coverURL: address, bytes: [], type: nil)
            } catch {
                // Down or slow: tried again at the next poll.
                logger.debug("friends: cover \(LogText.escaped(URLSecrets.masked(address))): \(error)")
            }
        }
    }

    private func get(_ url: String, headers: [(String, String)], limit: Int, what: String,
                     check: @escaping @Sendable ([UInt8]) -> String?) throws(Failure) -> HTTPClient.Response {
        do {
            return try client.sendBlocking(HTTPClient.Request(method: "GET", url: url, headers: headers, body: nil,
                                                              timeout: FriendPolling.timeout, maxResponseBytes: limit,
                                                              addressCheck: check))
        } catch {
            switch error {
            case .timedOut: throw Failure(message: "no answer within \(Int(FriendPolling.timeout)) s")
            case .tooLarge(let limit): throw Failure(message: "\(what) is larger than \(limit / 1024) KiB")
            case .invalidURL: throw Failure(message: "not an http(s) address")
            case .transport(let why): throw Failure(message: why)
            case .refused(let why): throw Failure(message: why, refused: true)
            }
        }
    }
}

extension HTTPClient.Response {
    /// A header's value without the white space (and line end) around it, nil when absent
    /// or empty: what is sent back (`If-None-Match`) must be the value alone.
    func field(_ name: String) -> String? {
        guard let value = header(name)?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
        return value
    }
}
