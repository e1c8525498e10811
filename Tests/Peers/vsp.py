"""The Laird Virtual Serial Port (VSP) GATT service as an EmStat Pico's BLE module serves it,
hosted by a Bumble device, with a Pico model or an echo behind it.

Characteristics (service 569a1101-b87f-490c-92cb-11ba5ea5167c):
  569a2000-… TX        notify                       device -> host serial data
  569a2001-… RX        write, write without response host -> device serial data
  569a2002-… ModemOut  notify, read                 device flow control (0x01 = clear to send)
  569a2003-… ModemIn   write, write without response host flow control

The serial stream towards the host is cut into notifications of at most ATT_MTU - 3 bytes
(or `chunk` bytes), regardless of line boundaries, as a UART bridge does.

Echo mode: every write is notified back unchanged, except a write of the ASCII text
`blast COUNT SIZE`, which is answered by COUNT notifications of SIZE bytes (clamped to
ATT_MTU - 3); each starts with its sequence number as a 4-byte little-endian integer.
"""

from __future__ import annotations

import asyncio
import logging
import struct
from collections.abc import Callable

from bumble.gatt import Characteristic, CharacteristicValue, Service

from pico import PicoModel

VSP_SERVICE_UUID = "569a1101-b87f-490c-92cb-11ba5ea5167c"
TX_UUID = "569a2000-b87f-490c-92cb-11ba5ea5167c"
RX_UUID = "569a2001-b87f-490c-92cb-11ba5ea5167c"
MODEM_OUT_UUID = "569a2002-b87f-490c-92cb-11ba5ea5167c"
MODEM_IN_UUID = "569a2003-b87f-490c-92cb-11ba5ea5167c"

log = logging.getLogger("picopeer.vsp")
Props = Characteristic.Properties
Perms = Characteristic.Permissions


class VspServer:
    """Adds the VSP service to `device` and runs one session per connection."""

    def __init__(self, device, *, mode: str, emit: Callable[..., None], pace: float = 0.0,
                 chunk: int = 0, disconnect_after: int = 0):
        self.device = device
        self.mode = mode
        self.emit = emit
        self.pace = pace
        self.chunk = chunk
        self.disconnect_after = disconnect_after
        self.sessions: dict[int, Session] = {}
        self.tx = Characteristic(TX_UUID, Props.NOTIFY, Perms.READABLE, b"")
        self.rx = Characteristic(
            RX_UUID, Props.WRITE | Props.WRITE_WITHOUT_RESPONSE, Perms.WRITEABLE,
            CharacteristicValue(write=self._on_rx_write),
        )
        self.modem_out = Characteristic(
            MODEM_OUT_UUID, Props.NOTIFY | Props.READ, Perms.READABLE, b"\x01"
        )
        self.modem_in = Characteristic(
            MODEM_IN_UUID, Props.WRITE | Props.WRITE_WITHOUT_RESPONSE, Perms.WRITEABLE,
            CharacteristicValue(write=self._on_modem_in_write),
        )
        device.add_service(Service(VSP_SERVICE_UUID, [self.tx, self.rx, self.modem_out, self.modem_in]))

    def open(self, connection) -> None:
        self.sessions[connection.handle] = Session(self, connection)

    def close(self, connection) -> None:
        session = self.sessions.pop(connection.handle, None)
        if session is not None:
            session.stop()

    def _on_rx_write(self, connection, value) -> None:
        session = self.sessions.get(connection.handle)
        if session is not None:
            session.inbox.put_nowait(bytes(value))

    def _on_modem_in_write(self, connection, value) -> None:
        self.emit("modem-in", handle=connection.handle, value=bytes(value).hex())


class Session:
    """One connection: an inbox of RX writes handled in order, and the TX stream."""

    def __init__(self, server: VspServer, connection):
        self.server = server
        self.connection = connection
        self.inbox: asyncio.Queue[bytes] = asyncio.Queue()
        self.outbox = bytearray()
        self.sent = 0
        self.closing = False
        self.pico = PicoModel(self.write, pace=server.pace, on_event=self._pico_event)
        self.worker = asyncio.create_task(self._run())

    def stop(self) -> None:
        self.closing = True
        self.worker.cancel()
        asyncio.create_task(self.pico.close())

    @property
    def payload_limit(self) -> int:
        limit = self.connection.att_mtu - 3
        return min(limit, self.server.chunk) if self.server.chunk > 0 else limit

    async def _run(self) -> None:
        try:
            while True:
                data = await self.inbox.get()
                if self.server.mode == "echo":
                    await self._echo(data)
                else:
                    await self.pico.feed(data)
        except asyncio.CancelledError:
            pass
        except Exception:  # a peer bug must be visible, not a silent stall
            log.exception("session %d failed", self.connection.handle)
            self.server.emit("error", handle=self.connection.handle)

    async def _echo(self, data: bytes) -> None:
        words = data.split()
        if len(words) == 3 and words[0] == b"blast" and words[1].isdigit() and words[2].isdigit():
            count, size = int(words[1]), max(4, min(int(words[2]), self.payload_limit))
            filler = bytes(size - 4)
            for sequence in range(count):
                if not await self.notify(struct.pack("<I", sequence) + filler):
                    return
            return
        await self.notify(data[: self.payload_limit])

    async def write(self, data: bytes) -> None:
        """The Pico's serial output: appended to the stream, sent in MTU-sized pieces."""
        self.outbox += data
        while self.outbox:
            piece = bytes(self.outbox[: self.payload_limit])
            del self.outbox[: len(piece)]
            if not await self.notify(piece):
                self.outbox.clear()
                return

    async def notify(self, value: bytes) -> bool:
        if self.closing:
            return False
        await self.server.device.notify_subscriber(self.connection, self.server.tx, value)
        self.sent += 1
        limit = self.server.disconnect_after
        if limit and self.sent >= limit:
            self.closing = True
            self.server.emit("disconnect-after", handle=self.connection.handle, notifications=self.sent)
            asyncio.create_task(self.connection.disconnect())
            return False
        return True

    def _pico_event(self, name: str, **fields) -> None:
        self.server.emit(name, handle=self.connection.handle, **fields)
