/// Why a control action was refused. Nothing changed.
public enum RigControlError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No device of that name in the rig's config.
    case unknownDevice(String)
    /// No request of that id.
    case unknownRequest(String)
    /// The order is wrong: `parameter` names what (a method's parameter, `script`, `technique`).
    case invalid(parameter: String, message: String)
    /// The action cannot be taken now (a request that already started, a rig that is stopping).
    case conflict(String)

    public var description: String {
        switch self {
        case .unknownDevice(let name): "no device \(name) in this rig"
        case .unknownRequest(let id): "no run request \(id)"
        case .invalid(let parameter, let message): "\(parameter): \(message)"
        case .conflict(let message): message
        }
    }
}
