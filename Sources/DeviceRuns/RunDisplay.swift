public import PicoAnalysis
public import PicoLink

/// What a program shows of a run as it goes (a terminal's table and progress line): the device that
/// answered, every event, the end, and the run's analysis. What the run has to say otherwise (a
/// failure, the files written, what became of the cell) goes to its logger.
public protocol RunDisplay {
    /// The device that answered, before its run starts.
    func banner(_ version: PicoVersion)
    /// One event of the run, as it comes.
    func show(_ event: PicoEvent)
    /// The run has ended: the last of the live view.
    func finish()
    /// The run's peaks or circuit fit, once it has ended (not called when it was not analysed).
    func report(_ analysis: RunAnalysis)
}
