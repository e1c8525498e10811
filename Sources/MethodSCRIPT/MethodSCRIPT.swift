/// Limits of the MethodSCRIPT protocol that the host must respect.
public enum MethodSCRIPTLimits {
    /// The longest script line an EmStat Pico accepts, newline excluded.
    public static let maximumScriptLineLength = 128
}
