#!/usr/bin/env python3
"""Unit tests of the example bot's commit-once rules
(tools/python/pyramid_bot.py).

Contract: pyramid_bot.main(), run against a fake referee in this process
(its RefereeStub replaced; each Play stream plays on from one script),
commits to each decision once, as docs/writing-a-bot.md ("What a bot must
never do", "Keep whatever the referee makes it keep") asks and the kits
and build/bin/bot do: a decision asked again while its reveal is owed gets
the same commitment; after its reveal was acknowledged, on a new stream
(a referee that lost the reveal in a power loss), the same commitment and
reveal, and on the same stream nothing; an older decision of the seat
asked again, or one of a match over, is refused with a line and not
committed; past MAX_OPEN_DECISIONS a new decision is still answered, the
least recently used choice (acknowledged first, else the oldest owed,
said) dropped to make room, and a dropped decision asked again is refused
and its reveal not sent. With --matches 0 a stream the referee closes
(a seat token's, once its match ended) ends the bot, status 0, as its
--help says. A stream the referee ends DATA_LOSS (it broke the match) is
not reopened, one line saying why. Its reconnections wait as the kits'
do (ReconnectWindow, on a fake clock that only the waits move): backoff
from 0.1 s doubling to 5 s, the last wait cut to what is left of
--reconnect_for_s, giving up then, saying the time to a tenth of a
second, and starting over at 0.1 s once the referee is back; a wait
(await_referee) ends as soon as the channel connects, and only a channel
connected at the start is waited out whole. Run from anywhere with the
generated stubs in
PYRAMID_PYTHON_STUBS (default build/python); prints unittest's summary.
"""
import contextlib
import importlib.util
import io
import os
import queue
import sys
import threading
import unittest
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, os.environ.get("PYRAMID_PYTHON_STUBS",
                                  str(ROOT / "build" / "python")))

import grpc  # noqa: E402  (after the stubs' path, as the bot does)
from pyramid.referee.v1 import flaming_pyramids_pb2 as fp  # noqa: E402
from pyramid.referee.v1 import game_pb2  # noqa: E402
from pyramid.referee.v1 import referee_service_pb2 as pb  # noqa: E402
from pyramid.referee.v1 import (  # noqa: E402
    referee_service_pb2_grpc as pb_grpc)

_spec = importlib.util.spec_from_file_location(
    "pyramid_bot", ROOT / "tools" / "python" / "pyramid_bot.py")
pyramid_bot = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pyramid_bot)

M = "00112233445566778899aabbccddeeff"
OTHER = "ffeeddccbbaa99887766554433221100"
# Several legal actions, so that a bot drawing its move again could change it.
LEGAL = [game_pb2.Action(flaming_pyramids=fp.FlamingPyramidsAction(fall=f))
         for f in (fp.FP_LEFT, fp.FP_RIGHT)] + [
    game_pb2.Action(flaming_pyramids=fp.FlamingPyramidsAction(
        place=fp.FpPlace(tile=t))) for t in range(1, 9)]

# Yielded by a script: the stream breaks (UNAVAILABLE), the bot opens a new
# one, and the script goes on there.
NEW_STREAM = object()


def decision(match_id, decision_id, seat=0):
    """A DecisionRequest of two seats (so no reveal comes at once)."""
    req = pb.DecisionRequest(match_id=match_id, seat=seat,
                             decision_id=decision_id, game="flaming_pyramids",
                             acting_seats=[seat, seat + 1], simultaneous=True,
                             legal_actions_listed=True, legal_actions=LEGAL)
    if decision_id == 0:  # The seed decision.
        req.header_hash = bytes(32)
        del req.legal_actions[:]
    return pb.PlayResponse(decision=req)


def reveal_request(match_id, decision_id, seat=0):
    return pb.PlayResponse(reveal_request=pb.RevealRequest(
        match_id=match_id, seat=seat, decision_id=decision_id))


def reveal_ack(match_id, decision_id, seat=0):
    return pb.PlayResponse(reveal_ack=pb.RevealAck(
        match_id=match_id, seat=seat, decision_id=decision_id))


def match_ended(match_id, seat=0):
    ended = pb.MatchEnded(match_id=match_id, seat=seat)
    for _ in range(seat + 2):
        ended.outcome.seats.add(rank=1)
    return pb.PlayResponse(match_ended=ended)


