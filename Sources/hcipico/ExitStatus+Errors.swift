import BLEHost
import BLELinux
import Coordination
import DeviceLinks
import DeviceRuns
import PicoLink

// Every failure and outcome a command meets, as the exit status `Documentation/ExitStatus.md` gives
// it: the one place where the libraries' typed errors become exit statuses.

extension LinkOpenError {
    /// The exit status of a link that could not be opened.
    var exitStatus: ExitStatus {
        switch cause {
        case .badInput: .badInput
        case .system(let error): error.exitStatus
        case .host(let error): error.exitStatus
        case .gatt(let error): error.exitStatus
        case .session(let error): error.exitStatus
        case .securityFailed: .securityFailed
        case .bondNotKept: .writeFailed
        case .simulator: .failure
        }
    }
}

extension ScriptRunOutcome {
    /// The status `connect` exits with after its run.
    var exitStatus: ExitStatus {
        switch self {
        case .complete: .success
        case .stopped(let reason): reason.exitStatus
        case .linkFailed(let error): error.exitStatus
        case .sessionFailed(let error): error.exitStatus
        case .outputExists: .badInput
        case .writeFailed: .writeFailed
        case .outputClosed: .outputClosed
        case .limitPassed: .limitPassed
        case .deviceError: .deviceError
        case .connectionLost: .connectionLost
        }
    }
}

extension StopReason {
    /// 130, 143 and 129 as a shell reports a death by that signal; 141 for a closed output (SIGPIPE).
    var exitStatus: ExitStatus { ExitStatus(rawValue: exitCode) ?? .interrupted }
}

extension BLELinuxError {
    /// The exit status that tells a rig's script what went wrong.
    var exitStatus: ExitStatus {
        switch kind {
        case .noBluetooth: .noBluetooth
        case .noPermission: .noPermission
        case .noAdapter: .noAdapter
        case .adapterDown, .adapterUp: .adapterDown
        case .busy: .busy
        case .timedOut: .timeout
        case .cancelled: .interrupted
        case .refused: .connectionLost
        case .securityFailed: .securityFailed
        case .unresolvedHost: .badInput
        case .system: .failure
        }
    }
}

extension HCIHostError {
    /// The exit status of a failure on hcipico's own HCI host path.
    var exitStatus: ExitStatus {
        switch self {
        case .connectTimeout, .scanTimeout, .commandTimeout: .timeout
        case .cancelled: .interrupted
        case .unsupported, .commandFailed, .invalidResponse, .connectFailed, .notRunning, .disconnected, .transport:
            .connectionLost
        }
    }
}

extension GATTError {
    /// The exit status of a failed GATT operation: the device's refusal, a lost link, a timeout, or
    /// something asked that cannot be done (an unknown or ambiguous attribute, a value too long).
    var exitStatus: ExitStatus {
        switch self {
        case .att, .invalidResponse, .unexpectedResponse: .deviceError
        case .transactionTimeout: .timeout
        case .disconnected, .send, .serviceChanged: .connectionLost
        case .invalidArgument, .notFound: .badInput
        case .notStarted: .failure
        case .cancelled: .interrupted
        }
    }
}

extension PicoSessionError {
    /// The exit status of a failed Pico command: the link lost, no answer in time, the device's refusal
    /// or an answer that is not an EmStat Pico's.
    var exitStatus: ExitStatus {
        switch self {
        case .connectionLost: .connectionLost
        case .gatt(let error): error.exitStatus
        case .notAPico, .device: .deviceError
        case .invalidScript: .badInput
        case .timeout: .timeout
        case .cancelled: .interrupted
        case .busy: .failure
        }
    }
}

extension SerialLinkError {
    /// The exit status of a serial link that could not be opened or stopped working.
    var exitStatus: ExitStatus {
        switch self {
        case .connectionLost: .connectionLost
        case .gatt(let error): error.exitStatus
        case .noSerialService: .deviceError
        }
    }
}
