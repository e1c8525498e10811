// libsystemd's service notification API (sd_notify, sd_watchdog_enabled), for `hcipico rig` under
// systemd (Type=notify, WatchdogSec=). Only the hcipico executable links it.
#ifndef CSYSTEMD_SHIM_H
#define CSYSTEMD_SHIM_H
#include <systemd/sd-daemon.h>
#endif
