"""The `Bot` base class: a strategy plus everything around it.

Contract. Subclass `Bot` and implement `choose(game, observation,
legal_actions)` (or `decide(request)` for the whole DecisionRequest); call
`run(referee, token)`. The kit then, on one Play stream per token:

- answers decision 0 with 32 secure random bytes naming the log header the
  referee announced (SeedContribution.header_hash: a copy of the request's
  header_hash, so that the seat's commitment binds the header) and every
  later decision with the strategy's action, committing to it (fresh
  32-byte salt, the action serialized once) and revealing those very bytes
  when asked, or right after the commit when the decision has a single
  seat;
- signs every commit when given a `SeatKey`;
- keys all state on (match, seat, decision), so one bot token plays any
  number of matches at once; `choose` may then run for several decisions
  at the same time, each in its own thread;
- commits to each decision once: a decision asked again gets the same
  commitment (after a reconnection, or a referee's restart that lost the
  reveal), and is refused with a warning when older than the seat's newest
  decision, when its match is over, or when its commitment was dropped to
  make room, so that a referee cannot draw the strategy's choice again
  (docs/writing-a-bot.md, "What a bot must never do"); also refused, with
  a warning: a match id that is not 16 bytes in hex and a request whose
  view refers to a result never received. It keeps the commitments of at
  most `MAX_OPEN_DECISIONS` seats (a seat's newer decision closes its
  older one): past that, the least recently used is dropped to make room,
  one whose reveal was acknowledged if any, else the oldest whose reveal
  is owed (with a warning). A message the kit cannot handle otherwise is
  logged and skipped, never raised out of `run`;
- when the commit deadline (DecisionRequest.commit_deadline_unix_ms) comes
  within `deadline_margin_ms` before the strategy has answered, commits the
  fallback action instead (`actions.fallback_action`: always legal) and
  discards the strategy's late answer; a deadline already within the
  margin as the request arrives still commits an answer the strategy
  gives at once (within AT_ONCE_S of its call, as the Node kit commits a
  synchronous answer), said once per match; a strategy that raises gets the
  fallback too (logged as a failure, not as late), and so does one that
  returns an action the decision's list of legal actions does not hold
  (a warning naming the decision; decisions without a list are not
  checked);
- when the stream breaks for any reason a reconnection can mend (the
  referee restarts, the call is cancelled, the network drops), opens a new
  one with the same token, with backoff from 100 ms doubling to 5 s, for at
  most `reconnect_for_s` seconds without a referee. While the referee is
  away, a wait is no blind sleep: the channel tries to connect at most
  `CONNECT_RETRY_S` (plus jitter) after each failed attempt, and the new
  stream opens as soon as one succeeds, so that the bot is back within a
  few hundred milliseconds of a referee's restart, before the deadlines it
  reopens (docs/durability.md); only a referee that is up and ended the
  stream itself is waited for whole. Commitments and salts
  survive in memory, so it recommits or reveals whatever the referee asks
  for again (docs/writing-a-bot.md, section 8); with `state_dir` they are
  also on disk before each commit leaves (pyramid_kit.state), so that a
  process started again reveals what an earlier one committed to, and
  commits it again, never another, whatever the state of its reveal; a
  record stays until its match ends (MatchEnded, or its DATA_LOSS error),
  which removes all of that match's; after a restart, the seat's newest
  decision is the largest with a record, and an older one without a
  record of its own is refused as above. A record that cannot be written
  is said, and its decision committed without it (a restart before its
  reveal faults the seat). Without a record, a commitment the referee
  holds and this process lacks is said once per decision. A stream the
  referee ended because a newer stream of the same token replaced it (another process
  plays this token) is not reopened: the run stops with a failure, so that
  two processes do not take the token from each other forever; nor is a
  stream the referee ended DATA_LOSS because it broke the token's match
  (BROKEN_FAILURE: the match never resumes);
- stops cleanly on `stop()` (the command-line entry point calls it on
  SIGINT and SIGTERM), after `matches` matches have ended, or when the
  referee closes the stream (it does so to a seat token's once its match
  ended): before `matches` matches ended, with a failure saying so.
"""
from __future__ import annotations

import collections
import dataclasses
import logging
import queue
import threading
import time
from typing import Iterator, Optional, Sequence

import grpc
from google.protobuf import text_format

from pyramid_kit import actions, protocol, state
from pyramid_kit.pb import game_pb2, referee_service_pb2 as pb
from pyramid_kit.pb import referee_service_pb2_grpc as pb_grpc

log = logging.getLogger("pyramid_kit")

