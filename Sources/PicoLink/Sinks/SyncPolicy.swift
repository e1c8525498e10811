/// When the file sinks of a run flush what they wrote to the device (`fdatasync`). Every policy syncs
/// at the end of a run, before the end marker says `complete`.
public enum SyncPolicy: Sendable, Equatable {
    /// After every package: nothing written is ever lost, at one sync per package.
    case package
    /// At most this long after a package was written (the default, 1 s): a power cut loses at most
    /// the last interval.
    case interval(Duration)
    /// Only at the end of the run.
    case end

    /// One sync a second at most: `.interval(.seconds(1))`.
    public static let `default` = SyncPolicy.interval(.seconds(1))
}
