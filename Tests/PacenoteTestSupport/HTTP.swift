import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A real HTTP client over loopback (URLSession), synchronous for simple tests.
public struct HTTPResult: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }
    public var text: String { String(decoding: body, as: UTF8.self) }
    public func header(_ name: String) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }
}

public enum HTTP {
    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        // Each request carries exactly the cookies its test gives it.
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        return URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
    }()

    /// Redirects are answers to check (303 to the login form), not to follow.
    private final class NoRedirects: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
            completionHandler(nil)
        }
    }

    public static func request(_ method: String = "GET", _ url: String, body: [UInt8], headers: [String: String] = [:]) throws -> HTTPResult {
        try request(method, url, headers: headers, body: Data(body))
    }

    public static func request(_ method: String = "GET", _ url: String, headers: [String: String] = [:],
                               body: Data? = nil) throws -> HTTPResult {
        guard let target = URL(string: url) else { throw HarnessError("bad URL \(url)") }
        var request = URLRequest(url: target)
        request.httpMethod = method
        request.httpBody = body
        for (k, v) in headers { request.setValue(v, forHTTPHeaderField: k) }
        let box = ResultBox()
        let done = DispatchSemaphore(value: 0)
        session.dataTask(with: request) { data, response, error in
            box.set(data, response as? HTTPURLResponse, error)
            done.signal()
        }.resume()
        guard done.wait(timeout: .now() + 15) == .success else { throw HarnessError("\(method) \(url): timed out") }
        let (data, response, error) = box.get()
        if let error { throw HarnessError("\(method) \(url): \(error.localizedDescription)") }
        guard let response else { throw HarnessError("\(method) \(url): no response") }
        var headerMap: [String: String] = [:]
        for (k, v) in response.allHeaderFields { headerMap["\(k)"] = "\(v)" }
        return HTTPResult(status: response.statusCode, headers: headerMap, body: data ?? Data())
    }

    public static func get(_ url: String, headers: [String: String] = [:]) throws -> HTTPResult {
        try request("GET", url, headers: headers)
    }

    private final class ResultBox: @unchecked Sendable {
        // @unchecked Sendable: written once by URLSession's callback before the semaphore
        // is signalled, read after it; the lock makes that ordering explicit.
        private let lock = NSLock()
        private var value: (Data?, HTTPURLResponse?, (any Error)?) = (nil, nil, nil)
        func set(_ d: Data?, _ r: HTTPURLResponse?, _ e: (any Error)?) { lock.withLock { value = (d, r, e) } }
        func get() -> (Data?, HTTPURLResponse?, (any Error)?) { lock.withLock { value } }
    }
}
