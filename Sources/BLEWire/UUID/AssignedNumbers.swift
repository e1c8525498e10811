/// What a 16-bit UUID the Bluetooth SIG assigns stands for.
public enum AssignedUUIDKind: String, Sendable, Hashable {
    /// A GATT attribute type of a declaration (Primary Service, Characteristic …).
    case declaration
    case descriptor
    case service
    case characteristic
    /// A UUID the SIG assigned to a member company (its services, e.g. `FE2C` for Google's Fast Pair).
    case member
    /// A UUID assigned to another standards body.
    case sdo
}

/// The names the Bluetooth SIG gives its assigned numbers: 16-bit UUIDs, company identifiers and
/// GAP appearance values, from the tables in `Specs/ble/` (source and version in `Specs/README.md`).
public enum AssignedNumbers {
    /// The SIG's name and kind for a 16-bit UUID, e.g. `2A39` → Heart Rate Control Point.
    public static func uuid(_ uuid16: UInt16) -> (name: String, kind: AssignedUUIDKind)? {
        index(of: uuid16, in: AssignedNumberTables.uuids).map {
            (AssignedNumberTables.uuidNames[$0], AssignedNumberTables.uuidKinds[$0])
        }
    }

    /// The company a company identifier belongs to (manufacturer specific data, LMP/HCI version).
    public static func company(_ id: UInt16) -> String? {
        index(of: id, in: AssignedNumberTables.companyIDs).map { AssignedNumberTables.companyNames[$0] }
    }

    /// The name of a GAP Appearance value: `Heart Rate Sensor: Heart Rate Belt`, the category alone for
    /// its generic value, and `Watch (subcategory 9)` for a subcategory the table does not name; nil
    /// for a category it does not know.
    public static func appearance(_ value: UInt16) -> String? {
        let tables = AssignedNumberTables.self
        if let found = index(of: value, in: tables.appearances) {
            let sub = tables.appearanceSubcategories[found]
            return sub.isEmpty ? tables.appearanceCategories[found] : "\(tables.appearanceCategories[found]): \(sub)"
        }
        guard let category = index(of: value & ~0x3F, in: tables.appearances) else { return nil }
        return "\(tables.appearanceCategories[category]) (subcategory \(value & 0x3F))"
    }

    /// Binary search of a strictly rising column.
    private static func index(of key: UInt16, in column: [UInt16]) -> Int? {
        var low = 0
        var high = column.count
        while low < high {
            let middle = (low + high) / 2
            if column[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < column.count && column[low] == key ? low : nil
    }
}
