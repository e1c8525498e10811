import Foundation

/// The serial ports this machine has, as a person writing a rig's config needs them: the stable
/// `/dev/serial/by-id/…` name where udev made one, the device it points to, and the USB adapter behind
/// it (vendor and product ids, names and serial number, from sysfs).
///
/// An EmStat Pico reaches the host through a generic FTDI USB-UART (vendor 0403), so the USB ids tell a
/// candidate, not a Pico: asking it `t` (`SerialPortProbe`) tells.
public struct SerialPortInventory: Sendable {
    /// One port.
    public struct Port: Sendable, Equatable {
        /// What to give as `tty:PATH`: the by-id link when there is one, else the device.
        public var path: String
        /// The device node (`/dev/ttyUSB0`).
        public var device: String
        /// The USB adapter, when the port is on one.
        public var usb: USBAdapter?

        /// Whether the adapter is an FTDI one, as a Pico's cable is.
        public var isFTDI: Bool { usb?.vendorID == USBAdapter.ftdiVendorID }

        /// The adapter's `vendor:product` ids, or `-` off USB.
        public var usbIDs: String { usb.map { "\($0.vendorID):\($0.productID)" } ?? "-" }

        /// The adapter in words: maker, product, serial number, and whether it is FTDI as a Pico's
        /// cable is; `-` off USB.
        public var adapterSummary: String {
            guard let usb else { return "-" }
            let words = [usb.manufacturer, usb.product, usb.serialNumber.map { "serial \($0)" }].compactMap { $0 }
            return words.joined(separator: " ") + (isFTDI ? " (FTDI, as a Pico's cable)" : "")
        }
    }

    /// A USB adapter as sysfs describes it.
    public struct USBAdapter: Sendable, Equatable {
        /// An adapter with these ids and names.
        public init(
            vendorID: String,
            productID: String,
            manufacturer: String? = nil,
            product: String? = nil,
            serialNumber: String? = nil
        ) {
            self.vendorID = vendorID
            self.productID = productID
            self.manufacturer = manufacturer
            self.product = product
            self.serialNumber = serialNumber
        }

        /// FTDI's USB vendor id.
        public static let ftdiVendorID = "0403"
        /// `idVendor`: four hex digits.
        public var vendorID: String
        /// `idProduct`: four hex digits.
        public var productID: String
        /// `manufacturer`, when the adapter gives one.
        public var manufacturer: String?
        /// `product`, when the adapter gives one.
        public var product: String?
        /// `serial`, when the adapter gives one (it is part of the by-id name).
        public var serialNumber: String?
    }

    /// Where udev keeps the by-id links (tests point it elsewhere).
    public var byIDDirectory = "/dev/serial/by-id"
    /// Where sysfs lists ttys.
    public var sysfsTTYDirectory = "/sys/class/tty"
    /// Where the device nodes are.
    public var deviceDirectory = "/dev"

    /// The inventory of this machine's ports.
    public init() {}

    /// The ports: every by-id link, then every `ttyUSBn` and `ttyACMn` no link points to, then `extra`
    /// paths as given (a pseudo-terminal's link, a port udev does not name); sorted by path within each.
    public func ports(extra: [String] = []) -> [Port] {
        let files = FileManager.default
        var ports: [Port] = []
        var covered: Set<String> = []
        let links = ((try? files.contentsOfDirectory(atPath: byIDDirectory)) ?? []).sorted()
        for name in links {
            let path = byIDDirectory + "/" + name
            let device = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
            covered.insert(device)
            ports.append(Port(path: path, device: device, usb: adapter(of: device)))
        }
        let nodes = ((try? files.contentsOfDirectory(atPath: deviceDirectory)) ?? [])
            .filter { $0.hasPrefix("ttyUSB") || $0.hasPrefix("ttyACM") }.sorted()
        for name in nodes where !covered.contains(deviceDirectory + "/" + name) {
            let device = deviceDirectory + "/" + name
            ports.append(Port(path: device, device: device, usb: adapter(of: device)))
        }
        for path in extra {
            let device = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
            ports.append(Port(path: path, device: device, usb: adapter(of: device)))
        }
        return ports
    }

    /// The USB adapter behind `device`: the nearest directory above its sysfs `device` link that has
    /// `idVendor`.
    func adapter(of device: String) -> USBAdapter? {
        let name = (device as NSString).lastPathComponent
        var directory = URL(fileURLWithPath: "\(sysfsTTYDirectory)/\(name)/device").resolvingSymlinksInPath()
        for _ in 0..<6 {
            if let vendor = read(directory, "idVendor"), let product = read(directory, "idProduct") {
                return USBAdapter(
                    vendorID: vendor,
                    productID: product,
                    manufacturer: read(directory, "manufacturer"),
                    product: read(directory, "product"),
                    serialNumber: read(directory, "serial")
                )
            }
            directory = directory.deletingLastPathComponent()
            if directory.path == "/" { break }
        }
        return nil
    }

    private func read(_ directory: URL, _ file: String) -> String? {
        guard let text = try? String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8) else {
            return nil
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }
}
