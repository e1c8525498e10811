"""The rig's API with real clients (see api-check.sh): httpx and curl submit runs to a rig of simulated
Picos while a schedule runs, follow them on the event stream, fetch their results; retries, roles,
bad bodies, abort, pause and resume; SIGTERM with runs queued and kill -9 with runs queued, each
checked in the journal."""

import argparse
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

import asyncio

import httpx
import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.support.ui import Select
from openapi_spec_validator import validate as validate_spec

FAILURES = []
HITS = set()  # (method, path) of every response the API gave


def record(response):
    HITS.add((response.request.method, response.request.url.path))


CLIENT = httpx.Client(event_hooks={"response": [record]}, timeout=30)

SHORT_CA = (
    "e\nvar p\nvar c\nset_pgstat_mode 2\nset_range ba 50u\nset_e 0\ncell_on\n"
    "meas_loop_ca p c 200m 20m 400m\n  pck_start\n  pck_add p\n  pck_add c\n  pck_end\nendloop\n"
    "on_finished:\n  cell_off\n\n"
)
LONG_CA = SHORT_CA.replace("200m 20m 400m", "200m 100m 60")


def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message, flush=True)
    if not condition:
        FAILURES.append(message)


def wait_for(what, predicate, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            value = predicate()
            if value:
                return value
        except (httpx.HTTPError, sqlite3.Error, KeyError, ValueError, StopIteration, WebDriverException):
            pass
        time.sleep(0.1)
    check(False, f"{what} within {seconds} s")
    return None


class Rig:
    def __init__(self, binary, directory, port):
        self.binary, self.directory, self.port = binary, directory, port
        self.journal = os.path.join(directory, "rig.sqlite")
        self.log = open(os.path.join(directory, "rig.log"), "ab")
        self.process = None

    def start(self):
        self.process = subprocess.Popen(
            [self.binary, "rig", os.path.join(self.directory, "rig.toml")],
            stdout=self.log, stderr=subprocess.STDOUT,
        )
        wait_for("the rig's API", lambda: CLIENT.get(self.url("/healthz"), headers=READ).status_code == 200, 60)

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self, sig=signal.SIGTERM):
        self.process.send_signal(sig)
        return self.process.wait(timeout=60)

    def query(self, sql, *arguments):
        with sqlite3.connect(f"file:{self.journal}?mode=ro", uri=True) as db:
            return db.execute(sql, arguments).fetchall()


READ, CONTROL = {}, {}
SCHEMAS = {}


def conforms(value, schema):
    """Whether `value` is what the OpenAPI document's component `schema` says."""
    try:
        jsonschema.validate(value, {"$ref": f"#/components/schemas/{schema}", "components": {"schemas": SCHEMAS}})
        return True
    except jsonschema.ValidationError as error:
        print(f"     {schema}: {error.message}", flush=True)
        return False


def submit(rig, device, body, headers=None, token=None):
    auth = CONTROL if token is None else token
    return CLIENT.post(rig.url(f"/api/devices/{device}/requests"), json=body, headers={**auth, **(headers or {})})


def request_state(rig, request_id):
    return CLIENT.get(rig.url(f"/api/requests/{request_id}"), headers=READ).json()


