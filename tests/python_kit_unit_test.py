#!/usr/bin/env python3
"""Unit tests of the Python kit's protocol bytes and fallback actions.

Contract: every function of pyramid_kit.protocol gives the bytes of
testdata/vectors/primitives.txt (commitments, commit signature, key file),
pyramid_kit.actions.fallback_action is legal for listed and unlisted
decisions, is_listed finds a built action in the list, and the seed action
names the log header the seed decision announced. The command
line refuses negative counts and names the flag of a file it cannot read;
its --matches help says what 0 does with a seat token and with a bot
token, and its --reconnect_for_s help what 0 does, as
docs/writing-a-bot.md's flag table does.
The runner (without a referee) counts the ends of matches; answers a
strategy that raises, or returns an unlisted action, with the fallback and
one line saying so (never "late"); stops, instead of reconnecting, when
a newer stream of its token replaced its own or the referee ended it
DATA_LOSS (it broke the match); and, fed what a malicious
referee sends, never commits twice to a decision, refuses a match id that
is not 16 bytes, says a MatchEnded without its seat's outcome and a view
never received instead of raising, and keeps at most max_open_decisions
choices, dropping the least recently used (acknowledged first) to make
room for a new decision and refusing a dropped one asked again. With
--state_dir, every commitment is on disk (the file format the Node kit
shares) before it is sent, and a runner started anew on that directory
reveals it; without it, a commitment the referee holds and the process
does not is said once. A commit clock within the margin commits an
instant answer, never the fallback, and says so once per match; a
reconnection never outlasts --reconnect_for_s; a bad --referee address
and an empty token file are refused by name; a strategy raising the same
error again is said in one line. Run from
the source root with
the kit importable (installed, or tools/clients/python on PYTHONPATH);
prints unittest's summary.
"""
import base64
import contextlib
import io
import json
import os
import shutil
import tempfile
import threading
import time
import unittest
from pathlib import Path
from unittest import mock

import grpc

