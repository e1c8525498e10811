import Foundation

/// What the journal has that a sink (PostgreSQL) has not confirmed yet: a slice of committed packages,
/// in order within each run and runs in the order they started, with the rows of their runs.
public struct ForwardBatch: Sendable {
    /// A run with something to send: new, with packages past the sink's position, or a new state.
    public struct Run: Sendable, Equatable {
        /// The journal's row id.
        public var id: Int64
        public var uuid: String
        public var device: String
        public var deviceRun: Int
        public var title: String
        /// The state to send: the journal's, or `running` while the batch holds only part of the
        /// packages of an ended run (the sink sees the end with the last package).
        public var state: String
        public var reason: String?
        public var startedAt: Double
        public var endedAt: Double?
        public var overflowed: Int
        public var address: String?
        public var addressType: String?
        public var transport: String
        public var firmware: String?
        public var serialNumber: String?
        public var scriptName: String
        public var script: String
        public var scriptSHA256: String
        public var link: String?
        public var toolVersion: String
        public var rssi: Int?
        /// What became of the cell after the run (nil while it runs, or after a normal end).
        public var cell: String?
        /// What the run's connection found first (a script left running), if anything.
        public var foundAtConnect: String?
        /// The sink's position before this batch: packages forwarded and the last index (-1: none).
        public var forwardedBefore: Int
        public var lastIndexBefore: Int
        /// The position once this batch is confirmed.
        public var forwardedAfter: Int
        public var lastIndexAfter: Int
    }

    public struct Package: Sendable, Equatable {
        /// Index into `runs`.
        public var run: Int
        public var index: Int
        public var loop: Int
        public var scan: Int?
        public var hostTime: Double
        public var deviceTime: Double?
    }

    public struct Value: Sendable, Equatable {
        /// Index into `runs`.
        public var run: Int
        public var index: Int
        public var position: Int
        /// The MethodSCRIPT variable type code (`ba`, `da`…).
        public var variable: String
        public var name: String?
        /// SI base unit; nil for the device's NaN.
        public var value: Double?
        public var status: Int?
        public var range: Int?
        public var noise: Int?
    }

    public var runs: [Run] = []
    public var packages: [Package] = []
    public var values: [Value] = []

    public init() {}
}

/// How far a sink is behind the journal.
public struct ForwardLag: Sendable, Equatable {
    /// Committed packages the sink has not confirmed.
    public var packages: Int
    /// The host time of the oldest of them (nil when none waits).
    public var oldestHostTime: Double?

    public init(packages: Int, oldestHostTime: Double?) {
        self.packages = packages
        self.oldestHostTime = oldestHostTime
    }
}