def follow(rig, request_id, after=None):
    """The request's events, in order, until the stream ends."""
    events, event = [], {}
    headers = {**READ}
    if after is not None:
        headers["Last-Event-ID"] = str(after)
    with CLIENT.stream("GET", rig.url(f"/api/requests/{request_id}/events"), headers=headers, timeout=120) as reply:
        for line in reply.iter_lines():
            if line == "":
                if event:
                    events.append(event)
                event = {}
            elif line.startswith("event: "):
                event["event"] = line[7:]
            elif line.startswith("id: "):
                event["id"] = int(line[4:])
            elif line.startswith("data: "):
                event["data"] = json.loads(line[6:])
    return events


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--spec", required=True)
    parser.add_argument("--page-port", type=int, required=True)
    options = parser.parse_args()
    with open(options.spec) as file:
        spec = json.load(file)
    try:
        validate_spec(spec)
        check(True, f"{options.spec} is a valid OpenAPI {spec['openapi']} document")
    except Exception as error:  # the validator's own error types
        check(False, f"{options.spec} is a valid OpenAPI document: {error}")
    SCHEMAS.update(spec["components"]["schemas"])
    directory = tempfile.mkdtemp(prefix="hcipico-api-")
    for name, value in (("read.token", "read-" + os.urandom(8).hex()), ("control.token", "ctl-" + os.urandom(8).hex())):
        path = os.path.join(directory, name)
        with open(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600), "w") as file:
            file.write(value + "\n")
        (READ if name == "read.token" else CONTROL)["Authorization"] = f"Bearer {value}"
    for name, text in (("short.mscr", SHORT_CA), ("long.mscr", LONG_CA)):
        with open(os.path.join(directory, name), "w") as file:
            file.write(text)
    with open(os.path.join(directory, "rig.toml"), "w") as file:
        file.write(f"""[rig]
name = "api-check"
journal = "rig.sqlite"

[status]
listen = "127.0.0.1:{options.port}"
token_file = "read.token"
control_token_file = "control.token"

[[device]]
name = "scheduled"
transport = "sim"
script = "short.mscr"
every = "2s"

[[device]]
name = "bench"
transport = "sim"
script = "short.mscr"
schedule = "on-demand"
""")
    page(options.bin, directory, options.page_port)
    rig = Rig(options.bin, directory, options.port)
    rig.start()
    try:
        exercise(rig)
    finally:
        if rig.process.poll() is None:
            rig.stop()
    for path, operations in spec["paths"].items():
        pattern = re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", path) + "$")
        for method in operations:
            if method == "parameters":
                continue
            hit = any(m == method.upper() and pattern.match(p) for m, p in HITS)
            check(hit, f"{method.upper()} {path} was exercised")
    print(f"api-check: files in {directory}")
    if FAILURES:
        print(f"api-check: {len(FAILURES)} checks failed", file=sys.stderr)
        sys.exit(1)
    print("api-check: every check passed")


