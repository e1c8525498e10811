import BLEHost
public import BLELinux
import Foundation
public import PicoLink
import Synchronization

/// A `PicoChannel` over an EmStat Pico's UART on a serial port (`SerialByteStream`): the same reply
/// stream the VSP carries, read on the port's reader thread.
///
/// Writes are paced to the line: at most `window` bytes go out ahead of the time the wire needs for
/// them, so the port's buffer never piles up and a large script takes as long as the line does, with
/// no thread blocked (the sender sleeps). A port at the wrong rate shows itself by what it reads: a UART
/// that samples at the wrong rate turns the device's text into bytes outside printable ASCII and
/// framing-error NULs, so the first bytes are checked, and a port whose first 64 bytes hold 8 or more
/// such bytes is ended with a reason that names the rate.
public final class UARTChannel: PicoChannel {
    /// The port.
    public let stream: SerialByteStream
    /// Bytes sent ahead of the line's pace before the sender sleeps.
    public static let window = 512
    /// Bytes at the start checked for text, and how many non-text bytes among them mean a wrong rate.
    static let checkedBytes = 64
    static let nonTextLimit = 8

    private struct State {
        var endReason: String?
        var handlers: [@Sendable (String) -> Void] = []
        var checked = 0
        var nonText = 0
        /// Bytes sent so far, and when the first of them went out.
        var sent = 0
        var sendStart: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    private let received = Atomic<Int>(0)
    /// True until the first `checkedBytes` have been checked: after that a read takes no lock here.
    private let checking = Atomic<Bool>(true)

    /// Bytes read from the port so far.
    public var bytesReceived: Int { received.load(ordering: .relaxed) }

    /// Opens and holds `spec`'s port.
    public static func open(_ spec: SerialPortSpec) throws(BLELinuxError) -> UARTChannel {
        UARTChannel(stream: try SerialByteStream.open(device: spec.path, baudRate: spec.baudRate))
    }

    init(stream: SerialByteStream) { self.stream = stream }

    /// Starts the port's reader: every read to `receive`, the end to `ended` (see `PicoChannel`).
    public func start(
        receive: @escaping @Sendable (UnsafeRawBufferPointer) -> Void,
        ended: @escaping @Sendable (String) -> Void
    ) async throws(PicoSessionError) {
        onEnd(ended)
        let device = stream.device
        let rate = stream.baudRate
        do throws(TransportError) {
            try stream.start(
                receive: { [self] chunk in
                    received.add(chunk.count, ordering: .relaxed)
                    if checking.load(ordering: .relaxed), let wrongRate = check(chunk, device: device, rate: rate) {
                        end(wrongRate)
                        stream.close()
                        return
                    }
                    receive(chunk)
                },
                closed: { [self] error in
                    switch error {
                    case .closed: end("closed here")
                    case .disconnected: end("device gone: \(device) hung up or failed (unplugged?)")
                    default: end("device gone: \(device): \(error)")
                    }
                }
            )
        } catch {
            throw .connectionLost(endReason ?? "\(device): \(error)")
        }
    }

    /// Checks the first bytes for text; returns the reason to end when they are not.
    private func check(_ chunk: UnsafeRawBufferPointer, device: String, rate: Int) -> String? {
        state.withLock { state -> String? in
            guard state.checked < Self.checkedBytes else { return nil }
            for byte in chunk.prefix(Self.checkedBytes - state.checked) {
                state.checked += 1
                let text = (0x20...0x7E).contains(byte) || byte == 0x0A || byte == 0x0D || byte == 0x09
                if !text { state.nonText += 1 }
            }
            if state.checked >= Self.checkedBytes { checking.store(false, ordering: .relaxed) }
            guard state.nonText >= Self.nonTextLimit else { return nil }
            return
                "\(device) sends bytes that are not text (\(state.nonText) of the first \(state.checked)): is \(rate) baud the device's rate? An EmStat Pico's UART runs at \(SerialPortSpec.picoBaudRate) baud"
        }
    }

    private func end(_ reason: String) {
        let handlers = state.withLock { state -> [@Sendable (String) -> Void] in
            guard state.endReason == nil else { return [] }
            state.endReason = reason
            defer { state.handlers = [] }
            return state.handlers
        }
        for handler in handlers { handler(reason) }
    }

    /// Sends `bytes` in order, paced as the device needs (see the type's comment).
    public func send(_ bytes: [UInt8]) async throws(PicoSessionError) {
        let secondsPerByte = 10.0 / Double(stream.baudRate)
        var offset = 0
        while offset < bytes.count {
            let size = min(Self.window / 2, bytes.count - offset)
            let ahead: Duration = state.withLock { state in
                let now = ContinuousClock.now
                // The line is idle once what was sent has had its time: start counting afresh.
                if let start = state.sendStart,
                    now < start + .seconds(Double(state.sent) * secondsPerByte)
                {
                    let due = start + .seconds(Double(state.sent + size - Self.window) * secondsPerByte)
                    state.sent += size
                    return due > now ? due - now : .zero
                }
                state.sendStart = now
                state.sent = size
                return .zero
            }
            if ahead > .zero {
                // A cancelled upload stops here, as a cancelled GATT write does, rather than going on unpaced.
                do { try await Task.sleep(for: ahead) } catch { throw .cancelled }
            }
            if let reason = endReason { throw .connectionLost(reason) }
            let stream = self.stream
            let failure = bytes.withUnsafeBytes { all -> TransportError? in
                do throws(TransportError) {
                    try stream.send(UnsafeRawBufferPointer(rebasing: all[offset..<(offset + size)]))
                    return nil
                } catch {
                    return error
                }
            }
            if let failure { throw .connectionLost(endReason ?? "device gone: \(stream.device): \(failure)") }
            offset += size
        }
    }

    /// Why the channel ended; nil while it is open.
    public var endReason: String? { state.withLock { $0.endReason } }

    /// Calls `handler` once when the channel ends (at once if it has).
    public func onEnd(_ handler: @escaping @Sendable (String) -> Void) {
        let ended = state.withLock { state -> String? in
            if let reason = state.endReason { return reason }
            state.handlers.append(handler)
            return nil
        }
        if let ended { handler(ended) }
    }

    /// Ends the channel.
    public func close() {
        stream.close()
        end("closed here")
    }

    /// What carries the channel, for provenance.
    public var summary: String { "\(stream.device) at \(stream.baudRate) baud" }
}
