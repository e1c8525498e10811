import DeviceLinks
import Terminal

// The Swift example of Terminal's DocC page, as written there (`Tools/check-doc-examples.py` checks
// that it stands here unchanged): compiled with the tests, never run.

/// Sources/Terminal/Terminal.docc/Terminal.md
func terminalLinesAndALiveView() {
    LineLogHandler.bootstrap()
    let request = LinkRequest(
        target: .simulator(.pico),
        options: LinkOpener.Options(),
        logger: ReportLogHandler.logger
    )
    let display = LiveDisplay(showTable: true)
    _ = (request, display)
}
