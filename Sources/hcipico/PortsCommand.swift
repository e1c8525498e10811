import ArgumentParser
import DeviceLinks
import Foundation
import PicoLink
import RunResults
import Terminal

/// `hcipico ports`: the serial ports that may have an EmStat Pico on them, and with `--probe` what
/// answers on each, so that a user can write `transport = "tty:…"` in a rig's config.
struct PortsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ports",
        abstract: "List the serial ports an EmStat Pico may be on (a USB-UART cable), and ask each what it is.",
        discussion: """
            Lists every /dev/serial/by-id link (the stable name to put in a rig's config: it names the \
            adapter and its serial number, so it survives a replug on another ttyUSBn), then every ttyUSB \
            and ttyACM no link names, with the USB adapter's vendor:product ids. An EmStat Pico's cable is \
            a generic FTDI one (0403:…). With --probe each port is opened at --baud and asked t (the \
            firmware) and i (the serial number); a port another program holds is reported so and left alone. \
            Exit 0 when the listing could be made, even if it is empty.
            """
    )

    @Flag(help: "Open each port and ask the device its firmware (t) and serial number (i).")
    var probe = false

    @Option(help: "With --probe: the rate to ask at.")
    var baud = SerialPortSpec.picoBaudRate

    @Option(name: .customLong("port"), help: "Also list (and probe) this path; repeatable.")
    var ports: [String] = []

    func validate() throws {
        if let bad = ports.first(where: { !$0.hasPrefix("/") }) {
            throw ValidationError("--port \(bad): give an absolute path")
        }
        do {
            _ = try SerialPortSpec(parsing: "tty:/x@\(baud)")
        } catch {
            throw ValidationError("--baud \(baud) is not a rate termios supports")
        }
    }

    func run() async throws {
        let found = SerialPortInventory().ports(extra: ports)
        if found.isEmpty {
            print("no serial ports (no /dev/serial/by-id, ttyUSB or ttyACM); is the cable plugged in?")
            return
        }
        let opener = LinkOpener(logger: ReportLogHandler.logger)
        var rows: [[String]] = []
        for port in found {
            var row = [port.path, port.device, port.usbIDs, port.adapterSummary]
            if probe {
                let spec = SerialPortSpec(path: port.path, baudRate: baud)
                row.append(await opener.probeSerialPort(spec).description)
            }
            rows.append(row)
        }
        let header = ["port", "device", "usb", "adapter"] + (probe ? ["answer"] : [])
        print(TextColumn.table(header: header, rows: rows))
    }
}