# PlayError.code of a match that broke and stopped (google.rpc.Code).
DATA_LOSS = grpc.StatusCode.DATA_LOSS.value[0]

# At most this many seats' commitments are kept at once (the salt and
# action of each seat's newest decision, or its request while it is being
# decided). Past it, the least recently used is dropped to make room: one
# whose reveal was acknowledged if any, else the oldest whose reveal is
# owed. A dropped decision asked again is refused, never committed to anew.
MAX_OPEN_DECISIONS = 4096

# When the commit deadline is already within the margin as a decision
# arrives, the strategy's answer is committed if it comes this soon after
# the strategy is called ("at once"), else the fallback action is.
AT_ONCE_S = 0.05

# While the referee is away, a connection is tried again at most this long
# (plus gRPC's jitter of a fifth) after the last one failed.
CONNECT_RETRY_S = 0.25

# At most this many distinct strategy errors are remembered (to print the
# traceback of each once); past it, they are forgotten and printed anew.
MAX_FAILURES_REMEMBERED = 256

# Stream errors that another attempt cannot mend.
_FINAL = {grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED,
          grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.UNIMPLEMENTED}

# How the referee ends the older of two streams of one token
# (docs/protocol.md, "Reconnecting"). A bot never sees it for a stream of
# its own that broke (it reads only its newest stream), so it means that
# another process connected with this token.
REPLACED = (grpc.StatusCode.ABORTED, "replaced by a newer stream")
REPLACED_FAILURE = "another process connected with this token; stopping"

# How the referee ends a seat token's stream once it broke the token's match
# (cannot go on with it: its log cannot be written; docs/protocol.md), and
# every later stream of that token: DATA_LOSS, after the PlayError saying
# so. Nothing else ends a Play stream so, and the match never resumes.
BROKEN_FAILURE = "the referee broke the match; not reconnecting"


def replaced(status: grpc.RpcError) -> bool:
    """Whether a stream ended because a newer one of its token replaced it."""
    return (status.code(), status.details()) == REPLACED


def broken(status: grpc.RpcError) -> bool:
    """Whether a stream ended because the referee broke the token's match."""
    return status.code() == grpc.StatusCode.DATA_LOSS


@dataclasses.dataclass
class RunSummary:
    """What one `Bot.run` did."""
    matches_ended: int = 0       # Matches whose end this run was sent.
    errors: int = 0              # PlayErrors received.
    fallbacks: int = 0           # Decisions answered with the fallback.
    strategy_failures: int = 0   # Strategy calls that raised.
    streams: int = 0             # Play streams opened.
    failure: str = ""            # Why run() gave up, if it did.

    @property
    def ok(self) -> bool:
        """No error, and no reason to give up."""
        return self.errors == 0 and not self.failure


@dataclasses.dataclass
class _Pending:
    """The newest decision of one seat, from its request until the seat's
    next decision or its match's end closes it (or it is dropped to make
    room): kept after its reveal is acknowledged, since a referee that lost
    the reveal (a power loss, docs/durability.md) asks it again after a
    restart and must get the same commitment."""
    request: pb.DecisionRequest
    salt: bytes = b""
    action: Optional[bytes] = None   # Serialized once; None while deciding.
    committed_on: int = -1           # Stream number of the last commit sent.
    revealed_on: int = -1            # Stream number of the last reveal sent.
    timer: Optional[threading.Timer] = None
    acked: bool = False              # Its reveal acknowledged (not owed).
    no_time: bool = False            # The deadline is within the margin.


