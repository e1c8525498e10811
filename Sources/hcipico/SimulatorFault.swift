import ArgumentParser
import DeviceLinks

/// The hidden `--sim-fault` option: a fault the built-in simulators can be given, so that the command
/// line's handling of misbehaving devices can be exercised without a radio.
extension SimulatorFault: ExpressibleByArgument {}
