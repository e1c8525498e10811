import ArgumentParser

/// The exit statuses of `hcipico`, one per kind of outcome so that a rig's scripts can tell them apart.
/// `Documentation/ExitStatus.md` lists them.
enum ExitStatus: Int32, CaseIterable, Error {
    /// Everything asked for was done.
    case success = 0
    /// An unexpected internal failure (a bug: please report it). No known outcome exits with it.
    case failure = 1
    /// Some input lines were malformed (`decode`); every good line was still written.
    case malformedInput = 2
    /// The device answered with a MethodSCRIPT error (`!XXXX`), or refused a `gatt` operation with an ATT error.
    case deviceError = 3
    /// The link to the device went away before the run ended; what was received is kept.
    case connectionLost = 4
    /// The device or the controller did not answer in time.
    case timeout = 5
    /// An output could not be written (`ENOSPC`, `EIO`…): the device run was aborted, what is on disk is
    /// kept, and its end marker says why.
    case writeFailed = 6
    /// Pairing or encryption failed (a wrong passkey, the peer refused, a bond the peer no longer holds):
    /// the reason is printed by its SMP or HCI name.
    case securityFailed = 7
    /// A run passed a limit (`--max-current`, `--potential-window`, `--max-run`) and was stopped there.
    case limitPassed = 8
    /// A circuit fit did not converge (`analyze`): no numbers are given for it; the other results are.
    case analysisFailed = 9
    /// The kernel has no Bluetooth support (`EAFNOSUPPORT`).
    case noBluetooth = 10
    /// No such adapter, or no adapter at all.
    case noAdapter = 11
    /// The adapter exists but is down (or, for the user channel, is up and must be down).
    case adapterDown = 12
    /// Missing `CAP_NET_RAW` / `CAP_NET_ADMIN`.
    case noPermission = 13
    /// The adapter or the link is held by another program (`EBUSY`, usually bluetoothd).
    case busy = 14
    /// An address the program must listen on is held by another program (`rig`: `[status] listen`).
    case addressInUse = 15
    /// Bad arguments or input refused before anything was sent (ArgumentParser's validation status too).
    case badInput = 64
    /// SIGHUP (the terminal or SSH session closed): the same clean end as Ctrl-C.
    case hungUp = 129
    /// Interrupted by Ctrl-C (SIGINT); what was received is kept and marked incomplete. (`scan` without
    /// a time limit ends by a signal and exits 0.)
    case interrupted = 130
    /// Standard output (or an output pipe) was closed by its reader (SIGPIPE/`EPIPE`, as with `| head`).
    case outputClosed = 141
    /// SIGTERM (`systemctl stop`, `kill`): the same clean end as Ctrl-C.
    case terminated = 143

    var exitCode: ExitCode { ExitCode(rawValue) }
}
