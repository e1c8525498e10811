extension Array where Element == UInt8 {
    /// `withUnsafeBytes` that keeps the body's typed error.
    func withBytes<Value, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Value
    ) throws(Failure) -> Value {
        let result: Result<Value, Failure> = withUnsafeBytes { bytes in
            do throws(Failure) {
                return .success(try body(bytes))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// `withUnsafeMutableBytes` that keeps the body's typed error.
    mutating func withMutableBytes<Value, Failure: Error>(
        _ body: (UnsafeMutableRawBufferPointer) throws(Failure) -> Value
    ) throws(Failure) -> Value {
        let result: Result<Value, Failure> = withUnsafeMutableBytes { bytes in
            do throws(Failure) {
                return .success(try body(bytes))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
