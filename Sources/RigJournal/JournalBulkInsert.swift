import GRDB
import GRDBSQLite
import PicoLink

/// The hot path of a commit: package and value rows inserted many to a statement (`INSERT … VALUES
/// (…), (…), …`), bound through SQLite's C API, so SQLite's fixed cost per `sqlite3_step` is paid once
/// per block rather than once per row. Rows wait here until a block is full; `finish()` inserts the
/// rest one by one, and must be called before the transaction commits.
struct JournalBulkInsert {
    static let packagesPerBlock = 32
    static let valuesPerBlock = 64

    private struct PackageRow {
        var run: Int64
        var index: Int64
        var loop: Int64
        var scan: Int64?
        var hostTime: Double
        var deviceTime: Double?
    }

    private struct ValueRow {
        var run: Int64
        var index: Int64
        var position: Int64
        var variable: UInt16
        var name: String?
        var value: Double
        var status: Int64?
        var range: Int64?
        var noise: Int64?
    }

    private let db: Database
    private let packageBlock: SQLiteStatement
    private let packageOne: SQLiteStatement
    private let valueBlock: SQLiteStatement
    private let valueOne: SQLiteStatement
    private var packages: [PackageRow] = []
    private var values: [ValueRow] = []

    private static let packageColumns = "INSERT INTO packages (run_id, idx, loop, scan, host_time, device_time) VALUES "
    private static let valueColumns =
        "INSERT INTO package_values (run_id, idx, position, variable, name, value, status, current_range, noise) VALUES "

    init(_ db: Database) throws {
        self.db = db
        func statement(_ head: String, _ row: String, _ count: Int) throws -> SQLiteStatement {
            try db.cachedStatement(sql: head + Array(repeating: row, count: count).joined(separator: ", "))
                .sqliteStatement
        }
        packageBlock = try statement(Self.packageColumns, "(?, ?, ?, ?, ?, ?)", Self.packagesPerBlock)
        packageOne = try statement(Self.packageColumns, "(?, ?, ?, ?, ?, ?)", 1)
        valueBlock = try statement(Self.valueColumns, "(?, ?, ?, ?, ?, ?, ?, ?, ?)", Self.valuesPerBlock)
        valueOne = try statement(Self.valueColumns, "(?, ?, ?, ?, ?, ?, ?, ?, ?)", 1)
        packages.reserveCapacity(Self.packagesPerBlock)
        values.reserveCapacity(Self.valuesPerBlock)
    }

    mutating func add(_ package: PicoPackage, run: Int64) throws {
        let index = Int64(package.index)
        packages.append(
            PackageRow(
                run: run,
                index: index,
                loop: Int64(package.loop),
                scan: package.scan.map(Int64.init),
                hostTime: package.hostTime,
                deviceTime: package.deviceTime
            )
        )
        if packages.count == Self.packagesPerBlock { try insertPackages(block: true) }
        for (position, item) in package.values.enumerated() {
            values.append(
                ValueRow(
                    run: run,
                    index: index,
                    position: Int64(position),
                    variable: item.variable.rawValue,
                    name: item.name,
                    value: item.value,
                    status: item.status.map { Int64($0.rawValue) },
                    range: item.range.map { Int64($0.rawValue) },
                    noise: item.noise.map { Int64($0) }
                )
            )
            if values.count == Self.valuesPerBlock { try insertValues(block: true) }
        }
    }

    /// Inserts the rows still waiting for a full block.
    mutating func finish() throws {
        try insertPackages(block: false)
        try insertValues(block: false)
    }

    private mutating func insertPackages(block: Bool) throws {
        if block {
            for (row, package) in packages.enumerated() { Self.bind(package, packageBlock, at: Int32(row * 6)) }
            try step(packageBlock)
        } else {
            for package in packages {
                Self.bind(package, packageOne, at: 0)
                try step(packageOne)
            }
        }
        packages.removeAll(keepingCapacity: true)
    }

    private mutating func insertValues(block: Bool) throws {
        if block {
            for (row, value) in values.enumerated() { Self.bind(value, valueBlock, at: Int32(row * 9)) }
            try step(valueBlock)
        } else {
            for value in values {
                Self.bind(value, valueOne, at: 0)
                try step(valueOne)
            }
        }
        values.removeAll(keepingCapacity: true)
    }

    private static func bind(_ row: PackageRow, _ statement: SQLiteStatement, at offset: Int32) {
        sqlite3_bind_int64(statement, offset + 1, row.run)
        sqlite3_bind_int64(statement, offset + 2, row.index)
        sqlite3_bind_int64(statement, offset + 3, row.loop)
        SQLiteBinding.bind(statement, offset + 4, row.scan)
        sqlite3_bind_double(statement, offset + 5, row.hostTime)
        SQLiteBinding.bind(statement, offset + 6, row.deviceTime)
    }

    private static func bind(_ row: ValueRow, _ statement: SQLiteStatement, at offset: Int32) {
        sqlite3_bind_int64(statement, offset + 1, row.run)
        sqlite3_bind_int64(statement, offset + 2, row.index)
        sqlite3_bind_int64(statement, offset + 3, row.position)
        var code = (UInt8(truncatingIfNeeded: row.variable >> 8), UInt8(truncatingIfNeeded: row.variable))
        withUnsafeBytes(of: &code) { bytes in
            _ = sqlite3_bind_text(
                statement,
                offset + 4,
                bytes.baseAddress?.assumingMemoryBound(to: CChar.self),
                2,
                SQLiteBinding.transient
            )
        }
        if let name = row.name {
            sqlite3_bind_text(statement, offset + 5, name, -1, SQLiteBinding.transient)
        } else {
            sqlite3_bind_null(statement, offset + 5)
        }
        SQLiteBinding.bind(statement, offset + 6, row.value.isNaN ? nil : row.value)
        SQLiteBinding.bind(statement, offset + 7, row.status)
        SQLiteBinding.bind(statement, offset + 8, row.range)
        SQLiteBinding.bind(statement, offset + 9, row.noise)
    }

    private func step(_ statement: SQLiteStatement) throws { try SQLiteBinding.step(statement, db) }
}
