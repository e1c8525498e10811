"""Unit tests of the peer's Pico model (run: .venv/bin/python -m unittest discover Tests/Peers)."""

import asyncio
import unittest

from pico import PUBLISHED_PACKAGES, PicoModel, encode_value, package_line, parse_si


def decode(text: str) -> float:
    """Independent decoder of one package value: 7 hex digits minus 2^27, times the prefix."""
    factors = {"a": 1e-18, "f": 1e-15, "p": 1e-12, "n": 1e-9, "u": 1e-6, "m": 1e-3, " ": 1.0, "k": 1e3}
    return (int(text[:7], 16) - (1 << 27)) * factors[text[7]]


class EncodingTests(unittest.TestCase):
    def test_published_values_encode_as_published(self):
        self.assertEqual(encode_value(-0.499905), "7F85F3Fu")
        self.assertEqual(encode_value(-57.847747e-6), "48D503Dp")
        self.assertEqual(package_line(-0.499905, -57.847747e-6), PUBLISHED_PACKAGES[0])

    def test_round_trip_within_prefix_resolution(self):
        for value in (0.0, 1.0, -1.0, 0.5, 2.048e-3, -16.8e-18, 133.0, 9885.956):
            encoded = encode_value(value)
            self.assertEqual(len(encoded), 8)
            self.assertAlmostEqual(decode(encoded), value, delta=abs(value) * 1e-7 + 1e-18)

    def test_out_of_range_is_rejected(self):
        with self.assertRaises(ValueError):
            encode_value(1e40)

    def test_si_numbers(self):
        self.assertEqual(parse_si("-500m"), -0.5)
        self.assertEqual(parse_si("10m"), 0.01)
        self.assertEqual(parse_si("1"), 1.0)
        with self.assertRaises(ValueError):
            parse_si("m5")


class ModelTests(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self):
        self.output = bytearray()

        async def send(data: bytes) -> None:
            self.output += data

        self.events = []
        self.model = PicoModel(send, on_event=lambda name, **_: self.events.append(name))

    async def run_until(self, terminator: bytes, seconds: float = 2.0, anywhere: bool = False) -> str:
        async def wait():
            while not (terminator in self.output if anywhere else self.output.endswith(terminator)):
                await asyncio.sleep(0.001)

        await asyncio.wait_for(wait(), seconds)
        return self.output.decode()

    async def test_version(self):
        await self.model.feed(b"t\n")
        self.assertTrue((await self.run_until(b"*\n")).startswith("tespico"))

    async def test_lsv_script_split_across_writes(self):
        script = b"e\nvar p\nvar c\nmeas_loop_lsv p c -500m 500m 100m 1\n  pck_start\n  pck_end\nendloop\n\n"
        for index in range(0, len(script), 5):
            await self.model.feed(script[index : index + 5])
        lines = (await self.run_until(b"*\n\n")).split("\n")
        self.assertEqual(lines[:2], ["e", "M0000"])
        self.assertEqual(lines[-3:], ["*", "", ""])
        packages = lines[2:-3]
        self.assertEqual(len(packages), 11)
        potentials = [decode(p[3:11]) for p in packages]
        self.assertAlmostEqual(potentials[0], -0.5)
        self.assertAlmostEqual(potentials[-1], 0.5)
        current = decode(packages[0].split(";")[1][2:10])
        self.assertAlmostEqual(current, -50e-6, delta=1e-8)

    async def test_unknown_script_replays_published_packages(self):
        await self.model.feed(b"e\nsend_string \"x\"\n\n")
        lines = (await self.run_until(b"*\n\n")).split("\n")
        self.assertEqual(tuple(lines[2:6]), PUBLISHED_PACKAGES)

    async def test_abort_idle_and_running(self):
        await self.model.feed(b"Z\n")
        self.assertEqual(await self.run_until(b"\n"), "Z!0006\n")
        self.output.clear()
        self.model = PicoModel(self.model._send, pace=1.0)
        await self.model.feed(b"e\nmeas_loop_ca p c 200m 100m 60\nendloop\n\n")
        await self.run_until(b"M0000\n", anywhere=True)
        self.assertTrue(self.model.running)
        await self.model.feed(b"Z\n")
        text = await self.run_until(b"Z\n*\n\n")
        self.assertFalse(self.model.running)
        self.assertLess(text.count("\nP"), 5)

    async def test_unknown_command(self):
        await self.model.feed(b"q\n")
        self.assertEqual(await self.run_until(b"\n"), "!0003\n")


if __name__ == "__main__":
    unittest.main()
