import BLEWire
import Synchronization

/// An attribute database (Core 5.4 Vol 3 Part G §3): services, includes, characteristic declarations,
/// values and descriptors with consecutive handles from 1. Shared by every connection's
/// `GATTServer`; CCCD values are kept per connection by the server, not here.
public final class GATTDatabase: Sendable {
    enum Role: Sendable {
        case service(endHandle: UInt16)
        case include
        case declaration
        case value(characteristic: Int)
        case cccd(valueHandle: UInt16)
        case descriptor
    }

    struct Attribute: Sendable {
        let type: BluetoothUUID
        var value: [UInt8]
        let permissions: GATTPermissions
        let role: Role
    }

    struct Characteristic: Sendable {
        let valueHandle: UInt16
        let properties: GATTCharacteristicProperties
        let maximumLength: Int
        let storesWrites: Bool
        let onRead: GATTReadHandler?
        let onWrite: GATTWriteHandler?
    }

    struct Storage: Sendable {
        /// Attribute `handle` is at index `handle - 1`.
        var attributes: [Attribute] = []
        var characteristics: [Characteristic] = []
    }

    let storage = Mutex(Storage())

    /// Creates an empty database; the first attribute added gets handle 1.
    public init() {}

    /// The number of attributes (also the last handle).
    public var count: Int { storage.withLock { $0.attributes.count } }

    /// Appends a service and returns its handles.
    @discardableResult
    public func addService(_ definition: GATTServiceDefinition) -> GATTServiceHandles {
        storage.withLock { storage in
            func append(_ type: BluetoothUUID, _ value: [UInt8], _ permissions: GATTPermissions, _ role: Role) -> UInt16
            {
                storage.attributes.append(Attribute(type: type, value: value, permissions: permissions, role: role))
                return UInt16(storage.attributes.count)
            }
            var uuidBytes = ByteWriter(capacity: 16)
            definition.uuid.encode(into: &uuidBytes)
            let serviceIndex = storage.attributes.count
            let serviceHandle = append(
                definition.isPrimary ? BluetoothUUID.primaryService : BluetoothUUID.secondaryService,
                uuidBytes.bytes,
                .read,
                .service(endHandle: 0)
            )
            for included in definition.includes {
                var value = ByteWriter(capacity: 6)
                value.write(included.handle)
                value.write(included.endHandle)
                if let short = included.uuid.uuid16 { value.write(short) }
                _ = append(BluetoothUUID.include, value.bytes, .read, .include)
            }
            var characteristics: [GATTServiceHandles.Characteristic] = []
            for characteristic in definition.characteristics {
                let declarationHandle = UInt16(storage.attributes.count + 1)
                var declaration = ByteWriter(capacity: 19)
                declaration.write(characteristic.properties.rawValue)
                declaration.write(declarationHandle + 1)
                characteristic.uuid.encode(into: &declaration)
                _ = append(BluetoothUUID.characteristic, declaration.bytes, .read, .declaration)
                storage.characteristics.append(
                    Characteristic(
                        valueHandle: declarationHandle + 1,
                        properties: characteristic.properties,
                        maximumLength: characteristic.maximumLength,
                        storesWrites: characteristic.storesWrites,
                        onRead: characteristic.onRead,
                        onWrite: characteristic.onWrite
                    )
                )
                let valueHandle = append(
                    characteristic.uuid,
                    characteristic.value,
                    characteristic.permissions,
                    .value(characteristic: storage.characteristics.count - 1)
                )
                var cccd: UInt16?
                if !characteristic.properties.isDisjoint(with: [.notify, .indicate]) {
                    cccd = append(
                        BluetoothUUID.clientCharacteristicConfiguration,
                        [0, 0],
                        [.read, .write],
                        .cccd(valueHandle: valueHandle)
                    )
                }
                for descriptor in characteristic.descriptors {
                    _ = append(descriptor.uuid, descriptor.value, descriptor.permissions, .descriptor)
                }
                characteristics.append(
                    .init(
                        uuid: characteristic.uuid,
                        declarationHandle: declarationHandle,
                        valueHandle: valueHandle,
                        cccdHandle: cccd
                    )
                )
            }
            let endHandle = UInt16(storage.attributes.count)
            let service = storage.attributes[serviceIndex]
            storage.attributes[serviceIndex] = Attribute(
                type: service.type,
                value: service.value,
                permissions: service.permissions,
                role: .service(endHandle: endHandle)
            )
            return GATTServiceHandles(
                uuid: definition.uuid,
                handle: serviceHandle,
                endHandle: endHandle,
                characteristics: characteristics
            )
        }
    }

    /// The stored value of an attribute (nil for a handle that does not exist).
    public func value(of handle: UInt16) -> [UInt8]? {
        storage.withLock { storage in
            guard handle >= 1, Int(handle) <= storage.attributes.count else { return nil }
            return storage.attributes[Int(handle) - 1].value
        }
    }

    /// Replaces the stored value of an attribute (what later reads return). Returns false for a
    /// handle that does not exist.
    @discardableResult
    public func setValue(_ value: [UInt8], of handle: UInt16) -> Bool {
        storage.withLock { storage in
            guard handle >= 1, Int(handle) <= storage.attributes.count else { return false }
            storage.attributes[Int(handle) - 1].value = value
            return true
        }
    }
}

extension GATTDatabase {
    /// The attribute at `handle`, if any.
    func attribute(_ handle: UInt16) -> Attribute? {
        storage.withLock { storage in
            guard handle >= 1, Int(handle) <= storage.attributes.count else { return nil }
            return storage.attributes[Int(handle) - 1]
        }
    }

    /// The attributes in `start...end` (clamped to the database), with their handles.
    func attributes(from start: UInt16, to end: UInt16) -> [(handle: UInt16, attribute: Attribute)] {
        storage.withLock { storage in
            let last = min(Int(end), storage.attributes.count)
            guard Int(start) <= last else { return [] }
            return (Int(start)...last).map { (UInt16($0), storage.attributes[$0 - 1]) }
        }
    }

    func characteristic(_ index: Int) -> Characteristic {
        storage.withLock { $0.characteristics[index] }
    }
}
