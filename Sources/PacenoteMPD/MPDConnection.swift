import CMPDClient
import Glibc
import PacenoteCore

/// One connection to one MPD: the single owner of a `struct mpd_connection *`, freed in
/// `deinit`. Not thread-safe; each watcher uses its own from its own thread.
final class MPDConnection {
    let handle: OpaquePointer

    /// Connects and, if the endpoint carries one, sends the password.
    init(endpoint: MPDEndpoint, timeoutMs: UInt32) throws(MPDError) {
        let host: String
        let port: UInt32
        switch endpoint.location {
        case .tcp(let h, let p):
            host = h
            port = UInt32(p)
        case .unixSocket(let path):
            host = MPDConnection.expandTilde(path)
            port = 0
        }
        // An explicit host and port always: with NULL, libmpdclient would read MPD_HOST
        // itself, behind the configuration's back.
        guard let conn = mpd_connection_new(host, port, timeoutMs) else {
            throw MPDError(kind: .other, message: "out of memory creating an MPD connection")
        }
        handle = conn
        try check()
        if let password = endpoint.password, !password.isEmpty {
            _ = mpd_run_password(handle, password)
            try check()
        }
    }

    deinit { mpd_connection_free(handle) }

    /// MPD's protocol version, e.g. "0.23.5".
    var serverVersion: String {
        guard let v = mpd_connection_get_server_version(handle) else { return "?" }
        return "\(v[0]).\(v[1]).\(v[2])"
    }

    var fileDescriptor: Int32 { mpd_connection_get_fd(handle) }

    /// Turns libmpdclient's error state into an `MPDError`, clearing it when the
    /// connection survives (an ACK from the server).
    func check() throws(MPDError) {
        let code = mpd_connection_get_error(handle)
        guard code != MPD_ERROR_SUCCESS else { return }
        let message = String(cString: mpd_connection_get_error_message(handle))
        let kind: MPDError.Kind
        switch code {
        case MPD_ERROR_SERVER:
            let server = mpd_connection_get_server_error(handle)
            kind = server == MPD_SERVER_ERROR_PASSWORD || server == MPD_SERVER_ERROR_PERMISSION
                ? .permission : .server(code: Int32(server.rawValue))
        case MPD_ERROR_TIMEOUT: kind = .timeout
        case MPD_ERROR_SYSTEM, MPD_ERROR_RESOLVER, MPD_ERROR_MALFORMED, MPD_ERROR_CLOSED: kind = .connection
        default: kind = .other
        }
        let error = MPDError(kind: kind, message: message)
        if !error.isFatal { _ = mpd_connection_clear_error(handle) }
        throw error
    }

    /// Starts waiting for the given idle events; the answer is read by `receiveIdle()`
    /// once the socket is readable.
    func sendIdle(_ mask: mpd_idle) throws(MPDError) {
        _ = mpd_send_idle_mask(handle, mask)
        try check()
    }

    /// Reads the events MPD reported; `[]` after `noidle` when nothing happened.
    func receiveIdle() throws(MPDError) -> mpd_idle {
        let events = mpd_recv_idle(handle, false)
        try check()
        return events
    }

    /// Leaves idle mode early (to shut down, save progress or send a command); returns
    /// the events that arrived meanwhile, if any.
    @discardableResult
    func cancelIdle() throws(MPDError) -> mpd_idle {
        _ = mpd_send_noidle(handle)
        let events = mpd_recv_idle(handle, false)
        try check()
        return events
    }

    private static func expandTilde(_ path: String) -> String {
        guard path.hasPrefix("~"), let home = getenv("HOME") else { return path }
        return String(cString: home) + path.dropFirst()
    }
}
