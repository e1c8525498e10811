#!/bin/sh
# The package tier's guest side: a clean Debian 12 booted with systemd, no network, no Swift toolchain,
# and in /test the package twice (old.deb, then new.deb with a higher version). Installs, reloads,
# upgrades, stops, removes and purges it as an administrator would, printing `DEB-CASE NAME PASS|FAIL`
# per check and `DEB-TIER-RESULT PASS|FAIL` at the end; then powers the guest off.
exec > /dev/ttyS0 2>&1
export PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8
journal=/var/lib/hcipico-rig/rig.sqlite
failed=0

uptime_s() { cut -d' ' -f1 /proc/uptime; }
case_result() {  # NAME VERDICT(0 = pass) [NOTE]
    if [ "$2" = 0 ]; then echo "DEB-CASE $1 PASS $3"; else echo "DEB-CASE $1 FAIL $3"; failed=1; fi
}
# Waits up to $1 seconds for the command after it to succeed.
wait_until() {
    limit=$1
    shift
    i=0
    while [ "$i" -lt "$((limit * 2))" ]; do
        "$@" > /dev/null 2>&1 && return 0
        sleep 0.5
        i=$((i + 1))
    done
    return 1
}
# Packages committed by DEVICE's runs (0 when none), from the journal.
committed() {
    hcipico runs "$journal" --device "$1" --json 2> /dev/null |
        sed -n 's/.*"packages":\([0-9]*\).*/\1/p' | awk '{ total += $1 } END { print total + 0 }'
}
has_committed() { [ "$(committed "$1")" -gt 0 ]; }
active() { [ "$(systemctl show -p ActiveState --value hcipico-rig)" = active ]; }
main_pid() { systemctl show -p MainPID --value hcipico-rig; }

echo "DEB-TIER-STAGE booted uptime=$(uptime_s)"

# No Swift toolchain anywhere: the package must not need one.
if command -v swift > /dev/null || find / -xdev -name 'libswiftCore*' 2> /dev/null | grep -q .; then
    case_result no-toolchain 1 "(a Swift toolchain is present in the guest)"
else
    case_result no-toolchain 0
fi

# Install: dependencies from the cached archive (no network), the service enabled and started.
started=$(uptime_s)
if apt-get install -y -q /test/old.deb > install.log 2>&1; then
    case_result install 0 "(apt-get install ./old.deb: $(dpkg-query -W -f '${Version}' hcipico))"
else
    tail -n 15 install.log
    case_result install 1 "(apt-get install failed)"
fi

# READY (Type=notify: active only after READY=1) and packages committed, within 60 s of the install.
if wait_until 60 active && wait_until 60 has_committed simulated-pico; then
    ready=$(uptime_s)
    case_result ready 0 "(active with $(committed simulated-pico) packages committed $(echo "$ready $started" | awk '{ printf "%.1f", $1 - $2 }') s after apt-get install began; uptime $ready s)"
else
    systemctl status hcipico-rig --no-pager | tail -n 20
    case_result ready 1 "(not active with committed packages within 60 s)"
fi
[ "$(systemctl is-enabled hcipico-rig)" = enabled ]
case_result enabled $? "(systemctl is-enabled: $(systemctl is-enabled hcipico-rig))"

# Reload: an edited config adds a device; the running run goes on.
cat >> /etc/hcipico/rig.toml << 'EOF'

[[device]]
name = "reloaded-pico"
transport = "sim"
script = "/usr/share/hcipico/examples/LSV_10k.mscr"
every = "10m"
EOF
pid_before=$(main_pid)
systemctl reload hcipico-rig
if wait_until 60 has_committed reloaded-pico && [ "$(main_pid)" = "$pid_before" ]; then
    if hcipico runs "$journal" --json | grep -q '"reason":"[^"]*reload'; then
        case_result reload 1 "(a run ended because of the reload)"
    else
        case_result reload 0 "(the added device committed $(committed reloaded-pico) packages; same process)"
    fi