class Bot:
    """Base class of a bot: override `choose` (or `decide`)."""

    #: When true, the default `on_match_ended` prints nothing (--quiet).
    quiet: bool = False

    def choose(self, game: str, observation: game_pb2.Observation,
               legal_actions: Optional[Sequence[game_pb2.Action]]
               ) -> game_pb2.Action:
        """The strategy: an action for `game` (e.g. "pyramid_scheme") given
        the seat's own observation and, when the game lists them, its legal
        actions sorted by serialized bytes (None when not listed: build the
        action from the observation, or return
        `actions.fallback_action(game, observation, None)`)."""
        raise NotImplementedError("a Bot must implement choose()")

    def decide(self, request: pb.DecisionRequest) -> game_pb2.Action:
        """The whole DecisionRequest (match, seat, seats, deadline) for
        strategies that need more than `choose` gets. Calls `choose`."""
        listed = (list(request.legal_actions)
                  if request.legal_actions_listed else None)
        return self.choose(request.game, request.observation, listed)

    def on_result(self, result: pb.DecisionResult) -> None:
        """Called with every DecisionResult (the seat's view after each
        move), on the stream's thread: return quickly. Default: nothing."""

    def on_match_ended(self, ended: pb.MatchEnded) -> None:
        """Called once per seat whose MatchEnded this run gets: a bot token
        holding several seats of one match gets one call for each (a seat
        token's match over before the run included: the referee sends its
        end on connecting, and nothing else will come for it); an end sent
        again is not. Default: prints the seat's rank and score to standard
        output (unless `quiet`)."""
        if self.quiet:
            return
        if ended.seat >= len(ended.outcome.seats):
            return  # No rank to print (the runner said so).
        mine = ended.outcome.seats[ended.seat]
        term = game_pb2.Termination.Name(ended.outcome.termination)
        print(f"match {ended.match_id} seat {ended.seat}: rank {mine.rank}, "
              f"score {mine.score}{' (forfeited)' if mine.forfeited else ''}"
              f" [{term}]", flush=True)

    def run(self, referee: str, token: str, *,
            key: Optional[protocol.SeatKey] = None, matches: int = 0,
            reconnect_for_s: float = 300, deadline_margin_ms: int = 500,
            credentials: Optional[grpc.ChannelCredentials] = None,
            state_dir: Optional[str] = None) -> RunSummary:
        """Plays until stopped (see the module's contract). `referee` is
        "host:port"; `token` a seat or bot token; `matches` > 0 returns once
        that many of its matches have ended; `credentials` connects
        with TLS (default: plaintext); `state_dir`, an existing directory,
        keeps every commitment on disk until its match ends, so that a
        process restarted between a commit and its reveal still reveals,
        and never commits twice (pyramid_kit.state)."""
        self._runner = _Runner(self, referee, token, key, matches,
                               reconnect_for_s, deadline_margin_ms,
                               credentials, state_dir=state_dir)
        return self._runner.run()

    def stop(self) -> None:
        """Ends `run` cleanly from any thread (or a signal handler)."""
        runner = getattr(self, "_runner", None)
        if runner is not None:
            threading.Thread(target=runner.stop, daemon=True).start()


