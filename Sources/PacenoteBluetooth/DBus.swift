import CDBus
import Foundation

/// A value read from a D-Bus message. Variants are unwrapped; an array of dictionary
/// entries with string or object-path keys (`a{sv}`, `a{oa{sa{sv}}}`) is a `.dict`; strings,
/// object paths and signatures are all `.string`.
public indirect enum DBusValue: Sendable, Equatable {
    case bool(Bool)
    case byte(UInt8)
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case string(String)
    case array([DBusValue])
    case dict([String: DBusValue])
    case structure([DBusValue])
    /// A type Pacenote never reads (a Unix file descriptor).
    case unsupported

    public subscript(key: String) -> DBusValue? {
        if case .dict(let d) = self { d[key] } else { nil }
    }

    public var string: String? { if case .string(let s) = self { s } else { nil } }
    public var bool: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var dict: [String: DBusValue]? { if case .dict(let d) = self { d } else { nil } }

    public var int: Int? {
        switch self {
        case .int(let v): Int(exactly: v)
        case .uint(let v): Int(exactly: v)
        case .byte(let v): Int(v)
        default: nil
        }
    }

    public var strings: [String]? {
        guard case .array(let items) = self else { return nil }
        let strings = items.compactMap(\.string)
        return strings.count == items.count ? strings : nil
    }

    /// An `ay` (a characteristic's value).
    public var bytes: [UInt8]? {
        guard case .array(let items) = self else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(items.count)
        for item in items {
            guard case .byte(let b) = item else { return nil }
            out.append(b)
        }
        return out
    }
}

/// An argument of a method call: what BlueZ's methods take.
public enum DBusArgument: Sendable {
    case string(String)
    case objectPath(String)
    case strings([String])
    case bool(Bool)
    case int16(Int16)
    /// `a{sv}`: options, each value in a variant.
    case options([(String, DBusArgument)])

    var signature: String {
        switch self {
        case .string: "s"
        case .objectPath: "o"
        case .strings: "as"
        case .bool: "b"
        case .int16: "n"
        case .options: "a{sv}"
        }
    }
}

/// An error from the bus or from the service called: its D-Bus name
/// (`org.bluez.Error.Failed`, `org.freedesktop.DBus.Error.ServiceUnknown`) and message.
public struct DBusFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public let name: String
    public let message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    public var description: String { message.isEmpty ? name : "\(message) (\(name))" }

    /// Nobody owns the name called: the service is not running.
    public var isServiceUnknown: Bool {
        name == "org.freedesktop.DBus.Error.ServiceUnknown" || name == "org.freedesktop.DBus.Error.NameHasNoOwner"
    }
}

/// A signal received: who sent it, from which object, and its arguments.
public struct DBusSignal: Sendable, Equatable {
    public var path: String
    public var interface: String
    public var member: String
    public var arguments: [DBusValue]

    public init(path: String, interface: String, member: String, arguments: [DBusValue]) {
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }
}

/// A private connection to the system bus (`DBUS_SYSTEM_BUS_ADDRESS` when set, as for every
/// libdbus client): method calls that wait for their reply, and the signals that match the
/// rules added, read one at a time. The connection is closed when this is released.
public final class DBusConnection: @unchecked Sendable {
    // @unchecked Sendable: the connection is used by one thread at a time (the strap's own
    // thread, or the `hr-scan` command); libdbus's thread support is initialised anyway.
    private let connection: OpaquePointer

    /// Connects to the system bus. The process is never exited when the bus goes away
    /// (libdbus's default for `dbus_bus_get`): the caller sees the error and reconnects.
    public static func system() throws(DBusFailure) -> DBusConnection {
        // libdbus is loaded here, by the first connection, not at every start (see CDBus).
        if let failure = pn_dbus_load() {
            throw DBusFailure(name: "org.freedesktop.DBus.Error.Failed",
                              message: "libdbus could not be loaded (install libdbus-1-3, then restart): \(String(cString: failure))")
        }
        _ = dbus_threads_init_default()
        var error = DBusError()
        dbus_error_init(&error)
        guard let connection = dbus_bus_get_private(DBUS_BUS_SYSTEM, &error) else {
            throw failure(&error, otherwise: "cannot connect to the system bus")
        }
        dbus_connection_set_exit_on_disconnect(connection, 0)
        return DBusConnection(connection)
    }

