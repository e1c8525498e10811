import ArgumentParser
import BLEHost
import BLELinux
import BLEWire
import Foundation
import Terminal

/// `hcipico bonds [list|remove ADDRESS]`: the bonds in the store, without their keys.
struct BondsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bonds",
        abstract: "List the bonds hcipico keeps, or forget one.",
        discussion: """
            The store holds one file per controller (named by its address, mode 0600) in --bonds (default \
            $HCIPICO_BONDS, /var/lib/hcipico/bonds as root, else ~/.local/state/hcipico/bonds). Keys are never \
            printed. 'remove' forgets the device in every controller's file.
            """,
        subcommands: [List.self, Remove.self],
        defaultSubcommand: List.self
    )

    struct Location: ParsableArguments {
        @Option(help: "The bond store's directory.")
        var bonds: String?

        var directory: String { bonds ?? BondStore.defaultDirectory }

        /// Every controller's store in the directory.
        func stores() -> [BondStore] { BondStore.all(in: directory) }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List every bond: controller, device, level.")

        @OptionGroup var location: Location

        @Flag(help: "One JSON object per bond.")
        var json = false

        func run() async throws {
            var failed = false
            for store in location.stores() {
                let bonds: [SecurityBond]
                do {
                    bonds = try store.load()
                } catch {
                    StandardError.report(error.description)
                    failed = true
                    continue
                }
                for bond in bonds { ValueText.emit(bond.listing(controller: store.controller, json: json) + "\n") }
            }
            if failed { throw ExitStatus.badInput.exitCode }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Forget a device's bond in every controller's file.")

        @OptionGroup var location: Location

        @Argument(help: ArgumentHelp("The device's address (or its identity address).", valueName: "device"))
        var device: String

        func validate() throws {
            guard BluetoothAddress(device) != nil else {
                throw ValidationError("'\(device)' is not a Bluetooth address (AA:BB:CC:DD:EE:FF)")
            }
        }

        func run() async throws {
            guard let address = BluetoothAddress(device) else { throw ExitStatus.badInput.exitCode }
            let removed: Int
            do {
                removed = try BondStore.forget(address, in: location.directory)
            } catch {
                StandardError.report(error.description)
                throw ExitStatus.writeFailed.exitCode
            }
            let kernel = await BondStore.forgetInKernel(address)
            guard removed + kernel > 0 else {
                StandardError.report("no bond with \(address) in \(location.directory)")
                throw ExitStatus.badInput.exitCode
            }
            var what = "\(removed) bond file\(removed == 1 ? "" : "s")"
            if kernel > 0 { what += ", the keys of \(kernel) kernel adapter\(kernel == 1 ? "" : "s")" }
            ValueText.emit("forgot \(address) (\(what))\n")
        }
    }
}
