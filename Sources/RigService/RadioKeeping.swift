import DeviceLinks
import RigCore
import ServiceLifecycle

/// The radio side the devices share, as a service: the kernel adapters watched and brought back
/// until the rig shuts down, then hcipico's own hosts shut down (every link on them ends).
struct RadioKeeping: Service {
    let adapters: AdapterKeeper
    let hosts: SharedHosts

    func run() async {
        await cancelWhenGracefulShutdown { [adapters] in await adapters.run() }
        await hosts.shutdown()
    }
}