    private init(_ connection: OpaquePointer) {
        self.connection = connection
    }

    deinit {
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
    }

    public var isConnected: Bool { dbus_connection_get_is_connected(connection) != 0 }

    /// Calls a method and waits at most `timeout` seconds for its reply.
    public func call(_ destination: String, _ path: String, _ interface: String, _ method: String,
                     _ arguments: [DBusArgument] = [], timeout: Double = 5) throws(DBusFailure) -> [DBusValue] {
        guard let message = dbus_message_new_method_call(destination, path, interface, method) else {
            throw DBusFailure(name: "org.freedesktop.DBus.Error.NoMemory", message: "cannot make a method call")
        }
        defer { dbus_message_unref(message) }
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(message, &iter)
        for argument in arguments {
            guard Self.append(argument, to: &iter) else {
                throw DBusFailure(name: "org.freedesktop.DBus.Error.NoMemory", message: "cannot append the arguments of \(method)")
            }
        }
        var error = DBusError()
        dbus_error_init(&error)
        guard let reply = dbus_connection_send_with_reply_and_block(connection, message, Int32(timeout * 1000), &error) else {
            throw Self.failure(&error, otherwise: "\(interface).\(method) got no reply")
        }
        defer { dbus_message_unref(reply) }
        return Self.arguments(of: reply)
    }

    /// Asks the bus for the signals matching `rule` (`type='signal',sender='org.bluez',…`).
    public func addMatch(_ rule: String) throws(DBusFailure) {
        var error = DBusError()
        dbus_error_init(&error)
        dbus_bus_add_match(connection, rule, &error)
        if dbus_error_is_set(&error) != 0 { throw Self.failure(&error, otherwise: "cannot add a match rule") }
    }