class StreamEnd(grpc.RpcError):
    """A Play stream's end, as a call raises it. Yielded by a script, the
    stream ends so, as at NEW_STREAM."""

    def __init__(self, code=grpc.StatusCode.UNAVAILABLE,
                 details="Socket closed"):
        super().__init__()
        self._code, self._details = code, details

    def code(self):
        return self._code

    def details(self):
        return self._details


class FakeReferee:
    """Stands for pb_grpc.RefereeStub. Every Play stream the bot opens plays
    on from one script: a generator (given this referee) that yields the
    PlayResponses to send, or NEW_STREAM, and reads what the bot sent with
    `sent()`. The script runs on the bot's own thread, so when it reads,
    the bot has handled everything sent before; when the script ends, the
    referee closes the stream and the bot's main() returns."""

    def __init__(self, script):
        self.script = script(self)
        self.streams = 0
        self.received = None
        self.reader = None

    def __call__(self, channel):  # pb_grpc.RefereeStub(channel)
        return self

    def Play(self, requests, metadata=()):  # noqa: N802 (the stub's name)
        self.streams += 1
        self.received = received = queue.Queue()

        def read():  # Until the bot closes its side of the stream.
            for request in requests:
                received.put(request)
        self.reader = threading.Thread(target=read, daemon=True)
        self.reader.start()
        return FakeCall(self)

    def sent(self):
        """The next message the bot sent on this stream (it must have sent
        one: the timeout only keeps a broken bot from hanging the test)."""
        return self.received.get(timeout=30)

    def sent_nothing_more(self):
        """Whether the bot sent nothing more on its last stream (once its
        main() returned)."""
        self.reader.join(timeout=30)
        return self.received.empty()


class FakeCall:
    """One Play stream: the responses of the script, up to its NEW_STREAM."""

    def __init__(self, referee):
        self.referee = referee

    def __iter__(self):
        for response in self.referee.script:
            if response is NEW_STREAM:
                raise StreamEnd()
            if isinstance(response, StreamEnd):
                raise response
            yield response

    def cancel(self):
        pass


def run(script, bound=pyramid_bot.MAX_OPEN_DECISIONS, flags=(),
        await_referee=lambda channel, wait: False):
    """Runs the bot against a FakeReferee playing `script`, at most `bound`
    choices kept, with `flags` too, each wait between streams made by
    `await_referee` (default: none, the referee never back); returns the
    referee, the exit status and the lines the bot wrote to stderr (but
    those saying it reconnects)."""
    referee = FakeReferee(script)
    out, err = io.StringIO(), io.StringIO()
    with mock.patch.object(pb_grpc, "RefereeStub", referee), \
            mock.patch.object(pyramid_bot, "MAX_OPEN_DECISIONS", bound), \
            mock.patch.object(pyramid_bot, "await_referee", await_referee), \
            mock.patch.object(sys, "argv",
                              ["pyramid_bot.py", "--seed=1", *flags]), \
            mock.patch.dict(os.environ, {"PYRAMID_TOKEN": "token"}), \
            contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = pyramid_bot.main()
    lines = [line for line in err.getvalue().splitlines()
             if "reconnecting in" not in line]
    return referee, status, lines


