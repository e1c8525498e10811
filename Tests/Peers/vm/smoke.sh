#!/bin/sh
# Guest side of `make peers-kernel` (peer started with --mode echo,pico --peripherals 2):
# att_rtt over the kernel's L2CAP socket against the echo peripheral, then against the Pico.
set -e
set -- $(echo "$BLE_PEERS" | tr , ' ')
[ $# -ge 2 ] || { echo "smoke: needs two peripherals in BLE_PEERS, got '$BLE_PEERS'"; exit 2; }
att_rtt -n 100 "$1"
att_rtt -n 20 --pico "$2"
