#!/usr/bin/env python3
"""Independent BLE test peer built on Google's Bumble.

Emulated controllers share one link: N peripherals (Bumble hosts serving the Laird VSP
service with a simulated EmStat Pico, or an echo) and one central-side controller whose HCI
is exposed to the host under test as H4 over TCP (or any Bumble transport, e.g. `pty:`).

stdout carries machine-readable lines only:
  READY port=<tcp port|0> central=<BD_ADDR> peripherals=<addr>,<addr>... le_acl_len=<n>
  EVENT {"event": "...", ...}            (one JSON object per line)
Logs go to stderr. SIGTERM/SIGINT end the peer cleanly (the btsnoop file is complete).

Run: .venv/bin/python Tests/Peers/picopeer.py --listen 127.0.0.1:0 [--le-acl-len 251] ...
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import sys
import time

from bumble import hci
from bumble.device import Device
from bumble.host import Host
from bumble.transport import open_transport
from bumble.transport.common import AsyncPipeSink

from h4server import H4Server
from peerlink import PeerController, PeerLink, strip_extended_features
from profiles import CORRUPTIONS, ProfileServer, corrupt
from profiles import advertising_data as profile_advertising_data
from secure import IO_CAPABILITIES, add_protected_service, configure_pairing, forget_bonds, watch_pairing
from vsp import VSP_SERVICE_UUID, VspServer

FIRST_PERIPHERAL_ADDRESS = 0xF0_11_22_33_44_55  # random static (two top bits set)
DEFAULT_CENTRAL_ADDRESS = "00:00:5E:00:53:01"  # from the documentation MAC range (RFC 7042)
log = logging.getLogger("picopeer")


def emit(event: str, **fields) -> None:
    record = {"event": event, "t": round(time.monotonic(), 6), **fields}
    print("EVENT " + json.dumps(record, default=str), flush=True)


def peripheral_address(index: int) -> str:
    value = FIRST_PERIPHERAL_ADDRESS + index
    return ":".join(f"{(value >> shift) & 0xFF:02X}" for shift in range(40, -8, -8))


def advertising_data(name: str) -> bytes:
    import uuid

    service = bytes(reversed(uuid.UUID(VSP_SERVICE_UUID).bytes))
    encoded_name = name.encode()
    data = bytes([2, 0x01, 0x06]) + bytes([17, 0x07]) + service
    data += bytes([len(encoded_name) + 1, 0x09]) + encoded_name
    if len(data) > 31:
        raise SystemExit(f"picopeer: advertising data for name {name!r} exceeds 31 bytes")
    return data


async def start_peripheral(link, index: int, options) -> Device:
    address = peripheral_address(index)
    name = options.name if index == 0 else f"{options.name}{index + 1}"
    controller = PeerController(f"peripheral{index + 1}", link=link)
    controller.le_acl_data_packet_length = 251  # the peer's own host is not under test
    device = Device(name=name, address=hci.Address(address), host=Host(controller, AsyncPipeSink(controller)))
    mode = options.modes[index % len(options.modes)]
    if mode == "profiles":
        server = None
        ProfileServer(device, emit=emit)
        advertisement = profile_advertising_data(name)
    else:
        server = VspServer(device, mode=mode, emit=emit, pace=options.pace,
                           chunk=options.chunk, disconnect_after=options.disconnect_after)
        advertisement = advertising_data(name)
    if options.corrupt:
        corrupt(device, options.corrupt, emit)
    if options.protect:
        add_protected_service(device)
    if options.protect_rx and server is not None:
        server.rx.permissions |= server.rx.Permissions.WRITE_REQUIRES_ENCRYPTION
    configure_pairing(device, options, emit, address)

    def on_connection(connection):
        if server is not None:
            server.open(connection)
        emit("connected", peripheral=address, handle=connection.handle, central=str(connection.peer_address))
        watch_pairing(device, connection, emit, address, request=options.security_request)

        def on_disconnection(reason):
            if server is not None:
                server.close(connection)
            emit("disconnected", peripheral=address, handle=connection.handle, reason=reason)

        def on_mtu():
            emit("mtu", peripheral=address, handle=connection.handle, mtu=connection.att_mtu)

        connection.on(connection.EVENT_DISCONNECTION, on_disconnection)
        connection.on(connection.EVENT_CONNECTION_ATT_MTU_UPDATE, on_mtu)
        if options.conn_update:
            asyncio.create_task(request_parameter_update(connection, address, options.conn_update_delay))
        if options.signal_flood:
            asyncio.create_task(flood_signaling(device, connection, address, options))

    device.on(device.EVENT_CONNECTION, on_connection)
    if server is not None:
        server.tx.on(server.tx.EVENT_SUBSCRIPTION, lambda connection, notify, indicate: emit(
            "subscribed", peripheral=address, handle=connection.handle, notify=bool(notify)))
    await device.power_on()
    await device.start_advertising(auto_restart=True, advertising_data=advertisement,
                                   advertising_interval_min=20, advertising_interval_max=20)
    return device


async def request_parameter_update(connection, address: str, delay: float) -> None:
    """Peripheral-initiated L2CAP Connection Parameter Update Request (15-30 ms, 0, 4 s)."""
    await asyncio.sleep(delay)
    try:
        await asyncio.wait_for(connection.update_parameters(15, 30, 0, 4000, use_l2cap=True), 5.0)
        result = "accepted"
    except asyncio.TimeoutError:
        result = "no-response"
    except Exception as error:  # a rejection arrives as an error carrying the result code
        result = f"rejected:{error}"
    emit("conn-param-update", peripheral=address, handle=connection.handle, result=result)


async def flood_signaling(device, connection, address: str, options) -> None:
    """A hostile peripheral: waves of L2CAP Connection Parameter Update Requests the host must reject
    (a supervision timeout of 100 ms is shorter than the interval allows), sent as fast as the link
    takes them, raw on the LE signaling channel (CID 5) so that nothing waits for the answers. Starts
    once the host has subscribed; reports each wave (`signal-flood-wave`) and pauses before the next."""
    await asyncio.sleep(options.signal_flood_delay)
    for wave in range(1, options.signal_waves + 1):
        for index in range(options.signal_flood):
            identifier = index % 255 + 1
            # code 0x12, identifier, length 8; interval 40-40, latency 4, timeout 10 (100 ms): invalid.
            pdu = bytes([0x12, identifier, 8, 0, 40, 0, 40, 0, 4, 0, 10, 0])
            device.send_l2cap_pdu(connection.handle, 5, pdu)
            if index % 200 == 199:
                await asyncio.sleep(0)
            if connection.handle not in device.connections:
                emit("signal-flood-stopped", peripheral=address, wave=wave, sent=index + 1)
                return
        emit("signal-flood-wave", peripheral=address, handle=connection.handle, wave=wave,
             sent=options.signal_flood)
        await asyncio.sleep(options.signal_wave_pause)


async def main(options) -> int:
    link = PeerLink()
    central = PeerController("central", link=link, public_address=options.central_address,
                             fragment_to_host=not options.no_fragment)
    central.le_acl_data_packet_length = options.le_acl_len
    central.total_num_le_acl_data_packets = options.le_acl_count
    if options.legacy_only:
        strip_extended_features(central)
    devices = [await start_peripheral(link, index, options) for index in range(options.peripherals)]

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    # SIGHUP: the peripherals forget every bond (a device whose pairing was deleted on its side).
    loop.add_signal_handler(signal.SIGHUP, lambda: asyncio.ensure_future(forget_bonds(devices, emit)))

    port = 0
    server = None
    transport = None
    if options.transport:
        transport = await open_transport(options.transport)  # no capture on this path
        central.host = transport.sink
        transport.source.set_packet_sink(central)
    else:
        host, _, port_text = options.listen.rpartition(":")
        server = H4Server(central, btsnoop_path=options.btsnoop, emit=emit)
        port = await server.start(host or "127.0.0.1", int(port_text))
        # SIGUSR1 hangs the controller (nothing crosses its HCI), SIGUSR2 revives it.
        loop.add_signal_handler(signal.SIGUSR1, server.mute)
        loop.add_signal_handler(signal.SIGUSR2, server.unmute)
    addresses = ",".join(peripheral_address(i) for i in range(options.peripherals))
    print(f"READY port={port} central={options.central_address} peripherals={addresses} "
          f"le_acl_len={options.le_acl_len} mode={options.mode}", flush=True)
    await stop.wait()
    if server is not None:
        server.close()
    if transport is not None:
        await transport.close()
    return 0


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    target = parser.add_mutually_exclusive_group()
    target.add_argument("--listen", default="127.0.0.1:0", metavar="HOST:PORT",
                        help="H4 over TCP server for the central-side controller (port 0: any free port)")
    target.add_argument("--transport", metavar="SPEC", help="any Bumble transport instead, e.g. pty:hci-peer (a link to the pty)")
    parser.add_argument("--le-acl-len", type=int, default=27, help="LE ACL buffer size reported to the host (27 or 251)")
    parser.add_argument("--le-acl-count", type=int, default=8, help="LE ACL buffers (host credits)")
    parser.add_argument("--peripherals", type=int, default=1, choices=range(1, 5))
    parser.add_argument("--mode", default="pico", metavar="pico|echo|profiles[,…]",
                        help="behaviour behind the VSP service, or Bumble's own profiles instead of it "
                             "(profiles.py); a comma list gives each peripheral its own")
    parser.add_argument("--corrupt", choices=CORRUPTIONS,
                        help="rewrite the peripherals' ATT responses on purpose (profiles.py)")
    parser.add_argument("--name", default="PicoSim", help="first peripheral's name; others get 2, 3, ...")
    parser.add_argument("--pace", type=float, default=0.0, help="script sample interval multiplier (0: no waiting)")
    parser.add_argument("--chunk", type=int, default=0, help="max notification payload (0: ATT_MTU - 3)")
    parser.add_argument("--disconnect-after", type=int, default=0, metavar="N",
                        help="peripheral disconnects after sending N notifications on a connection")
    parser.add_argument("--conn-update", action="store_true",
                        help="peripheral sends an L2CAP Connection Parameter Update Request after connecting")
    parser.add_argument("--conn-update-delay", type=float, default=0.2)
    parser.add_argument("--signal-flood", type=int, default=0, metavar="N",
                        help="a hostile peripheral: N rejected L2CAP parameter requests per wave, once connected")
    parser.add_argument("--signal-waves", type=int, default=3, metavar="W", help="waves of --signal-flood")
    parser.add_argument("--signal-flood-delay", type=float, default=2.0, help="seconds after connecting")
    parser.add_argument("--signal-wave-pause", type=float, default=3.0, help="seconds between waves")
    parser.add_argument("--btsnoop", metavar="FILE", help="capture the central-side controller's HCI traffic")
    parser.add_argument("--no-fragment", action="store_true",
                        help="keep Bumble's unfragmented controller-to-host ACL (up to 251 bytes)")
    parser.add_argument("--legacy-only", action="store_true",
                        help="central-side controller reports no extended advertising support")
    parser.add_argument("--central-address", default=DEFAULT_CENTRAL_ADDRESS)
    parser.add_argument("--pairing", choices=("sc", "legacy"),
                        help="peripherals pair with LE Secure Connections or LE legacy pairing, MITM asked for (secure.py)")
    parser.add_argument("--io", choices=tuple(IO_CAPABILITIES), default="none",
                        help="the peripherals' IO capability for pairing")
    parser.add_argument("--passkey", type=int, default=123456, help="the passkey the peripherals show or type")
    parser.add_argument("--protect", action="store_true",
                        help="add values that need an encrypted or an authenticated link (secure.py)")
    parser.add_argument("--security-request", action="store_true",
                        help="peripherals send an SMP Security Request right after connecting (secure.py)")
    parser.add_argument("--protect-rx", action="store_true",
                        help="VSP RX writes need an encrypted link (Insufficient Encryption otherwise)")
    parser.add_argument("-v", "--verbose", action="count", default=0)
    options = parser.parse_args(argv)
    if options.le_acl_len < 27 or options.le_acl_len > 251:
        parser.error("--le-acl-len must be 27..251")
    options.modes = options.mode.split(",")
    if any(mode not in ("pico", "echo", "profiles") for mode in options.modes):
        parser.error("--mode takes pico, echo, profiles or a comma list of them")
    if options.btsnoop and options.transport:
        parser.error("--btsnoop needs --listen")
    return options


if __name__ == "__main__":
    arguments = parse_arguments(sys.argv[1:])
    level = (logging.WARNING, logging.INFO, logging.DEBUG)[min(arguments.verbose, 2)]
    logging.basicConfig(level=level, stream=sys.stderr, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    sys.exit(asyncio.run(main(arguments)))
