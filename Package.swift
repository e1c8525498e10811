// swift-tools-version: 6.2
import PackageDescription

/// Every target of ours treats warnings as errors: the build stays warning-free.
let strict: [SwiftSetting] = [
    .treatAllWarnings(as: .error)
]

let package = Package(
    name: "hcipico",
    products: [
        .executable(name: "hcipico", targets: ["hcipico"]),
        .library(name: "MethodSCRIPT", targets: ["MethodSCRIPT"]),
        .library(name: "MethodSCRIPTBatch", targets: ["MethodSCRIPTBatch"]),
        .library(name: "BLEWire", targets: ["BLEWire"]),
        .library(name: "BLEHost", targets: ["BLEHost"]),
        .library(name: "BLELinux", targets: ["BLELinux"]),
        .library(name: "PicoSimulator", targets: ["PicoSimulator"]),
        .library(name: "PicoLink", targets: ["PicoLink"]),
        .library(name: "BLEDiagnostics", targets: ["BLEDiagnostics"]),
        .library(name: "DeviceLinks", targets: ["DeviceLinks"]),
        .library(name: "DeviceRuns", targets: ["DeviceRuns"]),
        .library(name: "PicoAnalysis", targets: ["PicoAnalysis"]),
        .library(name: "Terminal", targets: ["Terminal"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        // `swift package generate-documentation` (DocC) for the library products.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // The rig (never linked into the library products).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // Complex numbers for the impedance fits (PicoAnalysis).
        .package(url: "https://github.com/apple/swift-numerics", from: "1.1.1"),
        // The fleet side of the rig: forwarding to PostgreSQL, the status page and /metrics (the CLI only).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // Without its default trait ConfigurationSupport: swift-configuration is not used here.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: ["FullFoundation"]),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        // MARK: Codecs (no I/O, no C)
        .target(name: "BLEWire", swiftSettings: strict),
        .target(name: "MethodSCRIPT", swiftSettings: strict),
        // Whole buffers into columns, on one or more threads, and a census of a transcript's packages (hcipico
        // decode, Bench, tests): beside the streaming decoder a device session needs, not in it.
        .target(name: "MethodSCRIPTBatch", dependencies: ["MethodSCRIPT"], swiftSettings: strict),

        // Results from a run's points: voltammetric peaks (Savitzky–Golay smoothing, scipy's peak finding,
        // baselines) and equivalent-circuit fits of impedance spectra (Levenberg–Marquardt).
        .target(
            name: "PicoAnalysis",
            dependencies: [
                .product(name: "ComplexModule", package: "swift-numerics"),
                .product(name: "RealModule", package: "swift-numerics"),
            ],
            swiftSettings: strict
        ),

        // Curves and spectra with known answers, for the analysis tests and Bench (not a product).
        .target(name: "AnalysisSamples", swiftSettings: strict),

        // One of each waiting primitive: a one-shot latch, a first-come gate.
        .target(name: "Coordination", swiftSettings: strict),

        // MARK: Protocol engines
        .target(
            name: "BLEHost",
            dependencies: [
                "BLEWire", "Coordination", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),

        // Diagnostics around the engine: inter-arrival statistics, the echo round-trip probe.
        .target(
            name: "BLEDiagnostics",
            dependencies: [
                "BLEHost", "BLEWire", "Coordination", .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            swiftSettings: strict
        ),

        // MARK: Linux: the only importer of CBlueZ
        .systemLibrary(
            name: "CBlueZ",
            path: "Sources/CBlueZ",
            pkgConfig: "bluez",
            providers: [.apt(["libbluetooth-dev"])]
        ),
        .target(
            name: "BLELinux",
            dependencies: ["Coordination", "BLEHost", "BLEWire", "CBlueZ"],
            swiftSettings: strict + [.define("ENABLE_MOCKING", .when(configuration: .debug))]
        ),

        // MARK: Devices
        .target(
            name: "PicoSimulator",
            dependencies: ["Coordination", "BLEHost", "BLEWire", "MethodSCRIPT"],
            swiftSettings: strict
        ),
        .target(
            name: "PicoLink",
            dependencies: [
                "Coordination", "BLEHost", "BLEWire", "MethodSCRIPT",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict
        ),

        // MARK: Opening a device: a transport spec to an open link, secured, on any path
        .target(
            name: "DeviceLinks",
            dependencies: [
                "Coordination", "BLEHost", "BLEWire", "BLELinux", "PicoLink", "PicoSimulator",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        // MARK: Running a script on a device and recording it: the flow connect and the console share
        .target(
            name: "DeviceRuns",
            dependencies: [
                "Coordination", "BLEDiagnostics", "BLEHost", "DeviceLinks", "PicoLink", "PicoAnalysis", "RunResults",
                "MethodSCRIPT", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict
        ),

        // MARK: The rig: config, supervisors and the journal (above DeviceLinks; the CLI wires them)
        // What the rig's parts share, with no dependency: the forwarding config.
        .target(name: "RigModel", swiftSettings: strict),
        .target(
            name: "RigCore",
            dependencies: [
                "RigModel",
                "Coordination",
                "DeviceLinks",
                "DeviceRuns",
                "PicoLink",
                "RunResults",
                "PicoSimulator",
                "PicoAnalysis",
                "MethodSCRIPT",
                "BLEHost",
                "BLELinux",
                "BLEWire",
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // A run's analysis for its outputs: the plan its script gives, its points from its packages, the
        // results files and the plot's overlays (the rig's journal, exports, connect and the console).
        .target(
            name: "RunResults",
            dependencies: [
                "PicoLink", "PicoAnalysis", "MethodSCRIPT", .product(name: "ComplexModule", package: "swift-numerics"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "RigJournal",
            dependencies: [
                "Coordination", "PicoLink", "PicoAnalysis", "MethodSCRIPT", "RunResults", "RigModel",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),

        .target(
            name: "RigForward",
            dependencies: [
                "Coordination", "RigJournal", "RigModel", "MethodSCRIPT", "PicoAnalysis",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "RigStatus",
            dependencies: [
                "RunResults",
                "RigModel", "RigJournal", "PicoLink", "PicoAnalysis", "MethodSCRIPT", "Coordination",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.embedInCode("Page/index.html"), .embedInCode("Page/app.js"), .embedInCode("Page/style.css")],
            swiftSettings: strict
        ),

        // The rig as one ServiceGroup: signals, fleet side, journal, radio side, heartbeat, devices.
        .target(
            name: "RigService",
            dependencies: [
                "RunResults",
                "RigCore", "RigModel", "RigJournal", "RigForward", "RigStatus", "DeviceLinks", "PicoLink", "CSystemd",
                "Coordination", "PicoAnalysis",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        // libsystemd's sd_notify for the rig under systemd (RigService only).
        .systemLibrary(
            name: "CSystemd",
            path: "Sources/CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),

        // BSD editline (libedit) for the console's line editing and history (Terminal only).
        .target(name: "CLineEditing", linkerSettings: [.linkedLibrary("edit")]),

        // A program's standard streams and terminal: stderr that never stalls or ends a run, swift-log
        // lines for a terminal or journald, typed lines, passkey prompts, a run's live view.
        .target(
            name: "Terminal",
            dependencies: [
                "Coordination", "BLEHost", "DeviceLinks", "DeviceRuns", "RunResults", "PicoLink", "PicoAnalysis",
                "CLineEditing", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        // MARK: In-memory transports and fakes (tests and Bench only)
        .target(
            name: "BLETesting",
            dependencies: ["Coordination", "BLEHost", "BLEWire", "BLELinux"],
            swiftSettings: strict
        ),

        // A client of a rig's API (`hcipico mcp`, `Bench api`), and the MCP server on it.
        .target(name: "RigClient", swiftSettings: strict),
        .target(
            name: "RigMCP",
            dependencies: ["RigClient", "Coordination"],
            swiftSettings: strict
        ),

        // MARK: Command line
        .executableTarget(
            name: "hcipico",
            dependencies: [
                "RigClient",
                "RigMCP",
                "RunResults",
                "Coordination",
                "MethodSCRIPT",
                "BLEWire",
                "BLELinux",
                "BLEHost",
                "BLEDiagnostics",
                "DeviceLinks",
                "DeviceRuns",
                "PicoLink",
                "PicoSimulator",
                "PicoAnalysis",
                "RigCore",
                "RigJournal",
                "RigService",
                "Terminal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict
        ),

        // MARK: Generator and benchmarks
        // The one reader of the spec tables: the generator's, and the tests' that compare code with them.
        .target(name: "SpecTables", path: "Tools/SpecTables", swiftSettings: strict),
        .executableTarget(name: "SpecGen", dependencies: ["SpecTables"], path: "Tools/SpecGen", swiftSettings: strict),
        // Counts heap allocations for Bench by replacing malloc & co. (linked into Bench only).
        .target(name: "CAllocationCounter"),
        // A C parser of P lines built the way PalmSens' C example parses, as Bench's yardstick.
        .target(name: "CParserBaseline"),
        .executableTarget(
            name: "Bench",
            dependencies: [
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                "Coordination",
                "MethodSCRIPT",
                "MethodSCRIPTBatch",
                "BLEWire",
                "BLEHost",
                "BLEDiagnostics",
                "PicoSimulator",
                "PicoLink",
                "BLETesting",
                "CAllocationCounter",
                "CParserBaseline",
                "BLELinux",
                "RigJournal",
                "RigForward",
                "RigModel",
                "RigService",
                "PicoAnalysis",
                "DeviceLinks",
                "AnalysisSamples",
                "RigClient",
                .product(name: "ComplexModule", package: "swift-numerics"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),

        // MARK: Tests
        .testTarget(
            name: "PicoAnalysisTests",
            dependencies: [
                "PicoAnalysis", "AnalysisSamples", .product(name: "ComplexModule", package: "swift-numerics"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "MethodSCRIPTTests",
            dependencies: [
                "MethodSCRIPT",
                "MethodSCRIPTBatch",
                "SpecTables",
            ],
            exclude: ["Fixtures"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PicoLinkTests",
            dependencies: [
                "Coordination", "PicoLink", "PicoSimulator", "BLEHost", "BLEWire", "BLETesting", "MethodSCRIPT",
                "RunResults", "PicoAnalysis", .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "BLEWireTests", dependencies: ["BLEWire", "SpecTables"], swiftSettings: strict),
        .testTarget(
            name: "BLELinuxTests",
            dependencies: ["Coordination", "BLELinux", "BLEHost", "BLEWire", "BLETesting"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "hcipicoTests",
            dependencies: [
                "hcipico", "BLETesting", "BLEHost", "BLEWire", "BLELinux", "DeviceLinks", "PicoLink", "RigJournal",
                "MethodSCRIPT", "RunResults",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: strict
        ),
        .testTarget(name: "CoordinationTests", dependencies: ["Coordination", "BLETesting"], swiftSettings: strict),
        .testTarget(
            name: "TerminalTests",
            dependencies: [
                "Terminal", "Coordination", "DeviceLinks", "PicoLink", "MethodSCRIPT",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "RigServiceTests",
            dependencies: [
                "RigService", "RigCore", "RigJournal", "PicoAnalysis", "RunResults", "PicoLink", "MethodSCRIPT",
                "BLETesting", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "DeviceLinksTests",
            dependencies: [
                "DeviceLinks", "DeviceRuns", "RunResults", "PicoAnalysis", "MethodSCRIPT", "BLEHost", "BLEWire",
                "BLELinux", "BLETesting", "PicoLink", "Coordination", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PicoSimulatorTests",
            dependencies: [
                "Coordination", "PicoSimulator", "MethodSCRIPT", "BLEHost", "BLEWire", "BLELinux", "BLETesting",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "BLEDiagnosticsTests",
            dependencies: ["BLEDiagnostics", "BLEHost", "BLEWire", "BLETesting"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "BLEHostTests",
            dependencies: [
                "Coordination", "BLEHost", "BLEWire", "BLETesting", .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "RigTests",
            dependencies: [
                "RunResults",
                "Coordination", "RigCore", "RigModel", "RigJournal", "PicoLink", "PicoSimulator", "BLEHost",
                "BLETesting", "MethodSCRIPT", "PicoAnalysis",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "RigFleetTests",
            dependencies: [
                "RunResults",
                "RigForward", "RigStatus", "RigCore", "RigModel", "RigJournal", "PicoLink", "MethodSCRIPT",
                "PicoAnalysis", "Coordination",
                "BLETesting",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HCIHostTests",
            dependencies: ["Coordination", "BLEHost", "BLEWire", "BLELinux", "BLETesting"],
            swiftSettings: strict
        ),
    ]
)
