import Coordination

extension PicoSession {
    /// Lines of a script's output that arrived while this session ran none (a script left running), since
    /// the last `takeOver` dealt with them.
    public var strayOutputLines: Int {
        receiver.strayOutput.load(ordering: .relaxed) - receiver.strayHandled.load(ordering: .relaxed)
    }

    /// Switches the cell off: `cell_off` as a script of its own, run to its end. A script still ending
    /// (after `Z`) is waited for first, within the same `limit` on the session's clock. When the device has
    /// not finished within `limit` the link is closed (a device that does not answer is not trusted with the
    /// next run; the next connection checks it again) and the cell's state is unknown.
    public func switchCellOff(within limit: Duration = .seconds(2)) async -> CellOutcome {
        let deadline = clock.now + limit
        while true {
            guard isConnected else { return .unknown("the link was lost") }
            let ended = receiver.nextScriptEnd()
            let run: PicoRun
            do throws(PicoSessionError) {
                run = try await self.run(Self.cellOffScript, title: "cell off")
            } catch {
                // A script still ending after `Z`: the session is busy until its end line.
                guard case .busy = error else { return .unknown("cell_off could not be sent: \(error)") }
                guard await ended.wait(upTo: deadline - clock.now, on: clock) != nil else {
                    return closed("the device did not end its script within \(limit), so cell_off was not sent")
                }
                continue
            }
            let result = Latch<CellOutcome>()
            let clock = self.clock
            async let outcome: Void = {
                var failure: PicoDeviceError?
                var sawEnd = false
                do {
                    for try await event in run.events {
                        if case .deviceError(let error) = event { failure = error }
                        if case .ended = event { sawEnd = true }
                    }
                } catch {
                    result.settle(.unknown("the link was lost during cell_off"))
                    return
                }
                if let failure {
                    result.settle(.unknown("cell_off failed: \(failure)"))
                } else {
                    result.settle(sawEnd ? .offConfirmed(at: clock.wallTime) : .unknown("cell_off did not end"))
                }
            }()
            let settled = await result.wait(upTo: deadline - clock.now, on: clock)
            // Not ended in time: the link is closed, which ends the run's events too.
            let answer = settled ?? closed("no end to cell_off within \(limit)")
            await outcome
            return answer
        }
    }

    /// Closes the link (a device that does not answer is not trusted with the next run; the next
    /// connection checks it again) and says why the cell's state is unknown.
    private func closed(_ reason: String) -> CellOutcome {
        close()
        return .unknown("\(reason); the link was closed")
    }

    /// `cell_off`, alone.
    static let cellOffScript: PicoScript = {
        do { return try PicoScript("cell_off\n") } catch { preconditionFailure("cell_off is a script: \(error)") }
    }()

    /// What a new connection does first: asks the version (`t`), and when the device is still running a
    /// script — its output arrives, or `t` gets no reply within `replyLimit` — aborts it (`Z`), switches the
    /// cell off (within `cellOffLimit`) and asks again. Returns the version, and the script found, if any.
    public func takeOver(
        replyLimit: Duration = .seconds(2),
        cellOffLimit: Duration = .seconds(2)
    ) async throws(PicoSessionError) -> (version: PicoVersion, leftover: LeftoverScript?) {
        // Whatever happens below, the stray lines so far are dealt with.
        defer { receiver.strayHandled.store(receiver.strayOutput.load(ordering: .relaxed), ordering: .relaxed) }
        let evidence: String
        switch await firstReply(within: replyLimit) {
        case .version(let version) where strayOutputLines == 0: return (version, nil)
        case .version, .strayOutput: evidence = "its output was arriving"
        case .failure(.timeout):
            evidence = strayOutputLines > 0 ? "its output was arriving" : "no reply to t within \(replyLimit)"
        case .failure(let error): throw error
        }
        let ended = receiver.nextScriptEnd()
        let running = try await abort(timeout: replyLimit)
        if !running, strayOutputLines == 0 {
            // Idle after all (`Z!0006`): a device slow to answer `t`.
            return (try await version(), nil)
        }
        // The aborted script's end line (after its `on_finished:`) comes before the device takes a command.
        if running, await ended.wait(upTo: cellOffLimit, on: clock) == nil {
            throw .busy("the device is still running a script it did not end after Z within \(cellOffLimit)")
        }
        let cell = await switchCellOff(within: cellOffLimit)
        let leftover = LeftoverScript(evidence: evidence, aborted: running, cell: cell)
        return (try await version(), leftover)
    }

    private enum FirstReply: Sendable {
        case version(PicoVersion)
        case failure(PicoSessionError)
        case strayOutput
    }

    /// The reply to `t`, or the first line of a script's output, whichever comes first.
    private func firstReply(within limit: Duration) async -> FirstReply {
        if strayOutputLines > 0 { return .strayOutput }
        let stray = receiver.nextStrayOutput()
        return await withTaskGroup(of: FirstReply?.self) { group in
            group.addTask {
                do throws(PicoSessionError) {
                    return .version(try await self.version(timeout: limit))
                } catch {
                    return .failure(error)
                }
            }
            // Bounded by the version's own timeout, which cancels it.
            group.addTask { await stray.waitUnlessCancelled() == nil ? nil : .strayOutput }
            var first = FirstReply.failure(.timeout("no reply to t within \(limit)"))
            for await reply in group {
                guard let reply else { continue }
                first = reply
                break
            }
            group.cancelAll()
            return first
        }
    }
}
