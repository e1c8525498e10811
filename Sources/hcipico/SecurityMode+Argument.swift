import ArgumentParser
import DeviceLinks

/// `--security`: how secured a link must be before it is used (`SecurityMode` says each level).
extension SecurityMode: ExpressibleByArgument {}
