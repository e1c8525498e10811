public import ComplexModule
import RealModule

/// The points of an impedance scan: each frequency and the impedance measured at it.
public struct ImpedanceSpectrum: Sendable, Hashable {
    /// The frequencies (Hz), in the order measured.
    public var frequencies: [Double]
    /// The impedances (Ω): Z′ + jZ″, Z″ negative for a capacitive cell.
    public var impedances: [Complex<Double>]

    /// A spectrum of equally many frequencies and impedances.
    public init(frequencies: [Double], impedances: [Complex<Double>]) {
        precondition(frequencies.count == impedances.count, "an impedance for each frequency")
        self.frequencies = frequencies
        self.impedances = impedances
    }

    /// A spectrum from the real and imaginary parts.
    public init(frequencies: [Double], real: [Double], imaginary: [Double]) {
        precondition(real.count == imaginary.count, "an imaginary part for each real part")
        self.init(frequencies: frequencies, impedances: zip(real, imaginary).map { Complex($0, $1) })
    }
}
