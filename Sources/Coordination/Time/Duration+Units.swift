extension Duration {
    /// This duration in seconds, as a floating-point number: for rates, reports and the interfaces
    /// that take seconds (`Date`, `timeIntervalSince`).
    @inlinable public var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }

    /// This duration in milliseconds, as a floating-point number.
    @inlinable public var inMilliseconds: Double {
        Double(components.seconds) * 1e3 + Double(components.attoseconds) * 1e-15
    }

    /// This duration in microseconds, as a floating-point number.
    @inlinable public var inMicroseconds: Double {
        Double(components.seconds) * 1e6 + Double(components.attoseconds) * 1e-12
    }

    /// This duration in nanoseconds, as a floating-point number.
    @inlinable public var inNanoseconds: Double {
        Double(components.seconds) * 1e9 + Double(components.attoseconds) * 1e-9
    }
}
