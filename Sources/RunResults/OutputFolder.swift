import Foundation

/// `--out DIR`: the folder a run's named files go into, made when it is not there (its parent must be).
public enum OutputFolder {
    /// Why the folder cannot be used; its description names the option and the path.
    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }

    /// Makes sure `path` is a folder: there already, or made now.
    public static func prepare(_ path: String) throws(Problem) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw Problem(description: "--out \(path): not a folder") }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        } catch {
            let reason = (error as NSError).userInfo[NSUnderlyingErrorKey].map { "\($0)" } ?? "\(error)"
            throw Problem(description: "--out \(path): cannot make the folder: \(reason)")
        }
    }
}
