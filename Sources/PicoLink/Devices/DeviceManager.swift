public import Coordination
import Synchronization

/// Several devices at once, each with its own connector, status stream, package stream and
/// reconnect policy (see `ManagedDevice`); each is kept connected by a `DeviceKeeper`, the mechanism
/// the rig's supervisors use.
///
/// ```swift
/// let manager = DeviceManager()
/// let pico = try manager.add("pico-1", reconnect: ReconnectPolicy()) { try await GATTClient.connect(transport: …) }
/// Task { for await status in pico.statuses { print(pico.name, status) } }
/// try await pico.connect()
/// let end = try await pico.record(try PicoScript(text), into: [try CSVSink(path: "pico-1.csv")])
/// ```
public final class DeviceManager: Sendable {
    private let devices = Mutex<[String: ManagedDevice]>([:])
    private let clock: any TimeSource

    /// A manager with no devices, whose waits (the backoff between attempts) run on `clock`.
    public init(clock: any TimeSource = SystemClock()) { self.clock = clock }

    /// Adds a device under a unique name.
    public func add(
        _ name: String,
        reconnect policy: ReconnectPolicy = .never,
        connector: @escaping ManagedDevice.Connector
    ) throws(PicoSessionError) -> ManagedDevice {
        let device = ManagedDevice(name: name, policy: policy, clock: clock, connector: connector)
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
    public func remove(_ name: String) async {
        guard let device = devices.withLock({ $0.removeValue(forKey: name) }) else { return }
        await device.disconnect()
        device.finishStreams()
    }

    /// Disconnects and removes every device.
    public func removeAll() async {
        for device in all { await remove(device.name) }
    }
}
