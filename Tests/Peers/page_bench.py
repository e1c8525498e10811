"""`make bench-page`: what the status page costs the rig and how fresh it is.

A rig of three simulated Picos in real time (a continuous CV and CA, an EIS every 10 s) serves its
status page from the release build. The rig's CPU (utime + stime from /proc) is measured over three
windows of WINDOW seconds: no browser, headless Chromium showing the page, no browser again; the page's
cost is the middle window minus the mean of the other two, in % of one core. While the page is open, a
script polls every canvas's `data-drawn-host-time` (set when a plot is drawn: the rig's receive time of
the newest point on screen) every 10 ms and records its age at the moment it appears: package received
by the rig -> visible on the page."""

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as file:
        fields = file.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def window(pid, seconds):
    start, wall = cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    return 100 * (cpu_seconds(pid) - start) / (time.monotonic() - wall)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--examples", required=True)
    parser.add_argument("--window", type=float, default=30)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="hcipico-page-bench-")
    for script in ["CV.mscr", "CA.mscr", "EIS.mscr"]:
        shutil.copy(os.path.join(args.examples, script), folder)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with open(os.path.join(folder, "rig.toml"), "w") as file:
        file.write(f"""[rig]
name = "page-bench"
[status]
listen = "127.0.0.1:{port}"
[[device]]
name = "pico-cv"
transport = "sim"
script = "CV.mscr"
schedule = "continuous"
[[device]]
name = "pico-ca"
transport = "sim"
script = "CA.mscr"
schedule = "continuous"
[[device]]
name = "pico-eis"
transport = "sim"
script = "EIS.mscr"
every = "10s"
""")
    log = open(os.path.join(folder, "rig.log"), "w")
    rig = subprocess.Popen([args.bin, "rig", os.path.join(folder, "rig.toml"), "--for", "30m"], stdout=log,
                           stderr=subprocess.STDOUT)
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        time.sleep(3)  # the devices connect and start their runs
        before = window(rig.pid, args.window)
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,1000"]:
            options.add_argument(argument)
        driver = webdriver.Chrome(options=options,
                                  service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"))
        try:
            driver.get(f"http://127.0.0.1:{port}/")
            driver.execute_script("""
                window.pageAges = [];
                const seen = new Map();
                setInterval(() => {
                    for (const canvas of document.querySelectorAll('canvas[data-device]')) {
                        const drawn = canvas.getAttribute('data-drawn-host-time');
                        if (drawn && seen.get(canvas) !== drawn) {
                            seen.set(canvas, drawn);
                            window.pageAges.push(Date.now() / 1000 - Number(drawn));
                        }
                    }
                }, 10);""")
            time.sleep(2)  # the first load: the whole runs so far, not what a live package waits
            driver.execute_script("window.pageAges = [];")
            during = window(rig.pid, args.window)
            ages = sorted(driver.execute_script("return window.pageAges;"))
        finally:
            driver.quit()
        after = window(rig.pid, args.window)
    finally:
        rig.send_signal(signal.SIGTERM)
        rig.wait(timeout=30)
        log.close()
        shutil.rmtree(folder, ignore_errors=True)
    if not ages:
        print("page: no plot was drawn while the page was open")
        sys.exit(1)

    def quantile(q):
        return ages[min(len(ages) - 1, int(q * len(ages)))] * 1000

    cost = during - (before + after) / 2
    print(f"page: {len(ages)} redraws in {args.window:.0f} s; package received -> on the page: "
          f"p50 {quantile(0.5):.0f} ms, p99 {quantile(0.99):.0f} ms, max {ages[-1] * 1000:.0f} ms (target p99 <= 1000 ms)")
    print(f"page: rig CPU {before:.2f} % of a core without a browser, {during:.2f} % with the page open, "
          f"{after:.2f} % after; the page costs {cost:.2f} % of a core (target <= 2 %)")


if __name__ == "__main__":
    main()
