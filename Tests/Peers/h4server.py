"""H4 over TCP for one emulated controller: one host connection at a time, TCP_NODELAY,
an optional btsnoop capture of everything crossing the controller's HCI (recorded on the
controller side, directions as the host sees them).

When the host goes away the controller drops its links (see PeerController.drop_links), so
the peripherals advertise again and the next host starts from a clean state.

`mute()` makes the controller hang as a wedged USB dongle does: nothing the host sends reaches
it and nothing comes back, until `unmute()`.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Callable

from bumble.snoop import BtSnooper, Snooper
from bumble.transport.common import PacketParser

log = logging.getLogger("picopeer.h4")


class _Tap:
    """Packet sink that records each packet to the snooper before passing it on."""

    def __init__(self, sink, snooper: Snooper | None, direction: Snooper.Direction):
        self.sink = sink
        self.snooper = snooper
        self.direction = direction

    def on_packet(self, packet: bytes) -> None:
        if self.snooper is not None:
            self.snooper.snoop(packet, self.direction)
        self.sink.on_packet(packet)


class _ToHost:
    def __init__(self, transport: asyncio.Transport, server: "H4Server"):
        self.transport = transport
        self.server = server

    def on_packet(self, packet: bytes) -> None:
        if self.server.muted:
            self.server.dropped += 1
            return
        if not self.transport.is_closing():
            self.transport.write(packet)


class H4Server:
    def __init__(self, controller, *, btsnoop_path: str | None = None,
                 emit: Callable[..., None] = lambda *a, **k: None):
        self.controller = controller
        self.emit = emit
        self.snoop_file = open(btsnoop_path, "wb", buffering=0) if btsnoop_path else None
        self.snooper = BtSnooper(self.snoop_file) if self.snoop_file else None
        self.client: asyncio.Transport | None = None
        self.server: asyncio.AbstractServer | None = None
        self.muted = False
        self.dropped = 0

    def mute(self) -> None:
        self.muted = True
        self.emit("muted")

    def unmute(self) -> None:
        self.muted = False
        self.emit("unmuted", dropped=self.dropped)
        self.dropped = 0

    async def start(self, host: str, port: int) -> int:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))  # raises EADDRINUSE loudly: never share a port with a stale peer
        loop = asyncio.get_running_loop()
        self.server = await loop.create_server(lambda: _Protocol(self), sock=sock)
        return sock.getsockname()[1]

    def close(self) -> None:
        if self.server is not None:
            self.server.close()
        if self.client is not None:
            self.client.close()
        if self.snoop_file is not None:
            self.snoop_file.close()
            self.snoop_file = None
            self.snooper = None

    def attach(self, transport: asyncio.Transport) -> PacketParser | None:
        if self.client is not None:
            log.warning("second host connection refused")
            transport.close()
            return None
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.client = transport
        self.controller.host = _Tap(_ToHost(transport, self), self.snooper, Snooper.Direction.CONTROLLER_TO_HOST)
        peer = transport.get_extra_info("peername")
        self.emit("host-connected", peer=f"{peer[0]}:{peer[1]}" if peer else "?")
        return PacketParser(_Tap(self.controller, self.snooper, Snooper.Direction.HOST_TO_CONTROLLER))

    def detach(self, transport: asyncio.Transport) -> None:
        if transport is not self.client:
            return
        self.client = None
        self.controller.host = None
        self.controller.drop_links(0x13)
        self.emit("host-disconnected")


class _Protocol(asyncio.Protocol):
    def __init__(self, server: H4Server):
        self.server = server
        self.parser: PacketParser | None = None
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport) -> None:
        self.transport = transport
        self.parser = self.server.attach(transport)

    def data_received(self, data: bytes) -> None:
        if self.parser is None:
            return
        if self.server.muted:
            self.server.dropped += 1
            return
        try:
            self.parser.feed_data(data)
        except Exception as error:  # malformed H4 from the host under test: report, keep going
            log.warning("invalid H4 data from host: %s", error)
            self.server.emit("h4-error", error=str(error))

    def connection_lost(self, exc) -> None:
        if self.transport is not None and self.parser is not None:
            self.server.detach(self.transport)
