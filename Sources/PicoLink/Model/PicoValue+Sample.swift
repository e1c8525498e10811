import MethodSCRIPT

extension PicoValue {
    /// A decoded MethodSCRIPT value as the sinks show it (names and range labels of the EmStat Pico).
    public init(sample: Sample) {
        let info = sample.variable.info
        self.init(
            code: sample.variable.code,
            quantity: info?.name ?? "unknown",
            unit: sample.variable.unit,
            value: sample.value,
            status: sample.range != nil || !sample.status.isEmpty ? sample.status.description : nil,
            range: sample.range.map { range in
                range.info(family: .pico, variable: sample.variable)?.label
                    ?? "0x" + String(range.rawValue, radix: 16, uppercase: true)
            }
        )
    }
}
