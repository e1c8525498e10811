import ArgumentParser
import BLELinux
import Foundation

extension TransportSpec {
    /// The transport the `--transport` and `--adapter` options give (else `HCIPICO_TRANSPORT`, else the
    /// kernel), checked before any socket is opened: `--adapter` picks the kernel path's adapter.
    static func fromOptions(
        transport: String?,
        adapter: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ValidationError) -> TransportSpec {
        do {
            var spec = try TransportSpec.resolve(transport, environment: environment)
            if let adapter {
                let name = try HCIAdapterName(parsing: adapter)
                guard case .kernel = spec else {
                    throw ValidationError("--adapter goes with the kernel transport; give user:\(adapter) instead")
                }
                spec = .kernel(adapter: name)
            }
            return spec
        } catch let error as ValidationError {
            throw error
        } catch {
            throw ValidationError("\(error)")
        }
    }
}
