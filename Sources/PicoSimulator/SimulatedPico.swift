import Coordination
import Foundation
import Synchronization

/// A simulated EmStat Pico behind its BT900 module's virtual serial port (VSP).
///
/// Wiring (the GATT side is the caller's): writes to the VSP RX characteristic (`569a2001-…`) go to
/// `receive(_:)`; the `output` callback gives the bytes to notify on VSP TX (`569a2000-…`), already cut to at
/// most `maximumNotificationPayload` bytes each; the `modemOut` callback gives the value to notify on ModemOut
/// (`569a2002-…`): `true` = 1 (space), `false` = 0 (full, further bytes will be lost).
///
/// ```swift
/// let pico = SimulatedPico(configuration: .fast,
///                          output: { payload in server.notify(txHandle, payload) },
///                          modemOut: { space in server.notify(modemOutHandle, space ? [1] : [0]) })
/// pico.start()
/// pico.receive(Array("t\n".utf8))          // → "tespico1209#…\nR*\n"
/// pico.receive(Array(scriptText.utf8))     // "e\n…\n\n" → "e\n", "M0000\n", "P…\n", …, "*\n", "\n"
/// pico.stop()
/// ```
///
/// Behaviour:
/// - Commands `t`, `v`, `i`, `e` + script (ended by an empty line), `Z` (abort: `Z` while a script runs,
///   `Z!0006` when idle). Unknown commands answer `<first char>!0003`; a line over 128 characters `!0008`.
/// - After `e` the device answers `e` at once, collects lines up to the empty one, then parses the script:
///   an error answers `!XXXX: Line N, Col M` (lines counted from the first after `e`) and the empty line;
///   otherwise the script runs on its own thread and its output ends with the empty line. While it runs only
///   `Z` is acted on; other lines are ignored. After `Z` or normal completion `on_finished:` runs; after an
///   error it does not.
/// - The receive side is a `VSPReceiveBuffer`: bytes beyond its capacity are dropped (`droppedByteCount`), and
///   it drains at `uartBytesPerSecond` on the configured clock.
///
/// - Packages: `P` lines encoded by `PicoValueFormat`; currents and impedances carry `,1<status>,2<range>`
///   from `PicoCurrentRange` (low-speed table, or high-speed after `set_pgstat_mode 3`), with TIMING_ERROR set
///   when a real-time point is reached late. After `Z` the open `M`/`C`/`L` scopes are not closed: the empty
///   line ends everything.
///
/// - The cell (`cell`, a `SimulatedCell`) belongs to the device: `cell_on` and `cell_off` change it, a script
///   that fails leaves it as it was, and `configuration.onCellChange` hears every change.
/// - The device outlives its link: `detach()` (the host went away) leaves a running script running, its
///   output lost, and `attach(output:modemOut:)` connects the next link, as a BT900 takes the next connection.
///
/// Inspection: `modemOut`, `pendingByteCount`, `droppedByteCount`, `isRunningScript`, `cell`. After an MTU
/// exchange call `setMaximumNotificationPayload(_:)`. Call `stop()` when done: the UART thread keeps the device
/// alive.
///
/// Threads: `receive` may be called from any thread and never blocks on the device. Callbacks are called on
/// the simulator's own threads, one at a time per callback; `output`'s buffer is valid only during the call.
/// Callbacks must not call back into the same `SimulatedPico` synchronously.
public final class SimulatedPico: Sendable {
    public typealias OutputHandler = @Sendable (UnsafeRawBufferPointer) -> Void
    public typealias ModemOutHandler = @Sendable (Bool) -> Void

    let configuration: SimulatedPicoConfiguration
    /// The link's handlers; nil while no host is connected (output is then lost).
    private let link = Mutex<Link?>(nil)
    private struct Link {
        var output: OutputHandler
        var modemOut: ModemOutHandler
    }
    /// The cell, changed by the script thread.
    let cellState = Mutex(SimulatedCell())

    /// Receive FIFO and thread state, guarded by `receiveLock` (a condition: the UART thread waits on it).
    let receiveLock = NSCondition()
    nonisolated(unsafe) var receiveBuffer: VSPReceiveBuffer
    nonisolated(unsafe) var started = false
    nonisolated(unsafe) var stopping = false
    /// Serialises ModemOut notifications; holds the last value reported.
    let reportedModemOut = Mutex(true)
    /// The notification chunker; its lock also orders all output.
    let transmitter: Mutex<VSPTransmitChunker>
    /// Whether a script runs, and whether it was asked to stop.
    let running = Atomic<Bool>(false)
    let abortRequested = Atomic<Bool>(false)
    /// Threads alive (UART reader and script runner); `stop()` waits for them.
    let threads = DispatchGroup()

