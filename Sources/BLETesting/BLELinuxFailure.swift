import BLELinux

/// The error `body` throws, or nil when it succeeds.
public func failure<Value>(_ body: () throws(BLELinuxError) -> Value) -> BLELinuxError? {
    do throws(BLELinuxError) {
        _ = try body()
        return nil
    } catch {
        return error
    }
}
