/// Limits of the MethodSCRIPT protocol that the host must respect, and the decoder's own bounds.
public enum MethodSCRIPTLimits {
    /// The longest script line an EmStat Pico accepts, newline excluded.
    public static let maximumScriptLineLength = 128

    /// The longest reply line the decoders accept by default, newline excluded. The device's own example
    /// host code reads replies into a 1000-byte buffer; longer lines are reported as errors.
    public static let defaultMaximumReplyLineLength = 1024

    /// The offset the device adds to every 28-bit value: `raw = hex − 2^27`.
    public static let valueOffset: Int32 = 0x800_0000
}