else
    journalctl -u hcipico-rig --no-pager | tail -n 20
    case_result reload 1 "(the added device did not run after systemctl reload)"
fi

# Upgrade: a newer build keeps the journal, the bonds and the edited config, and restarts the rig.
mkdir -p /var/lib/hcipico-rig/bonds
echo "a bond kept across upgrades" > /var/lib/hcipico-rig/bonds/upgrade-check
run_ids() { hcipico runs "$journal" --json | sed -n 's/.*"uuid":"\([^"]*\)".*/\1/p' | sort; }
run_ids > runs-before.txt
runs_before=$(wc -l < runs-before.txt)
if apt-get install -y -q /test/new.deb > upgrade.log 2>&1; then
    version=$(dpkg-query -W -f '${Version}' hcipico)
    kept=""
    grep -q reloaded-pico /etc/hcipico/rig.toml || kept="$kept config"
    [ -f /var/lib/hcipico-rig/bonds/upgrade-check ] || kept="$kept bonds"
    run_ids > runs-after.txt
    lost=$(comm -23 runs-before.txt runs-after.txt | wc -l)
    [ "$runs_before" -gt 0 ] && [ "$lost" = 0 ] || kept="$kept journal ($lost of $runs_before runs)"
    if [ -n "$kept" ]; then
        case_result upgrade 1 "(lost across the upgrade:$kept)"
    elif ! wait_until 60 active || [ "$(main_pid)" = "$pid_before" ]; then
        case_result upgrade 1 "(the service was not restarted on the new version)"
    elif ! wait_until 60 sh -c "[ \$(hcipico runs $journal --json | wc -l) -gt $runs_before ]"; then
        case_result upgrade 1 "(no run after the upgrade)"
    else
        case_result upgrade 0 "(to $version: all $runs_before runs, the bonds and the edited config kept; restarted)"
    fi
else
    tail -n 15 upgrade.log
    case_result upgrade 1 "(apt-get install ./new.deb failed)"
fi

# Stop: SIGTERM ends the runs cleanly (exit 143, counted as success); no run is left running.
systemctl stop hcipico-rig
result=$(systemctl show -p Result --value hcipico-rig)
status=$(systemctl show -p ExecMainStatus --value hcipico-rig)
running=$(hcipico runs "$journal" --json | grep -c '"state":"running"')
if [ "$result" = success ] && [ "$running" = 0 ] && [ -f "$journal" ]; then
    case_result stop 0 "(result $result, exit $status, every run closed)"
else
    case_result stop 1 "(result $result, exit $status, $running runs left running)"
fi

# Remove keeps the configuration and the data; purge leaves nothing.
dpkg -L hcipico > files.list
apt-get remove -y -q hcipico > remove.log 2>&1
if [ -f /etc/hcipico/rig.toml ] && [ -f "$journal" ] && [ ! -e /usr/bin/hcipico ]; then
    case_result remove 0 "(binary gone; config and journal kept)"
else
    case_result remove 1 "(after apt-get remove: config $(test -f /etc/hcipico/rig.toml && echo kept || echo gone), journal $(test -f "$journal" && echo kept || echo gone))"
fi
apt-get purge -y -q hcipico > purge.log 2>&1
left=""
while read -r path; do
    [ -d "$path" ] && continue
    [ -e "$path" ] && left="$left $path"
done < files.list
for path in /etc/hcipico /var/lib/hcipico-rig /var/lib/private/hcipico-rig; do
    [ -e "$path" ] && left="$left $path"
done
if [ -z "$left" ] && ! dpkg -s hcipico > /dev/null 2>&1; then
    case_result purge 0 "(0 files left)"
else
    case_result purge 1 "(left:$left)"
fi

if [ "$failed" = 0 ]; then echo "DEB-TIER-RESULT PASS"; else echo "DEB-TIER-RESULT FAIL"; fi
sync
systemctl poweroff --force --force
