#!/usr/bin/env python3
"""Reference central: Bumble's own host, over H4/TCP, against the test peer (picopeer.py).

It runs the scenario our host runs (power on, scan for the VSP service, connect, MTU 247,
discover, subscribe to TX) and then, with the peer in echo mode, measures write -> notify
round trips (write request and write command) and the notification rate of a blast; with
the peer in Pico mode it checks the version reply and one script run; in the pairing scenario
(peer started with --pairing sc --protect) it times pairing + the first read of an encrypted
value, then a reconnect that encrypts from the bond + the same read, over --rounds rounds. It prints one JSON
object on stdout and exits 0 when every check passed, 1 otherwise, 2 on bad usage.

  .venv/bin/python Tests/Peers/anchor.py --port PORT [--scenario echo|pico] [--rounds 200]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import statistics
import struct
import sys
import time

from bumble import hci
from bumble.core import UUID, AdvertisingData
from bumble.device import Device, Peer
from bumble.pairing import PairingConfig, PairingDelegate
from bumble.transport import open_transport

from pico import PUBLISHED_PACKAGES
from secure import ENCRYPTED_VALUE, SECURE_ENCRYPTED_UUID, SECURE_SERVICE_UUID
from vsp import RX_UUID, TX_UUID, VSP_SERVICE_UUID

ANCHOR_ADDRESS = "C0:00:00:00:00:02"  # random static address of the anchor host


def millis(nanoseconds: int) -> float:
    return round(nanoseconds / 1e6, 4)


def summary(samples_ns: list[int]) -> dict[str, float]:
    ordered = sorted(samples_ns)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return {"n": len(ordered), "median_ms": millis(int(statistics.median(ordered))),
            "p95_ms": millis(pick(0.95)), "p99_ms": millis(pick(0.99)),
            "min_ms": millis(ordered[0]), "max_ms": millis(ordered[-1])}


class Link:
    """One connection to a peripheral: its RX characteristic and the TX notifications."""

    def __init__(self, index: int, connection, rx, mtu: int):
        self.index = index
        self.connection = connection
        self.rx = rx
        self.mtu = mtu
        self.inbox: asyncio.Queue[bytes] = asyncio.Queue()

    def name(self, check: str) -> str:
        return check if self.index == 0 else f"{check}[{self.index}]"


class Anchor:
    def __init__(self, options):
        self.options = options
        self.result: dict = {"host": "bumble", "scenario": options.scenario, "checks": {}}

    def check(self, name: str, ok: bool, detail=None) -> None:
        self.result["checks"][name] = {"ok": bool(ok), **({"detail": detail} if detail is not None else {})}

    async def run(self) -> bool:
        spec = f"tcp-client:{self.options.host}:{self.options.port}"
        async with await open_transport(spec) as (source, sink):
            device = Device.with_hci("anchor", hci.Address(ANCHOR_ADDRESS), source, sink)
            t = time.perf_counter_ns()
            await device.power_on()
            self.result["power_on_ms"] = millis(time.perf_counter_ns() - t)
            addresses = await self.scan(device, self.options.peripherals)
            if self.options.scenario == "pairing":
                await self.pairing(device, addresses[0])
                return all(c["ok"] for c in self.result["checks"].values())
            links = [await self.open_link(device, address, index) for index, address in enumerate(addresses)]
            if self.options.scenario == "echo":
                await self.echo(links[0])
            else:
                await asyncio.gather(*(self.pico(link) for link in links))
            for link in links:
                await link.connection.disconnect()
        return all(c["ok"] for c in self.result["checks"].values())

    async def open_link(self, device, address, index: int) -> Link:
        """Connect, MTU 247, discover VSP, subscribe to TX; timings of the first link kept."""
        t = time.perf_counter_ns()
        connection = await device.connect(address, timeout=10)
        connect_ms = millis(time.perf_counter_ns() - t)
        peer = Peer(connection)
        t = time.perf_counter_ns()
        mtu = await peer.request_mtu(247)
        await peer.discover_service(VSP_SERVICE_UUID)
        service = peer.get_services_by_uuid(UUID(VSP_SERVICE_UUID))[0]
        await service.discover_characteristics()
        tx = service.get_characteristics_by_uuid(UUID(TX_UUID))[0]
        rx = service.get_characteristics_by_uuid(UUID(RX_UUID))[0]
        link = Link(index, connection, rx, mtu)
        await peer.subscribe(tx, lambda value: link.inbox.put_nowait(bytes(value)))
        if index == 0:
            self.result.update(connect_ms=connect_ms, mtu=mtu,
                               discover_subscribe_ms=millis(time.perf_counter_ns() - t))
        self.check(link.name("mtu"), mtu == 247, mtu)
        return link

    async def pairing(self, device, address) -> None:
        """Pair (Just Works, bonding) + read; disconnect; reconnect + encrypt from the bond + read."""
        # As hcipico does: the central distributes no keys of its own (it connects from a static random
        # address, which must stay the name the peripheral files the bond under).
        delegate = PairingDelegate(local_initiator_key_distribution=PairingDelegate.KeyDistribution(0))
        device.pairing_config_factory = lambda connection: PairingConfig(sc=True, mitm=True, bonding=True,
                                                                         delegate=delegate)
        pair_ns, again_ns, handle, wrong = [], [], None, []
        for index in range(self.options.rounds):
            connection = await device.connect(address, timeout=10)
            peer = Peer(connection)
            await peer.request_mtu(247)
            if handle is None:
                await peer.discover_service(SECURE_SERVICE_UUID)
                service = peer.get_services_by_uuid(UUID(SECURE_SERVICE_UUID))[0]
                await service.discover_characteristics()
                handle = service.get_characteristics_by_uuid(UUID(SECURE_ENCRYPTED_UUID))[0].handle
            t = time.perf_counter_ns()
            await connection.pair()
            value = await peer.read_value(handle)
            pair_ns.append(time.perf_counter_ns() - t)
            if value != ENCRYPTED_VALUE:
                wrong.append(f"pair {index}")
            await connection.disconnect()
            t = time.perf_counter_ns()
            connection = await device.connect(address, timeout=10)
            await connection.encrypt()
            peer = Peer(connection)
            await peer.request_mtu(247)
            value = await peer.read_value(handle)
            again_ns.append(time.perf_counter_ns() - t)
            if value != ENCRYPTED_VALUE:
                wrong.append(f"reconnect {index}")
            await connection.disconnect()
        self.check("encrypted_reads", not wrong, wrong or None)
        self.result["pair_read"] = summary(pair_ns)
        self.result["reconnect_read"] = summary(again_ns)

    async def scan(self, device, count: int) -> list[hci.Address]:
        found: list[hci.Address] = []
        kinds: set[str] = set()
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        wanted = UUID(VSP_SERVICE_UUID)

        def on_advertisement(advertisement):
            uuids = advertisement.data.get(AdvertisingData.COMPLETE_LIST_OF_128_BIT_SERVICE_CLASS_UUIDS) or []
            if wanted in uuids:
                kinds.add("legacy" if advertisement.is_legacy else "extended")
            if wanted in uuids and advertisement.address not in found:
                found.append(advertisement.address)
                if len(found) == count and not done.done():
                    done.set_result(None)

        device.on(device.EVENT_ADVERTISEMENT, on_advertisement)
        t = time.perf_counter_ns()
        await device.start_scanning(legacy=self.options.legacy_scan, filter_duplicates=True)
        await asyncio.wait_for(done, 5.0)
        self.result["scan_ms"] = millis(time.perf_counter_ns() - t)
        await device.stop_scanning()
        # Reports must match the scan commands used: legacy (LE Meta 0x02) after a legacy
        # scan, extended (0x0D) after an extended one.
        expected = "legacy" if self.options.legacy_scan else "extended"
        self.result["advertising_reports"] = sorted(kinds)
        self.check("advertising_reports", kinds == {expected}, sorted(kinds))
        self.result["peers"] = [str(address) for address in found]
        return found

    async def echo(self, link: Link) -> None:
        timeout, rx = self.options.timeout, link.rx
        for label, with_response in (("write_req", True), ("write_cmd", False)):
            samples = []
            for index in range(self.options.rounds):
                payload = f"{label} {index:06d}".encode()
                t = time.perf_counter_ns()
                await rx.write_value(payload, with_response=with_response)
                echoed = await asyncio.wait_for(link.inbox.get(), timeout)
                samples.append(time.perf_counter_ns() - t)
                if echoed != payload:
                    self.check(f"rtt_{label}", False, f"round {index}: sent {payload!r}, got {echoed!r}")
                    return
            self.result[f"rtt_{label}"] = summary(samples)
            self.check(f"rtt_{label}", True)
        count, size = self.options.blast, link.mtu - 3
        t = time.perf_counter_ns()
        await rx.write_value(f"blast {count} {size}".encode(), with_response=False)
        received, in_order = 0, True
        while received < count:
            value = await asyncio.wait_for(link.inbox.get(), timeout)
            in_order &= len(value) == size and struct.unpack_from("<I", value)[0] == received
            received += 1
        seconds = (time.perf_counter_ns() - t) / 1e9
        self.result["blast"] = {"notifications": count, "payload": size, "seconds": round(seconds, 4),
                                "notifications_per_s": round(count / seconds, 1),
                                "bytes_per_s": round(count * size / seconds, 1)}
        self.check("blast_in_order", in_order)

    async def read_until(self, link: Link, terminator: bytes) -> bytes:
        data = bytearray()
        while not data.endswith(terminator):
            data += await asyncio.wait_for(link.inbox.get(), self.options.timeout)
        return bytes(data)

    async def pico(self, link: Link) -> None:
        rx, read_until, name = link.rx, functools.partial(self.read_until, link), link.name
        timing = (lambda key, value: self.result.__setitem__(key, value)) if link.index == 0 else (lambda *_: None)
        t = time.perf_counter_ns()
        await rx.write_value(b"t\n", with_response=True)
        version = await read_until(b"*\n")
        timing("version_ms", millis(time.perf_counter_ns() - t))
        self.check(name("version"), version.startswith(b"tespico"), version.decode(errors="replace"))
        t = time.perf_counter_ns()
        await rx.write_value(b"e\nvar c\nvar p\nmeas_loop_lsv p c -500m 500m 10m 100m\n  pck_start\n", with_response=True)
        await rx.write_value(b"  pck_add p\n  pck_add c\n  pck_end\nendloop\n\n", with_response=True)
        reply = (await read_until(b"*\n\n")).decode()
        timing("script_ms", millis(time.perf_counter_ns() - t))
        lines = reply.split("\n")
        packages = [line for line in lines if line.startswith("P")]
        self.check(name("script_frame"), lines[:2] == ["e", "M0000"] and lines[-3:] == ["*", "", ""], lines[:2] + lines[-3:])
        self.check(name("script_packages"), len(packages) == 101 and packages[0].startswith("Pda7F85EE0u;ba"),
                   {"count": len(packages), "first": packages[0] if packages else None})
        await rx.write_value(b"e\nsend_string \"x\"\n\n", with_response=True)
        replay = (await read_until(b"*\n\n")).decode().split("\n")
        self.check(name("published_packages"), tuple(replay[2:6]) == PUBLISHED_PACKAGES, replay[2:6])
        await rx.write_value(b"Z\n", with_response=True)
        self.check(name("abort_idle"), await read_until(b"\n") == b"Z!0006\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--scenario", choices=("echo", "pico", "pairing"), default="echo")
    parser.add_argument("--rounds", type=int, default=200, help="round trips per write kind")
    parser.add_argument("--blast", type=int, default=2000, help="notifications in the blast")
    parser.add_argument("--peripherals", type=int, default=1,
                        help="connect to this many peripherals at once (pico scenario runs on each)")
    parser.add_argument("--legacy-scan", action="store_true",
                        help="scan with the legacy commands (LE Set Scan Parameters/Enable)")
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for any one reply")
    options = parser.parse_args()
    anchor = Anchor(options)
    started = time.perf_counter_ns()
    try:
        ok = asyncio.run(asyncio.wait_for(anchor.run(), 120))
    except Exception as error:  # report any failure as JSON, never a bare traceback
        anchor.result["error"] = f"{type(error).__name__}: {error}"
        ok = False
    anchor.result["total_ms"] = millis(time.perf_counter_ns() - started)
    anchor.result["ok"] = ok
    print(json.dumps(anchor.result), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