def page(binary, directory, port):
    """The status page in headless Chromium on a loopback rig without a read token: read-only until the
    control token is given; then it runs a method on a device, pauses and resumes a schedule."""
    config = os.path.join(directory, "page.toml")
    with open(config, "w") as file:
        file.write(f"""[rig]
name = "page-check"
journal = "page.sqlite"
[status]
listen = "127.0.0.1:{port}"
control_token_file = "control.token"
[[device]]
name = "scheduled"
transport = "sim"
script = "short.mscr"
every = "5s"
[[device]]
name = "bench"
transport = "sim"
script = "short.mscr"
schedule = "on-demand"
""")
    rig = Rig(binary, directory, port)
    rig.journal = os.path.join(directory, "page.sqlite")
    rig.process = subprocess.Popen([binary, "rig", config], stdout=rig.log, stderr=subprocess.STDOUT)
    wait_for("the page rig", lambda: CLIENT.get(rig.url("/healthz")).status_code == 200, 60)
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,1400"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"))
    try:
        driver.get(rig.url("/"))
        wait_for("the page", lambda: driver.find_element(By.ID, "control-unlock").is_displayed(), 30)
        check(not driver.find_element(By.ID, "control-panel").is_displayed(), "page: read-only without the control token")
        driver.find_element(By.ID, "control-token").send_keys("not-the-token")
        driver.find_element(By.CSS_SELECTOR, "#control-unlock button").click()
        error = wait_for("the refusal", lambda: driver.find_element(By.ID, "control-error").text, 10)
        check(bool(error) and not driver.find_element(By.ID, "control-panel").is_displayed(),
              f"page: a wrong token is refused ({error})")
        driver.find_element(By.ID, "control-token").send_keys(CONTROL["Authorization"][len("Bearer "):])
        driver.find_element(By.CSS_SELECTOR, "#control-unlock button").click()
        wait_for("the controls", lambda: driver.find_element(By.ID, "control-panel").is_displayed(), 10)
        wait_for("the method form", lambda: driver.find_elements(By.CSS_SELECTOR, "#run-params input"), 10)
        wait_for("the devices", lambda: len(driver.find_elements(By.CSS_SELECTOR, "#control-body tr")) == 2, 10)
        Select(driver.find_element(By.ID, "run-device")).select_by_value("bench")
        Select(driver.find_element(By.ID, "run-technique")).select_by_value("dpv")
        for key, value in (("begin_potential", "-0.1"), ("end_potential", "0.1"), ("step_potential", "0.01")):
            field = driver.find_element(By.CSS_SELECTOR, f'#run-params input[name="{key}"]')
            field.clear()
            field.send_keys(value)
        driver.find_element(By.ID, "run-now").click()
        result = wait_for("the submission", lambda: "queued" in driver.find_element(By.ID, "run-result").text and
                          driver.find_element(By.ID, "run-result").text, 10)
        check(bool(result), f"page: Run now queues the method ({result})")
        done = wait_for("the page's run", lambda: CLIENT.get(rig.url("/api/devices/bench/requests")).json()["requests"][0]
                        ["state"] == "complete", 30)
        check(bool(done), "page: the run it asked for completed")
        field = driver.find_element(By.CSS_SELECTOR, '#run-params input[name="end_potential"]')
        field.clear()
        field.send_keys("9")
        driver.find_element(By.ID, "run-now").click()
        wrong = wait_for("the refusal", lambda: "end_potential" in driver.find_element(By.ID, "run-result").text and
                         driver.find_element(By.ID, "run-result").text, 10)
        check(bool(wrong) and "invalid" in field.get_attribute("class"), f"page: a wrong parameter is named and marked ({wrong})")
        pause = driver.find_element(By.CSS_SELECTOR, '#control-body tr[data-device="scheduled"] button.pause')
        pause.click()
        paused = wait_for("the pause", lambda: next(d for d in CLIENT.get(rig.url("/api/devices")).json()
                                                   if d["name"] == "scheduled")["schedule_paused"], 10)
        check(bool(paused), "page: Pause schedule pauses it")
        wait_for("the button to say resume", lambda: "Resume" in driver.find_element(
            By.CSS_SELECTOR, '#control-body tr[data-device="scheduled"] button.pause').text, 10)
        shot = os.path.join(directory, "page-control.png")
        driver.save_screenshot(shot)
        driver.find_element(By.CSS_SELECTOR, '#control-body tr[data-device="scheduled"] button.pause').click()
        resumed = wait_for("the resume", lambda: not next(d for d in CLIENT.get(rig.url("/api/devices")).json()
                                                         if d["name"] == "scheduled")["schedule_paused"], 10)
        check(resumed is not None, "page: Resume schedule resumes it")
        actions = [row[0] for row in rig.query("SELECT actor FROM control_actions")]
        check(actions and all(a.startswith("control token (Mozilla") for a in actions),
              f"page: its actions are the browser's in the journal ({len(actions)})")
        # The refusals this check provoked (the wrong token, the wrong parameter) are the only errors.
        provoked = ("/api/control - ", "/api/devices/bench/requests - ")
        severe = [e for e in driver.get_log("browser")
                  if e.get("level") == "SEVERE" and not any(p in e["message"] for p in provoked)]
        check(not severe, f"page: no console errors ({severe[:2]})")
        print(f"     page screenshot: {shot}", flush=True)
    finally:
        driver.quit()
        rig.stop()


