"""The rig's fleet side against real peers (see fleet-check.sh): PostgreSQL outages, the status page in
headless Chromium, /metrics against the journal, and the token on a non-loopback bind."""

import argparse
import base64
import os
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request

from prometheus_client.parser import text_string_to_metric_families
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

FAILURES = []


def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message, flush=True)
    if not condition:
        FAILURES.append(message)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(port, path, token=None, basic=None, timeout=10):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    if basic:
        request.add_header("Authorization", "Basic " + base64.b64encode(basic.encode()).decode())
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def status(port, token=None):
    import json
    code, body = http(port, "/api/status", token)
    return json.loads(body) if code == 200 else None


def wait_for(what, predicate, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            value = predicate()
            if value:
                return value
        except (OSError, ValueError):
            pass
        time.sleep(0.25)
    check(False, f"{what} within {seconds} s")
    return None


def write_rig(folder, name, port, listen, cluster, devices, token_file=None):
    os.makedirs(folder, exist_ok=True)
    lines = [
        "[rig]", f'name = "{name}"', f'journal = "{name}.sqlite"', "",
        "[status]", f'listen = "{listen}:{port}"',
    ]
    if token_file:
        lines.append(f'token_file = "{token_file}"')
    lines += [
        "", "[forward.postgres]", f'url = "postgres://hcipico@/hcipico?host={cluster}"',
        'password_env = "HCIPICO_TEST_PG_PASSWORD"', "batch = 200", "",
    ]
    for device in devices:
        lines += ["[[device]]"] + [f"{key} = {value}" for key, value in device.items()] + [""]
    path = os.path.join(folder, "rig.toml")
    with open(path, "w") as file:
        file.write("\n".join(lines))
    return path


def start_rig(binary, config, log, env):
    return subprocess.Popen([binary, "rig", config, "--for", "10m"], stdout=log, stderr=subprocess.STDOUT, env=env)


def stop_rig(process, what):
    process.send_signal(signal.SIGTERM)
    try:
        code = process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        code = "killed after 30 s"
    check(code == 143, f"{what}: SIGTERM ends the rig with 143 (got {code})")


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,1000"]:
        options.add_argument(argument)
    return webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"))


def page_points(driver):
    canvases = driver.find_elements(By.CSS_SELECTOR, "canvas[data-device]")
    return {c.get_attribute("data-device"): int(c.get_attribute("data-points") or 0) for c in canvases}


def journal_rows(path):
    db = sqlite3.connect(path)
    runs = {uuid: (state, packages, cell) for uuid, state, packages, cell in
            db.execute("SELECT uuid, state, packages, COALESCE(cell, '') FROM runs")}
    values = {}
    for uuid, idx, position, variable, value, host_time in db.execute(
        "SELECT r.uuid, v.idx, v.position, v.variable, v.value, p.host_time FROM package_values v "
        "JOIN runs r ON r.id = v.run_id JOIN packages p ON p.run_id = v.run_id AND p.idx = v.idx"
    ):
        values[(uuid, idx, position)] = (variable, None if value is None else float(value), host_time)
    packages = {uuid: [row[0] for row in db.execute(
        "SELECT p.idx FROM packages p JOIN runs r ON r.id = p.run_id WHERE r.uuid = ? ORDER BY p.idx", (uuid,))]
        for uuid in runs}
    db.close()
    return runs, packages, values


def analyses_agree(args, journal, rig):
    """Every run's analysis in the journal is in PostgreSQL, with the same peaks and fitted values."""
    db = sqlite3.connect(journal)
    runs = db.execute("SELECT count(*) FROM runs").fetchone()[0]
    kinds = dict(db.execute("SELECT r.uuid, a.kind FROM run_analyses a JOIN runs r ON r.id = a.run_id"))
    peaks = sorted((uuid, curve, scan, seq, potential, current) for uuid, curve, scan, seq, potential, current in
                   db.execute("SELECT r.uuid, curve, scan, seq, potential, peak_current FROM peaks p "
                              "JOIN runs r ON r.id = p.run_id"))
    fitted = sorted(db.execute("SELECT r.uuid, position, name, value FROM fit_parameters f "
                               "JOIN runs r ON r.id = f.run_id"))
    db.close()
    check(len(kinds) == runs, f"the rig analysed every ended run ({len(kinds)} of {runs})")
    check("peaks" in kinds.values() and "fit" in kinds.values(),
          f"the CV's peaks and the EIS's fit are among them ({sorted(set(kinds.values()))})")
    pg_kinds = dict(psql(args.pg_cluster, args.cluster,
                         f"SELECT run_uuid, kind FROM hcipico.run_analyses WHERE rig = '{rig}'"))
    check(pg_kinds == kinds, f"PostgreSQL has every analysis ({len(pg_kinds)} of {len(kinds)})")
    pg_peaks = sorted((u, c, int(s), int(q), float(e), float(i)) for u, c, s, q, e, i in psql(
        args.pg_cluster, args.cluster,
        f"SELECT run_uuid, curve, scan, seq, potential, peak_current FROM hcipico.peaks WHERE rig = '{rig}'"))
    check(pg_peaks == peaks, f"PostgreSQL's {len(pg_peaks)} peaks are the journal's {len(peaks)}")
    pg_fitted = sorted((u, int(p), n, float(v)) for u, p, n, v in psql(
        args.pg_cluster, args.cluster,
        f"SELECT run_uuid, position, name, value FROM hcipico.fit_parameters WHERE rig = '{rig}'"))
    check(pg_fitted == fitted, f"PostgreSQL's {len(pg_fitted)} fitted values are the journal's {len(fitted)}")


def psql(pg_cluster, cluster, sql):
    out = subprocess.run([pg_cluster, "psql", cluster, "-At", "-F", "\t", "-c", sql],
                         check=True, capture_output=True, text=True).stdout
    return [line.split("\t") for line in out.splitlines() if line]


def outage(args, env):
    folder = os.path.join(args.out, "outage")
    os.makedirs(folder, exist_ok=True)
    for script in ["CV.mscr", "CA.mscr", "EIS.mscr"]:
        shutil.copy(os.path.join(args.examples, script), folder)
    port = free_port()
    config = write_rig(folder, "fleet-outage", port, "127.0.0.1", args.cluster, [
        {"name": '"pico-cv"', "transport": '"sim"', "script": '"CV.mscr"', "schedule": '"continuous"'},
        {"name": '"pico-ca"', "transport": '"sim"', "script": '"CA.mscr"', "schedule": '"continuous"'},
        {"name": '"pico-eis"', "transport": '"sim"', "script": '"EIS.mscr"', "every": '"10s"'},
    ])
    log = open(os.path.join(folder, "rig.log"), "a")
    rig = start_rig(args.bin, config, log, env)
    try:
        wait_for("the status page answers", lambda: http(port, "/healthz")[0] == 200, 30)
        driver = browser()
        try:
            driver.get(f"http://127.0.0.1:{port}/")
            wait_for("three devices on the page", lambda: len(driver.find_elements(
                By.CSS_SELECTOR, "#devices-body tr[data-device]")) == 3, 20)
            wait_for("points on a plot", lambda: sum(page_points(driver).values()) > 0, 20)
            first = page_points(driver)
            driver.save_screenshot(os.path.join(args.out, "status-page-1.png"))
            wait_for("a live plot grows", lambda: any(
                count > first.get(name, 0) for name, count in page_points(driver).items()), 20)
            second = page_points(driver)
            driver.save_screenshot(os.path.join(args.out, "status-page-2.png"))
            rows = len(driver.find_elements(By.CSS_SELECTOR, "#devices-body tr[data-device]"))
            check(rows == 3 and len(second) == 3, f"the page shows three devices and three plots ({rows}, {len(second)})")
            grown = [name for name in second if second[name] > first.get(name, 0)]
            check(bool(grown), f"a live plot grows between the screenshots: {first} -> {second}")
            trend = "#trends .trend-card[data-device='pico-eis'] tr[data-series='R2 (R(RC))'] .trend-latest"
            wait_for("the EIS's fitted R2 in its results card", lambda: any(
                "Ω" in e.text for e in driver.find_elements(By.CSS_SELECTOR, trend)), 40)
            shown = [e.text for e in driver.find_elements(By.CSS_SELECTOR, trend)]
            check(bool(shown) and shown[0].endswith("kΩ"),
                  f"the page's results card shows the EIS's fitted R2 (the simulator's 10 kΩ): {shown}")
            driver.execute_script("document.getElementById('trends').scrollIntoView()")
            driver.save_screenshot(os.path.join(args.out, "status-page-results.png"))
            logs = [entry for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]
            check(not logs, f"no console errors ({logs[:3]})")
            html = driver.page_source
        finally:
            driver.quit()
        for cycle in (1, 2):
            time.sleep(4)
            before = status(port)
            subprocess.run([args.pg_cluster, "stop", args.cluster], check=True)
            down = wait_for(f"outage {cycle}: the forwarder waits and the backlog grows", lambda: (
                (s := status(port)) and s["forwarder"].get("state") == "waiting"
                and s["forwarder"].get("errors", 0) > before["forwarder"].get("errors", 0)
                and s["forwarder"].get("lag_packages", 0) > 0 and s), 30)
            if down:
                print(f"     outage {cycle}: lag {down['forwarder']['lag_packages']} packages, "
                      f"{down['forwarder']['lag_seconds']:.1f} s; last error: {down['forwarder'].get('last_error')}")
            late = wait_for(f"outage {cycle}: the backlog grows", lambda: (
                (s := status(port)) and down
                and s["forwarder"].get("lag_packages", 0) > down["forwarder"].get("lag_packages", 0) and s), 30) or status(port)
            check(late["forwarder"].get("lag_packages", 0) > down["forwarder"].get("lag_packages", 0) if down else False,
                  f"outage {cycle}: the backlog grows while PostgreSQL is down "
                  f"({late['forwarder'].get('lag_packages')} packages, {late['forwarder'].get('lag_seconds', 0):.1f} s)")
            subprocess.run([args.pg_cluster, "start", args.cluster], check=True)
            wait_for(f"outage {cycle}: the forwarder catches up", lambda: (
                (s := status(port)) and s["forwarder"].get("lag_packages", 1) < 100
                and s["forwarder"].get("state") in ("idle", "forwarding")), 60)
        time.sleep(2)
        check(env["HCIHICO_PW"] not in html, "the page never holds the password")
        # A crash during an outage: the backlog stays in the journal, and the next start forwards it.
        before = status(port)
        subprocess.run([args.pg_cluster, "stop", args.cluster], check=True)
        backlog = (wait_for("the forwarder waits on the outage with a backlog of 20 packages", lambda: (
            (s := status(port)) and s["forwarder"].get("state") == "waiting"
            and s["forwarder"].get("errors", 0) > before["forwarder"].get("errors", 0)
            and s["forwarder"].get("lag_packages", 0) >= 20 and s), 30)
            or status(port))["forwarder"].get("lag_packages", 0)
        rig.kill()
        rig.wait()
        check(backlog > 0, f"killed (SIGKILL) with {backlog} packages not yet forwarded")
        subprocess.run([args.pg_cluster, "start", args.cluster], check=True)
        rig = start_rig(args.bin, config, log, env)
        wait_for("the restarted rig catches up", lambda: (
            (s := status(port)) and s["forwarder"].get("lag_packages", 1) < 50
            and s["forwarder"].get("forwarded_packages", 0) >= backlog), 60)
        time.sleep(2)
    finally:
        stop_rig(rig, "outage")
        log.close()

    analyses_agree(args, os.path.join(folder, "fleet-outage.sqlite"), "fleet-outage")
    runs, packages, values = journal_rows(os.path.join(folder, "fleet-outage.sqlite"))
    pg_runs = {row[0]: row[1:] for row in psql(args.pg_cluster, args.cluster,
               "SELECT run_uuid, state, packages, last_idx, COALESCE(cell, '') FROM hcipico.runs "
               "WHERE rig = 'fleet-outage'")}
    check(set(pg_runs) == set(runs), f"every run is in PostgreSQL ({len(pg_runs)} of {len(runs)})")
    for uuid, (state, count, cell) in runs.items():
        got = pg_runs.get(uuid)
        check(got is not None and got[0] == state and int(got[1]) == count and int(got[2]) == count - 1,
              f"run {uuid[:8]}: {state}, {count} packages in the journal; PostgreSQL has {got}")
        # What became of the cell travels with the run; no run that did not end normally is silent on it.
        check(got is not None and (got[3] if len(got) > 3 else '') == cell,
              f"run {uuid[:8]}: the cell in the journal ({cell!r}) is in PostgreSQL ({got})")
        check(state == "complete" or cell != "",
              f"run {uuid[:8]}: {state}; " + (cell or "no cell note (only a complete run may have none)"))
    pg_values = {}
    for uuid, idx, position, variable, value, epoch in psql(args.pg_cluster, args.cluster,
            "SELECT v.run_uuid, v.idx, v.position, v.variable, COALESCE(v.value::text, ''), "
            "extract(epoch from p.host_time)::numeric(20,6) FROM hcipico.package_values v "
            "JOIN hcipico.packages p USING (rig, run_uuid, idx) WHERE v.rig = 'fleet-outage'"):
        pg_values[(uuid, int(idx), int(position))] = (variable, float(value) if value else None, float(epoch))
    total = sum(len(p) for p in packages.values())
    check(total > 500, f"the rig recorded enough to test ({total} packages)")
    missing = values.keys() - pg_values.keys()
    extra = pg_values.keys() - values.keys()
    # Values exactly; host times to PostgreSQL's microsecond.
    differ = [key for key in values.keys() & pg_values.keys()
              if values[key][:2] != pg_values[key][:2] or abs(values[key][2] - pg_values[key][2]) > 1.01e-6]
    check(not missing and not extra and not differ,
          f"PostgreSQL holds exactly the journal's {len(values)} values "
          f"(missing {len(missing)}, extra {len(extra)}, different {len(differ)}: "
          f"{[(values[k], pg_values[k]) for k in differ[:2]]})")
    pg_count = int(psql(args.pg_cluster, args.cluster,
                        "SELECT count(*) FROM hcipico.packages WHERE rig = 'fleet-outage'")[0][0])
    check(pg_count == total, f"each package once: {pg_count} rows for {total} packages")
    # In order: within a run, a later package never committed in an earlier transaction.
    disorder = psql(args.pg_cluster, args.cluster, """
        SELECT count(*) FROM (SELECT xmin::text::bigint AS tx,
               lag(xmin::text::bigint) OVER (PARTITION BY run_uuid ORDER BY idx) AS previous
               FROM hcipico.packages WHERE rig = 'fleet-outage') t WHERE tx < previous""")[0][0]
    check(disorder == "0", f"packages reached PostgreSQL in order within each run ({disorder} out of order)")
    with open(os.path.join(folder, "rig.log")) as file:
        text = file.read()
    check(env["HCIHICO_PW"] not in text, "the log never holds the password")
    check("retrying in" in text, "the log says the forwarder retried")


def metrics_and_access(args, env):
    folder = os.path.join(args.out, "metrics")
    os.makedirs(folder, exist_ok=True)
    for script in ["CV.mscr", "CA.mscr", "EIS.mscr"]:
        shutil.copy(os.path.join(args.examples, script), folder)
    token = secrets.token_urlsafe(24)
    token_file = os.path.join(folder, "status.token")
    with open(os.open(token_file, os.O_WRONLY | os.O_CREAT, 0o600), "w") as file:
        file.write(token + "\n")
    port = free_port()
    config = write_rig(folder, "fleet-metrics", port, "0.0.0.0", args.cluster, [
        {"name": f'"{name}"', "transport": '"sim"', "script": f'"{script}"', "every": '"1h"', "realtime": "false"}
        for name, script in [("pico-cv", "CV.mscr"), ("pico-ca", "CA.mscr"), ("pico-eis", "EIS.mscr")]
    ], token_file="status.token")
    log = open(os.path.join(folder, "rig.log"), "w")
    rig = start_rig(args.bin, config, log, env)
    try:
        wait_for("the status page answers with the token", lambda: http(port, "/healthz", token)[0] == 200, 30)
        settled = wait_for("every device has run once, everything forwarded", lambda: (
            (s := status(port, token)) and all(d["complete_runs"] == 1 and d["state"] == "idle" for d in s["devices"])
            and s["forwarder"].get("lag_packages") == 0 and s["forwarder"].get("state") == "idle" and s), 60)
        for path in ["/", "/metrics", "/events", "/api/status", "/healthz", "/runs/1/csv"]:
            code, body = http(port, path)
            check(code == 401 and body == "", f"{path} without the token: {code}, body {len(body)} bytes")
            code, _ = http(port, path, token="not-" + token)
            check(code == 401, f"{path} with a wrong token: {code}")
        check(http(port, "/api/status", basic="operator:" + token)[0] == 200, "HTTP Basic with the token is let in")
        code, exposition = http(port, "/metrics", token)
        check(code == 200, "/metrics with the token")
        samples = {}
        for family in text_string_to_metric_families(exposition):
            for sample in family.samples:
                samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
        db = sqlite3.connect(os.path.join(folder, "fleet-metrics.sqlite"))
        per_device = dict(db.execute("SELECT d.name, count(*) FROM packages p JOIN runs r ON r.id = p.run_id "
                                     "JOIN devices d ON d.id = r.device_id GROUP BY d.name"))
        values = dict(db.execute("SELECT d.name, count(*) FROM package_values v JOIN runs r ON r.id = v.run_id "
                                 "JOIN devices d ON d.id = r.device_id GROUP BY d.name"))
        total = db.execute("SELECT count(*) FROM packages").fetchone()[0]
        db.close()
        for device, count in per_device.items():
            label = (("device", device),)
            check(samples.get(("hcipico_device_packages_total", label)) == count,
                  f"{device}: hcipico_device_packages_total {samples.get(('hcipico_device_packages_total', label))} = journal {count}")
            check(samples.get(("hcipico_device_samples_total", label)) == values[device],
                  f"{device}: hcipico_device_samples_total = journal values {values[device]}")
            check(samples.get(("hcipico_device_runs_total", (("device", device), ("result", "complete")))) == 1,
                  f"{device}: one complete run")
            check(samples.get(("hcipico_device_state", (("device", device), ("state", "idle")))) == 1, f"{device}: idle")
            check(samples.get(("hcipico_device_notifications_total", label), 0) > 0,
                  f"{device}: notifications counted ({samples.get(('hcipico_device_notifications_total', label))})")
        check(samples.get(("hcipico_journal_packages_committed_total", ())) == total,
              f"hcipico_journal_packages_committed_total = journal {total}")
        check(samples.get(("hcipico_forward_packages_total", ())) == total, f"hcipico_forward_packages_total = {total}")
        check(samples.get(("hcipico_forward_lag_packages", ())) == 0, "hcipico_forward_lag_packages = 0")
        check(samples.get(("hcipico_journal_commit_duration_seconds_count", ()), 0) > 0, "commit latency observed")
        with open(os.path.join(folder, "metrics.txt"), "w") as file:
            file.write(exposition)
        shown = exposition + str(settled) + http(port, "/", token)[1]
        check(env["HCIHICO_PW"] not in shown and token not in shown, "no secret on /metrics, /api/status or the page")
    finally:
        stop_rig(rig, "metrics")
        log.close()
    with open(os.path.join(folder, "rig.log")) as file:
        text = file.read()
    check(env["HCIHICO_PW"] not in text and token not in text, "no secret in the log")
    check("(token required)" in text, "the log says the page needs a token")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--cluster", required=True)
    parser.add_argument("--pg-cluster", required=True)
    parser.add_argument("--examples", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    env = dict(os.environ)
    env["HCIHICO_PW"] = "pw-" + secrets.token_hex(12)
    env["HCIPICO_TEST_PG_PASSWORD"] = env["HCIHICO_PW"]
    started = time.time()
    outage(args, env)
    metrics_and_access(args, env)
    print(f"fleet-check: {'FAILED' if FAILURES else 'passed'} in {time.time() - started:.0f} s; "
          f"screenshots and logs in {args.out}", flush=True)
    sys.exit(1 if FAILURES else 0)


if __name__ == "__main__":
    main()
