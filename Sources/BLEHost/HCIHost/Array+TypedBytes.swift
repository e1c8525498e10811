extension Array where Element == UInt8 {
    /// `withUnsafeBytes` keeping the body's typed error (for this package's modules).
    package func withTypedBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let outcome: Swift.Result<Result, Failure> = withUnsafeBytes { bytes in
            do throws(Failure) { return .success(try body(bytes)) } catch { return .failure(error) }
        }
        return try outcome.get()
    }

    /// `withUnsafeMutableBytes` keeping the body's typed error (for this package's modules).
    package mutating func withTypedMutableBytes<Result, Failure: Error>(
        _ body: (UnsafeMutableRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let outcome: Swift.Result<Result, Failure> = withUnsafeMutableBytes { bytes in
            do throws(Failure) { return .success(try body(bytes)) } catch { return .failure(error) }
        }
        return try outcome.get()
    }
}