async def agent(rig):
    """The MCP server on the rig: tools, a DPV run to its end with its peaks, a results resource; with
    the read token it may look but not run."""
    def server(token_file):
        return StdioServerParameters(command=rig.binary,
                                     args=["mcp", "--url", rig.url(""), "--token-file", os.path.join(rig.directory, token_file)])

    async with stdio_client(server("control.token")) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            names = {tool.name for tool in (await session.list_tools()).tools}
            check({"list_devices", "list_methods", "run_method", "run_script", "get_request", "get_results", "cancel",
                   "abort"} <= names, f"mcp: the tools are listed ({sorted(names)})")
            devices = await session.call_tool("list_devices", {})
            check(not devices.is_error and "bench" in devices.content[0].text, "mcp: list_devices")
            result = await session.call_tool("run_method", {
                "device": "bench", "technique": "dpv",
                "parameters": {"begin_potential": -0.1, "end_potential": 0.1, "step_potential": 0.01},
                "title": "from an agent"})
            answer = json.loads(result.content[0].text) if result.content else {}
            request = answer.get("request", {})
            check(not result.is_error and request.get("state") == "complete",
                  f"mcp: run_method ran a DPV to its end ({request.get('state')})")
            check("peaks" in json.dumps(answer.get("results", {})), "mcp: and returned its peaks")
            check(request.get("submitter", "").startswith("control token ("), "mcp: the rig knows who asked")
            resources = (await session.list_resources()).resources
            uri = f"hcipico://runs/{request.get('run')}/results"
            check(any(str(r.uri) == uri for r in resources), f"mcp: the run's results are a resource ({uri})")
            contents = (await session.read_resource(uri)).contents
            check(contents and "peaks" in contents[0].text, "mcp: reading the resource gives the results")
            wrong = await session.call_tool("run_method", {"device": "bench", "technique": "dpv",
                                                            "parameters": {"end_potential": 9}})
            check(wrong.is_error and "end_potential" in wrong.content[0].text, "mcp: a wrong parameter is named")
    async with stdio_client(server("read.token")) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            looked = await session.call_tool("list_devices", {})
            check(not looked.is_error, "mcp with the read token may look")
            refused = await session.call_tool("run_method", {"device": "bench", "technique": "dpv"})
            check(refused.is_error and "403" in refused.content[0].text, "mcp with the read token may not run (403)")


