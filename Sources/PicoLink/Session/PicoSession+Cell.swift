import Coordination

extension PicoSession {
    /// Lines of a script's output that arrived while this session ran none: a script left running.
    public var strayOutputLines: Int { receiver.strayOutput.load(ordering: .relaxed) }

    /// Switches the cell off: `cell_off` as a script of its own, run to its end. A script still ending
    /// (after `Z`) is waited for first, within the same `limit` on the session's clock. When the device has
    /// not finished within `limit` the link is closed (a device that does not answer is not trusted with the
    /// next run; the next connection checks it again) and the cell's state is unknown.
    public func switchCellOff(within limit: Duration = .seconds(2)) async -> CellOutcome {
        let clock = self.clock
        let outcome = await withTaskGroup(of: CellOutcome?.self) { group in
            group.addTask { await self.runCellOff() }
            group.addTask {
                _ = try? await clock.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        if let outcome { return outcome }
        close()
        return .unknown("no end to cell_off within \(limit); the link was closed")
    }

    private func runCellOff() async -> CellOutcome {
        while true {
            guard isConnected else { return .unknown("the link was lost") }
            do throws(PicoSessionError) {
                let run = try await run(Self.cellOffScript, title: "cell off")
                var failure: PicoDeviceError?
                var ended = false
                do {
                    for try await event in run.events {
                        if case .deviceError(let error) = event { failure = error }
                        if case .ended = event { ended = true }
                    }
                } catch {
                    return .unknown("the link was lost during cell_off")
                }
                if let failure { return .unknown("cell_off failed: \(failure)") }
                guard ended else { return .unknown("cell_off did not end") }
                return .offConfirmed(at: clock.wallTime)
            } catch {
                // A script still ending after `Z`: the session is busy until its end line.
                guard case .busy = error, (try? await clock.sleep(for: .milliseconds(10))) != nil else {
                    return .unknown("\(error)")
                }
            }
        }
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
        var evidence: String?
        if strayOutputLines == 0 {
            do throws(PicoSessionError) {
                let version = try await version(timeout: replyLimit)
                if strayOutputLines == 0 { return (version, nil) }
                evidence = "its output was arriving"
            } catch {
                guard case .timeout = error else { throw error }
                evidence = strayOutputLines > 0 ? "its output was arriving" : "no reply to t within \(replyLimit)"
            }
        } else {
            evidence = "its output was arriving"
        }
        let endsBefore = receiver.strayEnds.load(ordering: .relaxed)
        let running = try await abort(timeout: replyLimit)
        if !running, strayOutputLines == 0 {
            // Idle after all (`Z!0006`): a device slow to answer `t`.
            return (try await version(), nil)
        }
        // The aborted script's end line (after its `on_finished:`) comes before the device takes a command.
        let deadline = clock.now + cellOffLimit
        while running, receiver.strayEnds.load(ordering: .relaxed) == endsBefore {
            guard clock.now < deadline, isConnected, (try? await clock.sleep(for: .milliseconds(10))) != nil else {
                throw .busy("the device is still running a script it did not end after Z within \(cellOffLimit)")
            }
        }
        let cell = await switchCellOff(within: cellOffLimit)
        let leftover = LeftoverScript(evidence: evidence ?? "", aborted: running, cell: cell)
        return (try await version(), leftover)
    }
}
