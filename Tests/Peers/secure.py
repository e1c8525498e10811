"""Pairing on the peer side, with Bumble's own Security Manager, and values only a secured link may read.

`--pairing sc|legacy` sets the peripherals' pairing: LE Secure Connections or LE legacy pairing, with
MITM protection asked for, bonding, the IO capability of `--io` and the fixed passkey of `--passkey`
(shown when the peer displays, typed when it has the keyboard). Keys live in Bumble's in-memory key
store; SIGHUP makes every peripheral forget them (a device whose bond was deleted), reported as EVENT
`bonds-forgotten`. `--protect` adds a service whose values need an encrypted link (`SECURE_ENCRYPTED`)
or one authenticated against a man in the middle (`SECURE_AUTHENTICATED`); `--protect-rx` makes the
VSP RX characteristic refuse writes on an unencrypted link; `--security-request` makes the peripheral send
an SMP Security Request right after each connection.

Two corrections to Bumble 0.0.236, both on the peer's side only:
- Bumble marks every encrypted LE link "authenticated", Just Works included, so its own
  READ_REQUIRES_AUTHENTICATION check passes after Just Works. `SECURE_AUTHENTICATED` checks instead
  whether the key encrypting the link came from an authenticated pairing (`LinkKeys`).
- As a legacy responder Bumble answers the central's LTK request with the key the central distributed,
  not its own (Core 5.4 Vol 3 Part H §2.4.2.3: the central encrypts with the key the peripheral
  distributed), so a legacy bond never re-encrypts. `legacy_long_term_key` looks up its own key.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from bumble import hci
from bumble.att import ATT_Error, ErrorCode
from bumble.gatt import Characteristic, CharacteristicValue, Service
from bumble.pairing import PairingConfig, PairingDelegate

log = logging.getLogger("picopeer.secure")

SECURE_SERVICE_UUID = "53656375-0000-4000-8000-00805f9b34fb"
SECURE_ENCRYPTED_UUID = "53656375-0001-4000-8000-00805f9b34fb"
SECURE_AUTHENTICATED_UUID = "53656375-0002-4000-8000-00805f9b34fb"
ENCRYPTED_VALUE = b"sealed with an encrypted link"
AUTHENTICATED_VALUE = b"sealed with an authenticated link"
IO_CAPABILITIES = {
    "none": PairingDelegate.IoCapability.NO_OUTPUT_NO_INPUT,
    "display": PairingDelegate.IoCapability.DISPLAY_OUTPUT_ONLY,
    "display-yesno": PairingDelegate.IoCapability.DISPLAY_OUTPUT_AND_YES_NO_INPUT,
    "keyboard": PairingDelegate.IoCapability.KEYBOARD_INPUT_ONLY,
    "keyboard-display": PairingDelegate.IoCapability.DISPLAY_OUTPUT_AND_KEYBOARD_INPUT,
}


class FixedPasskeyDelegate(PairingDelegate):
    """A peer whose passkey is set in advance (as an HM-10's AT+PASS): shown or typed, always the same."""

    def __init__(self, io_capability, passkey: int, emit: Callable[..., None], address: str):
        super().__init__(io_capability=io_capability)
        self.passkey = passkey
        self.emit = emit
        self.address = address

    async def generate_passkey(self) -> int:
        return self.passkey

    async def display_number(self, number: int, digits: int) -> None:
        self.emit("passkey-shown", peripheral=self.address, passkey=f"{number:0{digits}d}")

    async def get_number(self) -> int | None:
        self.emit("passkey-typed", peripheral=self.address)
        return self.passkey

    async def compare_numbers(self, number: int, digits: int) -> bool:
        self.emit("numeric-comparison", peripheral=self.address, number=f"{number:0{digits}d}")
        return True


class LinkKeys:
    """Whether the key encrypting each link came from an authenticated pairing, by connection handle."""

    def __init__(self):
        self.authenticated: dict[int, bool] = {}

    @staticmethod
    def own_key(keys):
        """The key this peripheral encrypts with: the Secure Connections LTK, or its own legacy one."""
        return keys.ltk or keys.ltk_central if keys is not None else None


LINK_KEYS = LinkKeys()


def configure_pairing(device, options, emit: Callable[..., None], address: str) -> None:
    """Sets the device's pairing as the options ask and reports each pairing's outcome."""
    if not options.pairing:
        return
    delegate = FixedPasskeyDelegate(IO_CAPABILITIES[options.io], options.passkey, emit, address)
    device.pairing_config_factory = lambda connection: PairingConfig(
        sc=options.pairing == "sc", mitm=True, bonding=True, delegate=delegate)
    # A central without Secure Connections (the kernel without bluetoothd) pairs legacy whatever is
    # configured here, so the correction is always in place.
    device.host.long_term_key_provider = lambda handle, rand, ediv: legacy_long_term_key(
        device, handle, rand, ediv)


async def legacy_long_term_key(device, handle: int, rand: bytes, ediv: int) -> bytes | None:
    connection = device.lookup_connection(handle)
    if connection is None:
        return None
    key = device.smp_manager.get_long_term_key(connection, rand, ediv)
    if key is not None:
        return key
    keys = await device.keystore.get(str(connection.peer_address)) if device.keystore else None
    own = LinkKeys.own_key(keys)
    if own is None:
        return None
    # A legacy key is named by its EDIV and Rand; a Secure Connections key goes with EDIV 0, Rand 0.
    if keys.ltk is None and ((own.rand or bytes(8)) != rand or (own.ediv or 0) != ediv):
        return None
    LINK_KEYS.authenticated[handle] = own.authenticated
    return own.value


def watch_pairing(device, connection, emit: Callable[..., None], address: str, request: bool = False) -> None:
    LINK_KEYS.authenticated[connection.handle] = False
    if request:
        asyncio.ensure_future(request_security(connection, emit, address))

    def on_pairing(keys):
        own = LinkKeys.own_key(keys)
        LINK_KEYS.authenticated[connection.handle] = bool(own and own.authenticated)
        emit("paired", peripheral=address, handle=connection.handle,
             authenticated=LINK_KEYS.authenticated[connection.handle])

    def on_failure(reason):
        emit("pairing-failed", peripheral=address, handle=connection.handle, reason=int(reason))

    async def remember_bond_level():
        keys = await device.keystore.get(str(connection.peer_address)) if device.keystore else None
        own = LinkKeys.own_key(keys)
        if own is not None and not device.smp_manager.sessions.get(connection.handle):
            LINK_KEYS.authenticated[connection.handle] = bool(own.authenticated)
        emit("encryption", peripheral=address, handle=connection.handle, enabled=bool(connection.encryption),
             authenticated=LINK_KEYS.authenticated[connection.handle])

    def on_encryption_change():
        asyncio.ensure_future(remember_bond_level())

    connection.on(connection.EVENT_PAIRING, on_pairing)
    connection.on(connection.EVENT_PAIRING_FAILURE, on_failure)
    connection.on(connection.EVENT_CONNECTION_ENCRYPTION_CHANGE, on_encryption_change)


async def request_security(connection, emit: Callable[..., None], address: str) -> None:
    """`--security-request`: the peripheral asks for pairing at once (an SMP Security Request)."""
    emit("security-request", peripheral=address, handle=connection.handle)
    connection.request_pairing()


def add_protected_service(device) -> None:
    Props = Characteristic.Properties
    Perms = Characteristic.Permissions
    device.add_service(Service(SECURE_SERVICE_UUID, [
        Characteristic(SECURE_ENCRYPTED_UUID, Props.READ, Perms.READ_REQUIRES_ENCRYPTION, ENCRYPTED_VALUE),
        Characteristic(SECURE_AUTHENTICATED_UUID, Props.READ, Perms.READABLE,
                       CharacteristicValue(read=read_authenticated)),
    ]))


def read_authenticated(connection) -> bytes:
    if not connection.encryption or not LINK_KEYS.authenticated.get(connection.handle, False):
        raise ATT_Error(ErrorCode.INSUFFICIENT_AUTHENTICATION)
    return AUTHENTICATED_VALUE


async def forget_bonds(devices, emit: Callable[..., None]) -> None:
    """Deletes every key the peripherals hold (SIGHUP)."""
    forgotten = 0
    for device in devices:
        if device.keystore is None:
            continue
        for name, _keys in await device.keystore.get_all():
            await device.keystore.delete(name)
            forgotten += 1
    emit("bonds-forgotten", count=forgotten)
