extension Technique {
    /// The technique a user named, in any case: `CV`, `cv` and `Cv` are `.cv`.
    public init?(named name: String) { self.init(rawValue: name.lowercased()) }
}
