import Foundation
import PicoLink

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension LinkOpener {
    /// Opens `spec`'s port, asks the device `t` and `i` (a second each) and closes the port again.
    public func probeSerialPort(_ spec: SerialPortSpec) async -> SerialPortProbe {
        let opened: OpenedPico
        do {
            opened = try await openPico(.serialPort(spec))
        } catch {
            return .unopened(error)
        }
        let probe: SerialPortProbe
        do throws(PicoSessionError) {
            let version = try await opened.session.version(timeout: .seconds(1))
            probe = .answered(version, serialNumber: try? await opened.session.serialNumber(timeout: .seconds(1)))
        } catch {
            probe = .silent(error)
        }
        await opened.close()
        return probe
    }

    /// The port among `candidates` whose EmStat Pico answers `i` with `serialNumber`, asked at `baudRate`;
    /// nil when none does. A port another program holds is skipped, as is one whose device does not
    /// answer within a second (a Pico still running a script answers nothing until it ends: it is found
    /// on a later try). Each port is closed again before the next is tried.
    public func findPico(
        serialNumber: String,
        among candidates: [String],
        baudRate: Int = SerialPortSpec.picoBaudRate
    ) async -> String? {
        for path in candidates {
            guard case .answered(_, let answer) = await probeSerialPort(SerialPortSpec(path: path, baudRate: baudRate))
            else { continue }
            if answer == serialNumber { return path }
            logger.debug("\(path): serial \(answer ?? "unknown"), not \(serialNumber)")
        }
        return nil
    }

    /// The ports to search: the paths `patterns` match (shell globs, in order, each once), or with no
    /// patterns every FTDI port `SerialPortInventory` lists; never `excluding`.
    public static func serialPortCandidates(patterns: [String], excluding: String) -> [String] {
        var found: [String] = []
        if patterns.isEmpty {
            found = SerialPortInventory().ports().filter(\.isFTDI).map(\.path)
        } else {
            for pattern in patterns {
                var matches = glob_t()
                defer { globfree(&matches) }
                guard glob(pattern, 0, nil, &matches) == 0 else { continue }
                for index in 0..<Int(matches.gl_pathc) {
                    if let path = matches.gl_pathv[index].map({ String(cString: $0) }), !found.contains(path) {
                        found.append(path)
                    }
                }
            }
        }
        let excluded = URL(fileURLWithPath: excluding).resolvingSymlinksInPath().path
        return found.filter { $0 != excluding && URL(fileURLWithPath: $0).resolvingSymlinksInPath().path != excluded }
    }
}
