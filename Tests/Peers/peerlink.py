"""Emulated link layer for the test peer: Bumble's LocalLink and Controller with three
behaviours corrected so that an independent host (ours, or the Linux kernel) sees what a
real controller would do.

1. LE ACL data between two controllers is labelled with the address the sending side
   actually uses on that connection. Bumble 0.0.236 labels it with the sender's random
   address, so a host that connects with its public address (the Linux kernel does) has
   every ACL packet dropped by the peripheral's controller.
2. Advertising reports follow the scan command the host used: legacy reports (LE Meta
   0x02) after LE Set Scan Enable, extended reports (0x0D) after LE Set Extended Scan
   Enable. Bumble picks the report type from its own feature bits instead.
3. Controller-to-host ACL data is fragmented to the LE ACL buffer size the controller
   reports (first fragment PB=0b10, continuations PB=0b01). Bumble sends whole L2CAP PDUs
   up to 251 bytes even when it reports 27. `fragment_to_host=False` keeps Bumble's
   behaviour, for testing a host's reassembly of oversized packets.

4. HCI Read RSSI is answered for a live connection with a fixed -42 dBm (Bumble does not
   implement the command), so a host's RSSI reading can be checked end to end.

The central-side controller also forgets its links on HCI_Reset and when its host goes
away, so that one peer process can serve several host runs one after another.
"""

from __future__ import annotations

import asyncio
import logging

from bumble import hci, ll
from bumble.controller import Controller
from bumble.core import PhysicalTransport
from bumble.link import LocalLink

log = logging.getLogger("picopeer.link")

_EXTENDED_FEATURES = (
    hci.LeFeatureMask.LE_EXTENDED_ADVERTISING | hci.LeFeatureMask.LE_PERIODIC_ADVERTISING
)

# PB flag values of an LE ACL data packet header (Core Vol 4 Part E 5.4.2).
PB_FIRST_AUTOMATICALLY_FLUSHABLE = 0b10
PB_CONTINUING = 0b01


class PeerLink(LocalLink):
    """LocalLink that labels LE ACL data with the sending connection's own address."""

    def send_acl_data(self, sender_controller, destination_address, transport, data):
        if transport != PhysicalTransport.LE:
            return super().send_acl_data(sender_controller, destination_address, transport, data)
        connection = sender_controller.le_connections.get(destination_address)
        if connection is None:
            log.warning("ACL data to %s without a connection, dropped", destination_address)
            return None
        destination = self.find_le_controller(destination_address)
        if destination is None:
            log.warning("no controller owns %s, ACL data dropped", destination_address)
            return None
        source_address = connection.self_address
        asyncio.get_running_loop().call_soon(destination.on_link_acl_data, source_address, transport, data)
        return None


class PeerController(Controller):
    """A Bumble controller with the host-visible fixes described in the module docstring."""

    def __init__(self, *args, fragment_to_host: bool = True, **kwargs):
        super().__init__(*args, **kwargs)
        self.fragment_to_host = fragment_to_host
        self.extended_scan_in_use = False

    # RSSI -----------------------------------------------------------------------------

    RSSI_DBM = -42

    def on_hci_read_rssi_command(self, command):
        known = self.find_connection_by_handle(command.handle) is not None
        return hci.HCI_Read_RSSI_ReturnParameters(
            status=hci.HCI_ErrorCode.SUCCESS if known else hci.HCI_ErrorCode.UNKNOWN_CONNECTION_IDENTIFIER_ERROR,
            handle=command.handle,
            rssi=self.RSSI_DBM if known else 0,
        )

    # Advertising reports --------------------------------------------------------------

    def on_hci_le_set_scan_enable_command(self, command):
        self.extended_scan_in_use = False
        return super().on_hci_le_set_scan_enable_command(command)

    def on_hci_le_set_extended_scan_enable_command(self, command):
        self.extended_scan_in_use = True
        return super().on_hci_le_set_extended_scan_enable_command(command)

    def on_advertising_pdu(self, pdu):
        if self.extended_scan_in_use or not (self.le_features & _EXTENDED_FEATURES):
            return super().on_advertising_pdu(pdu)
        features = self.le_features
        self.le_features = features & ~_EXTENDED_FEATURES
        try:
            return super().on_advertising_pdu(pdu)
        finally:
            self.le_features = features

    # Controller-to-host ACL ------------------------------------------------------------

    def on_link_acl_data(self, sender_address, transport, data):
        if transport != PhysicalTransport.LE or not self.fragment_to_host:
            return super().on_link_acl_data(sender_address, transport, data)
        connection = self.le_connections.get(sender_address)
        if connection is None:
            log.warning("ACL data from %s without a connection, dropped", sender_address)
            return None
        size = max(1, self.le_acl_data_packet_length)
        pb_flag = PB_FIRST_AUTOMATICALLY_FLUSHABLE
        for offset in range(0, max(len(data), 1), size):
            fragment = data[offset : offset + size]
            self.send_hci_packet(
                hci.HCI_AclDataPacket(connection.handle, pb_flag, 0, len(fragment), fragment)
            )
            pb_flag = PB_CONTINUING
        return None

    # Reset and host loss ---------------------------------------------------------------

    def on_hci_reset_command(self, command):
        self.drop_links(hci.HCI_ErrorCode.REMOTE_USER_TERMINATED_CONNECTION_ERROR)
        return super().on_hci_reset_command(command)

    def drop_links(self, reason: int) -> None:
        """Ends every LE link towards the peers (they see a disconnection) and stops
        scanning and connecting, without telling the host (which reset or went away)."""
        for connection in list(self.le_connections.values()):
            try:
                connection.send_ll_control_pdu(ll.TerminateInd(reason))
            except Exception as error:  # the peer may already be gone
                log.warning("terminate %s: %s", connection.peer_address, error)
            self.le_connections.pop(connection.peer_address, None)
        self.le_scan_enable = False
        self.extended_scan_in_use = False
        self.pending_le_connection = None


def strip_extended_features(controller: Controller) -> None:
    """Makes a controller report no extended/periodic advertising support at all."""
    controller.le_features = controller.le_features & ~_EXTENDED_FEATURES
