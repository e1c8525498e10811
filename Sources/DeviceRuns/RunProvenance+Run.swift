public import DeviceLinks
import Foundation
public import PicoLink

extension RunProvenance {
    /// The provenance of a run on an open Pico, as `connect` and the console give every output of it:
    /// the tool, the device and how it was reached, its firmware and serial number, the script and its
    /// SHA-256, the start time (now) and the link (`linkNote` follows its summary).
    public init(
        runOn link: OpenedPico,
        target: DeviceTarget,
        version: PicoVersion,
        serial: String?,
        title: String,
        script: PicoScript,
        deviceRun: Int = 1,
        linkNote: String = "",
        foundAtConnect: LeftoverScript? = nil,
        toolVersion: String
    ) {
        let (address, addressType, transport): (String?, String?, String) =
            switch target {
            case .simulator(let kind): (nil, nil, "sim:\(kind.rawValue)")
            case .radio(let address, let transport):
                (address.description, address.type == .public ? "public" : "random", "\(transport)")
            case .serialPort(let spec): (nil, nil, spec.description)
            }
        let text = script.lines.joined(separator: "\n")
        self.init(
            device: link.name,
            deviceRun: deviceRun,
            title: title,
            address: address,
            addressType: addressType,
            transport: transport,
            // As the device sent it, as the rig records it (`espico1209#…`).
            firmware: version.firmware,
            serialNumber: serial,
            scriptName: title,
            script: text,
            scriptSHA256: Self.scriptSHA256(of: text),
            link: link.summary + linkNote,
            toolVersion: toolVersion,
            startTime: Date().timeIntervalSince1970,
            foundAtConnect: foundAtConnect?.description
        )
    }
}