class CommitOnceTest(unittest.TestCase):

    def assert_commit(self, message, match_id, decision_id):
        self.assertEqual(message.WhichOneof("kind"), "commit", message)
        self.assertEqual((message.commit.match_id, message.commit.decision_id),
                         (match_id, decision_id))

    def assert_reveal_opens(self, reveal, commit):
        """The reveal's salt and action hash to the commitment."""
        self.assertEqual(reveal.WhichOneof("kind"), "reveal", reveal)
        r = reveal.reveal
        self.assertEqual(pyramid_bot.commitment(
            r.match_id, r.seat, r.decision_id, r.salt, r.action),
            commit.commit.commitment)

    def test_asked_again_before_the_ack_the_same_commitment(self):
        def script(referee):
            for decision_id in (0, 1):  # The seed decision, then a move.
                yield decision(M, decision_id)
                first = referee.sent()
                self.assert_commit(first, M, decision_id)
                # The stream breaks before the reveal: asked again on the
                # new stream, the same commitment.
                yield NEW_STREAM
                yield decision(M, decision_id)
                self.assertEqual(referee.sent(), first)
                yield reveal_request(M, decision_id)
                self.assert_reveal_opens(referee.sent(), first)
        referee, status, lines = run(script)
        self.assertEqual((status, lines, referee.streams), (0, [], 3))
        self.assertTrue(referee.sent_nothing_more())

    def test_after_the_ack_a_new_stream_gets_the_same_commitment(self):
        """A referee that lost the reveal in a power loss opens the decision
        again after its restart: it must get the very same commitment and
        reveal, never a move drawn again."""
        def script(referee):
            yield decision(M, 1)
            first = referee.sent()
            yield reveal_request(M, 1)
            revealed = referee.sent()
            self.assert_reveal_opens(revealed, first)
            yield reveal_ack(M, 1)
            # On the same stream: nothing. The next thing the bot sends is
            # its commitment in another match.
            yield decision(M, 1)
            yield reveal_request(M, 1)
            yield decision(OTHER, 1)
            self.assert_commit(referee.sent(), OTHER, 1)
            yield NEW_STREAM
            yield decision(M, 1)
            self.assertEqual(referee.sent(), first)
            yield reveal_request(M, 1)
            self.assertEqual(referee.sent(), revealed)
        referee, status, lines = run(script)
        self.assertEqual((status, lines), (0, []))
        self.assertTrue(referee.sent_nothing_more())

    def test_an_older_decision_asked_again_is_refused(self):
        def script(referee):
            yield decision(M, 2)
            self.assert_commit(referee.sent(), M, 2)
            yield reveal_request(M, 2)
            self.assertEqual(referee.sent().WhichOneof("kind"), "reveal")
            yield reveal_ack(M, 2)
            yield decision(M, 3)
            newest = referee.sent()
            self.assert_commit(newest, M, 3)
            yield NEW_STREAM
            yield decision(M, 2)  # Older than the seat's newest: refused.
            yield reveal_request(M, 2)  # Not revealed either.
            yield decision(M, 3)  # The newest: the same commitment.
            self.assertEqual(referee.sent(), newest)
            # Once its match is over, every decision of it is refused.
            yield match_ended(M)
            yield decision(M, 4)
            yield decision(OTHER, 1)
            self.assert_commit(referee.sent(), OTHER, 1)
        referee, status, lines = run(script)
        self.assertEqual(status, 0)
        self.assertEqual(lines, [
            f"pyramid_bot: refusing match '{M}' seat 0 decision 2: the seat "
            "committed to decision 3 already, and a commitment is never "
            "signed twice",
            f"pyramid_bot: refusing match '{M}' seat 0 decision 4: its match "
            "is over"])
        self.assertTrue(referee.sent_nothing_more())

    def test_a_malformed_match_id_is_refused(self):
        def script(referee):
            yield decision("41" * 32, 1)
            yield decision(" ".join(["41"] * 16), 1)  # fromhex would take it.
            yield decision(OTHER, 1)
            self.assert_commit(referee.sent(), OTHER, 1)
        referee, status, lines = run(script)
        self.assertEqual(status, 0)
        self.assertEqual(len(lines), 2, lines)
        self.assertTrue(lines[0].endswith(
            "decision 1: its match id is not 16 bytes in hex"), lines[0])
        self.assertTrue(referee.sent_nothing_more())

    def test_an_outcome_without_the_seat_is_said_not_a_crash(self):
        def script(referee):
            yield decision(M, 1)
            self.assert_commit(referee.sent(), M, 1)
            # No seat in its outcome: said, and the match is over all the
            # same.
            yield pb.PlayResponse(match_ended=pb.MatchEnded(match_id=M, seat=0))
            yield decision(M, 2)
            yield decision(OTHER, 1)
            self.assert_commit(referee.sent(), OTHER, 1)
        referee, status, lines = run(script)
        self.assertEqual(status, 0)
        self.assertEqual(lines, [
            f"pyramid_bot: match {M} seat 0 ended [TERMINATION_UNSPECIFIED], "
            "but its outcome has 0 seat(s): no rank for this seat",
            f"pyramid_bot: refusing match '{M}' seat 0 decision 2: its match "
            "is over"])
        self.assertTrue(referee.sent_nothing_more())

    def test_a_match_that_broke_is_over(self):
        """A DATA_LOSS PlayError is the last a broken match sends: no
        MatchEnded comes, and --matches counts it."""
        def script(referee):
            yield decision(M, 1)
            self.assert_commit(referee.sent(), M, 1)
            yield pb.PlayResponse(error=pb.PlayError(
                match_id=M, seat=0, decision_id=1,
                code=grpc.StatusCode.DATA_LOSS.value[0],
                message="the match broke"))
            yield decision(M, 2)  # Refused: over.
            yield decision(OTHER, 1)
            self.assert_commit(referee.sent(), OTHER, 1)
        referee, status, lines = run(script)
        self.assertEqual(status, 1)  # A PlayError came.
        self.assertEqual(lines[1:], [
            f"pyramid_bot: refusing match '{M}' seat 0 decision 2: its match "
            "is over"])
        self.assertTrue(referee.sent_nothing_more())

    @staticmethod
    def match_no(n):
        """Match `n` (1 to 9) of a test."""
        return "0" * 31 + str(n)

    def test_past_the_bound_new_decisions_are_answered(self):
        """Seats whose MatchEnded never came (their match over while the bot
        was away) must not fill the places for good: a new decision is
        answered, the least recently used acknowledged choice dropped to
        make room (silently: no reveal of it is owed), and its decision
        asked again is refused."""
        m = [self.match_no(n) for n in range(1, 6)]

        def script(referee):
            commits = {}

            def play(n):  # Committed, revealed, acknowledged.
                yield decision(m[n], 0)
                commits[n] = referee.sent()
                self.assert_commit(commits[n], m[n], 0)
                yield reveal_request(m[n], 0)
                self.assertEqual(referee.sent().WhichOneof("kind"), "reveal")
                yield reveal_ack(m[n], 0)
            for n in range(3):  # The bound's 3 places.
                yield from play(n)
            # m[0]'s reveal lost in the referee's restart: asked again, the
            # same, acknowledged again, so the most recently used.
            yield NEW_STREAM
            yield decision(m[0], 0)
            self.assertEqual(referee.sent(), commits[0])
            yield reveal_request(m[0], 0)
            self.assertEqual(referee.sent().WhichOneof("kind"), "reveal")
            yield reveal_ack(m[0], 0)
            # Each drops the least recently used: m[1]'s, then m[2]'s.
            for n in (3, 4):
                yield from play(n)
            yield NEW_STREAM
            yield decision(m[1], 0)  # Dropped: refused.
            yield decision(m[2], 0)  # Dropped: refused.
            for n in (0, 3, 4):  # Kept: the same commitment.
                yield decision(m[n], 0)
                self.assertEqual(referee.sent(), commits[n])
        referee, status, lines = run(script, bound=3)
        self.assertEqual(status, 0)
        self.assertEqual(lines, [
            f"pyramid_bot: refusing match '{m[n]}' seat 0 decision 0: its "
            "commitment was dropped to make room (3 decisions open at once, "
            "the bot's limit), and a commitment is never signed twice"
            for n in (1, 2)])
        self.assertTrue(referee.sent_nothing_more())

    def test_a_dropped_decision_is_never_committed_to_again(self):
        """What makes room is a choice whose reveal was acknowledged, else
        the oldest whose reveal is owed; either way, its decision asked
        again is refused and its reveal asked for is not sent."""
        m1, m2, m3, m4 = (self.match_no(n) for n in (1, 2, 3, 4))

        def script(referee):
            yield decision(m1, 0)  # Owed.
            c1 = referee.sent()
            yield decision(m2, 0)  # Acknowledged.
            referee.sent()
            yield reveal_request(m2, 0)
            referee.sent()
            yield reveal_ack(m2, 0)
            yield decision(m3, 0)  # Drops m2's, though m1's is older.
            c3 = referee.sent()
            yield NEW_STREAM
            yield decision(m1, 0)  # Kept: the same.
            self.assertEqual(referee.sent(), c1)
            yield decision(m2, 0)  # Dropped: refused.
            yield decision(m3, 0)  # Kept: the same.
            self.assertEqual(referee.sent(), c3)
            yield decision(m4, 0)  # Answered; drops m1's, the oldest owed.
            self.assert_commit(referee.sent(), m4, 0)
            yield decision(m1, 0)  # Dropped: refused.
            yield reveal_request(m1, 0)  # Not revealed.
        referee, status, lines = run(script, bound=2)
        self.assertEqual(status, 0)
        self.assertEqual(lines, [
            f"pyramid_bot: refusing match '{m2}' seat 0 decision 0: its "
            "commitment was dropped to make room (2 decisions open at once, "
            "the bot's limit), and a commitment is never signed twice",
            f"pyramid_bot: match {m1} seat 0 decision 0: dropping its "
            "commitment, whose reveal is owed, to make room (2 decisions open "
            "at once, the bot's limit); it is refused from now on",
            f"pyramid_bot: refusing match '{m1}' seat 0 decision 0: its "
            "commitment was dropped to make room (2 decisions open at once, "
            "the bot's limit), and a commitment is never signed twice"])
        self.assertTrue(referee.sent_nothing_more())


