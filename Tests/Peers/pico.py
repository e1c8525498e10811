"""A small model of an EmStat Pico's MethodSCRIPT command interface, for the test peer.

It is fed the bytes a host writes to the Laird VSP RX characteristic and produces the bytes
the Pico would send back on TX. Only the parts the tests need are modelled:

- `t`           -> `tespico...` version line, then `R*` (the reply ends with `*\\n`)
- `v`, `i`      -> MethodSCRIPT version / serial number, one line each
- `e` + script lines + empty line -> `e`, `M0000`, one `P` line per sample, `*`, empty line.
  `meas_loop_lsv <E> <I> begin end step rate` and `meas_loop_ca <E> <I> E interval duration`
  are simulated on a 10 kOhm resistor (I = E / R); any other script replays the four
  published LSV packages. The sample interval is honoured times `pace` (0 = no waiting).
- `Z`           -> `Z!0006` when idle; while a script runs: stop it, then `Z`, `*`, empty line
- anything else -> `!0003` (command not recognized)
"""

from __future__ import annotations

import asyncio
import math
import re
from collections.abc import Awaitable, Callable, Iterator

SAMPLE_RESISTANCE_OHM = 10_000.0
VALUE_OFFSET = 1 << 27  # a package value is 7 hex digits holding raw + 2^27
RANGE_1MA_HIGH_SPEED = 0x88
VERSION_REPLY = "tespico1602#Jan 10 2025 10:00:00\nR*\n"

# The four packages of the published LSV transcript (EmStat Pico on a 10 kOhm dummy cell).
PUBLISHED_PACKAGES = (
    "Pda7F85F3Fu;ba48D503Dp,10,288",
    "Pda7F9234Bu;ba4E2C324p,10,288",
    "Pda806EC24u;baAE16C6Dp,10,288",
    "Pda807B031u;baB360495p,10,288",
)

_PREFIXES = (
    ("a", 1e-18), ("f", 1e-15), ("p", 1e-12), ("n", 1e-9), ("u", 1e-6), ("m", 1e-3),
    (" ", 1.0), ("k", 1e3), ("M", 1e6), ("G", 1e9), ("T", 1e12),
)  # fmt: skip
_FACTOR = dict(_PREFIXES)
_NUMBER = re.compile(r"^([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)([afpnumkMGT]?)$")


def encode_value(value: float) -> str:
    """7 hex digits + SI prefix, using the finest prefix whose raw value fits in 28 bits."""
    for prefix, factor in _PREFIXES:
        raw = round(value / factor)
        if -VALUE_OFFSET <= raw < VALUE_OFFSET:
            return f"{raw + VALUE_OFFSET:07X}{prefix}"
    raise ValueError(f"{value} does not fit a MethodSCRIPT package value")


def package_line(potential: float, current: float, range_code: int = RANGE_1MA_HIGH_SPEED) -> str:
    return f"Pda{encode_value(potential)};ba{encode_value(current)},10,2{range_code:02X}"


def parse_si(text: str) -> float:
    match = _NUMBER.match(text)
    if match is None:
        raise ValueError(f"not a MethodSCRIPT number: {text!r}")
    return float(match.group(1)) * _FACTOR.get(match.group(2) or " ", 1.0)


def samples_for_script(lines: list[str], max_samples: int) -> tuple[list[str], float]:
    """The package lines a script produces and the interval between them (seconds)."""
    for line in lines:
        words = line.split()
        if not words:
            continue
        try:
            if words[0] == "meas_loop_lsv" and len(words) >= 7:
                begin, end, step, rate = (parse_si(w) for w in words[3:7])
                return _lsv(begin, end, step, max_samples), abs(step / rate) if rate else 0.0
            if words[0] == "meas_loop_ca" and len(words) >= 6:
                potential, interval, duration = (parse_si(w) for w in words[3:6])
                count = min(max_samples, int(duration / interval + 1e-9)) if interval > 0 else 0
                lines_out = [package_line(potential, _current(potential, i)) for i in range(count)]
                return lines_out, interval
        except (ValueError, ZeroDivisionError):
            continue
    return list(PUBLISHED_PACKAGES), 0.0


def _lsv(begin: float, end: float, step: float, max_samples: int) -> list[str]:
    step = abs(step) if end >= begin else -abs(step)
    if step == 0:
        return []
    count = min(max_samples, int(math.floor((end - begin) / step + 1e-9)) + 1)
    return [package_line(begin + i * step, _current(begin + i * step, i)) for i in range(count)]


def _current(potential: float, index: int) -> float:
    # Ohm's law plus a small deterministic ripple, so successive samples differ.
    return potential / SAMPLE_RESISTANCE_OHM + 1e-9 * ((index * 7919) % 13 - 6)


class PicoModel:
    """Line-oriented Pico command interpreter. `send` writes reply text to the host."""

    def __init__(self, send: Callable[[bytes], Awaitable[None]], *, pace: float = 0.0,
                 max_samples: int = 100_000, on_event: Callable[..., None] | None = None):
        self._send = send
        self._pace = pace
        self._max_samples = max_samples
        self._on_event = on_event or (lambda *a, **k: None)
        self._pending = bytearray()
        self._script: list[str] | None = None
        self._run: asyncio.Task | None = None

    @property
    def running(self) -> bool:
        return self._run is not None and not self._run.done()

    async def feed(self, data: bytes) -> None:
        self._pending += data
        while (newline := self._pending.find(b"\n")) >= 0:
            line = self._pending[:newline].decode("ascii", "replace").rstrip("\r")
            del self._pending[: newline + 1]
            await self._line(line)

    async def close(self) -> None:
        if self.running:
            self._run.cancel()

    async def _line(self, line: str) -> None:
        if self._script is not None:
            if line:
                self._script.append(line)
                return
            script, self._script = self._script, None
            self._run = asyncio.create_task(self._execute(script))
            return
        command = line.strip()
        if command == "":
            return
        if command == "Z":
            await self._abort()
        elif self.running:
            return  # the device ignores other commands while a script runs
        elif command == "e":
            self._script = []
        elif command == "t":
            await self._send(VERSION_REPLY.encode())
        elif command == "v":
            await self._send(b"v01.09.00\n")
        elif command == "i":
            await self._send(b"iPICOSIM-0001\n")
        else:
            await self._send(b"!0003\n")

    async def _abort(self) -> None:
        if not self.running:
            await self._send(b"Z!0006\n")
            return
        self._run.cancel()
        try:
            await self._run
        except asyncio.CancelledError:
            pass
        self._on_event("script-aborted")
        await self._send(b"Z\n*\n\n")

    async def _execute(self, script: list[str]) -> None:
        packages, interval = samples_for_script(script, self._max_samples)
        delay = interval * self._pace
        self._on_event("script-started", samples=len(packages), interval_s=interval)
        await self._send(b"e\nM0000\n")
        for index, line in enumerate(_with_newlines(packages)):
            await self._send(line)
            if delay > 0:
                await asyncio.sleep(delay)
            elif index % 32 == 31:
                await asyncio.sleep(0)
        await self._send(b"*\n\n")
        self._on_event("script-finished", samples=len(packages))


def _with_newlines(lines: list[str]) -> Iterator[bytes]:
    for line in lines:
        yield (line + "\n").encode()
