import Synchronization

/// Several devices at once, each with its own connector, status stream, package stream and
/// reconnect policy (see `ManagedDevice`).
///
/// ```swift
/// let manager = DeviceManager()
/// let pico = try manager.add("pico-1", reconnect: ReconnectPolicy()) { try await GATTClient.connect(transport: …) }
/// Task { for await status in pico.statuses { print(pico.name, status) } }
/// try await pico.connect()
/// let run = try await pico.run(try PicoScript(text))
/// ```
public final class DeviceManager: Sendable {
    private let devices = Mutex<[String: ManagedDevice]>([:])

    /// A manager with no devices.
    public init() {}

    /// Adds a device under a unique name.
    public func add(
        _ name: String,
        reconnect policy: ReconnectPolicy = .never,
        connector: @escaping ManagedDevice.Connector
    ) throws(PicoSessionError) -> ManagedDevice {
        let device = ManagedDevice(name: name, policy: policy, connector: connector)
        let added = devices.withLock { devices in
            guard devices[name] == nil else { return false }
            devices[name] = device
            return true
        }
        guard added else { throw .busy("a device named \(name) already exists") }
        return device
    }

    /// The device added under `name`, if any.
    public subscript(name: String) -> ManagedDevice? { devices.withLock { $0[name] } }

    /// All devices, by name.
    public var all: [ManagedDevice] { devices.withLock { $0.values.sorted { $0.name < $1.name } } }

    /// Connects every device concurrently; returns the failures by name.
    public func connectAll() async -> [String: PicoSessionError] {
        await withTaskGroup(of: (String, PicoSessionError?).self) { group in
            for device in all {
                group.addTask {
                    do throws(PicoSessionError) {
                        try await device.connect()
                        return (device.name, nil)
                    } catch {
                        return (device.name, error)
                    }
                }
            }
            var failures: [String: PicoSessionError] = [:]
            for await (name, error) in group { if let error { failures[name] = error } }
            return failures
        }
    }

    /// Removes a device: disconnects it and ends its streams.
    public func remove(_ name: String) {
        guard let device = devices.withLock({ $0.removeValue(forKey: name) }) else { return }
        device.disconnect()
        device.finishStreams()
    }

    /// Disconnects and removes every device.
    public func removeAll() {
        for device in all { remove(device.name) }
    }
}