class MatchesTest(unittest.TestCase):
    """--matches 0, and what its help says of it."""

    def test_the_help_says_what_0_does_with_each_token(self):
        # It said "(0: never)"; a seat token's stream ends once its match
        # ends (the referee closes it), as the kits' help and
        # docs/writing-a-bot.md's flag table say.
        out = io.StringIO()
        with mock.patch.object(sys, "argv", ["pyramid_bot.py", "--help"]), \
                contextlib.redirect_stdout(out), \
                self.assertRaises(SystemExit) as exit_:
            pyramid_bot.parse_args()
        self.assertEqual(exit_.exception.code, 0)
        self.assertIn("--matches MATCHES exit after this many matches ended "
                      "(0: with a seat token, when its match ends; with a "
                      "bot token, run until stopped)",
                      " ".join(out.getvalue().split()))

    def test_with_0_the_stream_closed_after_the_match_ends_the_bot(self):
        def script(referee):
            yield decision(M, 0)
            referee.sent()
            yield match_ended(M)
            # The referee closes a seat token's stream (status OK).
        referee, status, lines = run(script)
        self.assertEqual(status, 0, lines)
        self.assertEqual(referee.streams, 1)



WHY = ("the match is broken and stopped: cannot write its log (its log "
       "verifies up to its last checkpoint)")


