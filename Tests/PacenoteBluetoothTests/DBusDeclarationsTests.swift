import CDBus
import Foundation
import PacenoteTestSupport
import Testing

/// CDBus declares libdbus's types by hand and loads the library when the first connection is
/// made (see its shim). What it declares must be what libdbus's own headers define: a C
/// program built against them (`pkg-config --cflags dbus-1`) prints the sizes, offsets and
/// constants, and they are compared with the declarations as Swift imports them.
@Suite struct DBusDeclarationsTests {
    @Test func theDeclaredLayoutsAndConstantsAreLibdbussOwn() throws {
        let dir = try TemporaryDirectory("dbus-layout")
        let source = dir.file("layout.c")
        let program = """
            #include <dbus/dbus.h>
            #include <stddef.h>
            #include <stdio.h>
            int main(void) {
                printf("%zu %zu %zu %zu\\n", sizeof(DBusError), offsetof(DBusError, name), offsetof(DBusError, message),
                       offsetof(DBusError, padding1));
                printf("%zu %zu %zu %zu %zu %zu\\n", sizeof(DBusMessageIter), offsetof(DBusMessageIter, dummy3),
                       offsetof(DBusMessageIter, dummy11), offsetof(DBusMessageIter, pad1), offsetof(DBusMessageIter, pad2),
                       offsetof(DBusMessageIter, pad3));
                printf("%zu %d %d %d\\n", sizeof(dbus_bool_t), (int)DBUS_BUS_SESSION, (int)DBUS_BUS_SYSTEM, DBUS_MESSAGE_TYPE_SIGNAL);
                return 0;
            }
            """
        try program.write(toFile: source, atomically: true, encoding: .utf8)
        let flags = try run(try Tools.require("pkg-config"), ["--cflags", "dbus-1"]).stdout
            .split(whereSeparator: \.isWhitespace).map(String.init)
        _ = try run(try Tools.require("cc"), flags + [source, "-o", dir.file("layout")])
        let printed = try run(dir.file("layout"), []).stdout.split(separator: "\n").map(String.init)

        let error = [MemoryLayout<DBusError>.size, MemoryLayout<DBusError>.offset(of: \.name)!,
                     MemoryLayout<DBusError>.offset(of: \.message)!, MemoryLayout<DBusError>.offset(of: \.padding1)!]
        let iter = [MemoryLayout<DBusMessageIter>.size, MemoryLayout<DBusMessageIter>.offset(of: \.dummy3)!,
                    MemoryLayout<DBusMessageIter>.offset(of: \.dummy11)!, MemoryLayout<DBusMessageIter>.offset(of: \.pad1)!,
                    MemoryLayout<DBusMessageIter>.offset(of: \.pad2)!, MemoryLayout<DBusMessageIter>.offset(of: \.pad3)!]
        let constants = "\(MemoryLayout<dbus_bool_t>.size) \(DBUS_BUS_SESSION.rawValue) \(DBUS_BUS_SYSTEM.rawValue) \(DBUS_MESSAGE_TYPE_SIGNAL)"
        #expect(printed == [error.map(String.init).joined(separator: " "), iter.map(String.init).joined(separator: " "), constants])
    }

    /// The table's function types are libdbus's own: the shim's `pn_dbus` struct, compiled
    /// against the real headers, takes each real function with no conversion
    /// (`-Werror=incompatible-pointer-types`: a parameter or result of another type fails).
    @Test func theTablesFunctionTypesAreLibdbussPrototypes() throws {
        let shim = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/CDBus/shim.h").path
        let text = try String(contentsOfFile: shim, encoding: .utf8)
        let start = try #require(text.range(of: "typedef struct pn_dbus {"))
        let end = try #require(text.range(of: "} pn_dbus;", range: start.upperBound..<text.endIndex))
        let table = String(text[start.lowerBound..<end.upperBound])
        let fields = table.split(separator: "\n").compactMap { line -> String? in
            guard let open = line.range(of: "(*"), let close = line.range(of: ")", range: open.upperBound..<line.endIndex) else { return nil }
            return String(line[open.upperBound..<close.lowerBound])
        }
        #expect(fields.count == 29)
        let dir = try TemporaryDirectory("dbus-types")
        let source = dir.file("types.c")
        try """
            #include <dbus/dbus.h>
            \(table)
            int main(void) {
                pn_dbus t;
            \(fields.map { "    t.\($0) = &dbus_\($0);" }.joined(separator: "\n"))
                (void)t;
                return 0;
            }
            """.write(toFile: source, atomically: true, encoding: .utf8)
        let flags = try run(try Tools.require("pkg-config"), ["--cflags", "dbus-1"]).stdout
            .split(whereSeparator: \.isWhitespace).map(String.init)
        let compiled = try run(try Tools.require("cc"), flags + ["-Werror=incompatible-pointer-types", "-Werror=implicit-function-declaration",
                                                                  "-c", source, "-o", dir.file("types.o")], allowFailure: true)
        #expect(compiled.status == 0, "\(compiled.stderr)")
    }

    /// Every function the shim calls is found in the installed libdbus; the library is not
    /// linked, so this is where a missing one would show.
    @Test func libdbusLoadsWithEveryFunctionTheShimCalls() {
        let failure = pn_dbus_load().map { String(cString: $0) }
        #expect(failure == nil)
        #expect(pn_dbus_api().pointee.message_iter_close_container != nil)
        #expect(pn_dbus_api().pointee.threads_init_default != nil)
    }
}
