import Foundation

/// Programs built beside `Bench` (the same `swift build` products folder).
enum BesideBench {
    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    /// The `hcipico` beside this executable, found from `/proc/self/exe`: `Bench` may have been started
    /// through `PATH`, where `argv[0]` names no folder.
    static func hcipico() throws -> String {
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("hcipico").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw Missing(description: "no hcipico beside Bench: swift build -c release --product hcipico")
        }
        return binary
    }
}
