"""Loads what `hcipico export` wrote with numpy, as a user would, and checks every column is numeric.

For each run (DEVICE-runN.jsonl, whose last line says how many packages the run has):
- DEVICE-runN.csv, the per-point table: the leading `#` lines skipped, the header line as names,
  `#` lines as comments; every column must be a number column, one row per package, and no value
  may carry a binary-float artefact (more than 9 significant digits).
- DEVICE-runN.pstrace.csv: `numpy.genfromtxt(path, delimiter=',', skip_header=6, encoding='utf-16')`
  must give the numbers: every field after the six header lines is a number or empty, and numpy's
  array holds exactly those values.

    python export_check.py FOLDER
"""

import json
import math
import pathlib
import sys

import numpy as np


def leading_comments(path):
    count = 0
    with open(path, encoding="utf-8") as file:
        for line in file:
            if not line.startswith("#"):
                break
            count += 1
    return count


def check_points(path, packages):
    table = np.genfromtxt(
        path,
        delimiter=",",
        comments="#",
        names=True,
        skip_header=leading_comments(path),
        dtype=None,
        encoding="utf-8",
    )
    table = np.atleast_1d(table)
    names = table.dtype.names or ()
    problems = [f"column {name!r} is {table.dtype[name]}" for name in names if table.dtype[name].kind not in "iuf"]
    if len(names) < 6:
        problems.append(f"only {len(names)} columns: {names}")
    with open(path, encoding="utf-8") as file:
        header = next(line for line in file if not line.startswith("#")).rstrip("\n").split(",")
    coded = [name for name in header if name.split(" ")[0] in ("da", "ba", "dc", "cc", "eb")]
    if coded:
        problems.append(f"columns named by type code, not by the script's variables: {coded}")
    if len(table) != packages:
        problems.append(f"{len(table)} rows for {packages} packages")
    problems += check_artefacts(path)
    return problems, f"{len(table)} rows x {len(names)} columns"


def significant_digits(text):
    """Significant digits of a decimal as written: `-4.999347e-05` has 7, `0.030000000000000002` 17."""
    mantissa = text.lower().split("e")[0].lstrip("+-").replace(".", "").lstrip("0")
    return len(mantissa)


def check_artefacts(path):
    """No value carries a binary-float artefact: the device sends 7-digit mantissas, so a value with
    more than 9 significant digits (host_time, a clock, excepted) was printed from a double that is
    not the device's decimal."""
    problems = []
    header = None
    with open(path, encoding="utf-8") as file:
        for number, line in enumerate(file, start=1):
            if line.startswith("#"):
                continue
            fields = line.rstrip("\n").split(",")
            if header is None:
                header = fields
                continue
            for name, field in zip(header, fields):
                if name != "host_time" and field and field[0] in "+-.0123456789" and significant_digits(field) > 9:
                    problems.append(f"line {number}: {name} = {field} (a float artefact)")
    return problems[:5]


def check_pstrace(path, packages):
    raw = path.read_bytes()
    if raw[:2] != b"\xff\xfe":
        return [f"no UTF-16 LE byte order mark: {raw[:2]!r}"], ""
    lines = raw.decode("utf-16").splitlines()
    expected = []
    problems = []
    for number, line in enumerate(lines[6:], start=7):
        row = []
        for field in line.split(","):
            try:
                row.append(float(field) if field else math.nan)
            except ValueError:
                problems.append(f"line {number}: {field!r} is not a number")
                row.append(math.nan)
        expected.append(row)
    if packages > 0 and not expected:
        problems.append(f"no data for {packages} packages")
    if not expected:
        return problems, "no data"
    data = np.atleast_2d(np.genfromtxt(path, delimiter=",", skip_header=6, encoding="utf-16"))
    if data.dtype.kind != "f":
        problems.append(f"numpy gave {data.dtype}")
    elif data.shape != (len(expected), len(expected[0])):
        problems.append(f"numpy gave shape {data.shape}, the file has {len(expected)} x {len(expected[0])}")
    elif not np.array_equal(data, np.array(expected), equal_nan=True):
        problems.append("numpy's numbers differ from the file's")
    elif np.isnan(data).all(axis=0).sum() > (1 if "Idc / uA" in lines[5] else 0):
        problems.append("a column without any number")
    return problems, f"{data.shape[0]} rows x {data.shape[1]} columns ({lines[5][:40]}…)"


def main(folder):
    folder = pathlib.Path(folder)
    runs = sorted(folder.glob("*.jsonl"))
    if not runs:
        print(f"export_check: no runs in {folder}", file=sys.stderr)
        return 1
    failures = 0
    for jsonl in runs:
        base = jsonl.name[: -len(".jsonl")]
        end = json.loads(jsonl.read_text(encoding="utf-8").splitlines()[-1])
        packages = end["packages"]
        for suffix, check in ((".csv", check_points), (".pstrace.csv", check_pstrace)):
            path = folder / (base + suffix)
            if not path.exists():
                problems, summary = [f"{path.name} is missing"], ""
            else:
                problems, summary = check(path, packages)
            verdict = "FAIL" if problems else "ok"
            print(f"export_check: {verdict} {base}{suffix}: {packages} packages, {summary}")
            for problem in problems:
                print(f"    {problem}")
            failures += bool(problems)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
