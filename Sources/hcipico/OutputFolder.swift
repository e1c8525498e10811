import Foundation

/// `--out DIR` of `connect` and `export`: the folder the files go into.
enum OutputFolder {
    /// Makes `path` when it does not exist (its parents must), as `mkdir` would; exits 64 when it is
    /// something other than a folder or cannot be made.
    static func prepare(_ path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                StandardError.report("--out \(path): not a folder")
                throw ExitStatus.badInput.exitCode
            }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        } catch {
            let reason = (error as NSError).userInfo[NSUnderlyingErrorKey].map { "\($0)" } ?? "\(error)"
            StandardError.report("--out \(path): cannot make the folder: \(reason)")
            throw ExitStatus.badInput.exitCode
        }
    }
}
