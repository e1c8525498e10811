public import Foundation

/// Where and how a run was taken: what a journal keeps beside its packages so a result can be traced
/// to the instrument, the firmware, the exact script and the link that carried it.
public struct RunProvenance: Sendable, Equatable {
    /// Unique across rigs and restarts.
    public var runID: UUID
    /// The device's name in the rig (or on the command line).
    public var device: String
    /// The run number on this device since its session opened, from 1.
    public var deviceRun: Int
    /// The technique or the script's name, as the sinks title the run.
    public var title: String
    /// The Bluetooth address (`AA:BB:…`), nil for a simulator.
    public var address: String?
    /// `public` or `random`, nil for a simulator.
    public var addressType: String?
    /// What carried the link (`kernel:hci0`, `user:hci1`, `tcp:127.0.0.1:9000`, `sim`).
    public var transport: String
    /// The firmware's version reply, first line (`espico1500#…`).
    public var firmware: String?
    /// The device's serial number (`i`).
    public var serialNumber: String?
    /// The script file's name as configured.
    public var scriptName: String
    /// The script exactly as sent, without the `e` line.
    public var script: String
    /// SHA-256 of `script`, lowercase hex.
    public var scriptSHA256: String
    /// The link parameters in force, as text (`MTU 247`, the connection interval where known).
    public var link: String?
    /// `hcipico <version>`.
    public var toolVersion: String
    /// Seconds since the Unix epoch when the script was sent.
    public var startTime: Double
    /// Last RSSI in dBm, where known.
    public var rssi: Int?
    /// What the connection this run started on found and did first, when the device was still running an
    /// earlier script (`LeftoverScript`); nil when it was idle.
    public var foundAtConnect: String?

    /// A run's provenance; `runID` defaults to a new random UUID, and what a simulator lacks to nil.
    public init(
        runID: UUID = UUID(),
        device: String,
        deviceRun: Int,
        title: String,
        address: String? = nil,
        addressType: String? = nil,
        transport: String,
        firmware: String? = nil,
        serialNumber: String? = nil,
        scriptName: String,
        script: String,
        scriptSHA256: String,
        link: String? = nil,
        toolVersion: String,
        startTime: Double,
        rssi: Int? = nil,
        foundAtConnect: String? = nil
    ) {
        self.runID = runID
        self.device = device
        self.deviceRun = deviceRun
        self.title = title
        self.address = address
        self.addressType = addressType
        self.transport = transport
        self.firmware = firmware
        self.serialNumber = serialNumber
        self.scriptName = scriptName
        self.script = script
        self.scriptSHA256 = scriptSHA256
        self.link = link
        self.toolVersion = toolVersion
        self.startTime = startTime
        self.rssi = rssi
        self.foundAtConnect = foundAtConnect
    }
}
