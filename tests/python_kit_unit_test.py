#!/usr/bin/env python3
"""Unit tests of the Python kit's protocol bytes and fallback actions.

Contract: every function of pyramid_kit.protocol gives the bytes of
testdata/vectors/primitives.txt (commitments, commit signature, key file),
pyramid_kit.actions.fallback_action is legal for listed and unlisted
decisions, and is_listed finds a built action in the list. Run from the source root with the kit importable (installed, or
tools/clients/python on PYTHONPATH); prints unittest's summary.
"""
import tempfile
import unittest
from pathlib import Path

from pyramid_kit import actions, bot, protocol
from pyramid_kit.pb import game_pb2, pyramid_shambo_pb2, referee_service_pb2

VECTORS = Path("testdata/vectors/primitives.txt")


def vectors() -> dict[str, str]:
    """name -> value of the vector file."""
    out = {}
    for line in VECTORS.read_text().splitlines():
        if "=" in line and not line.lstrip().startswith("#"):
            name, value = line.split("=", 1)
            out[name.strip()] = value.strip()
    return out


class ProtocolTest(unittest.TestCase):
    def setUp(self) -> None:
        self.v = vectors()

    def test_commitments(self) -> None:
        for p in ("commit", "commit2"):
            v = self.v
            got = protocol.commitment(
                v[p + ".match_id"], int(v[p + ".seat"]),
                int(v[p + ".decision_id"]), bytes.fromhex(v[p + ".salt"]),
                bytes.fromhex(v[p + ".action"]))
            self.assertEqual(got.hex(), v[p + ".hash"], p)

    def test_commit_signature(self) -> None:
        v = self.v
        key = protocol.SeatKey(bytes.fromhex(v["commit_sig.key_seed"]))
        self.assertEqual(key.public_key.hex(), v["commit_sig.public_key"])
        args = (v["commit_sig.match_id"], int(v["commit_sig.seat"]),
                int(v["commit_sig.decision_id"]),
                bytes.fromhex(v["commit_sig.commitment"]))
        self.assertEqual(protocol.commit_signature_message(*args).hex(),
                         v["commit_sig.message"])
        self.assertEqual(key.sign_commit(*args).hex(),
                         v["commit_sig.signature"])

    def test_key_file(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            path = Path(d, "k")
            path.write_bytes(bytes.fromhex(self.v["keyfile.secret_contents"]))
            key = protocol.SeatKey.from_file(path)
            self.assertEqual(
                key.public_key.hex() + "\n",
                bytes.fromhex(self.v["keyfile.public_contents"]).decode())
            for bad in ("", "0x" + "00" * 32, "00" * 31, "zz" * 32):
                path.write_text(bad + "\n")
                with self.assertRaises(ValueError, msg=bad):
                    protocol.SeatKey.from_file(path)

    def test_token_file(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            path = Path(d, "t")
            path.write_text("0123456789abcdef." + "ab" * 32 + "\n")
            self.assertEqual(protocol.read_token(str(path)),
                             "0123456789abcdef." + "ab" * 32)
            for bad in (b"\x01\xff tok\n", b"two words", b"caf\xc3\xa9"):
                path.write_bytes(bad)
                with self.assertRaisesRegex(ValueError, "does not hold a token",
                                            msg=bad):
                    protocol.read_token(str(path))

    def test_bad_inputs(self) -> None:
        with self.assertRaises(ValueError):
            protocol.commitment("00" * 15, 0, 0, bytes(32), b"")
        with self.assertRaises(ValueError):
            protocol.commitment("00" * 16, 0, 0, bytes(31), b"")


class ActionsTest(unittest.TestCase):
    def test_seed(self) -> None:
        a, b = actions.seed_action(), actions.seed_action()
        self.assertEqual(len(a.seed.contribution), 32)
        self.assertNotEqual(a.seed.contribution, b.seed.contribution)

    def test_fallback(self) -> None:
        obs = game_pb2.Observation()
        listed = [game_pb2.Action(), game_pb2.Action()]
        listed[0].flaming_pyramids.fall = 1
        self.assertIs(actions.fallback_action("flaming_pyramids", obs, listed),
                      listed[0])
        obs.pyramid_shambo.phase = pyramid_shambo_pb2.SHAMBO_PHASE_PAYMENT
        got = actions.fallback_action("pyramid_shambo", obs, None)
        self.assertTrue(got.pyramid_shambo.canonical)
        obs.pyramid_shambo.phase = pyramid_shambo_pb2.SHAMBO_PHASE_THROW
        with self.assertRaises(ValueError):
            actions.fallback_action("pyramid_shambo", obs, None)
        self.assertEqual(set(actions.LISTS_LEGAL_ACTIONS),
                         {"rock_paper_pyramid", "pyramid_shambo",
                          "flaming_pyramids", "pyramid_scheme"})

    def test_is_listed(self) -> None:
        listed = [game_pb2.Action(), game_pb2.Action()]
        listed[0].flaming_pyramids.fall = 1
        listed[1].flaming_pyramids.fall = 2
        built = game_pb2.Action()
        built.flaming_pyramids.fall = 2
        self.assertTrue(actions.is_listed(built, listed))
        built.flaming_pyramids.fall = 0
        self.assertFalse(actions.is_listed(built, listed))
        self.assertFalse(actions.is_listed(built, None))

    def test_messages_match_the_build(self) -> None:
        # The stubs describe the proto files by their own names.
        self.assertEqual(referee_service_pb2.DESCRIPTOR.name,
                         "pyramid/referee/v1/referee_service.proto")


class RunnerTest(unittest.TestCase):
    """How a run counts the ends of matches, without a referee (the channel
    connects lazily and never does here)."""

    def runner(self, matches: int) -> "bot._Runner":
        r = bot._Runner(bot.Bot(), "127.0.0.1:1", "token", None, matches,
                        0, 500, None)
        r.bot.on_match_ended = lambda ended: None
        self.addCleanup(r.channel.close)
        return r

    @staticmethod
    def ended(match_id: str) -> referee_service_pb2.PlayResponse:
        response = referee_service_pb2.PlayResponse()
        response.match_ended.match_id = match_id
        return response

    @staticmethod
    def broken(match_id: str, code: int = bot.DATA_LOSS
               ) -> referee_service_pb2.PlayResponse:
        response = referee_service_pb2.PlayResponse()
        response.error.match_id = match_id
        response.error.code = code
        response.error.message = "the match is broken and stopped: full disk"
        return response

    def test_a_broken_match_counts_as_over(self) -> None:
        r = self.runner(1)
        with self.assertLogs("pyramid_kit", level="WARNING"):
            self.assertFalse(r._handle(self.broken("m1")))
        self.assertEqual(r.summary.errors, 1)

    def test_each_match_counts_once(self) -> None:
        r = self.runner(2)
        self.assertTrue(r._handle(self.ended("m1")))
        self.assertTrue(r._handle(self.ended("m1")))  # Sent again: no count.
        with self.assertLogs("pyramid_kit", level="WARNING"):
            self.assertFalse(r._handle(self.broken("m2")))
        self.assertEqual(r.ended, {"m1", "m2"})

    def test_other_errors_do_not_end_a_match(self) -> None:
        r = self.runner(1)
        with self.assertLogs("pyramid_kit", level="WARNING"):
            self.assertTrue(r._handle(self.broken("m1", code=9)))
        self.assertEqual(r.ended, set())


if __name__ == "__main__":
    unittest.main()
