import DeviceLinks
import Foundation
import Testing

/// The inventory reads udev's by-id links and sysfs as Linux lays them out: here a made-up tree with an
/// FTDI cable behind a by-id link, a CDC-ACM board without one, and a path given by hand.
@Suite struct SerialPortInventoryTests {
    @Test func byIDLinksComeFirstWithTheirUSBAdapterThenUnnamedPortsThenExtras() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("ports-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let files = FileManager.default
        func directory(_ path: String) throws -> URL {
            let url = root.appendingPathComponent(path)
            try files.createDirectory(at: url, withIntermediateDirectories: true)
            return url
        }
        func write(_ text: String, _ path: String) throws {
            try (text + "\n").write(to: root.appendingPathComponent(path), atomically: true, encoding: .utf8)
        }
        let dev = try directory("dev")
        for node in ["ttyUSB0", "ttyACM0", "ttyS0"] { try write("", "dev/\(node)") }
        let byID = try directory("dev/serial/by-id")
        let link = byID.appendingPathComponent("usb-FTDI_FT230X_Basic_UART_DK0ABCDE-if00-port0")
        try files.createSymbolicLink(atPath: link.path, withDestinationPath: dev.appendingPathComponent("ttyUSB0").path)
        // sysfs: the tty's `device` is the USB interface; the USB device with its ids is its parent.
        let ftdi = try directory("sys/devices/usb1/1-1")
        try write("0403", "sys/devices/usb1/1-1/idVendor")
        try write("6015", "sys/devices/usb1/1-1/idProduct")
        try write("FTDI", "sys/devices/usb1/1-1/manufacturer")
        try write("FT230X Basic UART", "sys/devices/usb1/1-1/product")
        try write("DK0ABCDE", "sys/devices/usb1/1-1/serial")
        let interface = try directory("sys/devices/usb1/1-1/1-1:1.0")
        let acm = try directory("sys/devices/usb1/1-2")
        try write("2fe3", "sys/devices/usb1/1-2/idVendor")
        try write("0100", "sys/devices/usb1/1-2/idProduct")
        let acmInterface = try directory("sys/devices/usb1/1-2/1-2:1.0")
        for (name, target) in [("ttyUSB0", interface), ("ttyACM0", acmInterface)] {
            let tty = try directory("sys/class/tty/\(name)")
            try files.createSymbolicLink(
                atPath: tty.appendingPathComponent("device").path,
                withDestinationPath: target.path
            )
        }
        _ = (ftdi, acm)
        var inventory = SerialPortInventory()
        inventory.byIDDirectory = byID.path
        inventory.deviceDirectory = dev.path
        inventory.sysfsTTYDirectory = root.appendingPathComponent("sys/class/tty").path
        let ports = inventory.ports(extra: ["/nonexistent/pico"])
        #expect(ports.map(\.path) == [link.path, dev.appendingPathComponent("ttyACM0").path, "/nonexistent/pico"])
        #expect(ports[0].device == dev.appendingPathComponent("ttyUSB0").resolvingSymlinksInPath().path)
        #expect(
            ports[0].usb
                == .init(
                    vendorID: "0403",
                    productID: "6015",
                    manufacturer: "FTDI",
                    product: "FT230X Basic UART",
                    serialNumber: "DK0ABCDE"
                )
        )
        #expect(ports[0].isFTDI)
        #expect(ports[1].usb?.vendorID == "2fe3" && ports[1].usb?.manufacturer == nil && !ports[1].isFTDI)
        #expect(ports[2].usb == nil)
        // As `hcipico ports` shows them.
        #expect(ports.map(\.usbIDs) == ["0403:6015", "2fe3:0100", "-"])
        #expect(ports[0].adapterSummary == "FTDI FT230X Basic UART serial DK0ABCDE (FTDI, as a Pico's cable)")
        #expect(ports[1].adapterSummary == "" && ports[2].adapterSummary == "-")
    }
}