    /// A device connected to a link through `output` and `modemOut`.
    public convenience init(
        configuration: SimulatedPicoConfiguration = SimulatedPicoConfiguration(),
        output: @escaping OutputHandler,
        modemOut: @escaping ModemOutHandler = { _ in }
    ) {
        self.init(configuration: configuration)
        attach(output: output, modemOut: modemOut)
    }

    /// A device with no link yet (`attach(output:modemOut:)`).
    public init(configuration: SimulatedPicoConfiguration = SimulatedPicoConfiguration()) {
        self.configuration = configuration
        receiveBuffer = VSPReceiveBuffer(
            capacity: configuration.receiveBufferCapacity,
            fullThreshold: configuration.modemOutFullThreshold,
            resumeThreshold: configuration.modemOutResumeThreshold
        )
        transmitter = Mutex(VSPTransmitChunker(maximumPayload: configuration.maximumNotificationPayload))
    }

    deinit {
        stop()
    }

    /// Starts the device's UART thread. Calling it twice does nothing.
    public func start() {
        receiveLock.lock()
        defer { receiveLock.unlock() }
        guard !started else { return }
        started = true
        stopping = false
        threads.enter()
        Threads.start(name: "sim-pico-uart") { [self] in
            uartLoop()
            threads.leave()
        }
    }

    /// Aborts a running script, stops the threads and waits for them. Received bytes not yet read are kept.
    public func stop() {
        receiveLock.lock()
        let wasStarted = started
        stopping = true
        started = false
        receiveLock.broadcast()
        receiveLock.unlock()
        abortRequested.store(true, ordering: .sequentiallyConsistent)
        if wasStarted || running.load(ordering: .sequentiallyConsistent) { threads.wait() }
    }

    /// Host → device: bytes written to the VSP RX characteristic. What does not fit in the FIFO is dropped.
    public func receive(_ bytes: UnsafeRawBufferPointer) {
        receiveLock.lock()
        receiveBuffer.write(bytes)
        receiveLock.signal()
        receiveLock.unlock()
        reportModemOut()
    }

    /// Host → device, from any byte collection.
    public func receive(_ bytes: some Collection<UInt8>) {
        let array = Array(bytes)
        array.withUnsafeBytes { receive($0) }
    }

    /// ModemOut now: `true` = space.
    public var modemOut: Bool {
        receiveLock.lock()
        defer { receiveLock.unlock() }
        return receiveBuffer.modemOut
    }

    /// Bytes received and not yet read by the device's UART.
    public var pendingByteCount: Int {
        receiveLock.lock()
        defer { receiveLock.unlock() }
        return receiveBuffer.count
    }

    /// Bytes dropped so far because the host overran the receive FIFO.
    public var droppedByteCount: Int {
        receiveLock.lock()
        defer { receiveLock.unlock() }
        return receiveBuffer.droppedByteCount
    }

    /// Connects a link: the device's output goes to `output`, ModemOut changes to `modemOut`.
    public func attach(output: @escaping OutputHandler, modemOut: @escaping ModemOutHandler = { _ in }) {
        link.withLock { $0 = Link(output: output, modemOut: modemOut) }
    }

    /// The host went away: output is lost until the next `attach`; a running script goes on.
    public func detach() {
        link.withLock { $0 = nil }
    }

    /// The cell now.
    public var cell: SimulatedCell { cellState.withLock { $0 } }

    /// Sends output bytes over the link, if one is attached.
    func outputHandler(_ bytes: UnsafeRawBufferPointer) {
        link.withLock { $0?.output }?(bytes)
    }

    func modemOutHandler(_ space: Bool) {
        link.withLock { $0?.modemOut }?(space)
    }

    /// The script changed the cell.
    func cellChanged(_ cell: SimulatedCell) {
        cellState.withLock { $0 = cell }
        configuration.onCellChange?(cell)
    }

    /// Whether a script is running.
    public var isRunningScript: Bool { running.load(ordering: .sequentiallyConsistent) }

    /// Sets the notification payload limit after an MTU exchange (ATT_MTU − 3). Pending output is sent first.
    public func setMaximumNotificationPayload(_ size: Int) {
        transmitter.withLock { $0.setMaximumPayload(size, emit: outputHandler) }
    }

    /// Reports ModemOut if it differs from what was last reported.
    func reportModemOut() {
        reportedModemOut.withLock { reported in
            let current = modemOut
            if current != reported {
                reported = current
                modemOutHandler(current)
            }
        }
    }
}
