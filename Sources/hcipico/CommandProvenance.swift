import DeviceLinks
import Foundation
import PicoLink
import RigCore

/// The provenance `connect` and `console` give every output of a run: the tool, the device and how it
/// was reached, its firmware and serial number, the script and its SHA-256, the start time and the
/// link parameters.
enum CommandProvenance {
    static func make(
        target: DeviceTarget,
        link: OpenedPico,
        version: PicoVersion,
        serial: String?,
        title: String,
        script: PicoScript,
        deviceRun: Int = 1,
        linkNote: String = "",
        foundAtConnect: LeftoverScript? = nil
    ) -> RunProvenance {
        let (address, addressType, transport): (String?, String?, String) =
            switch target {
            case .simulator(let kind): (nil, nil, "sim:\(kind.rawValue)")
            case .radio(let address, let transport):
                (address.description, address.type == .public ? "public" : "random", "\(transport)")
            case .serialPort(let spec): (nil, nil, spec.description)
            }
        let text = script.lines.joined(separator: "\n")
        return RunProvenance(
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
            scriptSHA256: RunProvenance.scriptSHA256(of: text),
            link: link.summary + linkNote,
            toolVersion: "hcipico \(HCIPico.configuration.version)",
            startTime: Date().timeIntervalSince1970,
            foundAtConnect: foundAtConnect?.description
        )
    }
}
