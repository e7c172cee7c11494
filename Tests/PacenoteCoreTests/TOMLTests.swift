import Testing
@testable import PacenoteCore

@Suite struct TOMLTests {
    @Test func parsesTablesKeysAndScalars() throws {
        let doc = try TOML.parse("""
            # comment
            title = "Pacenote"   # trailing comment
            [server]
            http = "127.0.0.1:6680"
            max = 1_048_576
            ratio = 0.5
            hex = 0xff
            on = true
            [mpd]
            "quoted key" = 'C:\\raw\\path'
            dotted.inner = -3
            """)
        #expect(doc["title"] == .string("Pacenote"))
        guard case .table(let server)? = doc["server"], case .table(let mpd)? = doc["mpd"] else {
            Issue.record("tables missing")
            return
        }
        #expect(server["http"] == .string("127.0.0.1:6680"))
        #expect(server["max"] == .integer(1_048_576))
        #expect(server["ratio"] == .float(0.5))
        #expect(server["hex"] == .integer(255))
        #expect(server["on"] == .boolean(true))
        #expect(server.line(of: "max") == 5)
        #expect(mpd["quoted key"] == .string(#"C:\raw\path"#))
        guard case .table(let dotted)? = mpd["dotted"] else {
            Issue.record("dotted key did not make a table")
            return
        }
        #expect(dotted["inner"] == .integer(-3))
    }

    @Test func parsesStringEscapesAndMultilineStrings() throws {
        let doc = try TOML.parse(#"""
            a = "tab\there \"q\" \u00E9 \U0001F3B5"
            b = """
            line one
            line two \
                continued"""
            c = '''
            raw \n stays'''
            """#)
        #expect(doc["a"] == .string("tab\there \"q\" é 🎵"))
        #expect(doc["b"] == .string("line one\nline two continued"))
        #expect(doc["c"] == .string("raw \\n stays"))
    }

    @Test func parsesArraysInlineTablesAndArraysOfTables() throws {
        let doc = try TOML.parse("""
            zones = [100, 120,
              140, ]  # trailing comma and newline
            point = { x = 1, y = { z = "deep" } }
            [[mpd]]
            name = "kitchen"
            [[mpd]]
            name = "studio"
            """)
        #expect(doc["zones"] == .array([.integer(100), .integer(120), .integer(140)]))
        guard case .table(let point)? = doc["point"], case .table(let y)? = point["y"] else {
            Issue.record("inline table missing")
            return
        }
        #expect(point["x"] == .integer(1))
        #expect(y["z"] == .string("deep"))
        guard case .array(let players)? = doc["mpd"], players.count == 2, case .table(let second) = players[1] else {
            Issue.record("array of tables missing")
            return
        }
        #expect(second["name"] == .string("studio"))
    }

    @Test(arguments: [
        ("a = ", 1, "expected a value"),
        ("a = 1\nb = nope", 2, "strings need quotes"),
        ("a = 1\na = 2", 2, "defined twice"),
        ("[t]\nx = 1\n[t]", 3, "defined twice"),
        ("a = \"open", 1, "unterminated string"),
        ("a = 1 b = 2", 1, "end of the line"),
        ("a = 012", 1, "not a valid value"),
        ("a = 1979-05-27", 1, "dates and times"),
        ("a = \"\\q\"", 1, "unknown escape"),
        ("p = { x = 1 }\n[p]", 2, "inline table"),
        ("a = [1, 2", 1, "expected ',' or ']'"),
        ("a = 1__0", 1, "not a valid value"),
        ("a = .5", 1, "not a valid value"),
    ])
    func reportsErrorsWithTheirLine(input: String, line: Int, fragment: String) {
        #expect {
            _ = try TOML.parse(input)
        } throws: { error in
            guard let error = error as? TOMLError else { return false }
            return error.line == line && error.message.contains(fragment)
        }
    }

    @Test func eachArrayElementHasItsOwnSubTables() throws {
        // The example from TOML 1.0 §Array of Tables.
        let doc = try TOML.parse("""
            [[fruits]]
            name = "apple"
            [fruits.physical]
            color = "red"
            [[fruits.varieties]]
            name = "red delicious"
            [[fruits]]
            name = "banana"
            [fruits.physical]
            color = "yellow"
            [[fruits.varieties]]
            name = "plantain"
            """)
        guard case .array(let fruits)? = doc["fruits"], fruits.count == 2,
              case .table(let banana) = fruits[1], case .table(let physical)? = banana["physical"],
              case .array(let varieties)? = banana["varieties"], case .table(let plantain)? = varieties.first else {
            Issue.record("unexpected shape: \(doc)")
            return
        }
        #expect(physical["color"] == .string("yellow"))
        #expect(plantain["name"] == .string("plantain"))
    }

    @Test func rejectsSignedUnicodeEscapesAndHugeIntegers() {
        #expect(throws: TOMLError.self) { try TOML.parse(#"a = "\u+041""#) }
        #expect { try TOML.parse("a = 99999999999999999999") } throws: {
            ($0 as? TOMLError)?.message.contains("64-bit") == true
        }
    }

    @Test func acceptsSpecialFloatsAndSignedNumbers() throws {
        let doc = try TOML.parse("a = +inf\nb = -1.5e3\nc = +42\nd = 0o17\ne = 0b101")
        #expect(doc["a"] == .float(.infinity))
        #expect(doc["b"] == .float(-1500))
        #expect(doc["c"] == .integer(42))
        #expect(doc["d"] == .integer(15))
        #expect(doc["e"] == .integer(5))
    }
}
