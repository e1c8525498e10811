"""A peripheral serving Bumble's own GATT profile classes, hosted unmodified, and a long value; and
the ATT responses of any peripheral corrupted on purpose.

Profiles (`--mode profiles`): Device Information (180A), Battery (180F, level 87 %) and Heart Rate
(180D: measurement notified every 50 ms to subscribers, body sensor location chest, control point
2A39 that declares `write` only), from `bumble.profiles`, plus a service of our own with one
read-only characteristic holding a 700-byte value (longer than the 512 bytes an attribute value may
have, Core Vol 3 Part F 3.2.9): byte i is i mod 251.

Corruption (`--corrupt KIND`) rewrites what the peripherals' GATT servers send, before L2CAP:
  duplicate-group    a Read By Group Type Response gets its first group again
  overlap-group      its first group's end handle reaches into the second group
  zero-value-handle  a Read By Type Response's first characteristic declares value handle 0x0000
  oversize-response  a Read By Group Type Response is padded to 902 bytes (more than any ATT_MTU)
  oversize-notify    every other notification is padded to 600 bytes
  ignore-offset      a Read Blob Response answers from offset 0 whatever offset was asked
Each rewrite is reported as an EVENT `corrupted` with its kind.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from bumble.gatt import Characteristic, Service
from bumble.profiles.battery_service import BatteryService
from bumble.profiles.device_information_service import DeviceInformationService
from bumble.profiles.heart_rate_service import HeartRateService

log = logging.getLogger("picopeer.profiles")

LONG_SERVICE_UUID = "4c6f6e67-0000-4000-8000-00805f9b34fb"
LONG_VALUE_UUID = "4c6f6e67-0001-4000-8000-00805f9b34fb"
LONG_VALUE = bytes(index % 251 for index in range(700))
MANUFACTURER = "hcipico test peer"
APPEARANCE_HEART_RATE_BELT = 0x0341
PROFILE_SERVICE_UUIDS = (0x180D, 0x180F, 0x180A)
CORRUPTIONS = ("duplicate-group", "overlap-group", "zero-value-handle", "oversize-response", "oversize-notify",
               "ignore-offset")

READ_BY_TYPE_RESPONSE = 0x09
READ_BLOB_REQUEST = 0x0C
READ_BLOB_RESPONSE = 0x0D
READ_BY_GROUP_TYPE_RESPONSE = 0x11
HANDLE_VALUE_NOTIFICATION = 0x1B


class ProfileServer:
    """Adds the profiles and the long value to `device`; notifies heart rate to subscribers."""

    def __init__(self, device, emit: Callable[..., None]):
        self.device = device
        self.emit = emit
        self.beats = 60
        self.battery = BatteryService(lambda connection: 87)
        self.information = DeviceInformationService(
            manufacturer_name=MANUFACTURER, model_number="HRS-1", serial_number="0001",
            firmware_revision="1.0.0", software_revision="bumble",
        )
        self.heart_rate = HeartRateService(
            read_heart_rate_measurement=self._measurement,
            body_sensor_location=HeartRateService.BodySensorLocation.CHEST,
            reset_energy_expended=self._reset_energy,
        )
        self.long_value = Characteristic(LONG_VALUE_UUID, Characteristic.Properties.READ,
                                         Characteristic.Permissions.READABLE, LONG_VALUE)
        device.add_services([self.information, self.battery, self.heart_rate,
                             Service(LONG_SERVICE_UUID, [self.long_value])])
        self.task = asyncio.create_task(self._beat())

    def _measurement(self, connection) -> HeartRateService.HeartRateMeasurement:
        return HeartRateService.HeartRateMeasurement(heart_rate=self.beats, sensor_contact_detected=True)

    def _reset_energy(self, connection) -> None:
        self.emit("energy-reset", handle=connection.handle)

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(0.05)
            self.beats = 60 + (self.beats - 59) % 120
            try:
                await self.device.notify_subscribers(self.heart_rate.heart_rate_measurement_characteristic)
            except Exception:  # a link going away mid-notification is not the peer's failure
                log.debug("heart rate notification failed", exc_info=True)


def advertising_data(name: str) -> bytes:
    """Flags, the three profile services (16-bit list), the appearance, Nordic's company ID, the name."""
    services = b"".join(uuid.to_bytes(2, "little") for uuid in PROFILE_SERVICE_UUIDS)
    data = bytes([2, 0x01, 0x06]) + bytes([len(services) + 1, 0x03]) + services
    data += bytes([3, 0x19]) + APPEARANCE_HEART_RATE_BELT.to_bytes(2, "little")
    data += bytes([5, 0xFF, 0x59, 0x00, 0xBE, 0xEF])
    encoded = name.encode()
    data += bytes([len(encoded) + 1, 0x09]) + encoded
    if len(data) > 31:
        raise SystemExit(f"picopeer: advertising data for name {name!r} exceeds 31 bytes")
    return data


def corrupt(device, kind: str, emit: Callable[..., None]) -> None:
    """Rewrites `device`'s GATT server output as `kind` says (module docstring)."""
    server = device.gatt_server
    send = server.send_gatt_pdu
    last_blob_request: dict[int, bytes] = {}
    notifications = 0

    receive = server.on_gatt_pdu

    def on_gatt_pdu(bearer, pdu):
        if pdu.op_code == READ_BLOB_REQUEST:
            last_blob_request[id(bearer)] = bytes(pdu)
        return receive(bearer, pdu)

    def rewrite(pdu: bytes, bearer) -> bytes:
        nonlocal notifications
        opcode = pdu[0]
        if opcode == READ_BY_GROUP_TYPE_RESPONSE and len(pdu) >= 2:
            size = pdu[1]
            entries = [pdu[start:start + size] for start in range(2, len(pdu), size)]
            if kind == "duplicate-group":
                return pdu + entries[0]
            if kind == "overlap-group" and len(entries) >= 2:
                second_start = int.from_bytes(entries[1][0:2], "little")
                first = entries[0][0:2] + (second_start + 1).to_bytes(2, "little") + entries[0][4:]
                return pdu[:2] + first + b"".join(entries[1:])
            if kind == "oversize-response":
                padded = bytearray(pdu)
                while len(padded) + size <= 902:
                    padded += entries[-1]
                return bytes(padded) + bytes(902 - len(padded))
        if opcode == READ_BY_TYPE_RESPONSE and kind == "zero-value-handle" and len(pdu) >= 7 and pdu[1] in (7, 21):
            return pdu[:5] + b"\x00\x00" + pdu[7:]
        if opcode == HANDLE_VALUE_NOTIFICATION and kind == "oversize-notify":
            notifications += 1
            if notifications % 2 == 0:
                return pdu + bytes(600 - len(pdu))
            return pdu
        if opcode == READ_BLOB_RESPONSE and kind == "ignore-offset":
            request = last_blob_request.get(id(bearer))
            if request is not None:
                handle = int.from_bytes(request[1:3], "little")
                attribute = server.get_attribute(handle)
                value = attribute.value if attribute is not None and isinstance(attribute.value, bytes) else None
                if value is not None:
                    return bytes([READ_BLOB_RESPONSE]) + value[: len(pdu) - 1]
        return pdu

    def send_gatt_pdu(bearer, pdu: bytes) -> None:
        changed = rewrite(bytes(pdu), bearer)
        if changed != bytes(pdu):
            emit("corrupted", kind=kind, opcode=pdu[0], length=len(changed))
        send(bearer, changed)

    server.on_gatt_pdu = on_gatt_pdu
    server.send_gatt_pdu = send_gatt_pdu