class StreamEndTest(unittest.TestCase):
    """Which stream ends the bot reconnects after, and how long it waits."""

    def test_a_stream_ended_data_loss_is_not_reopened(self):
        """The referee broke the token's match: it ends the stream
        DATA_LOSS after the PlayError saying so, and every new stream of
        the token too (the bot reconnected every 0.1 s for
        --reconnect_for_s)."""
        def script(referee):
            yield pb.PlayResponse(error=pb.PlayError(
                match_id=M, seat=0, decision_id=1,
                code=grpc.StatusCode.DATA_LOSS.value[0], message=WHY))
            yield StreamEnd(grpc.StatusCode.DATA_LOSS, WHY)
            yield StreamEnd(grpc.StatusCode.DATA_LOSS, WHY)
        referee, status, lines = run(script)
        self.assertEqual(status, 1)
        self.assertEqual(referee.streams, 1)
        self.assertEqual(lines[-1], "pyramid_bot: the referee broke the "
                         "match; not reconnecting (stream ended: "
                         f"DATA_LOSS: {WHY})")

    def outage(self, flags, back=lambda waits: False):
        """Runs the bot against a referee whose every stream breaks
        (UNAVAILABLE, nothing received), on a clock that only the waits
        move; `back(waits)` says whether the wait just asked for (the last
        of `waits`) ended with the referee back. Returns the waits asked
        for, the exit status and the lines the bot wrote to stderr."""
        clock = [1000.0]
        waits = []

        def script(referee):
            while True:
                yield NEW_STREAM

        def await_referee(channel, wait):
            waits.append(wait)
            clock[0] += wait
            return back(waits)
        with mock.patch.object(pyramid_bot, "monotonic", lambda: clock[0]):
            _, status, lines = run(script, flags=flags,
                                   await_referee=await_referee)
        return waits, status, lines

    def test_the_last_wait_ends_when_reconnect_for_s_is_up(self):
        """It waited the whole backoff past --reconnect_for_s (0.8 s more
        here), gave up only once more than that had passed, and said the
        time in whole seconds."""
        waits, status, lines = self.outage(["--reconnect_for_s=1"])
        self.assertEqual(len(waits), 4, waits)
        for asked, wait in zip((0.1, 0.2, 0.4, 0.3), waits):
            self.assertAlmostEqual(asked, wait)
        self.assertEqual(status, 1)
        self.assertEqual(lines, ["pyramid_bot: giving up: no referee for "
                                 "1.0 s (UNAVAILABLE: Socket closed)"])

    def test_waits_double_to_five_seconds_and_add_up_to_the_time(self):
        waits, _, lines = self.outage(["--reconnect_for_s=300"])
        for asked, wait in zip((0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 5.0, 5.0),
                               waits):
            self.assertAlmostEqual(asked, wait)
        self.assertTrue(all(wait <= 5.0 for wait in waits), waits)
        self.assertAlmostEqual(sum(waits), 300.0)
        self.assertEqual(lines, ["pyramid_bot: giving up: no referee for "
                                 "300.0 s (UNAVAILABLE: Socket closed)"])

    def test_the_referee_back_starts_the_backoff_over(self):
        """The referee back (the wait ended as soon as it was), a stream
        it ends at once is retried after 0.1 s again, not after a backoff
        that grew while it was away."""
        waits, _, _ = self.outage(["--reconnect_for_s=1"],
                                  back=lambda waits: len(waits) == 3)
        for asked, wait in zip((0.1, 0.2, 0.4, 0.1, 0.2), waits):
            self.assertAlmostEqual(asked, wait)

    def test_the_window_reads_no_clock(self):
        window = pyramid_bot.ReconnectWindow(10)
        window.begin(100.0)
        window.waited(False)
        window.waited(False)
        self.assertEqual(window.wait(100.0), 0.4)
        window.waited(True)
        self.assertEqual(window.wait(100.0), 0.1)
        self.assertAlmostEqual(window.wait(109.95), 0.05)  # What is left.
        self.assertIsNone(window.wait(110.0))
        self.assertEqual(window.elapsed(112.0), 12.0)
        window.begin(110.0)
        self.assertEqual(window.wait(110.0), 0.1)
        none = pyramid_bot.ReconnectWindow(0)
        none.begin(0.0)
        self.assertIsNone(none.wait(0.0))


