#!/usr/bin/env python3
"""The analysis anchors: scipy's peak pipeline and impedance.py's circuit fits, on jobs given as JSON.

Reads a JSON list of jobs on stdin and prints a JSON list of results, one per job, in order:

  {"kind": "peaks", "y": [...], "window": 11 or null, "order": 2, "prominence": P, "width": W}
      scipy.signal.savgol_filter (mode "interp") when a window is given, then scipy.signal.find_peaks
      with prominence=P and width=W (samples): {"smoothed", "peaks", "prominences", "left_bases",
      "right_bases", "widths"}
  {"kind": "fit", "circuit": "R(Q(RW))", "f": [...], "zr": [...], "zi": [...], "initial": [...],
   "weighting": "unit" or "modulus"}
      impedance.py's CustomCircuit with the circuit written in its syntax, fitted as users fit it
      (its default bounds and least-squares): {"values", "errors"}

With --bench N each job's computation (the calls a user makes, not the packing of results) also runs N
more times and its result gets "seconds", the median time of one call. Exit status 0, or 2 on bad usage.

  .venv/bin/python Tests/Peers/analysis_anchor.py [--bench N] < jobs.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import warnings

import numpy as np
from scipy.signal import find_peaks, savgol_filter


def impedance_py_circuit(code: str) -> str:
    """Boukamp's code (series side by side, a parenthesis in parallel, alternating) in impedance.py's
    syntax (`-` for series, `p(a,b)` for parallel), with elements numbered per letter as hcipico numbers
    them (R1, R2, CPE1, W1, …)."""
    names = {"R": "R", "C": "C", "L": "L", "Q": "CPE", "W": "W"}
    counts: dict[str, int] = {}
    position = 0

    def group(parallel: bool) -> str:
        nonlocal position
        parts = []
        while position < len(code) and code[position] != ")":
            ch = code[position]
            if ch == "(":
                position += 1
                parts.append(group(not parallel))
                position += 1  # the ")"
            else:
                counts[ch] = counts.get(ch, 0) + 1
                parts.append(f"{names[ch]}{counts[ch]}")
                position += 1
        if len(parts) == 1:
            return parts[0]
        return "p(" + ",".join(parts) + ")" if parallel else "-".join(parts)

    return group(False)


def find(job: dict, y: np.ndarray):
    """scipy's pipeline as its users call it: smoothing, then find_peaks with prominence and width."""
    if job.get("window"):
        y = savgol_filter(y, job["window"], job["order"])
    found, props = find_peaks(y, prominence=job["prominence"], width=job["width"])
    return y, found, props


def peaks(job: dict, bench: int) -> dict:
    y = np.asarray(job["y"], dtype=float)
    y, found, props = find(job, y)
    result = {
        "smoothed": y.tolist(),
        "peaks": found.tolist(),
        "prominences": props["prominences"].tolist(),
        "left_bases": props["left_bases"].tolist(),
        "right_bases": props["right_bases"].tolist(),
        "widths": props["widths"].tolist(),
    }
    if bench > 0:
        y = np.asarray(job["y"], dtype=float)
        result["seconds"] = timed(bench, lambda: find(job, y))
    return result


def fit_circuit(job: dict, f: np.ndarray, z: np.ndarray):
    """impedance.py as its users call it: a CustomCircuit from a string and starting values, then fit."""
    from impedance.models.circuits import CustomCircuit

    circuit = CustomCircuit(impedance_py_circuit(job["circuit"]), initial_guess=list(job["initial"]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        circuit.fit(f, z, weight_by_modulus=job.get("weighting") == "modulus")
    return circuit


def fit(job: dict, bench: int) -> dict:
    f = np.asarray(job["f"], dtype=float)
    z = np.asarray(job["zr"], dtype=float) + 1j * np.asarray(job["zi"], dtype=float)
    circuit = fit_circuit(job, f, z)
    result = {"values": circuit.parameters_.tolist(), "errors": circuit.conf_.tolist()}
    if bench > 0:
        result["seconds"] = timed(bench, lambda: fit_circuit(job, f, z))
    return result


def timed(rounds: int, call) -> float:
    """The median seconds of one call over `rounds` calls (after the one already made)."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", type=int, default=0, help="time each job over this many calls")
    arguments = parser.parse_args()
    jobs = json.load(sys.stdin)
    results = []
    for job in jobs:
        run = {"peaks": peaks, "fit": fit}.get(job.get("kind"))
        if run is None:
            print(f"analysis_anchor: unknown job kind {job.get('kind')!r}", file=sys.stderr)
            return 2
        results.append(run(job, arguments.bench))
    json.dump(results, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