class _Runner:
    """One `Bot.run`: the streams, the pending decisions, the counters."""

    def __init__(self, bot: Bot, referee: str, token: str,
                 key: Optional[protocol.SeatKey], matches: int,
                 reconnect_for_s: float, deadline_margin_ms: int,
                 credentials: Optional[grpc.ChannelCredentials],
                 state_dir: Optional[str] = None) -> None:
        self.bot, self.token, self.key = bot, token, key
        self.matches, self.reconnect_for_s = matches, reconnect_for_s
        self.margin_ms = deadline_margin_ms
        self.margin_s = deadline_margin_ms / 1000
        self.state = state.StateDir(state_dir) if state_dir else None
        # Said once each: decisions whose commitment the referee holds and
        # this process does not; matches whose commit clock leaves the
        # strategy no time after the margin.
        self.warned_missing: set[tuple[str, int, int]] = set()
        self.warned_clock: set[str] = set()
        # (exception type, message) -> times a strategy raised it.
        self.failures: dict[tuple[str, str], int] = {}
        # Short reconnection backoff: gRPC's own grows to 2 minutes, and a
        # bot that waits out a referee restart must be back within a few
        # hundred milliseconds of it, before its deadlines: a failed
        # connection is tried again within CONNECT_RETRY_S
        # (_await_referee).
        options = [("grpc.initial_reconnect_backoff_ms", 100),
                   ("grpc.max_reconnect_backoff_ms",
                    int(CONNECT_RETRY_S * 1000))]
        self.channel = (grpc.secure_channel(referee, credentials, options)
                        if credentials else
                        grpc.insecure_channel(referee, options))
        self.stub = pb_grpc.RefereeStub(self.channel)
        self.lock = threading.RLock()
        self.pending: dict[tuple[str, int, int], _Pending] = {}
        # Per (match, seat), until its match ends: the newest decision the
        # run has opened, the end of what it ever commits to anew. One here
        # that `pending` lacks was dropped to make room. A few dozen bytes
        # a seat, as `ended` keeps for every match over.
        self.newest: dict[tuple[str, int], int] = {}
        self.max_open_decisions = MAX_OPEN_DECISIONS
        # The keys of `pending`, least recently used first: those whose
        # reveal was acknowledged, and the others (the reveal owed).
        self.lru_acked: collections.OrderedDict = collections.OrderedDict()
        self.lru_owed: collections.OrderedDict = collections.OrderedDict()
        # Per (match, seat): the observation of the last DecisionResult on
        # this stream, which a DecisionRequest with observation_in_result
        # refers to (the Play feature "observation-once").
        self.views: dict[tuple[str, int], game_pb2.Observation] = {}
        self.ended: set[str] = set()
        # The seats whose end this run has seen (each told to the bot once).
        self.ended_seats: set[tuple[str, int]] = set()
        self.summary = RunSummary()
        self.stream = 0
        self.outbox: queue.Queue = queue.Queue()
        self.call: Optional[grpc.Call] = None
        self.stopping = threading.Event()

    # --- the stream

    def run(self) -> RunSummary:
        backoff, broken_since = 0.1, None
        try:
            while not self.stopping.is_set():
                got, status = self._play_once()
                if status is None and not self.stopping.is_set():
                    # Done, or the referee closed the stream: it does so to
                    # a seat token's once its match ended.
                    self.summary.failure = self._closed_early()
                if status is None or self.stopping.is_set():
                    break
                if replaced(status):
                    self.summary.failure = (
                        f"{REPLACED_FAILURE} (stream ended: "
                        f"{status.code().name}: {status.details()})")
                    break
                if broken(status):
                    self.summary.failure = (
                        f"{BROKEN_FAILURE} (stream ended: "
                        f"{status.code().name}: {status.details()})")
                    break
                if status.code() in _FINAL or self.reconnect_for_s <= 0:
                    self.summary.failure = (f"stream ended: {status.code().name}"
                                            f": {status.details()}")
                    break
                now = time.monotonic()
                if got or broken_since is None:
                    broken_since, backoff = now, 0.1  # A fresh outage.
                # Every wait is cut to what is left of reconnect_for_s, so
                # that the last attempt is made at its end, not past it.
                left = broken_since + self.reconnect_for_s - now
                if left <= 0:
                    self.summary.failure = (f"no referee for "
                                            f"{now - broken_since:.1f} s")
                    break
                wait = min(backoff, left)
                log.info("stream ended (%s: %s); reconnecting in %.1f s",
                         status.code().name, status.details(), wait)
                back = self._await_referee(wait)
                # The referee came back: a stream it ends at once is
                # retried soon.
                backoff = 0.1 if back else min(backoff * 2, 5.0)
        finally:
            with self.lock:
                for entry in self.pending.values():
                    if entry.timer:
                        entry.timer.cancel()
            self.channel.close()
        self.summary.matches_ended = len(self.ended)
        return self.summary

    def _closed_early(self) -> str:
        """Why the run ends when the referee closed the stream before
        `matches` matches ended (empty: it did not)."""
        if not self.matches or self._enough():
            return ""
        return (f"the referee closed the stream after {len(self.ended)} of "
                f"{self.matches} matches: a seat token plays one match")

    def _await_referee(self, wait: float) -> bool:
        """The wait before the next stream, at most `wait` seconds (less
        on `stop`). While the channel is not connected (the referee is
        away), it is made to connect, an attempt at most CONNECT_RETRY_S
        (plus gRPC's jitter) after the last one failed, and the wait ends as
        soon as it is: returns True then (the referee is back), else False.
        A channel connected at the start (the referee is up and ended the
        stream itself) waits `wait` whole, the backoff that spares a
        referee refusing streams."""
        deadline = time.monotonic() + wait
        states: queue.Queue = queue.Queue()
        # gRPC tells the state at once, then each change.
        self.channel.subscribe(states.put, try_to_connect=True)
        try:
            first = True
            while not self.stopping.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                try:  # In slices, so that `stop` is heard.
                    state = states.get(timeout=min(left, CONNECT_RETRY_S))
                except queue.Empty:
                    # Asked again: an idle channel connects.
                    self.channel.unsubscribe(states.put)
                    self.channel.subscribe(states.put, try_to_connect=True)
                    continue
                if state == grpc.ChannelConnectivity.READY:
                    if not first:
                        return True
                    self.stopping.wait(max(0.0, deadline - time.monotonic()))
                    return False
                first = False
            return False
        finally:
            self.channel.unsubscribe(states.put)

    def _play_once(self) -> tuple[bool, Optional[grpc.RpcError]]:
        """One Play stream. Returns whether anything arrived, and the error
        that ended it (None: done, or closed by the referee)."""
        with self.lock:
            self.stream += 1
            self.summary.streams += 1
            self.outbox = queue.Queue()
            outbox = self.outbox
            self.views.clear()  # A new stream: views come afresh.

        def outgoing() -> Iterator[pb.PlayRequest]:
            while (message := outbox.get()) is not None:
                yield message

        call = self.stub.Play(outgoing(), metadata=[
            ("authorization", "Bearer " + self.token),
            ("pyramid-play-features", "observation-once, batch")])
        self.call = call
        got = False
        try:
            if self.stopping.is_set():
                return got, None
            for response in call:
                got = True
                try:
                    if not self._handle(response):
                        return got, None
                except Exception:  # pylint: disable=broad-except
                    # A malformed message must not end the run.
                    log.exception("could not handle a %s from the referee;"
                                  " ignoring it", response.WhichOneof("kind"))
            return got, None
        except grpc.RpcError as err:
            return got, err
        finally:
            outbox.put(None)  # Half-close our side...
            call.cancel()     # ...and drop the call.

    def stop(self) -> None:
        self.stopping.set()
        call = self.call
        if call is not None:
            call.cancel()

    # --- messages

    def _handle(self, response: pb.PlayResponse) -> bool:
        """Returns False once enough matches have ended."""
        kind = response.WhichOneof("kind")
        if kind == "batch":  # The Play feature "batch": each in order.
            return all([self._handle(inner)
                        for inner in response.batch.responses])
        if log.isEnabledFor(logging.DEBUG):
            log.debug("<- %s: %s", kind, text_format.MessageToString(
                getattr(response, kind), as_one_line=True))
        if kind == "decision":
            self._on_decision(response.decision)
        elif kind == "reveal_request":
            r = response.reveal_request
            key = (r.match_id, r.seat, r.decision_id)
            with self.lock:
                entry = self.pending.get(key)
                if entry is None or entry.action is None:
                    # Committed by an earlier process of this bot?
                    self._recover(key)
                self._reveal(key)
        elif kind == "reveal_ack":
            # The choice is kept: a referee that lost the reveal (a power
            # loss under --fsync=checkpoints, docs/durability.md) opens the
            # decision again after its restart, and gets the same commitment.
            # Owed no more, it is the first to go when room is needed.
            r = response.reveal_ack
            key = (r.match_id, r.seat, r.decision_id)
            with self.lock:
                entry = self.pending.get(key)
                if entry is not None and entry.timer:
                    entry.timer.cancel()
                if entry is not None and entry.revealed_on >= 0:
                    # Its record, if any, stays until the match ends.
                    self._touch(key, acked=True)
        elif kind == "result":
            r = response.result
            with self.lock:
                self.views[(r.match_id, r.seat)] = r.observation
            self.bot.on_result(r)
        elif kind == "match_ended":
            return self._on_match_ended(response.match_ended)
        elif kind == "error":
            e = response.error
            self.summary.errors += 1
            log.warning("match %s seat %d decision %d: code %d: %s%s",
                        e.match_id, e.seat, e.decision_id, e.code, e.message,
                        " (faulted)" if e.faulted else "")
            if e.code == DATA_LOSS:
                # The match broke (the referee could not write its log) and
                # stopped: no MatchEnded will ever come. It is over.
                self._end(e.match_id, e.seat)
                return not self._enough()
        return True  # commit_ack needs no answer.

    def _on_match_ended(self, ended: pb.MatchEnded) -> bool:
        if self._end(ended.match_id, ended.seat):
            if ended.seat >= len(ended.outcome.seats):
                log.warning("match %s seat %d ended, but its outcome has %d "
                            "seat(s): no rank for this seat", ended.match_id,
                            ended.seat, len(ended.outcome.seats))
            self.bot.on_match_ended(ended)
        return not self._enough()

    def _end(self, match_id: str, seat: int) -> bool:
        """Forgets what the seat's match still had pending; returns whether
        this is the first end of that seat this run has seen."""
        with self.lock:
            self.views.pop((match_id, seat), None)
            for key in [k for k in self.pending if k[0] == match_id]:
                self._forget(key)
            if self.state:  # Also those of an earlier process.
                self.state.drop_match(match_id)  # The one place records go.
            self.warned_clock.discard(match_id)
            self.warned_missing = {k for k in self.warned_missing
                                   if k[0] != match_id}
            # Its decisions are refused from now on (self.ended).
            for key in [k for k in self.newest if k[0] == match_id]:
                del self.newest[key]
            # Each match counts once, on whichever stream its end comes. A
            # seat token whose match ended before this run (while the bot
            # was away) is sent that end on connecting and nothing else
            # ever: it counts, as build/bin/bot counts it, so that
            # `--matches 1` ends instead of waiting forever.
            self.ended.add(match_id)
            if (match_id, seat) in self.ended_seats:
                return False
            self.ended_seats.add((match_id, seat))
            return True

    def _enough(self) -> bool:
        """Whether as many matches as asked for have ended."""
        with self.lock:
            return bool(self.matches and len(self.ended) >= self.matches)

    def _forget(self, key: tuple[str, int, int]) -> None:
        """Closes an open decision (its strategy's answer, if any comes, is
        dropped)."""
        entry = self.pending.pop(key, None)
        if entry is not None and entry.timer:
            entry.timer.cancel()
        # Its record, if any, stays until the match ends (pyramid_kit.state).
        self.lru_acked.pop(key, None)
        self.lru_owed.pop(key, None)

    def _touch(self, key: tuple[str, int, int], acked: bool) -> None:
        """Makes `key` the most recently used of `lru_acked` (`acked`) or
        `lru_owed`."""
        self.lru_acked.pop(key, None)
        self.lru_owed.pop(key, None)
        (self.lru_acked if acked else self.lru_owed)[key] = None
        self.pending[key].acked = acked

    def _make_room(self) -> None:
        """At `max_open_decisions`, drops the least recently used choice:
        one whose reveal was acknowledged if any, else the oldest whose
        reveal is owed (with a warning). Its decision is refused from then
        on, as `newest` keeps its number."""
        if len(self.pending) < self.max_open_decisions:
            return
        owed = not self.lru_acked
        lru = self.lru_owed if owed else self.lru_acked
        if not lru:
            return
        key = next(iter(lru))
        if owed:
            log.warning("match %s seat %d decision %d: dropping its "
                        "commitment, whose reveal is owed, to make room (%d "
                        "decisions open at once, the kit's limit); %s", *key,
                        self.max_open_decisions,
                        "it is refused from now on" if not self.state else
                        f"its record in {self.state.path} answers it from "
                        "now on, if there is one, else it is refused")
        self._forget(key)

    def _newest(self, match_id: str, seat: int) -> Optional[int]:
        """The seat's newest decision: the run's, or, for a seat new to this
        process, the largest decision with a record in --state_dir (an
        earlier process committed to it)."""
        seat_key = (match_id, seat)
        if seat_key not in self.newest and self.state:
            recorded = self.state.newest(match_id, seat)
            if recorded is not None:
                self.newest[seat_key] = recorded
        return self.newest.get(seat_key)

    def _refusal(self, req: pb.DecisionRequest, recorded: bool = False) -> str:
        """Why the run refuses to open `req`, a decision it has no choice
        for (empty: it may); `recorded`: --state_dir holds its record,
        whose commitment it may always send again, never another."""
        try:
            protocol.match_id_bytes(req.match_id)
        except ValueError:
            return "its match id is not 16 bytes in hex"
        if req.match_id in self.ended:
            return "its match is over"
        if recorded:
            return ""
        newest = self._newest(req.match_id, req.seat)
        # Only a decision whose choice `pending` lacks is asked about.
        if newest is not None and req.decision_id == newest:
            if self.state:
                return ("its commitment is not held (dropped to make room, "
                        f"{self.max_open_decisions} decisions open at once, "
                        "the kit's limit, or its record in "
                        f"{self.state.path} unusable), and a commitment is "
                        "never signed twice")
            return ("its commitment was dropped to make room "
                    f"({self.max_open_decisions} decisions open at once, the "
                    "kit's limit), and a commitment is never signed twice")
        if newest is not None and req.decision_id < newest:
            return (f"the seat committed to decision {newest} already, and "
                    "a commitment is never signed twice")
        return ""

    def _on_decision(self, req: pb.DecisionRequest) -> None:
        key = (req.match_id, req.seat, req.decision_id)
        with self.lock:
            if req.observation_in_result:
                # The view is the one of the DecisionResult just received.
                view = self.views.get((req.match_id, req.seat))
                if view is None:
                    log.warning("match %r seat %d decision %d: the request "
                                "refers to a result never received; ignoring"
                                " it", *key)
                    return
                req.observation.CopyFrom(view)
                req.observation_in_result = False
            entry = self.pending.get(key)
            if req.committed:
                # Our commitment is in the log: the reveal comes later. One
                # an earlier process of this bot made is read back from
                # --state_dir now, or said to be lost.
                if entry is None or entry.action is None:
                    self._recover(key, req)
                return
            if entry is not None:
                # Asked again after a reconnection: the same choice again,
                # unless it was already sent on this stream or is still
                # being decided.
                if entry.action is not None and entry.committed_on != self.stream:
                    self._commit(key)
                return
            # A record on disk: an earlier process of this bot chose, and
            # perhaps committed, already (its reveal perhaps acknowledged,
            # and lost by the referee). The same commitment, never another.
            record = self.state.load(key) if self.state else None
            why = self._refusal(req, recorded=record is not None)
            if why:
                log.warning("refusing match %r seat %d decision %d: %s",
                            *key, why)
                return
            if record is not None:
                self._resume(key, req, record)
                self._commit(key)
                if len(req.acting_seats) == 1:
                    self._reveal(key)
                return
            self._open(key, req)
            entry = self.pending[key]
            if req.decision_id == 0:
                self._settle(key, actions.seed_action(req.header_hash), "seed")
                return
            if req.commit_deadline_unix_ms:
                left_ms = req.commit_deadline_unix_ms - time.time() * 1000
                if left_ms - self.margin_ms > AT_ONCE_S * 1000:
                    entry.timer = threading.Timer(
                        (left_ms - self.margin_ms) / 1000, self._fall_back,
                        (key,))
                    entry.timer.daemon = True
                    entry.timer.start()
                else:
                    # No time left after the margin (or hardly any). As in
                    # the Node kit, an answer the strategy gives at once is
                    # committed; else the fallback, AT_ONCE_S after the
                    # strategy was called (the strategy's thread starts that
                    # timer, so that the two never race).
                    entry.no_time = True
                    if (left_ms <= self.margin_ms and
                            req.match_id not in self.warned_clock):
                        self.warned_clock.add(req.match_id)
                        log.warning(
                            "match %s: the commit clock (%d ms) leaves the "
                            "strategy no time after the kit's margin (%d ms);"
                            " a strategy that has not answered at once "
                            "commits the fallback action", req.match_id,
                            max(0, round(left_ms)), self.margin_ms)
        threading.Thread(target=self._think, args=(key, req),
                         daemon=True).start()

    def _open(self, key: tuple[str, int, int],
              req: pb.DecisionRequest) -> None:
        """Opens `key` in `pending`: the seat's newest decision, unless
        it is an older one read back from its record."""
        newest = self.newest.get(key[:2])
        if newest is not None and newest < key[2]:
            # The seat's older decision is over: the referee moved on.
            self._forget((*key[:2], newest))
        if newest is None or newest < key[2]:
            self.newest[key[:2]] = key[2]
        if key not in self.pending:
            self._make_room()
            self.pending[key] = _Pending(request=req)
        self._touch(key, acked=False)

    def _recover(self, key: tuple[str, int, int],
                 req: Optional[pb.DecisionRequest] = None,
                 say: bool = True) -> bool:
        """Reads `key`'s commitment back from --state_dir into `pending`
        (for a decision whose commitment the referee holds, or may hold,
        and this process does not). Returns whether it did; with `say`, a
        missing record is said once per decision. A decision the run
        refuses (its match over, older than the seat's newest, dropped to
        make room) is never recovered, and not said; one with a record is,
        whatever the state of its reveal."""
        entry = self.pending.get(key)
        probe = req or pb.DecisionRequest(
            match_id=key[0], seat=key[1], decision_id=key[2])
        record = self.state.load(key) if self.state else None
        if entry is None and self._refusal(probe,
                                           recorded=record is not None):
            return False
        if record is None:
            if say and key not in self.warned_missing:
                self.warned_missing.add(key)
                log.warning("match %s seat %d decision %d: the referee holds "
                            "a commitment this process does not have "
                            "(restarted without --state_dir?); the seat will"
                            " fault at the reveal deadline", *key)
            return False
        self._resume(key, probe, record)
        return True

    def _resume(self, key: tuple[str, int, int], req: pb.DecisionRequest,
                record: tuple[bytes, bytes]) -> None:
        """Opens `key` with the (salt, action) of its record."""
        self._open(key, req)
        entry = self.pending[key]
        if entry.timer:
            entry.timer.cancel()  # The strategy's answer, if any, is dropped.
        entry.salt, entry.action = record
        # As the Node kit says it (not with --quiet).
        log.info("match %s seat %d decision %d: resuming the commitment kept"
                 " in %s", *key, self.state.path)

    def _think(self, key: tuple[str, int, int],
               req: pb.DecisionRequest) -> None:
        """Runs the strategy (in its own thread) and commits its answer,
        unless the fallback was committed first."""
        with self.lock:
            entry = self.pending.get(key)
            if entry is not None and entry.no_time and entry.action is None:
                # Started here, just before the strategy is called: the
                # strategy has AT_ONCE_S however late this thread ran.
                entry.timer = threading.Timer(AT_ONCE_S, self._fall_back,
                                              (key,))
                entry.timer.daemon = True
                entry.timer.start()
        try:
            action = self.bot.decide(req)
            if not isinstance(action, game_pb2.Action):
                raise TypeError(f"the strategy returned {type(action)!r}, "
                                "not an Action")
        except Exception as err:  # The strategy's bug must not cost the seat.
            self._strategy_failed(key, err)
            self._fall_back(key, "failed")
            return
        with self.lock:
            entry = self.pending.get(key)
            if entry is None or entry.action is not None:
                return  # The match ended, or the fallback came first.
            if (req.legal_actions_listed and
                    not actions.is_listed(action, req.legal_actions)):
                # The referee would fault the seat (FAULT_ILLEGAL_ACTION).
                n = len(req.legal_actions)
                log.warning("match %s seat %d decision %d: the strategy's "
                            "action is not %s; sending the fallback action",
                            *key, "the only legal action" if n == 1 else
                            f"one of the {n} legal actions")
                self._fall_back(key, "illegal")
                return
            self._settle(key, action, "strategy")

    def _strategy_failed(self, key: tuple[str, int, int],
                         err: Exception) -> None:
        """Says that the strategy raised `err`: with its traceback the
        first time, in one line when the same error (type and message)
        comes again."""
        what = (type(err).__qualname__, str(err))
        with self.lock:
            self.summary.strategy_failures += 1
            if (what not in self.failures and
                    len(self.failures) >= MAX_FAILURES_REMEMBERED):
                self.failures.clear()
            times = self.failures[what] = self.failures.get(what, 0) + 1
        if times == 1:
            log.error("strategy failed on match %s seat %d decision %d; "
                      "sending the fallback action", *key,
                      exc_info=(type(err), err, err.__traceback__))
        else:
            log.error("strategy failed on match %s seat %d decision %d; "
                      "sending the fallback action: the strategy raised the "
                      "same error again (%d times so far)", *key, times)

    def _fall_back(self, key: tuple[str, int, int],
                   why: str = "late") -> None:
        """Commits the fallback action, unless the decision is settled:
        `why` is "late" (the deadline timer, which says so), "failed" or
        "illegal" (the strategy raised or chose an unlisted action, already
        said)."""
        with self.lock:
            entry = self.pending.get(key)
            if entry is None or entry.action is not None:
                return  # Decided, or the match is over.
            if entry.timer:
                entry.timer.cancel()  # Settled now, or never: not late.
            req = entry.request
            listed = (list(req.legal_actions) if req.legal_actions_listed
                      else None)
            try:
                action = actions.fallback_action(req.game, req.observation,
                                                 listed)
            except ValueError as err:
                log.error("match %s seat %d decision %d: %s", *key, err)
                return
            self.summary.fallbacks += 1
            if why == "late":
                log.info("match %s seat %d decision %d: the strategy is late;"
                         " committing the fallback action", *key)
            self._settle(key, action, "fallback")

    def _settle(self, key: tuple[str, int, int], action: game_pb2.Action,
                source: str) -> None:
        """Fixes the decision's action (first come, first served), commits
        it, and reveals at once for a single-seat decision."""
        with self.lock:
            entry = self.pending.get(key)
            if entry is None or entry.action is not None:
                return  # The match ended, or the fallback came first.
            if entry.timer:
                entry.timer.cancel()
            entry.salt = protocol.new_salt()
            entry.action = action.SerializeToString()  # Once: hash = reveal.
            if self.state:
                # Durable before the commit leaves: a process restarted
                # before the reveal reads it back (_recover).
                try:
                    self.state.save(key, entry.salt, entry.action)
                except (OSError, ValueError) as err:
                    log.error("match %s seat %d decision %d: cannot write "
                              "its commitment to %s (%s); committing anyway"
                              ": a restart before the reveal faults the "
                              "seat", *key, self.state.path,
                              getattr(err, "strerror", None) or err)
            self._commit(key)
            if len(entry.request.acting_seats) == 1:
                self._reveal(key)

    def _commit(self, key: tuple[str, int, int]) -> None:
        entry = self.pending[key]
        entry.committed_on = self.stream
        self._touch(key, acked=False)  # Its reveal is owed (again).
        commitment = protocol.commitment(*key, entry.salt, entry.action)
        signature = (self.key.sign_commit(*key, commitment)
                     if self.key else b"")
        self.outbox.put(pb.PlayRequest(commit=pb.CommitMove(
            match_id=key[0], seat=key[1], decision_id=key[2],
            commitment=commitment, signature=signature)))

    def _reveal(self, key: tuple[str, int, int]) -> None:
        entry = self.pending.get(key)
        if entry is None or entry.action is None:
            return  # Unknown (its match ended), or not decided yet.
        if entry.revealed_on == self.stream:
            return  # Sent on this stream already.
        entry.revealed_on = self.stream
        self._touch(key, entry.acked)
        self.outbox.put(pb.PlayRequest(reveal=pb.RevealMove(
            match_id=key[0], seat=key[1], decision_id=key[2],
            salt=entry.salt, action=entry.action)))
