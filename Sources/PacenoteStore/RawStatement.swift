import GRDB
import PacenoteCore
import GRDBSQLite

/// A prepared statement driven through SQLite's C API: binding through GRDB's
/// `StatementArguments` boxes every value, which costs more than the insert itself when
/// a million rows go in. The GRDB `Statement` owns (and finalizes) the handle.
struct RawStatement {
    let statement: Statement
    let handle: OpaquePointer
    let db: Database

    init(_ db: Database, _ sql: String) throws {
        statement = try db.cachedStatement(sql: sql)
        handle = statement.sqliteStatement
        self.db = db
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// A statement prepared for one use, not kept in the connection's cache (its text
    /// varies, as a list of ids does), finalized with it.
    init(uncached db: Database, _ sql: String) throws {
        statement = try db.makeStatement(sql: sql)
        handle = statement.sqliteStatement
        self.db = db
    }

    /// A query with its arguments bound by GRDB (once), whose rows are then read through the
    /// C API: GRDB's generic decoding of optionals looks type metadata up in a locked table
    /// per value, which took a fifth of the listens endpoint's time under load.
    init(_ db: Database, _ sql: String, arguments: StatementArguments) throws {
        try self.init(db, sql)
        try statement.setArguments(arguments)
    }

    func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(handle, index, value) }
    func bindNull(_ index: Int32) { sqlite3_bind_null(handle, index) }
    /// Text that must stay valid until it is bound again or the bindings are cleared
    /// (SQLITE_STATIC: SQLite keeps the pointer, even across resets). `init` clears them.
    func bindStatic(_ index: Int32, _ text: UnsafePointer<CChar>) { sqlite3_bind_text(handle, index, text, -1, nil) }
    func bind(_ index: Int32, _ value: Double) { sqlite3_bind_double(handle, index, value) }
    func bind(_ index: Int32, _ value: String?) {
        guard var text = value else { sqlite3_bind_null(handle, index); return }
        text.withUTF8 { bytes in
            _ = bytes.withMemoryRebound(to: CChar.self) { chars in
                sqlite3_bind_text(handle, index, chars.baseAddress, Int32(chars.count), rawTransient)
            }
        }
    }

    /// Binds a bulk insert's value (its text with SQLITE_STATIC, as `bindStatic`).
    func bind(_ index: Int32, _ value: BulkInsert.Value) {
        switch value {
        case .int(let v): sqlite3_bind_int64(handle, index, v)
        case .real(let v): sqlite3_bind_double(handle, index, v)
        case .text(let p): sqlite3_bind_text(handle, index, p, -1, nil)
        case .bytes(let p, let count): sqlite3_bind_text(handle, index, p, count, nil)
        case .null: sqlite3_bind_null(handle, index)
        }
    }

    func bind(_ index: Int32, _ value: Int64?) {
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }
    func bind(_ index: Int32, _ value: Double?) {
        if let value { sqlite3_bind_double(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    /// Runs one step: true when a row is there to read, false when done (and reset for the next use).
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        sqlite3_reset(handle)
        if code == SQLITE_DONE { return false }
        throw DatabaseError(resultCode: ResultCode(rawValue: code),
                            message: db.sqliteConnection.map { String(cString: sqlite3_errmsg($0)) }, sql: statement.sql)
    }

    /// Ends a use before its last row, so that the next one starts afresh.
    func reset() { sqlite3_reset(handle) }

    /// Forgets the bound values (and so any pointer `bindStatic` gave SQLite).
    func clearBindings() { sqlite3_clear_bindings(handle) }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }
    func optionalInt(_ column: Int32) -> Int? { isNull(column) ? nil : Int(int64(column)) }
    func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : double(column) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    func text(_ column: Int32) -> String? { sqlite3_column_text(handle, column).map { String(cString: $0) } }
    /// A `YYYY-MM-DD` column as days since 1970-01-01, read in place (`CivilDate`); nil for other text.
    func dayNumber(_ column: Int32) -> Int? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        return CivilDate.days(ofUTF8: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column))))
    }
}

/// SQLITE_TRANSIENT (a macro Swift cannot see): SQLite copies the bound text.
private let rawTransient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