    /// The next signal, waiting at most `timeout` seconds for one (nil when none came).
    /// Throws when the bus connection is lost.
    public func nextSignal(timeout: Double) throws(DBusFailure) -> DBusSignal? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            while let message = dbus_connection_pop_message(connection) {
                defer { dbus_message_unref(message) }
                guard dbus_message_get_type(message) == DBUS_MESSAGE_TYPE_SIGNAL else { continue }
                let signal = DBusSignal(
                    path: dbus_message_get_path(message).map { String(cString: $0) } ?? "",
                    interface: dbus_message_get_interface(message).map { String(cString: $0) } ?? "",
                    member: dbus_message_get_member(message).map { String(cString: $0) } ?? "",
                    arguments: Self.arguments(of: message))
                if signal.interface == "org.freedesktop.DBus.Local", signal.member == "Disconnected" {
                    throw DBusFailure(name: "org.freedesktop.DBus.Error.Disconnected", message: "the system bus went away")
                }
                return signal
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            // Blocks until bytes come in (or the time is up); false once disconnected.
            if dbus_connection_read_write(connection, Int32(max(1, (left * 1000).rounded(.up)))) == 0 {
                throw DBusFailure(name: "org.freedesktop.DBus.Error.Disconnected", message: "the system bus went away")
            }
        }
    }

    // MARK: Errors, reading and writing messages

    private static func failure(_ error: inout DBusError, otherwise: String) -> DBusFailure {
        defer { dbus_error_free(&error) }
        guard dbus_error_is_set(&error) != 0 else { return DBusFailure(name: "org.freedesktop.DBus.Error.Failed", message: otherwise) }
        return DBusFailure(name: error.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed",
                           message: error.message.map { String(cString: $0) } ?? otherwise)
    }

    private static func arguments(of message: OpaquePointer) -> [DBusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(message, &iter) != 0 else { return [] }
        var values: [DBusValue] = []
        repeat {
            values.append(read(&iter))
        } while dbus_message_iter_next(&iter) != 0
        return values
    }

    private static func code(_ c: Character) -> Int32 { Int32(c.asciiValue!) }

    private static func read(_ iter: inout DBusMessageIter) -> DBusValue {
        let type = dbus_message_iter_get_arg_type(&iter)
        func basic<T>(_ initial: T) -> T {
            var value = initial
            withUnsafeMutablePointer(to: &value) { dbus_message_iter_get_basic(&iter, UnsafeMutableRawPointer($0)) }
            return value
        }
        switch type {
        case code("y"): return .byte(basic(UInt8(0)))
        case code("b"): return .bool(basic(dbus_bool_t(0)) != 0)
        case code("n"): return .int(Int64(basic(Int16(0))))
        case code("q"): return .uint(UInt64(basic(UInt16(0))))
        case code("i"): return .int(Int64(basic(Int32(0))))
        case code("u"): return .uint(UInt64(basic(UInt32(0))))
        case code("x"): return .int(basic(Int64(0)))
        case code("t"): return .uint(basic(UInt64(0)))
        case code("d"): return .double(basic(Double(0)))
        case code("s"), code("o"), code("g"):
            let pointer = basic(UnsafePointer<CChar>?.none)
            return .string(pointer.map { String(cString: $0) } ?? "")
        case code("v"):
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return read(&sub)
        case code("a"):
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            var items: [DBusValue] = []
            var entries: [String: DBusValue] = [:]
            let isDict = dbus_message_iter_get_element_type(&iter) == code("e")
            while dbus_message_iter_get_arg_type(&sub) != DBUS_TYPE_INVALID_CODE {
                let item = read(&sub)
                if isDict, case .structure(let pair) = item, pair.count == 2, let key = pair[0].string ?? pair[0].int.map(String.init) {
                    entries[key] = pair[1]
                } else {
                    items.append(item)
                }
                _ = dbus_message_iter_next(&sub)
            }
            return isDict ? .dict(entries) : .array(items)
        case code("r"), code("e"):
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            var fields: [DBusValue] = []
            while dbus_message_iter_get_arg_type(&sub) != DBUS_TYPE_INVALID_CODE {
                fields.append(read(&sub))
                _ = dbus_message_iter_next(&sub)
            }
            return .structure(fields)
        default:
            return .unsupported
        }
    }

    private static let DBUS_TYPE_INVALID_CODE: Int32 = 0

    private static func append(_ argument: DBusArgument, to iter: inout DBusMessageIter) -> Bool {
        switch argument {
        case .string(let text), .objectPath(let text):
            let type = argument.signature == "o" ? code("o") : code("s")
            // D-Bus strings end at the first NUL; libdbus refuses (and aborts on) invalid ones.
            let safe = text.replacingOccurrences(of: "\0", with: "")
            return safe.withCString { pointer in
                var p: UnsafePointer<CChar>? = pointer
                return withUnsafeMutablePointer(to: &p) { dbus_message_iter_append_basic(&iter, type, UnsafeRawPointer($0)) != 0 }
            }
        case .bool(let flag):
            var value: dbus_bool_t = flag ? 1 : 0
            return withUnsafeMutablePointer(to: &value) { dbus_message_iter_append_basic(&iter, code("b"), UnsafeRawPointer($0)) != 0 }
        case .int16(let number):
            var value = number
            return withUnsafeMutablePointer(to: &value) { dbus_message_iter_append_basic(&iter, code("n"), UnsafeRawPointer($0)) != 0 }
        case .strings(let texts):
            var sub = DBusMessageIter()
            guard dbus_message_iter_open_container(&iter, code("a"), "s", &sub) != 0 else { return false }
            var ok = true
            for text in texts where ok { ok = append(.string(text), to: &sub) }
            return dbus_message_iter_close_container(&iter, &sub) != 0 && ok
        case .options(let options):
            var array = DBusMessageIter()
            guard dbus_message_iter_open_container(&iter, code("a"), "{sv}", &array) != 0 else { return false }
            var ok = true
            for (key, value) in options where ok {
                var entry = DBusMessageIter()
                guard dbus_message_iter_open_container(&array, code("e"), nil, &entry) != 0 else { ok = false; break }
                ok = append(.string(key), to: &entry)
                var variant = DBusMessageIter()
                if ok, dbus_message_iter_open_container(&entry, code("v"), value.signature, &variant) != 0 {
                    ok = append(value, to: &variant)
                    ok = dbus_message_iter_close_container(&entry, &variant) != 0 && ok
                } else {
                    ok = false
                }
                ok = dbus_message_iter_close_container(&array, &entry) != 0 && ok
            }
            return dbus_message_iter_close_container(&iter, &array) != 0 && ok
        }
    }
}
