#!/usr/bin/env python3
"""Writes Specs/ble/assigned-uuids.csv, company-ids.csv and appearance.csv from the Bluetooth SIG's
assigned-numbers YAML files.

The SIG publishes them in its `public` repository (assigned_numbers/); the PyPI package
`bluetooth-sig` ships an unmodified copy, which is what this reads by default:

    Tools/import-assigned-numbers.py            # downloads bluetooth-sig==VERSION with pip
    Tools/import-assigned-numbers.py DIR        # DIR holds uuids/, core/, company_identifiers/

Needs PyYAML (Debian: python3-yaml). Run `make generate` afterwards. Only the numbers and names are
taken; the tables are ordered by number so that a new release shows as a readable diff.
"""

import csv
import io
import pathlib
import subprocess
import sys
import tempfile
import zipfile

import yaml

VERSION = "0.6.0"
ROOT = pathlib.Path(__file__).resolve().parent.parent
SPECS = ROOT / "Specs" / "ble"

# (file below assigned_numbers/, kind written to the table)
UUID_FILES = [
    ("uuids/declarations.yaml", "declaration"),
    ("uuids/descriptors.yaml", "descriptor"),
    ("uuids/service_uuids.yaml", "service"),
    ("uuids/characteristic_uuids.yaml", "characteristic"),
    ("uuids/member_uuids.yaml", "member"),
    ("uuids/sdo_uuids.yaml", "sdo"),
]


def download() -> pathlib.Path:
    work = pathlib.Path(tempfile.mkdtemp())
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(work), f"bluetooth-sig=={VERSION}"],
        check=True,
    )
    wheel = next(work.glob("*.whl"))
    zipfile.ZipFile(wheel).extractall(work / "wheel")
    return next((work / "wheel").rglob("assigned_numbers"))


def load(base: pathlib.Path, name: str):
    with open(base / name, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def clean(name: str) -> str:
    return " ".join(str(name).split())


def write(path: pathlib.Path, header: list[str], comment: str, rows: list[list]) -> None:
    out = io.StringIO()
    for line in comment.strip().splitlines():
        out.write(f"# {line}\n")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    path.write_text(out.getvalue(), encoding="utf-8")
    print(f"{path.relative_to(ROOT)}: {len(rows)} rows")


def main() -> None:
    base = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else download()
    source = f"Bluetooth SIG assigned_numbers YAML (as shipped in PyPI bluetooth-sig {VERSION})"

    rows = {}
    for name, kind in UUID_FILES:
        for entry in load(base, name)["uuids"]:
            uuid = int(entry["uuid"])
            if uuid in rows:
                raise SystemExit(f"{name}: 0x{uuid:04X} is also in the {rows[uuid][1]} table")
            rows[uuid] = [f"{uuid:04X}", kind, clean(entry["name"])]
    write(
        SPECS / "assigned-uuids.csv",
        ["uuid", "kind", "name"],
        f"16-bit UUIDs the Bluetooth SIG assigns: GATT declarations, descriptors, services and characteristics,\n"
        f"member UUIDs and SDO UUIDs. Source: {source},\nuuids/*.yaml. Written by Tools/import-assigned-numbers.py.",
        [rows[key] for key in sorted(rows)],
    )

    companies = {}
    for entry in load(base, "company_identifiers/company_identifiers.yaml")["company_identifiers"]:
        companies[int(entry["value"])] = clean(entry["name"])
    write(
        SPECS / "company-ids.csv",
        ["id", "name"],
        f"Company identifiers (manufacturer specific data, LMP/HCI version). Source: {source},\n"
        f"company_identifiers/company_identifiers.yaml. Written by Tools/import-assigned-numbers.py.",
        [[f"{key:04X}", companies[key]] for key in sorted(companies)],
    )

    appearance = []
    for category in load(base, "core/appearance_values.yaml")["appearance_values"]:
        number = int(category["category"])
        appearance.append([f"{number << 6:04X}", clean(category["name"]), ""])
        for sub in category.get("subcategory") or []:
            appearance.append([f"{number << 6 | int(sub['value']):04X}", clean(category["name"]), clean(sub["name"])])
    write(
        SPECS / "appearance.csv",
        ["value", "category", "subcategory"],
        f"GAP Appearance values (category << 6 | subcategory). Source: {source},\n"
        f"core/appearance_values.yaml. Written by Tools/import-assigned-numbers.py.",
        sorted(appearance, key=lambda row: int(row[0], 16)),
    )


if __name__ == "__main__":
    main()
