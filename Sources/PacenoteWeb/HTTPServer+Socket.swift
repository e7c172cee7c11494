import CMicroHTTPD
import Foundation
import Glibc
import PacenoteCore

// The listening socket, and what libmicrohttpd tells of a connection: its address, its headers.
extension HTTPServer {
    static func listen(on address: ListenAddress) throws(HTTPServerError) -> Int32 {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(address.host, String(address.port), &hints, &result)
        guard rc == 0, let first = result else {
            throw HTTPServerError(message: "--http \(address): cannot resolve host: \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(result) }
        var lastError = "no usable address"
        var info: UnsafeMutablePointer<addrinfo>? = first
        while let ai = info {
            info = ai.pointee.ai_next
            let fd = socket(ai.pointee.ai_family, ai.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), ai.pointee.ai_protocol)
            if fd < 0 { lastError = String(cString: strerror(errno)); continue }
            var on: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
            if bind(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) == 0, Glibc.listen(fd, 128) == 0 {
                return fd
            }
            lastError = String(cString: strerror(errno))
            close(fd)
        }
        throw HTTPServerError(message: "--http \(address): cannot listen: \(lastError)")
    }

    static func localPort(of fd: Int32) -> UInt16? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) } }
        case AF_INET6:
            return withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) } }
        default:
            return nil
        }
    }

    final class ValueBox { var values: [String: String] = [:] }

    static func values(of connection: OpaquePointer, kind: MHD_ValueKind) -> [String: String] {
        let box = ValueBox()
        let context = Unmanaged.passUnretained(box).toOpaque()
        // With their lengths: a value holding a NUL byte (`KEY\0\0…`) is kept whole, never
        // cut at the NUL into something it is not (the key).
        _ = MHD_get_connection_values_n(connection, kind, { cls, kind, key, keySize, value, valueSize in
            guard let cls, let key else { return MHD_Result.YES }
            let box = Unmanaged<ValueBox>.fromOpaque(cls).takeUnretainedValue()
            let k = key.withMemoryRebound(to: UInt8.self, capacity: keySize) { String(decoding: UnsafeBufferPointer(start: $0, count: keySize), as: UTF8.self) }
            let v = value.map { p in
                p.withMemoryRebound(to: UInt8.self, capacity: valueSize) { String(decoding: UnsafeBufferPointer(start: $0, count: valueSize), as: UTF8.self) }
            } ?? ""
            if kind == MHD_ValueKind.HEADER_KIND {
                // A repeated header is one list, in order (RFC 9110 §5.3): proxies may add
                // their own X-Forwarded-For line after the client's.
                let name = k.lowercased()
                box.values[name] = box.values[name].map { $0 + ", " + v } ?? v
            } else if box.values[k] == nil {
                box.values[k] = v  // the first value of a repeated query argument wins
            }
            return MHD_Result.YES
        }, context)
        return withExtendedLifetime(box) { box.values }
    }

    static func peerAddress(of connection: OpaquePointer) -> String? {
        var storage = sockaddr_storage()
        guard pn_mhd_client_address(connection, &storage) != 0 else { return nil }
        return withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { text(of: $0) } }
    }

    /// `127.0.0.1`, `::1`: the text of an IPv4 or IPv6 socket address.
    static func text(of address: UnsafePointer<sockaddr>) -> String? {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let ok: Bool
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            ok = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                var addr = v4.pointee.sin_addr
                return inet_ntop(AF_INET, &addr, &text, socklen_t(text.count)) != nil
            }
        case AF_INET6:
            ok = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                var addr = v6.pointee.sin6_addr
                return inet_ntop(AF_INET6, &addr, &text, socklen_t(text.count)) != nil
            }
        default:
            ok = false
        }
        return ok ? String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
    }
}