class FakeChannel:
    """Tells each subscriber the states given, at once and in order."""

    def __init__(self, *states):
        self.states = states
        self.asked = []  # Each subscription's try_to_connect.

    def subscribe(self, callback, try_to_connect=False):
        self.asked.append(try_to_connect)
        for state in self.states:
            callback(state)

    def unsubscribe(self, callback):
        pass


class AwaitRefereeTest(unittest.TestCase):
    """The wait between streams, on the channel's connectivity."""

    def test_while_the_referee_is_away_the_wait_ends_once_connected(self):
        """A referee restart: no blind sleep while it is away (the bot
        slept its whole backoff, then waited for the channel); the channel
        is asked to connect, and the wait ends as soon as it is."""
        channel = FakeChannel(grpc.ChannelConnectivity.TRANSIENT_FAILURE,
                              grpc.ChannelConnectivity.CONNECTING,
                              grpc.ChannelConnectivity.READY)
        with mock.patch.object(pyramid_bot.time, "sleep") as sleep:
            self.assertTrue(pyramid_bot.await_referee(channel, 60))
        sleep.assert_not_called()
        self.assertEqual(channel.asked, [True])
        self.assertEqual(pyramid_bot.CONNECT_RETRY_S, 0.25)

    def test_a_connected_channel_waits_out_the_backoff(self):
        """A referee that is up and ends the stream itself (the channel
        connected) is not knocked at again at once."""
        channel = FakeChannel(grpc.ChannelConnectivity.READY)
        with mock.patch.object(pyramid_bot.time, "sleep") as sleep:
            self.assertFalse(pyramid_bot.await_referee(channel, 0.4))
        sleep.assert_called_once()
        slept = sleep.call_args.args[0]
        self.assertTrue(0 < slept <= 0.4, slept)


if __name__ == "__main__":
    unittest.main()
