public import BLEWire

/// Everything discovered on a peer at once: its primary services and the secondary services they
/// include, each with its include declarations, its characteristics and the descriptors of each, in
/// handle order. `GATTClient.discoverProfile()` makes one; the lookups find a characteristic or
/// descriptor by handle or by UUID (a UUID must name exactly one attribute).
public struct GATTProfile: Sendable, Hashable {
    /// A characteristic with its descriptors.
    public struct Characteristic: Sendable, Hashable {
        /// The characteristic as discovered.
        public let characteristic: GATTCharacteristic
        /// Its descriptors, in handle order.
        public let descriptors: [GATTDescriptor]

        /// Pairs a characteristic with its descriptors.
        public init(characteristic: GATTCharacteristic, descriptors: [GATTDescriptor]) {
            self.characteristic = characteristic
            self.descriptors = descriptors
        }
    }

    /// A service with the services it includes and its characteristics. `service.isPrimary` is false
    /// for a secondary service (found only through an include).
    public struct Service: Sendable, Hashable {
        /// The service as discovered.
        public let service: GATTService
        /// The service's Include declarations, in handle order.
        public let includes: [GATTIncludedService]
        /// The service's characteristics with their descriptors, in handle order.
        public let characteristics: [Characteristic]

        /// Groups a service with its includes and characteristics.
        public init(service: GATTService, includes: [GATTIncludedService] = [], characteristics: [Characteristic]) {
            self.service = service
            self.includes = includes
            self.characteristics = characteristics
        }
    }

    /// An attribute a client reads, writes or subscribes to: a characteristic's value or a descriptor.
    public enum Attribute: Sendable, Hashable, CustomStringConvertible {
        /// A characteristic's value, with the service it belongs to.
        case characteristic(GATTCharacteristic, in: GATTService)
        /// A descriptor, with the characteristic it belongs to.
        case descriptor(GATTDescriptor, of: GATTCharacteristic)

        /// The handle to read or write: the characteristic's value handle, or the descriptor's handle.
        public var handle: UInt16 {
            switch self {
            case .characteristic(let characteristic, _): characteristic.valueHandle
            case .descriptor(let descriptor, _): descriptor.handle
            }
        }

        /// The characteristic's or the descriptor's UUID.
        public var uuid: BluetoothUUID {
            switch self {
            case .characteristic(let characteristic, _): characteristic.uuid
            case .descriptor(let descriptor, _): descriptor.uuid
            }
        }

        /// For listings: the UUID and handle, and the service or characteristic it belongs to, with handles as
        /// four hex digits.
        public var description: String {
            switch self {
            case .characteristic(let characteristic, let service):
                "characteristic \(characteristic.uuid) (value handle \(AttributeValueText.handle(characteristic.valueHandle)), "
                    + "service \(service.uuid) at \(AttributeValueText.handle(service.handle)))"
            case .descriptor(let descriptor, let characteristic):
                "descriptor \(descriptor.uuid) (handle \(AttributeValueText.handle(descriptor.handle)), "
                    + "characteristic \(characteristic.uuid) at \(AttributeValueText.handle(characteristic.valueHandle)))"
            }
        }
    }

    /// The services, primary and secondary, as given to `init(services:)`; sorted by declaration handle when
    /// `GATTClient.discoverProfile()` made the profile.
    public let services: [Service]

    /// Wraps the services as given, in the order given.
    public init(services: [Service]) { self.services = services }

    /// Every characteristic and descriptor whose UUID is `uuid`, in handle order.
    public func attributes(withUUID uuid: BluetoothUUID) -> [Attribute] {
        var found: [Attribute] = []
        for service in services {
            for entry in service.characteristics {
                if entry.characteristic.uuid == uuid {
                    found.append(.characteristic(entry.characteristic, in: service.service))
                }
                for descriptor in entry.descriptors where descriptor.uuid == uuid {
                    found.append(.descriptor(descriptor, of: entry.characteristic))
                }
            }
        }
        return found
    }

    /// The one characteristic or descriptor with `uuid`; `.notFound` when there is none, and
    /// `.invalidArgument` naming every candidate when there are several.
    public func attribute(withUUID uuid: BluetoothUUID) throws(GATTError) -> Attribute {
        let found = attributes(withUUID: uuid)
        guard let first = found.first else { throw .notFound("no characteristic or descriptor \(uuid)") }
        guard found.count == 1 else {
            let candidates = found.map { "  \($0)" }.joined(separator: "\n")
            throw .invalidArgument(
                "\(uuid) is ambiguous: \(found.count) attributes have it; give a handle instead:\n\(candidates)"
            )
        }
        return first
    }

    /// The characteristic whose declaration or value is at `handle`, if any.
    public func characteristic(at handle: UInt16) -> GATTCharacteristic? {
        for service in services {
            for entry in service.characteristics
            where entry.characteristic.valueHandle == handle || entry.characteristic.declarationHandle == handle {
                return entry.characteristic
            }
        }
        return nil
    }

    /// The characteristic `uuid` names (a descriptor UUID does not count here), or an error as for
    /// `attribute(withUUID:)`.
    public func characteristic(withUUID uuid: BluetoothUUID) throws(GATTError) -> GATTCharacteristic {
        var found: [Attribute] = []
        for service in services {
            for entry in service.characteristics where entry.characteristic.uuid == uuid {
                found.append(.characteristic(entry.characteristic, in: service.service))
            }
        }
        guard case .characteristic(let characteristic, _) = found.first else {
            throw .notFound("no characteristic \(uuid)")
        }
        guard found.count == 1 else {
            let candidates = found.map { "  \($0)" }.joined(separator: "\n")
            throw .invalidArgument(
                "\(uuid) is ambiguous: \(found.count) characteristics have it; give a value handle instead:\n"
                    + candidates
            )
        }
        return characteristic
    }
}

extension GATTClient {
    /// Discovers every primary service, the services each includes, the secondary services reached
    /// that way (a secondary service can only be reached by an include), and the characteristics and
    /// descriptors of all of them (Core 5.4 Vol 3 Part G §4.4.1, §4.5.1, §4.6.1, §4.7.1); fills the
    /// client's caches on the way. An include of a service already found is listed, not followed again.
    public func discoverProfile() async throws(GATTError) -> GATTProfile {
        var services: [GATTProfile.Service] = []
        var pending = try await discoverPrimaryServices()
        var found = Set(pending.map(\.handle))
        while !pending.isEmpty {
            let service = pending.removeFirst()
            let includes = try await discoverIncludedServices(of: service)
            // An include that names no valid range is listed but not followed.
            for include in includes
            where include.service.handle != 0 && include.service.handle <= include.service.endHandle
                && found.insert(include.service.handle).inserted
            {
                pending.append(include.service)
            }
            var characteristics: [GATTProfile.Characteristic] = []
            for characteristic in try await discoverCharacteristics(of: service) {
                let descriptors = try await discoverDescriptors(of: characteristic)
                characteristics.append(
                    GATTProfile.Characteristic(characteristic: characteristic, descriptors: descriptors)
                )
            }
            services.append(GATTProfile.Service(service: service, includes: includes, characteristics: characteristics))
        }
        services.sort { $0.service.handle < $1.service.handle }
        return GATTProfile(services: services)
    }
}
