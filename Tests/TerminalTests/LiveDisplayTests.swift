import Coordination
import Foundation
import MethodSCRIPT
import PicoLink
import Terminal
import Testing

/// The live view of a run: rows thinned to their rate on the display's clock, the last package always
/// shown, the progress line redrawn in place on a terminal, and the table kept off a standard output
/// that carries data.
@Suite struct LiveDisplayTests {
    final class Screen {
        var written: [(text: String, stream: LiveDisplay.Stream)] = []
        func text(on stream: LiveDisplay.Stream) -> String {
            written.filter { $0.stream == stream }.map(\.text).joined()
        }
    }

    static func package(_ index: Int) -> PicoPackage {
        PicoPackage(
            device: "sim",
            run: 1,
            index: index,
            loop: 1,
            scan: 1,
            hostTime: 0,
            values: [PicoValue(variable: VariableType(code: "da")!, name: "p", value: Double(index) / 100)]
        )
    }

    static func display(
        _ screen: Screen,
        clock: ManualClock,
        terminal: Bool = false,
        tableOnStandardError: Bool = false
    ) -> LiveDisplay {
        LiveDisplay(
            showTable: true,
            rowsPerSecond: 10,
            tableOnStandardError: tableOnStandardError,
            clock: clock,
            terminal: terminal
        ) { text, stream in screen.written.append((text, stream)) }
    }

    @Test func rowsAreThinnedToTheirRateOnTheClockAndTheLastPackageAlwaysShows() {
        let (screen, clock) = (Screen(), ManualClock())
        let display = Self.display(screen, clock: clock)
        // Five packages every 50 ms: at 10 rows a second, every other one is a row.
        for index in 0..<5 {
            display.show(.package(Self.package(index)))
            clock.advance(by: .milliseconds(50))
        }
        display.show(.ended(aborted: false, packages: 5))
        display.finish()
        let table = screen.text(on: .output).split(separator: "\n")
        #expect(table.count == 4, "the header, rows 0, 2 and 4: \(table)")
        #expect(table.dropFirst().map { $0.split(separator: " ").first } == ["0", "2", "4"])
        #expect(screen.text(on: .error).contains("table: 3 of 5 points shown (at most 10 rows a second)"))
    }

    @Test func theLastPackageIsShownAtTheEndWhenItWasThinnedOut() {
        let (screen, clock) = (Screen(), ManualClock())
        let display = Self.display(screen, clock: clock)
        display.show(.package(Self.package(0)))
        display.show(.package(Self.package(1)))
        display.show(.ended(aborted: false, packages: 2))
        let rows = screen.text(on: .output).split(separator: "\n").dropFirst()
        #expect(rows.map { $0.split(separator: " ").first } == ["0", "1"])
    }

    @Test func onATerminalTheProgressLineIsWipedBeforeEachRowAndEndsWithANewline() {
        let (screen, clock) = (Screen(), ManualClock())
        let display = Self.display(screen, clock: clock, terminal: true)
        display.show(.package(Self.package(0)))
        clock.advance(by: .seconds(1))
        display.show(.text("hello"))
        display.finish()
        let errors = screen.text(on: .error)
        #expect(errors.hasPrefix("\r\u{1B}[Kpoints 1"), "\(errors)")
        #expect(errors.components(separatedBy: "\r\u{1B}[K").count == 4, "drawn, wiped for the text, drawn last")
        #expect(errors.hasSuffix("elapsed 1.0 s\n"), "the elapsed time is the clock's: \(errors)")
        #expect(screen.written.firstIndex { $0.text == "T hello\n" } != nil)
    }

    @Test func withDataOnStandardOutputEveryLineOfTheViewGoesToStandardError() {
        let (screen, clock) = (Screen(), ManualClock())
        let display = Self.display(screen, clock: clock, tableOnStandardError: true)
        display.show(.package(Self.package(0)))
        display.show(.text("T"))
        display.finish()
        #expect(screen.text(on: .output).isEmpty)
        #expect(screen.text(on: .error).contains("p [V]"))
    }

    @Test func withoutATerminalNoProgressIsDrawnUntilTheFinalLine() {
        let (screen, clock) = (Screen(), ManualClock())
        let display = Self.display(screen, clock: clock)
        display.show(.package(Self.package(0)))
        #expect(screen.text(on: .error).isEmpty)
        display.finish()
        #expect(screen.text(on: .error).hasPrefix("points 1"))
        #expect(!screen.text(on: .error).contains("\u{1B}"))
    }
}
