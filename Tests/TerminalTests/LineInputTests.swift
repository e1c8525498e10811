import Foundation
import Terminal
import Testing

/// Where a console keeps the lines typed in it between sessions.
@Suite struct LineInputTests {
    @Test func theHistoryIsWhereTheEnvironmentSays() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(LineInput.historyPath(program: "lab", environment: ["LAB_HISTORY": "/x/h"]) == "/x/h")
        #expect(LineInput.historyPath(program: "lab", environment: ["LAB_HISTORY": "", "HOME": folder]) == nil)
        let state = LineInput.historyPath(program: "lab", environment: ["XDG_STATE_HOME": folder, "HOME": "/none"])
        #expect(state == folder + "/lab/console_history")
        #expect(FileManager.default.fileExists(atPath: folder + "/lab"), "the folder is made")
        let home = LineInput.historyPath(program: "lab", environment: ["HOME": folder])
        #expect(home == folder + "/.local/state/lab/console_history")
        #expect(LineInput.historyPath(program: "lab", environment: [:]) == nil)
    }
}
