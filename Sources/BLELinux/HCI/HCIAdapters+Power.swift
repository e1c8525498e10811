internal import CBlueZ
internal import Glibc

extension HCIAdapters {
    /// Powers the adapter on (`HCIDEVUP`), as `hciconfig hciN up` does: the kernel resets and
    /// initialises the controller. An adapter already up is left alone. Needs `CAP_NET_ADMIN`.
    public static func bringUp(_ name: HCIAdapterName) throws(BLELinuxError) {
        do throws(SystemError) {
            let control = try openControlSocket()
            do throws(SystemError) {
                try control.ioctl(cbluez_hcidevup(), value: UInt(name.index))
            } catch {
                guard error.errno == EALREADY else { throw error }
            }
        } catch {
            throw BLELinuxError(error, subject: "\(name) (HCIDEVUP)")
        }
    }

    /// Powers the adapter off and on again (`HCIDEVDOWN`, `HCIDEVUP`): every link on it ends, and the
    /// kernel resets and initialises the controller from scratch. Needs `CAP_NET_ADMIN`.
    public static func reset(_ name: HCIAdapterName) throws(BLELinuxError) {
        do throws(SystemError) {
            let control = try openControlSocket()
            try control.ioctl(cbluez_hcidevdown(), value: UInt(name.index))
        } catch {
            throw BLELinuxError(error, subject: "\(name) (HCIDEVDOWN)")
        }
        try bringUp(name)
    }
}