def exercise(rig):
    devices = CLIENT.get(rig.url("/api/devices"), headers=READ).json()
    check([d["name"] for d in devices] == ["scheduled", "bench"] and all(conforms(d, "Device") for d in devices),
          "GET /api/devices lists both devices")
    methods = CLIENT.get(rig.url("/api/methods"), headers=READ).json()
    check(any(m["technique"] == "dpv" for m in methods), "GET /api/methods lists dpv with its parameters")
    check(all(conforms(m, "Method") for m in methods), "every method is a Method")
    dpv = {"technique": "dpv", "parameters": {"begin_potential": -0.1, "end_potential": 0.1, "step_potential": 0.01}}

    # Roles: the read token may read, never control; no token is 401.
    reply = submit(rig, "bench", dpv, token=READ)
    check(reply.status_code == 403, f"submit with the read token is 403 ({reply.status_code} {reply.text})")
    reply = submit(rig, "bench", dpv, token={})
    check(reply.status_code == 401, f"submit without a token is 401 ({reply.status_code})")
    for path in ("/api/devices/bench/abort", "/api/devices/bench/schedule/pause"):
        code = CLIENT.post(rig.url(path), headers=READ).status_code
        check(code == 403, f"POST {path} with the read token is 403 ({code})")
    check(rig.query("SELECT COUNT(*) FROM control_actions") == [(0,)], "no control action was recorded")

    # Bad bodies: clear 4xx, naming the field, and nothing queued.
    bad = [
        ({"technique": "dpv", "colour": "red"}, 400, "colour"),
        ({"technique": "dpv", "parameters": {"begin_potential": "low"}}, 400, "begin_potential"),
        ({"technique": "dpv", "parameters": {"end_potential": 9}}, 400, "end_potential"),
        ({"technique": "dpv", "parameters": {"e_stop": 1}}, 400, "e_stop"),
        ({"script": "var c\nmeas_loop_lsv c c 0 3 10m 100m\nendloop\n"}, 400, "script"),
        ({"technique": "dpv", "priority": 1.5}, 400, "priority"),
    ]
    for body, status, field in bad:
        reply = submit(rig, "bench", body)
        check(reply.status_code == status and reply.json().get("parameter") == field,
              f"{json.dumps(body)[:60]} is {status} naming {field} ({reply.status_code} {reply.text[:120]})")
    long_script = "var c\n" + "set_e 0\n" * 2500  # 20 KB: under the body's bound, over a script's 16 KiB
    reply = submit(rig, "bench", {"script": long_script})
    check(reply.status_code == 400 and reply.json().get("parameter") == "script",
          f"a script over 16 KiB is 400 naming script ({reply.status_code} {reply.text[:100]})")
    reply = CLIENT.post(rig.url("/api/devices/bench/requests"), content=b"{not json", headers=CONTROL)
    check(reply.status_code == 400, f"malformed JSON is 400 ({reply.status_code})")
    reply = CLIENT.post(rig.url("/api/devices/bench/requests"), content=b"x" * (70 * 1024), headers=CONTROL)
    check(reply.status_code == 413, f"a 70 KiB body is 413 ({reply.status_code})")
    reply = submit(rig, "nowhere", dpv)
    check(reply.status_code == 404, f"an unknown device is 404 ({reply.status_code})")
    queue = CLIENT.get(rig.url("/api/devices/bench/requests"), headers=READ).json()
    check(queue["requests"] == [] and conforms(queue, "Queue"), "the refused orders queued nothing")
    check(conforms(reply.json(), "Problem"), "an error is a Problem")

    # Submit with a key, retry it (httpx, then curl): one request, one run.
    key = "sample-" + os.urandom(4).hex()
    first = submit(rig, "bench", dpv, headers={"Idempotency-Key": key})
    check(first.status_code == 201, f"a new submission is 201 ({first.status_code} {first.text[:200]})")
    check(conforms(first.json(), "Request"), "the submission's answer is a Request")
    check(first.headers.get("location") == f"/api/requests/{first.json()['id']}", "Location names the request")
    request_id = first.json()["id"]
    again = submit(rig, "bench", dpv, headers={"Idempotency-Key": key})
    check(again.status_code == 200 and again.json()["id"] == request_id, "a retry with the key is the same request")
    curl = subprocess.run(
        ["curl", "-sS", "-X", "POST", "-H", f"Authorization: {CONTROL['Authorization']}",
         "-H", f"Idempotency-Key: {key}", "-H", "Content-Type: application/json",
         "--data", json.dumps(dpv), rig.url("/api/devices/bench/requests")],
        capture_output=True, text=True, check=False,
    )
    check(curl.returncode == 0 and json.loads(curl.stdout)["id"] == request_id, "curl's retry is the same request")

    # Follow it: the request's states, then every package in order, then the end.
    events = follow(rig, request_id)
    packages = [e for e in events if e.get("event") == "package"]
    ends = [e for e in events if e.get("event") == "end"]
    check(events and events[0]["event"] == "request", "the stream starts with the request's state")
    check(ends and ends[-1]["data"]["state"] == "complete", f"the stream ends with a complete run ({ends[-1:]})")
    check([e["id"] for e in packages] == list(range(len(packages))) and len(packages) == 21,
          f"21 packages, ids 0…20 in order (got {len(packages)})")
    state = request_state(rig, request_id)
    check(state["state"] == "complete" and state["run"] is not None, f"the request is complete ({state['state']})")
    runs = rig.query("SELECT COUNT(*) FROM run_requests WHERE idempotency_key = ?", key)
    check(runs == [(1,)], "the journal has one request for the key")
    check(rig.query("SELECT COUNT(*) FROM runs WHERE title = 'dpv'") == [(1,)], "and one run")
    # Resume after package 9, and fetch the results the run's files hold.
    resumed = [e for e in follow(rig, request_id, after=9) if e.get("event") == "package"]
    check([e["id"] for e in resumed] == list(range(10, 21)), "resuming after id 9 sends 10…20")
    run_events = []
    with CLIENT.stream("GET", rig.url(f"/api/runs/{state['run']}/events?after=15"), headers=READ) as reply:
        run_events = [line for line in reply.iter_lines() if line.startswith(("id: ", "event: end"))]
    check(run_events == [f"id: {n}" for n in range(16, 21)] + ["event: end"], f"a run's stream after 15 ({run_events})")
    csv = CLIENT.get(rig.url(f"/runs/{state['run']}/csv"), headers=READ)
    check(csv.status_code == 200 and csv.text.count("\n") > 21, "the run's CSV is there")
    for file, kind in (("jsonl", "application/jsonl"), ("pstrace.csv", "text/csv"), ("svg", "image/svg+xml"),
                       ("results.json", "application/json"), ("results.csv", "text/csv")):
        reply = CLIENT.get(rig.url(f"/runs/{state['run']}/{file}"), headers=READ)
        check(reply.status_code == 200 and reply.headers["content-type"].startswith(kind) and reply.content,
              f"the run's {file} is there as {kind} ({reply.status_code} {reply.headers.get('content-type')})")
    results = CLIENT.get(rig.url(f"/runs/{state['run']}/results.json"), headers=READ).json()
    check("peaks" in json.dumps(results), "the DPV's results hold its peaks")

    # Beside the schedule: a request on the scheduled device runs between its runs.
    reply = submit(rig, "scheduled", {"script": SHORT_CA, "title": "between"})
    between = reply.json()["id"]
    wait_for("the request on the scheduled device", lambda: request_state(rig, between)["state"] == "complete", 30)
    scheduled_runs = rig.query("SELECT COUNT(*) FROM runs r JOIN devices d ON d.id = r.device_id "
                               "WHERE d.name = 'scheduled' AND r.title = 'short.mscr'")[0][0]
    check(scheduled_runs >= 1, f"the schedule ran beside it ({scheduled_runs} runs)")

    # Pause and resume the schedule.
    check(CLIENT.post(rig.url("/api/devices/scheduled/schedule/pause"), headers=CONTROL).status_code == 200, "pause")
    wait_for("the scheduled device idle", lambda: next(d for d in CLIENT.get(rig.url("/api/devices"), headers=READ).json()
                                                        if d["name"] == "scheduled").get("running") is None, 10)
    before = rig.query("SELECT COUNT(*) FROM runs WHERE title = 'short.mscr'")[0][0]
    time.sleep(3)  # longer than the schedule's 2 s: a run would have started in it
    after = rig.query("SELECT COUNT(*) FROM runs WHERE title = 'short.mscr'")[0][0]
    check(after == before, f"no scheduled run while paused ({before} → {after})")
    check(CLIENT.post(rig.url("/api/devices/scheduled/schedule/resume"), headers=CONTROL).status_code == 200, "resume")
    wait_for("a scheduled run after resume",
             lambda: rig.query("SELECT COUNT(*) FROM runs WHERE title = 'short.mscr'")[0][0] > after, 10)

    # Abort a long run.
    long_id = submit(rig, "bench", {"script": LONG_CA, "title": "long"}).json()["id"]
    wait_for("the long run running", lambda: request_state(rig, long_id)["state"] == "running", 30)
    behind = submit(rig, "bench", {"script": SHORT_CA, "title": "behind"}).json()["id"]
    reply = CLIENT.request("DELETE", rig.url(f"/api/requests/{behind}"), headers=CONTROL)
    check(reply.status_code == 200 and reply.json()["state"] == "cancelled", f"DELETE cancels a queued request ({reply.text[:100]})")
    reply = CLIENT.request("DELETE", rig.url(f"/api/requests/{behind}"), headers=CONTROL)
    check(reply.status_code == 409, f"cancelling it again is 409 ({reply.status_code})")
    reply = CLIENT.request("DELETE", rig.url(f"/api/requests/{behind}"), headers=READ)
    check(reply.status_code == 403, f"DELETE with the read token is 403 ({reply.status_code})")
    reply = CLIENT.post(rig.url("/api/devices/bench/abort"), headers={**CONTROL, "User-Agent": "api-check"})
    check(reply.status_code == 200 and reply.json()["request"]["id"] == long_id and conforms(reply.json(), "Abort"),
          f"abort ({reply.status_code})")
    state = wait_for("the aborted request's end", lambda: (s := request_state(rig, long_id))["state"] != "running" and s, 30)
    check(state and state["state"] == "incomplete" and "aborted by control token (api-check)" in (state["reason"] or ""),
          f"the aborted run is incomplete, saying who ({state and state['reason']})")
    actions = [row[0] for row in rig.query("SELECT action FROM control_actions ORDER BY id")]
    check(actions == ["submit", "submit", "pause", "resume", "submit", "submit", "cancel", "abort"],
          f"every control action recorded ({actions})")

    # An agent: hcipico mcp, driven by the Python MCP SDK's client, with each token.
    asyncio.run(agent(rig))
    # The page acts with the control token only.
    CLIENT.get(rig.url("/api/control"), headers=CONTROL)
    check(CLIENT.get(rig.url("/api/control"), headers=READ).status_code == 403, "GET /api/control with the read token is 403")

    # SIGTERM with runs queued: the queued ones end cancelled in the journal.
    ids = [submit(rig, "bench", {"script": LONG_CA, "title": f"queued {n}"}).json()["id"] for n in range(3)]
    wait_for("the first queued run running", lambda: request_state(rig, ids[0])["state"] == "running", 30)
    status = rig.stop()
    check(status == 143, f"the rig ends 143 (SIGTERM: ended cleanly) ({status})")
    rows = dict(rig.query("SELECT id, state FROM run_requests WHERE id IN (?, ?, ?)", *ids))
    check([rows.get(i) for i in ids] == ["incomplete", "cancelled", "cancelled"],
          f"SIGTERM: running → incomplete, queued → cancelled ({[rows.get(i) for i in ids]})")

    # kill -9 with runs queued: the next start records them honestly.
    rig.start()
    ids = [submit(rig, "bench", {"script": LONG_CA, "title": f"killed {n}"}).json()["id"] for n in range(2)]
    wait_for("the first run running", lambda: request_state(rig, ids[0])["state"] == "running", 30)
    wait_for("the running request in the journal", lambda: rig.query(
        "SELECT state FROM run_requests WHERE id = ?", ids[0]) == [("running",)], 10)
    rig.stop(signal.SIGKILL)
    rig.start()
    rows = dict(rig.query("SELECT id, state FROM run_requests WHERE id IN (?, ?)", *ids))
    reasons = dict(rig.query("SELECT id, reason FROM run_requests WHERE id IN (?, ?)", *ids))
    check([rows.get(i) for i in ids] == ["incomplete", "cancelled"],
          f"kill -9: running → incomplete, queued → cancelled after restart ({[rows.get(i) for i in ids]})")
    check("killed" in (reasons.get(ids[1]) or ""), f"the cancelled one says why ({reasons.get(ids[1])})")
    # The restarted rig answers for the earlier process's requests, and a retry with an earlier key is
    # that request, not a second run.
    check(request_state(rig, ids[1])["state"] == "cancelled", "the restarted rig answers for a request it never ran")
    # The bench's runs only: the scheduled device starts its own every 2 s meanwhile.
    bench_runs = ("SELECT COUNT(*) FROM runs r JOIN devices d ON d.id = r.device_id "
                  "WHERE d.name = 'bench'")
    runs_before = rig.query(bench_runs)
    retried = submit(rig, "bench", dpv, headers={"Idempotency-Key": key})
    check(retried.status_code == 200 and retried.json()["id"] == request_id,
          f"a retry after the restart with an earlier key is that request ({retried.status_code})")
    check(rig.query(bench_runs) == runs_before, "and starts no run")
    check(rig.stop() == 143, "the restarted rig ends 143 on SIGTERM")


if __name__ == "__main__":
    main()