from pyramid_kit import actions, bot, cli, protocol, state
from pyramid_kit.pb import flaming_pyramids_pb2 as fp
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

    def test_unreadable_token_file(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            missing = str(Path(d, "x.token"))
            with self.assertRaisesRegex(
                    ValueError, f"^--token_file: cannot read {missing}: No "
                    "such file or directory$"):
                protocol.read_token(missing)
            with mock.patch.dict(os.environ, {"PYRAMID_TOKEN_FILE": missing}):
                with self.assertRaisesRegex(
                        ValueError, "^\\$PYRAMID_TOKEN_FILE: cannot read "):
                    protocol.read_token(None)

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
        # Without a header to name, it names none (36 bytes, as before).
        self.assertEqual(len(a.SerializeToString()), 36)
        header_hash = bytes(range(32))
        named = actions.seed_action(header_hash)
        self.assertEqual(named.seed.header_hash, header_hash)
        self.assertEqual(len(named.seed.contribution), 32)

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


class CliTest(unittest.TestCase):
    def test_negative_counts_are_usage_errors(self) -> None:
        p = cli.parser()
        self.assertEqual(p.parse_args(["--matches=2"]).matches, 2)
        for bad in (["--matches=-1"], ["--matches", "-1"],
                    ["--reconnect_for_s=-0.5"], ["--deadline_margin_ms=-1"]):
            err = io.StringIO()
            with self.assertRaises(SystemExit, msg=bad) as exit_, \
                    contextlib.redirect_stderr(err):
                p.parse_args(bad)
            self.assertEqual(exit_.exception.code, 2, bad)
            self.assertIn("non-negative", err.getvalue(), bad)

    def test_the_matches_help_says_what_0_does_with_each_token(self) -> None:
        # Since a seat token's stream ends once its match ends, 0 means two
        # things; docs/writing-a-bot.md's flag table says the same.
        said = ("(0: with a seat token, when its match ends; with a bot "
                "token, run until stopped)")
        help_text = " ".join(cli.parser().format_help().split())
        self.assertIn("--matches MATCHES exit after this many matches ended "
                      + said, help_text)
        row = next(line for line in Path("docs/writing-a-bot.md").read_text()
                   .splitlines() if line.startswith("| `--matches N` |"))
        self.assertIn(f"exit after N matches ended {said} |", row)

    def test_the_reconnect_help_says_what_the_doc_says(self) -> None:
        # "(0: exit)" said less than docs/writing-a-bot.md's flag table.
        said = ("reconnect for at most {} seconds without a referee (0: "
                "exit at once)")
        help_text = " ".join(cli.parser().format_help().split())
        self.assertIn("--reconnect_for_s RECONNECT_FOR_S "
                      + said.format("this many"), help_text)
        row = next(line for line in Path("docs/writing-a-bot.md").read_text()
                   .splitlines()
                   if line.startswith("| `--reconnect_for_s S` |"))
        self.assertIn(said.format("S") + " |", row)

    def test_unreadable_files_name_their_flag(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            missing = str(Path(d, "x"))
            for flags, flag in ((["--token_file", missing], "--token_file"),
                                (["--key_file", missing], "--key_file"),
                                (["--tls_ca", missing], "--tls_ca")):
                err = io.StringIO()
                with mock.patch.dict(os.environ, {"PYRAMID_TOKEN": "t"}), \
                        contextlib.redirect_stderr(err):
                    status = cli.main(bot.Bot(), argv=flags)
                self.assertEqual(status, 2, flags)
                self.assertEqual(err.getvalue(),
                                 f"pyramid_kit: {flag}: cannot read {missing}:"
                                 " No such file or directory\n")


    def test_bad_referee_addresses_are_refused(self) -> None:
        for address, says in (("127.0.0.1", "has no port"),
                              ("127.0.0.1:99999", "bad port '99999'"),
                              ("127.0.0.1:0", "bad port '0'"),
                              ("http://127.0.0.1:24100", "not a URL"),
                              ("::1:50051", "bad host"),
                              ("unix:", "needs a socket path")):
            err = io.StringIO()
            with mock.patch.dict(os.environ, {"PYRAMID_TOKEN": "t"}), \
                    contextlib.redirect_stderr(err):
                status = cli.main(bot.Bot(), argv=["--referee", address])
            self.assertEqual(status, 2, address)
            self.assertTrue(err.getvalue().startswith(
                f"pyramid_kit: --referee: {address!r}"), err.getvalue())
            self.assertIn(says, err.getvalue(), address)
        for good in ("127.0.0.1:1", "localhost:65535", "[::1]:50051",
                     "referee.example:443", "unix:/run/referee.sock"):
            self.assertEqual(protocol.check_referee_address(good), good)

    def test_an_empty_token_file_is_said_empty(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            path = Path(d, "empty.token")
            path.write_text("\n")
            err = io.StringIO()
            with mock.patch.dict(os.environ, {"PYRAMID_TOKEN": ""}), \
                    contextlib.redirect_stderr(err):
                status = cli.main(bot.Bot(), argv=["--token_file", str(path)])
            self.assertEqual(status, 2)
            self.assertEqual(err.getvalue(),
                             f"pyramid_kit: --token_file: {path} is empty\n")
            with mock.patch.dict(os.environ, {"PYRAMID_TOKEN_FILE": str(path)}):
                with self.assertRaisesRegex(
                        ValueError, f"^\\$PYRAMID_TOKEN_FILE: {path} is empty$"):
                    protocol.read_token(None)
            env = {k: v for k, v in os.environ.items()
                   if k not in ("PYRAMID_TOKEN", "PYRAMID_TOKEN_FILE")}
            with mock.patch.dict(os.environ, env, clear=True):
                with self.assertRaisesRegex(ValueError, "^no token: give "):
                    protocol.read_token(None)

    @staticmethod
    def _refused(argv: list[str]) -> tuple[int, str]:
        """cli.main's status and standard error, given argv and a token."""
        err = io.StringIO()
        with mock.patch.dict(os.environ, {"PYRAMID_TOKEN": "t"}), \
                contextlib.redirect_stderr(err):
            status = cli.main(bot.Bot(), argv=argv)
        return status, err.getvalue()

    def test_key_files_are_refused_as_the_cpp_bot_refuses_them(self) -> None:
        # A public key file holds 64 hex digits too: taken as a seed, every
        # commit was signed with a key the seat does not have, and every
        # match forfeited. Refused at start, in the C++ bot's words (its
        # ReadSigningKey), led by the flag; so are a key that is not the
        # secret half of the X.pub beside it and text that is no key.
        v = vectors()
        secret = bytes.fromhex(v["keyfile.secret_contents"])
        public = bytes.fromhex(v["keyfile.public_contents"])
        other = protocol.SeatKey(b"\x11" * 32).public_key.hex().encode()
        with tempfile.TemporaryDirectory() as d:
            key, pub = Path(d, "seat.key"), Path(d, "seat.key.pub")
            # (--key_file, what seat.key holds, what seat.key.pub holds,
            # what is said after "--key_file: ").
            cases = (
                (pub, secret, public, f"{pub} is a public key file (.pub): "
                 "give the secret key file (keygen writes it without .pub)"),
                (key, public, public, f"{key} holds the public key that {pub}"
                 " holds, not a secret key: give the secret key file (the one"
                 f" keygen wrote beside {pub})"),
                (key, secret, other, f"{pub}, next to it, holds another "
                 f"public key than {key}'s: the key in {key} is not its "
                 f"secret half; give the secret key that matches {pub}, or "
                 f"remove or replace {pub} (keygen writes a matching pair)"),
                (key, b"", public, f"{key}: expected 64 hex digits, found "
                 "nothing"),
                (key, b"00" * 31, public, f"{key}: expected 64 hex digits, "
                 "found 62 of them"),
                (key, b"0x" + b"00" * 32, public, f"{key}: expected 64 hex "
                 "digits, found 66 characters, not all hex digits"),
                (key, b"\xff" * 32, public, f"{key}: expected 64 hex digits,"
                 " found 32 characters, not all hex digits"))
            for given, key_holds, pub_holds, says in cases:
                key.write_bytes(key_holds)
                pub.write_bytes(pub_holds)
                status, err = self._refused(["--key_file", str(given)])
                self.assertEqual((status, err),
                                 (2, f"pyramid_kit: --key_file: {says}\n"))
            # The pair keygen writes; a PATH.pub that holds no public key
            # (a copy of the secret, not a point of the curve; garbage) or
            # is no regular file is not the pair check's business.
            key.write_bytes(secret)
            for beside in (public, secret, b"not a key\n"):
                pub.write_bytes(beside)
                self.assertEqual(protocol.SeatKey.from_file(key).public_key,
                                 bytes.fromhex(public.decode()))
            pub.unlink()
            pub.mkdir()
            self.assertEqual(protocol.SeatKey.from_file(key).public_key,
                             bytes.fromhex(public.decode()))

    def test_a_token_file_holding_no_token_is_led_by_its_flag(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            path = Path(d, "bad.token")
            path.write_bytes(b"two words\n")
            status, err = self._refused(["--token_file", str(path)])
            self.assertEqual((status, err), (2, (
                f"pyramid_kit: --token_file: {path} does not hold a token: a"
                " token is printable ASCII without spaces\n")))
            with mock.patch.dict(os.environ, {"PYRAMID_TOKEN_FILE": str(path)}):
                with self.assertRaisesRegex(
                        ValueError, f"^\\$PYRAMID_TOKEN_FILE: {path} does "
                        "not hold a token"):
                    protocol.read_token(None)

    def test_a_tls_ca_without_a_certificate_is_refused(self) -> None:
        # gRPC took it, then failed every connection ("empty address
        # list"), and the bot retried a referee that was up until it gave
        # up. Refused at start, as the C++ bot refuses it.
        with tempfile.TemporaryDirectory() as d:
            path = Path(d, "ca.pem")
            for holds in (b"", b"-----BEGIN PRIVATE KEY-----\nMC4=\n"
                          b"-----END PRIVATE KEY-----\n"):
                path.write_bytes(holds)
                status, err = self._refused(["--tls_ca", str(path)])
                self.assertEqual((status, err), (2, (
                    f"pyramid_kit: --tls_ca: {path} holds no PEM certificate"
                    " (-----BEGIN CERTIFICATE-----)\n")), holds)

    def test_a_state_dir_that_cannot_be_made_is_refused(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            blocker = Path(d, "file")
            blocker.write_text("")
            err = io.StringIO()
            with mock.patch.dict(os.environ, {"PYRAMID_TOKEN": "t"}), \
                    contextlib.redirect_stderr(err):
                status = cli.main(bot.Bot(), argv=[
                    "--state_dir", str(blocker / "sub")])
            self.assertEqual(status, 2)
            self.assertEqual(err.getvalue(), "pyramid_kit: --state_dir: "
                             f"cannot use {blocker / 'sub'}: Not a directory\n")
            with mock.patch.dict(os.environ, {"PYRAMID_STATE_DIR": d}):
                self.assertEqual(cli.parser().parse_args([]).state_dir, d)


class RunnerTest(unittest.TestCase):
    """How a run counts the ends of matches, without a referee (the channel
    connects lazily and never does here)."""

    def runner(self, matches: int, strategy: bot.Bot = None,
               reconnect_for_s: float = 0) -> "bot._Runner":
        r = bot._Runner(strategy or bot.Bot(), "127.0.0.1:1", "token", None,
                        matches, reconnect_for_s, 500, None)
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


class MatchEndedHookTest(unittest.TestCase):
    """on_match_ended, per seat: a bot token holding three seats of one
    match was told of seat 0's end only (build/bin/bot prints each seat's)."""

    def test_each_seat_of_a_match_is_told_once_and_the_match_counts_once(
            self) -> None:
        r = bot._Runner(bot.Bot(), "127.0.0.1:1", "token", None, 2, 0, 500,
                        None)
        self.addCleanup(r.channel.close)
        told: list[int] = []
        r.bot.on_match_ended = lambda ended: told.append(ended.seat)

        def ended(seat: int) -> referee_service_pb2.PlayResponse:
            response = referee_service_pb2.PlayResponse()
            response.match_ended.match_id = "m1"
            response.match_ended.seat = seat
            for _ in range(3):
                response.match_ended.outcome.seats.add()
            return response
        for seat in (0, 1, 2, 1):  # Seat 1's end sent again: not told.
            self.assertTrue(r._handle(ended(seat)))
        self.assertEqual(told, [0, 1, 2])
        self.assertEqual(r.ended, {"m1"})  # One match of --matches 2.


class ClosedStreamTest(unittest.TestCase):
    """A seat token with --matches 2: the referee closes its stream after
    its one match, and the run said nothing of why it exited 1."""

    def run_closed(self, matches: int) -> bot.RunSummary:
        """A run whose one stream the referee closes after match m1 ended."""
        r = bot._Runner(bot.Bot(), "127.0.0.1:1", "token", None, matches, 60,
                        500, None)
        self.addCleanup(r.channel.close)
        r.bot.on_match_ended = lambda ended: None

        def play_once():
            r.summary.streams += 1
            response = referee_service_pb2.PlayResponse()
            response.match_ended.match_id = "m1"
            r._handle(response)
            return True, None
        r._play_once = play_once
        return r.run()

    def test_a_stream_closed_before_its_matches_says_why(self) -> None:
        summary = self.run_closed(2)
        self.assertEqual(summary.failure, "the referee closed the stream after"
                         " 1 of 2 matches: a seat token plays one match")
        self.assertFalse(summary.ok)

    def test_a_stream_closed_after_its_matches_is_done(self) -> None:
        for matches in (0, 1):
            summary = self.run_closed(matches)
            self.assertEqual((summary.failure, summary.ok), ("", True))


def action(**kind) -> game_pb2.Action:
    return game_pb2.Action(flaming_pyramids=fp.FlamingPyramidsAction(**kind))


class Strategy(bot.Bot):
    """Answers every decision with `answer` (an exception: raises it)."""

    def __init__(self, answer) -> None:
        self.answer = answer
        self.done = threading.Event()

    def choose(self, game, observation, legal_actions):
        try:
            if isinstance(self.answer, Exception):
                raise self.answer
            return self.answer
        finally:
            self.done.set()


class DecisionTest(unittest.TestCase):
    """What the runner commits, and says, for a strategy's answer."""

    LEGAL = [action(fall=fp.FP_LEFT), action(place=fp.FpPlace(tile=3))]

    def decide(self, answer, listed: bool = True,
               wait_s: float = 0.4) -> tuple[list[str], bytes, bot._Runner]:
        """Runs one decision whose deadline timer fires 0.1 s in (were the
        decision still open); returns the lines logged, the action
        committed and the runner."""
        strategy = Strategy(answer)
        r = bot._Runner(strategy, "127.0.0.1:1", "token", None, 0, 0, 500,
                        None)
        self.addCleanup(r.channel.close)
        req = referee_service_pb2.DecisionRequest(
            match_id="ab" * 16, seat=1, decision_id=3,
            game="flaming_pyramids", acting_seats=[1],
            legal_actions_listed=listed,
            legal_actions=self.LEGAL if listed else [],
            commit_deadline_unix_ms=int(time.time() * 1000) + 600)
        with self.assertLogs("pyramid_kit", level="INFO") as logs:
            bot.log.info("decision")  # assertLogs wants at least one.
            r._on_decision(req)
            self.assertTrue(strategy.done.wait(5))
            time.sleep(wait_s)  # Past the deadline timer's moment.
        lines = [line for line in logs.output if not line.endswith(":decision")]
        entry = r.pending[("ab" * 16, 1, 3)]
        return lines, entry.action, r

    def test_a_strategy_that_raises_gets_the_fallback_not_late(self) -> None:
        lines, committed, r = self.decide(RuntimeError("boom"))
        self.assertEqual(committed, self.LEGAL[0].SerializeToString())
        self.assertEqual(len(lines), 1, lines)
        first, *stack = lines[0].splitlines()
        self.assertEqual(first, "ERROR:pyramid_kit:strategy failed on match "
                         f"{'ab' * 16} seat 1 decision 3; sending the "
                         "fallback action")
        self.assertIn("RuntimeError: boom", stack[-1])
        self.assertEqual((r.summary.strategy_failures, r.summary.fallbacks),
                         (1, 1))

    def test_a_late_strategy_is_said_late(self) -> None:
        strategy_delay = threading.Event()
        self.addCleanup(strategy_delay.set)

        class Slow(Strategy):
            def choose(self, game, observation, legal_actions):
                self.done.set()
                strategy_delay.wait(5)
                return action(fall=fp.FP_RIGHT)
        r = bot._Runner(Slow(None), "127.0.0.1:1", "token", None, 0, 0, 500,
                        None)
        self.addCleanup(r.channel.close)
        req = referee_service_pb2.DecisionRequest(
            match_id="ab" * 16, seat=1, decision_id=3,
            game="flaming_pyramids", acting_seats=[1],
            legal_actions_listed=True, legal_actions=self.LEGAL,
            commit_deadline_unix_ms=int(time.time() * 1000) + 600)
        with self.assertLogs("pyramid_kit", level="INFO") as logs:
            started = time.monotonic()
            r._on_decision(req)
            # The timer is due 0.1 s in, but a loaded machine may run it
            # late: up to 5 s for its line, and 0.4 s in all at least (for
            # any line more).
            while not logs.output and time.monotonic() < started + 5:
                time.sleep(0.01)
            time.sleep(max(0.0, started + 0.4 - time.monotonic()))
        self.assertEqual(logs.output, [
            f"INFO:pyramid_kit:match {'ab' * 16} seat 1 decision 3: the "
            "strategy is late; committing the fallback action"])

    def test_an_unlisted_action_gets_the_fallback(self) -> None:
        lines, committed, r = self.decide(action(fall=fp.FP_RIGHT))
        self.assertEqual(committed, self.LEGAL[0].SerializeToString())
        self.assertEqual(lines, [
            f"WARNING:pyramid_kit:match {'ab' * 16} seat 1 decision 3: the "
            "strategy's action is not one of the 2 legal actions; sending "
            "the fallback action"])
        self.assertEqual(r.summary.fallbacks, 1)

    def test_one_legal_action_is_said_in_the_singular(self) -> None:
        self.LEGAL = self.LEGAL[:1]
        lines, committed, r = self.decide(action(fall=fp.FP_RIGHT))
        self.assertEqual(lines, [
            f"WARNING:pyramid_kit:match {'ab' * 16} seat 1 decision 3: the "
            "strategy's action is not the only legal action; sending the "
            "fallback action"])

    def test_the_same_error_again_is_one_line(self) -> None:
        strategy = Strategy(RuntimeError("boom"))
        r = bot._Runner(strategy, "127.0.0.1:1", "token", None, 0, 0, 500,
                        None)
        self.addCleanup(r.channel.close)
        with self.assertLogs("pyramid_kit", level="INFO") as logs:
            for decision in (3, 4, 5):
                strategy.done.clear()
                r._on_decision(referee_service_pb2.DecisionRequest(
                    match_id="ab" * 16, seat=1, decision_id=decision,
                    game="flaming_pyramids", acting_seats=[1],
                    legal_actions_listed=True, legal_actions=self.LEGAL))
                self.assertTrue(strategy.done.wait(5))
                deadline = time.monotonic() + 5
                while (r.pending[("ab" * 16, 1, decision)].action is None
                       and time.monotonic() < deadline):
                    time.sleep(0.01)
            strategy.answer = RuntimeError("another")
            strategy.done.clear()
            r._on_decision(referee_service_pb2.DecisionRequest(
                match_id="ab" * 16, seat=1, decision_id=6,
                game="flaming_pyramids", acting_seats=[1],
                legal_actions_listed=True, legal_actions=self.LEGAL))
            self.assertTrue(strategy.done.wait(5))
            time.sleep(0.2)
        self.assertEqual(len(logs.output), 4, logs.output)
        self.assertIn("Traceback", logs.output[0])
        self.assertIn("RuntimeError: boom", logs.output[0])
        self.assertEqual(logs.output[1:3], [
            f"ERROR:pyramid_kit:strategy failed on match {'ab' * 16} seat 1 "
            f"decision {d}; sending the fallback action: the strategy raised "
            f"the same error again ({n} times so far)" for d, n in ((4, 2),
                                                                   (5, 3))])
        self.assertIn("RuntimeError: another", logs.output[3])
        self.assertEqual((r.summary.strategy_failures, r.summary.fallbacks),
                         (4, 4))

    def test_a_clock_within_the_margin_commits_an_instant_answer(self) -> None:
        """With no time left after the margin, the strategy's instant
        answer is committed, every time (the deadline timer started with no
        delay raced it and often won), and the clock is said once per match;
        a strategy that does not answer at once gets the fallback soon.

        The instant answers are given AT_ONCE_S = 2 s here, not 50 ms: the
        strategy's thread may be preempted for more than 50 ms between the
        timer's start and its answer on a loaded machine, where the
        fallback then won. (The race this proves gone, a timer started with
        no delay, is lost whatever AT_ONCE_S is; the 50 ms itself is the
        late strategy's, below.)"""
        mine = self.LEGAL[1]
        strategy = Strategy(mine)
        r = bot._Runner(strategy, "127.0.0.1:1", "token", None, 0, 0, 500,
                        None)
        self.addCleanup(r.channel.close)

        def request(match: str, decision: int):
            return referee_service_pb2.DecisionRequest(
                match_id=match, seat=1, decision_id=decision,
                game="flaming_pyramids", acting_seats=[1, 2],
                legal_actions_listed=True, legal_actions=self.LEGAL,
                commit_deadline_unix_ms=int(time.time() * 1000) + 300)
        with self.assertLogs("pyramid_kit", level="INFO") as logs, \
                mock.patch.object(bot, "AT_ONCE_S", 2.0):
            for decision in range(1, 41):
                match = ("ab" if decision <= 20 else "cd") * 16
                strategy.done.clear()
                r._on_decision(request(match, decision))
                self.assertTrue(strategy.done.wait(5))
                deadline = time.monotonic() + 5
                while (r.pending[(match, 1, decision)].action is None and
                       time.monotonic() < deadline):
                    time.sleep(0.001)
                self.assertEqual(r.pending[(match, 1, decision)].action,
                                 mine.SerializeToString(), decision)
        self.assertEqual(r.summary.fallbacks, 0)
        # The time left as each match's first decision arrived: 300 ms
        # less what the test took to send it (0-300 ms: a loaded machine
        # may pause the test for 100 ms or more between the two).
        self.assertEqual(len(logs.output), 2, logs.output)
        for line, m in zip(logs.output, ("ab", "cd")):
            self.assertRegex(line, (
                f"^WARNING:pyramid_kit:match {m * 16}: the commit clock "
                r"\(([12]?\d?\d|300) ms\) leaves the strategy no time after "
                r"the kit's margin \(500 ms\); a strategy that has not answered "
                "at once commits the fallback action$"))

        release = threading.Event()
        self.addCleanup(release.set)

        class Slow(Strategy):
            def choose(self, game, observation, legal_actions):
                self.done.set()
                release.wait(5)
                return mine
        slow = Slow(None)
        r.bot = slow
        started = time.monotonic()
        with self.assertLogs("pyramid_kit", level="INFO") as logs:
            r._on_decision(request("ef" * 16, 1))
            self.assertTrue(slow.done.wait(5))
            while (r.pending[("ef" * 16, 1, 1)].action is None and
                   time.monotonic() < started + 5):
                time.sleep(0.005)
        self.assertLess(time.monotonic() - started, 1.0)
        self.assertEqual(r.pending[("ef" * 16, 1, 1)].action,
                         self.LEGAL[0].SerializeToString())
        self.assertEqual(logs.output[1], f"INFO:pyramid_kit:match {'ef' * 16} "
                         "seat 1 decision 1: the strategy is late; committing "
                         "the fallback action")

    def test_a_listed_action_built_anew_is_sent(self) -> None:
        built = action(place=fp.FpPlace(tile=3, row=0, x=0))
        lines, committed, r = self.decide(built)
        self.assertEqual(committed, built.SerializeToString())
        self.assertEqual((lines, r.summary.fallbacks), ([], 0))

    def test_an_unlisted_decision_is_not_checked(self) -> None:
        mine = action(fall=fp.FP_RIGHT)
        lines, committed, r = self.decide(mine, listed=False)
        self.assertEqual(committed, mine.SerializeToString())
        self.assertEqual((lines, r.summary.fallbacks), ([], 0))

    def test_the_seed_names_the_announced_header(self) -> None:
        r = bot._Runner(bot.Bot(), "127.0.0.1:1", "token", None, 0, 0, 500,
                        None)
        self.addCleanup(r.channel.close)
        header_hash = bytes([0x5a]) * 32
        r._on_decision(referee_service_pb2.DecisionRequest(
            match_id="ab" * 16, seat=0, decision_id=0,
            game="rock_paper_pyramid", acting_seats=[0, 1, 2],
            simultaneous=True, header_hash=header_hash))
        committed = game_pb2.Action.FromString(
            r.pending[("ab" * 16, 0, 0)].action)
        self.assertEqual(committed.seed.header_hash, header_hash)
        self.assertEqual(len(committed.seed.contribution), 32)


def play(**fields) -> referee_service_pb2.PlayResponse:
    """A PlayResponse with one field set, e.g. play(decision=...)."""
    return referee_service_pb2.PlayResponse(**fields)


class MaliciousRefereeTest(unittest.TestCase):
    """What the runner does with what a malicious (or broken) referee
    sends: it never commits twice to a decision, refuses a match id that
    is not 16 bytes, says what it cannot use instead of raising, and keeps
    a bounded number of decisions open (an adversarial tester's
    findings)."""

    M = "00112233445566778899aabbccddeeff"
    OTHER = "ffeeddccbbaa99887766554433221100"

    def runner(self) -> bot._Runner:
        r = bot._Runner(Strategy(action(fall=fp.FP_LEFT)), "127.0.0.1:1",
                        "token", None, 0, 0, 500, None)
        r.bot.quiet = True
        self.addCleanup(r.channel.close)
        return r

    @staticmethod
    def decision(match_id: str, decision_id: int, seat: int = 0,
                 **fields) -> referee_service_pb2.PlayResponse:
        return play(decision=referee_service_pb2.DecisionRequest(
            match_id=match_id, seat=seat, decision_id=decision_id,
            game="flaming_pyramids", acting_seats=[seat, seat + 1],
            simultaneous=True, **fields))

    @staticmethod
    def sent(r: bot._Runner) -> list[referee_service_pb2.PlayRequest]:
        out = []
        while not r.outbox.empty():
            out.append(r.outbox.get_nowait())
        return out

    def test_a_decision_is_committed_to_once(self) -> None:
        r = self.runner()
        # The seed decision is settled at once, on the stream's thread.
        r._handle(self.decision(self.M, 0, header_hash=bytes(32)))
        [first] = self.sent(r)
        # After a reconnection, asked again while the reveal is owed: the
        # same commitment.
        r.stream += 1
        r._handle(self.decision(self.M, 0, header_hash=bytes(32)))
        [again] = self.sent(r)
        self.assertEqual(again.commit, first.commit)
        r._handle(play(commit_ack=referee_service_pb2.CommitAck(
            match_id=self.M, decision_id=0)))
        r._handle(play(reveal_request=referee_service_pb2.RevealRequest(
            match_id=self.M, decision_id=0)))
        [reveal] = self.sent(r)
        self.assertTrue(reveal.HasField("reveal"))
        r._handle(play(reveal_ack=referee_service_pb2.RevealAck(
            match_id=self.M, decision_id=0)))
        # Revealed and acknowledged: asked again on the same stream,
        # nothing; on a new stream (a referee that lost the reveal in a power
        # loss, docs/durability.md), the same commitment, never another.
        r._handle(self.decision(self.M, 0, header_hash=bytes(32)))
        self.assertEqual(self.sent(r), [])
        r.stream += 1
        r._handle(self.decision(self.M, 0, header_hash=bytes(32)))
        [reopened] = self.sent(r)
        self.assertEqual(reopened.commit, first.commit)
        with self.assertLogs("pyramid_kit", level="WARNING") as logs:
            r._handle(self.decision(self.M, 3))
            self.assertIn((self.M, 0, 3), r.pending)
            r._handle(self.decision(self.M, 2))  # Older than the newest.
            self.assertNotIn((self.M, 0, 2), r.pending)
            ended = referee_service_pb2.MatchEnded(match_id=self.OTHER)
            ended.outcome.seats.add()
            r._handle(play(match_ended=ended))
            r._handle(self.decision(self.OTHER, 4))  # Its match is over.
            self.assertNotIn((self.OTHER, 0, 4), r.pending)
        self.assertEqual(len(logs.output), 2, logs.output)
        self.assertIn(f"refusing match '{self.M}' seat 0 decision 2: the seat"
                      " committed to decision 3 already, and a commitment is"
                      " never signed twice", logs.output[0])
        self.assertIn("decision 4: its match is over", logs.output[1])

    def test_a_match_id_not_of_16_bytes_is_refused(self) -> None:
        r = self.runner()
        with self.assertLogs("pyramid_kit", level="WARNING") as logs:
            r._handle(self.decision("zz-not-hex", 0, header_hash=bytes(32)))
            r._handle(self.decision("41" * 32, 0))
            r._handle(self.decision("41" * 4, 1))
            r._handle(self.decision(" ".join(["41"] * 16), 1))
        self.assertEqual((r.pending, self.sent(r)), ({}, []))
        self.assertEqual(len(logs.output), 4, logs.output)
        self.assertIn("refusing match 'zz-not-hex' seat 0 decision 0: its "
                      "match id is not 16 bytes in hex", logs.output[0])

    def test_an_end_without_the_seats_outcome_is_said(self) -> None:
        r = self.runner()
        r.bot.quiet = False
        out = io.StringIO()
        with contextlib.redirect_stdout(out), \
                self.assertLogs("pyramid_kit", level="WARNING") as logs:
            self.assertTrue(r._handle(play(match_ended=(
                referee_service_pb2.MatchEnded(match_id=self.M, seat=77)))))
        self.assertEqual(out.getvalue(), "")
        self.assertIn(f"match {self.M} seat 77 ended, but its outcome has 0 "
                      "seat(s): no rank for this seat", logs.output[0])
        self.assertEqual(r.ended, {self.M})

    def test_a_view_never_received_is_said(self) -> None:
        r = self.runner()
        with self.assertLogs("pyramid_kit", level="WARNING") as logs:
            r._handle(self.decision(self.M, 1, observation_in_result=True))
        self.assertEqual(r.pending, {})
        self.assertIn(f"match '{self.M}' seat 0 decision 1: the request refers"
                      " to a result never received; ignoring it",
                      logs.output[0])

    @staticmethod
    def match_no(n: int) -> str:
        """Match `n` (1 to 9) of a test, seat 0 in each."""
        return "0" * 31 + str(n)

    def seed(self, r: bot._Runner, match_id: str, reveal: bool = False
             ) -> list[referee_service_pb2.PlayRequest]:
        """Sends the seed decision of `match_id` (settled at once) and,
        with `reveal`, its RevealRequest and RevealAck; returns what the
        runner sent."""
        r._handle(self.decision(match_id, 0, header_hash=bytes(32)))
        if reveal:
            r._handle(play(reveal_request=referee_service_pb2.RevealRequest(
                match_id=match_id, decision_id=0)))
            r._handle(play(reveal_ack=referee_service_pb2.RevealAck(
                match_id=match_id, decision_id=0)))
        return self.sent(r)

    def test_seats_whose_end_never_came_do_not_block_new_decisions(
            self) -> None:
        """Past max_open_decisions, the least recently used choice is
        dropped to make room, and a new decision is answered (it was
        refused, so a long-running bot whose seats' MatchEnded never came,
        their match over while it was away, refused every new decision
        once 4,096 had gathered)."""
        r = self.runner()
        r.max_open_decisions = 3
        with self.assertNoLogs("pyramid_kit", level="WARNING"):
            for n in range(1, 7):
                sent = self.seed(r, self.match_no(n), reveal=True)
                self.assertEqual([m.WhichOneof("kind") for m in sent],
                                 ["commit", "reveal"], n)
        self.assertEqual(sorted(r.pending), [
            (self.match_no(n), 0, 0) for n in (4, 5, 6)])

    def test_a_dropped_decision_is_never_committed_to_again(self) -> None:
        """What makes room is a choice whose reveal was acknowledged, else
        the oldest whose reveal is owed; either way, its decision asked
        again is refused and its reveal asked for is not sent: a
        commitment is never signed twice."""
        r = self.runner()
        r.max_open_decisions = 2
        m1, m2, m3, m4 = (self.match_no(n) for n in (1, 2, 3, 4))
        [c1] = self.seed(r, m1)  # Owed.
        self.seed(r, m2, reveal=True)  # Acknowledged.
        [c3] = self.seed(r, m3)  # Drops m2's, though m1's is older.
        r.stream += 1  # A reconnection.
        with self.assertLogs("pyramid_kit", level="WARNING") as logs:
            self.assertEqual(self.seed(r, m1), [c1])  # Kept: the same.
            self.assertEqual(self.seed(r, m2), [])  # Dropped: refused.
            self.assertEqual(self.seed(r, m3), [c3])  # Kept: the same.
            [c4] = self.seed(r, m4)  # Drops m1's, the oldest owed.
            self.assertEqual(c4.commit.match_id, m4)
            self.assertEqual(self.seed(r, m1), [])  # Dropped: refused.
            r._handle(play(reveal_request=referee_service_pb2.RevealRequest(
                match_id=m1, decision_id=0)))
            self.assertEqual(self.sent(r), [])  # Not revealed.
        self.assertEqual(len(logs.output), 3, logs.output)
        self.assertIn(f"refusing match '{m2}' seat 0 decision 0: its "
                      "commitment was dropped to make room (2 decisions open"
                      " at once, the kit's limit), and a commitment is never"
                      " signed twice", logs.output[0])
        self.assertIn(f"match {m1} seat 0 decision 0: dropping its "
                      "commitment, whose reveal is owed, to make room (2 "
                      "decisions open at once, the kit's limit); it is "
                      "refused from now on", logs.output[1])
        self.assertIn(f"refusing match '{m1}' seat 0 decision 0: its "
                      "commitment was dropped", logs.output[2])


class StateDirTest(unittest.TestCase):
    """--state_dir: commitments on disk, read back by a restarted bot."""

    M = MaliciousRefereeTest.M

    def setUp(self) -> None:
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)

    def runner(self, state_dir=True) -> bot._Runner:
        """A fresh process of the bot (nothing in memory)."""
        r = bot._Runner(Strategy(action(fall=fp.FP_LEFT)), "127.0.0.1:1",
                        "token", None, 0, 0, 500, None,
                        state_dir=self.dir if state_dir else None)
        r.bot.quiet = True
        self.addCleanup(r.channel.close)
        return r

    decision = staticmethod(MaliciousRefereeTest.decision)
    sent = staticmethod(MaliciousRefereeTest.sent)

    def commit_seed(self, r: bot._Runner) -> referee_service_pb2.CommitMove:
        r._handle(self.decision(self.M, 0, header_hash=bytes(32)))
        [commit] = self.sent(r)
        return commit.commit

    def test_the_record_is_on_disk_in_the_shared_format(self) -> None:
        r = self.runner()
        commit = self.commit_seed(r)
        [name] = os.listdir(self.dir)  # No temporary file left.
        self.assertEqual(name, f"{self.M}-0-0.json")
        record = json.loads(Path(self.dir, name).read_text())
        self.assertEqual(sorted(record), ["action", "decision_id", "match_id",
                                          "salt", "seat"])
        self.assertEqual((record["match_id"], record["seat"],
                          record["decision_id"]), (self.M, 0, 0))
        salt = base64.b64decode(record["salt"])
        act = base64.b64decode(record["action"])
        self.assertEqual(len(salt), 32)
        self.assertTrue(game_pb2.Action.FromString(act).HasField("seed"))
        # The record is what was committed to.
        self.assertEqual(protocol.commitment(self.M, 0, 0, salt, act),
                         commit.commitment)

    def reveal_request(self, decision: int = 0):
        return play(reveal_request=referee_service_pb2.RevealRequest(
            match_id=self.M, decision_id=decision))

    def test_a_restarted_bot_reveals_from_the_record(self) -> None:
        first = self.runner()
        commit = self.commit_seed(first)
        # A new process: the RevealRequest the referee sends on connecting.
        again = self.runner()
        with self.assertNoLogs("pyramid_kit", level="WARNING"):
            again._handle(self.reveal_request())
        [reveal] = self.sent(again)
        self.assertEqual(protocol.commitment(self.M, 0, 0, reveal.reveal.salt,
                                             reveal.reveal.action),
                         commit.commitment)
        # Answered: the record stays until the match ends (a referee that
        # loses the reveal asks the decision again).
        again._handle(play(reveal_ack=referee_service_pb2.RevealAck(
            match_id=self.M, decision_id=0)))
        self.assertEqual(os.listdir(self.dir), [f"{self.M}-0-0.json"])

    def test_a_committed_request_reads_the_record_back(self) -> None:
        commit = self.commit_seed(self.runner())
        again = self.runner()
        with self.assertNoLogs("pyramid_kit", level="WARNING"):
            again._handle(self.decision(self.M, 0, header_hash=bytes(32),
                                        committed=True))
        self.assertEqual(self.sent(again), [])  # The reveal comes later.
        again._handle(self.reveal_request())
        [reveal] = self.sent(again)
        self.assertEqual(protocol.commitment(self.M, 0, 0, reveal.reveal.salt,
                                             reveal.reveal.action),
                         commit.commitment)

    def test_a_record_whose_commit_never_left_is_committed_again(self) -> None:
        """Killed between the record and the commit: the referee asks
        again (committed false) and gets the same commitment, never a new
        one."""
        commit = self.commit_seed(self.runner())
        again = self.runner()
        again._handle(self.decision(self.M, 0, header_hash=bytes(32)))
        [recommit] = self.sent(again)
        self.assertEqual(recommit.commit, commit)

    def test_records_stay_until_the_match_ends(self) -> None:
        r = self.runner()
        self.commit_seed(r)
        def records(want: list[str]) -> list[str]:
            """The records (no temporary file), once they are `want`
            (the strategy runs in a thread), or after 5 s."""
            deadline = time.monotonic() + 5
            while True:
                got = sorted(os.listdir(self.dir))
                if got == want or time.monotonic() > deadline:
                    return got
                time.sleep(0.01)
        r._handle(self.decision(self.M, 1, seat=1))  # Another seat's.
        want = [f"{self.M}-0-0.json", f"{self.M}-1-1.json"]
        self.assertEqual(records(want), want)
        r._handle(self.decision(self.M, 2))  # Seat 0's next: 0 stays.
        want = [f"{self.M}-0-0.json", f"{self.M}-0-2.json",
                f"{self.M}-1-1.json"]
        self.assertEqual(records(want), want)
        # Another match's records stay when this one ends.
        other = "f" * 32
        Path(self.dir, f"{other}-0-1.json").write_text("{}")
        # An earlier process's record of this match goes with its end too.
        Path(self.dir, f"{self.M}-3-9.json").write_text("{}")
        ended = referee_service_pb2.MatchEnded(match_id=self.M)
        ended.outcome.seats.add()
        r._handle(play(match_ended=ended))
        self.assertEqual(os.listdir(self.dir), [f"{other}-0-1.json"])

    def test_without_a_record_the_loss_is_said_once(self) -> None:
        for state_dir in (False, True):
            r = self.runner(state_dir)
            with self.assertLogs("pyramid_kit", level="WARNING") as logs:
                r._handle(self.decision(self.M, 4, committed=True))
                r._handle(self.reveal_request(4))
                r._handle(self.reveal_request(4))
            self.assertEqual(logs.output, [
                f"WARNING:pyramid_kit:match {self.M} seat 0 decision 4: the "
                "referee holds a commitment this process does not have "
                "(restarted without --state_dir?); the seat will fault at the"
                " reveal deadline"], state_dir)
            self.assertEqual(self.sent(r), [])

    def test_a_record_of_another_decision_is_not_used(self) -> None:
        r = self.runner()
        Path(self.dir, f"{self.M}-0-4.json").write_text(json.dumps({
            "match_id": self.M, "seat": 0, "decision_id": 5,
            "action": "", "salt": base64.b64encode(bytes(32)).decode()}))
        with self.assertLogs("pyramid_kit", level="WARNING") as logs:
            r._handle(self.reveal_request(4))
        self.assertEqual(self.sent(r), [])
        self.assertIn("is not a commitment record of it (it names another "
                      "decision); ignoring it", logs.output[0])
        # Its name says the seat committed to decision 4: asked again, it is
        # refused, never committed to anew.
        with self.assertLogs("pyramid_kit", level="WARNING") as logs:
            r._handle(self.decision(self.M, 4))
        self.assertEqual(self.sent(r), [])
        self.assertIn(f"refusing match '{self.M}' seat 0 decision 4: its "
                      "commitment is not held", logs.output[-1])

    def wait_sent(self, r: bot._Runner, n: int = 1
                  ) -> list[referee_service_pb2.PlayRequest]:
        """What `r` sent, once `n` messages (the strategy runs in a
        thread), or after 5 s."""
        deadline, out = time.monotonic() + 5, []
        while len(out) < n and time.monotonic() < deadline:
            out += self.sent(r)
            time.sleep(0.01)
        return out

    def ack(self, r: bot._Runner, decision: int) -> None:
        r._handle(self.reveal_request(decision))
        [reveal] = self.sent(r)
        self.assertEqual(reveal.reveal.decision_id, decision)
        r._handle(play(reveal_ack=referee_service_pb2.RevealAck(
            match_id=self.M, decision_id=decision)))

    def test_an_acknowledged_decision_asked_after_a_restart_is_the_same(
            self) -> None:
        """A referee that lost records in a power loss opens decisions
        again, even those whose reveal it acknowledged: a restarted bot
        sends the same commitments (the records stay until the match
        ends), never a second one."""
        first = self.runner()
        c0 = self.commit_seed(first)
        self.ack(first, 0)
        first._handle(self.decision(self.M, 1))
        [c1] = self.wait_sent(first)
        self.ack(first, 1)
        again = self.runner()
        with self.assertNoLogs("pyramid_kit", level="WARNING"):
            again._handle(self.decision(self.M, 1))
            [recommit1] = self.sent(again)
            self.assertEqual(recommit1.commit, c1.commit)
            again._handle(self.reveal_request(1))
            [reveal1] = self.sent(again)
            self.assertEqual(protocol.commitment(
                self.M, 0, 1, reveal1.reveal.salt, reveal1.reveal.action),
                c1.commit.commitment)
            # An older decision with a record: its commitment again too.
            again._handle(self.decision(self.M, 0, header_hash=bytes(32)))
            [recommit0] = self.sent(again)
            self.assertEqual(recommit0.commit, c0)

    def test_after_a_restart_an_older_decision_without_a_record_is_refused(
            self) -> None:
        first = self.runner()
        first._handle(self.decision(self.M, 3))
        [c3] = self.wait_sent(first)
        self.assertEqual(c3.commit.decision_id, 3)
        again = self.runner()
        with self.assertLogs("pyramid_kit", level="WARNING") as logs:
            again._handle(self.decision(self.M, 2))
        self.assertEqual(self.sent(again), [])  # No commitment.
        self.assertEqual(logs.output, [
            f"WARNING:pyramid_kit:refusing match '{self.M}' seat 0 decision "
            "2: the seat committed to decision 3 already, and a commitment "
            "is never signed twice"])
        self.assertEqual(sorted(os.listdir(self.dir)), [f"{self.M}-0-3.json"])
        # A newer decision is a new one; another seat's is its own.
        again._handle(self.decision(self.M, 4))
        again._handle(self.decision(self.M, 2, seat=1))
        self.assertEqual(sorted((m.commit.seat, m.commit.decision_id)
                                for m in self.wait_sent(again, 2)),
                         [(0, 4), (1, 2)])

    def test_an_acknowledged_decision_asked_again_keeps_its_record(
            self) -> None:
        """The same in both kits (the Node kit's test/state.test.js): the
        record of a decision whose reveal was acknowledged stays, and the
        decision asked again after a reconnection gets the same commitment,
        its record unchanged."""
        r = self.runner()
        commit = self.commit_seed(r)
        path = Path(self.dir, f"{self.M}-0-0.json")
        text = path.read_text()
        self.ack(r, 0)
        self.assertEqual(path.read_text(), text)
        r.stream += 1
        r._handle(self.decision(self.M, 0, header_hash=bytes(32)))
        [recommit] = self.sent(r)
        self.assertEqual(recommit.commit, commit)
        self.assertEqual(path.read_text(), text)

    def test_a_match_id_that_cannot_name_a_record_never_reaches_a_path(
            self) -> None:
        d = state.StateDir(self.dir)
        for key in (("../" + "0" * 29, 0, 0), ("0" * 31 + "/", 0, 0),
                    (self.M, -1, 0), (self.M, 0, "1"), ("0" * 64, 0, 0)):
            self.assertFalse(state.nameable(key), key)
            with self.assertRaises(ValueError):
                d.file(key)
            with self.assertRaises(ValueError):
                d.save(key, bytes(32), b"")
            self.assertIsNone(d.load(key))
        self.assertEqual(os.listdir(self.dir), [])

    def test_prepare_dir_makes_the_missing_directories(self) -> None:
        deep = os.path.join(self.dir, "a", "b")
        state.prepare_dir(deep)
        self.assertTrue(os.path.isdir(deep))
        state.prepare_dir(deep)  # There already: fine.


class StreamEnd(grpc.RpcError):
    """A Play stream's end, as a call raises it."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__()
        self._code, self._details = code, details

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details


class ReconnectTest(unittest.TestCase):
    """Which stream ends the runner reconnects after."""

    def run_streams(self, *ends) -> tuple[bot.RunSummary, list[str]]:
        """Runs with streams that end as `ends` say (then a clean close)."""
        r = bot._Runner(bot.Bot(), "127.0.0.1:1", "token", None, 0, 60, 500,
                        None)
        left = list(ends)

        def play_once():
            r.summary.streams += 1
            return (True, left.pop(0)) if left else (True, None)
        r._play_once = play_once
        r._await_referee = lambda wait: False
        with self.assertLogs("pyramid_kit", level="INFO") as logs:
            bot.log.info("start")  # assertLogs wants at least one.
            summary = r.run()
        return summary, logs.output[1:]

    def test_a_replaced_stream_stops_the_run(self) -> None:
        summary, lines = self.run_streams(
            StreamEnd(grpc.StatusCode.ABORTED, "replaced by a newer stream"))
        self.assertEqual(summary.streams, 1)
        self.assertEqual(summary.failure,
                         "another process connected with this token; stopping"
                         " (stream ended: ABORTED: replaced by a newer stream)")
        self.assertEqual(lines, [])

    def test_a_stream_ended_data_loss_stops_the_run(self) -> None:
        """The referee broke the token's match: every new stream would end
        so (the run reconnected every 0.1 s for --reconnect_for_s)."""
        why = ("the match is broken and stopped: cannot write its log (its "
               "log verifies up to its last checkpoint)")
        summary, lines = self.run_streams(
            StreamEnd(grpc.StatusCode.DATA_LOSS, why),
            StreamEnd(grpc.StatusCode.DATA_LOSS, why))
        self.assertEqual(summary.streams, 1)
        self.assertEqual(summary.failure,
                         "the referee broke the match; not reconnecting"
                         f" (stream ended: DATA_LOSS: {why})")
        self.assertEqual(lines, [])

    def test_reconnecting_stops_when_reconnect_for_s_is_over(self) -> None:
        """--reconnect_for_s 3 gave up after 4.6 s, saying 5 s: the last
        wait is cut to what is left, and the time said is the real one.

        The waits asked for add up to no more than the 1.0 s window (a wait
        not cut asks for 1.3 s or more), whatever the machine's load; how
        long they took is only bounded loosely, a loaded machine waking the
        waits late."""
        r = bot._Runner(bot.Bot(), "127.0.0.1:1", "token", None, 0, 1.0, 500,
                        None)
        self.addCleanup(r.channel.close)
        waits: list[float] = []  # Each wait asked for, in seconds.

        def play_once():
            r.summary.streams += 1
            return (False, StreamEnd(grpc.StatusCode.UNAVAILABLE, "down"))

        def never_back(wait):
            waits.append(wait)
            time.sleep(wait)
            return False
        r._play_once = play_once
        r._await_referee = never_back
        started = time.monotonic()
        with self.assertLogs("pyramid_kit", level="INFO"):
            summary = r.run()
        took = time.monotonic() - started
        self.assertLessEqual(sum(waits), 1.0 + 1e-3, waits)
        self.assertGreaterEqual(took, 1.0)
        self.assertLess(took, 1.9)
        self.assertRegex(summary.failure, r"^no referee for 1\.\d s$")

    def refused_streams(self, *states: grpc.ChannelConnectivity):
        """Runs with three streams refused (then a clean close). Each wait
        subscribes to the channel, which tells `states` at once. Returns
        the summary, the lines logged, the subscriptions' try_to_connect
        and the blind waits asked for."""
        r = bot._Runner(bot.Bot(), "127.0.0.1:1", "token", None, 0, 60, 500,
                        None)
        self.addCleanup(r.channel.close)
        left = [StreamEnd(grpc.StatusCode.UNAVAILABLE, "refused")] * 3
        asked: list[bool] = []
        waits: list[float] = []

        def play_once():
            r.summary.streams += 1
            return (False, left.pop(0)) if left else (True, None)

        def subscribe(callback, try_to_connect=False):
            asked.append(try_to_connect)
            for connectivity in states:
                callback(connectivity)
        stopping_wait = r.stopping.wait

        def blind_wait(timeout):
            waits.append(timeout)
            return stopping_wait(timeout)
        r._play_once = play_once
        r.stopping.wait = blind_wait
        with mock.patch.object(r.channel, "subscribe", subscribe), \
                mock.patch.object(r.channel, "unsubscribe"), \
                self.assertLogs("pyramid_kit", level="INFO") as logs:
            summary = r.run()
        return summary, logs.output, asked, waits

    def test_while_the_referee_is_away_the_wait_ends_once_connected(
            self) -> None:
        """A referee restart: no blind sleep while it is away (a kit bot
        forfeited a 2-second clock after a 3.6 s outage, sleeping its
        backoff before it looked); the channel is asked to connect, tries
        again within 250 ms of a failure, the next stream opens as soon as
        it is connected, and the backoff starts again at 0.1 s."""
        summary, lines, asked, waits = self.refused_streams(
            grpc.ChannelConnectivity.TRANSIENT_FAILURE,
            grpc.ChannelConnectivity.CONNECTING,
            grpc.ChannelConnectivity.READY)
        self.assertEqual((summary.streams, summary.failure), (4, ""))
        self.assertEqual(lines, [
            "INFO:pyramid_kit:stream ended (UNAVAILABLE: refused); "
            "reconnecting in 0.1 s"] * 3)
        self.assertEqual((asked, waits), ([True] * 3, []))
        self.assertEqual(bot.CONNECT_RETRY_S, 0.25)

    def test_a_connected_channel_waits_out_the_backoff(self) -> None:
        """A referee that is up and ends the stream itself (the channel
        connected) is not knocked at again at once: its backoff is waited
        out, doubling."""
        summary, lines, _, waits = self.refused_streams(
            grpc.ChannelConnectivity.READY)
        self.assertEqual((summary.streams, summary.failure), (4, ""))
        self.assertEqual(lines, [
            f"INFO:pyramid_kit:stream ended (UNAVAILABLE: refused); "
            f"reconnecting in {s} s" for s in ("0.1", "0.2", "0.4")])
        self.assertEqual(len(waits), 3)
        for asked, wait in zip((0.1, 0.2, 0.4), waits):
            self.assertAlmostEqual(asked, wait, delta=0.05)

    def test_other_ends_reconnect_and_say_why(self) -> None:
        summary, lines = self.run_streams(
            StreamEnd(grpc.StatusCode.UNAVAILABLE, "Socket closed"),
            StreamEnd(grpc.StatusCode.ABORTED, "something else"))
        self.assertEqual((summary.streams, summary.failure), (3, ""))
        self.assertEqual(lines, [
            "INFO:pyramid_kit:stream ended (UNAVAILABLE: Socket closed); "
            "reconnecting in 0.1 s",
            "INFO:pyramid_kit:stream ended (ABORTED: something else); "
            "reconnecting in 0.1 s"])


if __name__ == "__main__":
    unittest.main()
