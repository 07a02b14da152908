#!/usr/bin/python3
"""An example bot for the pyramid referee, in plain Python.

It needs only Debian's python3-grpcio and python3-protobuf, plus the stubs
the build generates from proto/ (CMake target pyramid_python_stubs, written
to build/python/). It plays every game: a random one of the legal actions the
referee lists or, where it lists none (a Pyramid Shambo payment with very
many options), the rules page's `canonical` payment. Run it as:

    /usr/bin/python3 tools/python/pyramid_bot.py --referee 127.0.0.1:50051 \
        --token_file tok/seat-0.token --matches 1

The whole protocol is in docs/writing-a-bot.md. In short, for every
DecisionRequest the bot picks an action, sends a CommitMove holding
SHA-256(domain || match id || seat || decision id || salt || action bytes),
and later a RevealMove with the salt and the very same action bytes.

It commits to each decision once (docs/writing-a-bot.md, "What a bot must
never do"): a decision asked again gets the same commitment and reveal, and
one older than its seat's newest decision, or of a match over, is refused,
so that a referee cannot draw a randomised bot's move again.
"""
import argparse
import dataclasses
import hashlib
import os
import queue
import random
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
COMMIT_DOMAIN = b"pyramid-referee/commit/v1\0"  # ASCII plus one zero byte.

# At most this many seats' commitments are kept at once (the salt and
# action of each seat's newest decision). Past it, the least recently used
# is dropped to make room: one whose reveal was acknowledged if any, else
# the oldest whose reveal is owed. A dropped decision asked again is
# refused, never committed to anew.
MAX_OPEN_DECISIONS = 4096

# While the referee is away, a connection is tried again at most this long
# (plus gRPC's jitter of a fifth) after the last one failed.
CONNECT_RETRY_S = 0.25

# How the referee ends the older of two streams of one token
# (docs/protocol.md, "Reconnecting"): another process plays this token.
REPLACED = "replaced by a newer stream"

# What the bot says when the referee ends its stream DATA_LOSS: it broke the
# token's match (cannot go on with it: its log cannot be written;
# docs/protocol.md), and every later stream of the token ends so. Nothing
# else ends a Play stream so. The kits and build/bin/bot say the same.
BROKEN_FAILURE = "the referee broke the match; not reconnecting"

# The clock of the reconnection waits (a test's stands in for it).
monotonic = time.monotonic


@dataclasses.dataclass
class Choice:
    """The newest decision of one seat, until the seat's next decision or
    its match's end closes it (or it is dropped to make room): kept after
    its reveal is acknowledged, since a referee that lost the reveal (a
    power loss, docs/durability.md) asks it again after a restart and must
    get the same commitment."""
    salt: bytes
    action: bytes            # Serialized once: the commitment's very bytes.
    committed_on: int = -1   # Stream number of the last commit sent.
    revealed_on: int = -1    # Stream number of the last reveal sent.
    acked: bool = False      # Its reveal acknowledged (not owed).


def commitment(match_id_hex, seat, decision_id, salt, action_bytes):
    """The commitment (docs/writing-a-bot.md, section 4)."""
    return hashlib.sha256(COMMIT_DOMAIN + bytes.fromhex(match_id_hex) +
                          seat.to_bytes(4, "big") +
                          decision_id.to_bytes(8, "big") +
                          salt + action_bytes).digest()


def is_match_id(match_id_hex):
    """Whether a match id is 16 bytes in hex (32 hex digits, nothing else:
    bytes.fromhex alone would take spaces too)."""
    return len(match_id_hex) == 32 and all(
        c in "0123456789abcdefABCDEF" for c in match_id_hex)


def unlisted_action(req, game_pb2, shambo_pb2):
    """A legal action for a decision whose legal actions are not listed
    (legal_actions_listed false), or None. Only Pyramid Shambo leaves some
    out: a payment with too many options to list, where `canonical` (the
    least option under the rules page's key) is always legal."""
    if (req.game == "pyramid_shambo" and
            req.observation.pyramid_shambo.phase ==
            shambo_pb2.SHAMBO_PHASE_PAYMENT):
        return game_pb2.Action(
            pyramid_shambo=shambo_pb2.PyramidShamboAction(canonical=True))
    return None


class ReconnectWindow:
    """The waits between the bot's tries while its stream is broken, as the
    kits and build/bin/bot make them: backoff from 0.1 s doubling to 5 s,
    each cut to what is left of `reconnect_for` seconds since the outage
    began, so that the last try is made when that time is up and none after
    it. It reads no clock: each call is told the time."""

    def __init__(self, reconnect_for):
        self.reconnect_for = reconnect_for
        self.began = None     # When the outage began (None: none yet).
        self.backoff = 0.1

    def begin(self, now):
        """Starts a fresh outage at `now`: the next wait is 0.1 s."""
        self.began, self.backoff = now, 0.1

    def elapsed(self, now):
        """How long the outage has lasted at `now`, in seconds."""
        return now - self.began

    def wait(self, now):
        """The wait at `now` before the next try: the backoff, cut to what
        is left of reconnect_for; None once nothing is left (give up)."""
        left = self.began + self.reconnect_for - now
        return None if left <= 0 else min(self.backoff, left)

    def waited(self, back):
        """After a wait: the next one is 0.1 s again when the referee came
        back (`back`), else twice as long, up to 5 s."""
        self.backoff = 0.1 if back else min(self.backoff * 2, 5.0)


def await_referee(channel, wait):
    """The wait before the next stream, at most `wait` seconds, as the
    Python kit's: while `channel` is not connected (the referee is away), it
    is made to connect, an attempt at most CONNECT_RETRY_S (plus gRPC's
    jitter) after the last one failed, and the wait ends as soon as it is:
    returns True then (the referee is back), so that the bot is back within
    a few hundred milliseconds of a referee's restart, before the deadlines
    it reopens, else False. A channel connected at the start (the referee is
    up and ended the stream itself) waits `wait` whole, the backoff that
    spares a referee refusing streams."""
    import grpc  # As main() does, once the stubs' path is known.
    deadline = time.monotonic() + wait
    states = queue.Queue()
    # gRPC tells the state at once, then each change.
    channel.subscribe(states.put, try_to_connect=True)
    try:
        first = True
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            try:
                state = states.get(timeout=min(left, CONNECT_RETRY_S))
            except queue.Empty:
                # Asked again: an idle channel connects.
                channel.unsubscribe(states.put)
                channel.subscribe(states.put, try_to_connect=True)
                continue
            if state == grpc.ChannelConnectivity.READY:
                if not first:
                    return True
                time.sleep(max(0.0, deadline - time.monotonic()))
                return False
            first = False
    finally:
        channel.unsubscribe(states.put)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--referee", default="127.0.0.1:50051", help="host:port")
    # The flags are spelt as the kits' and build/bin/bot's (underscores);
    # the older hyphenated spellings still work.
    p.add_argument("--token_file", "--token-file", dest="token_file",
                   help="seat or bot token (default: $PYRAMID_TOKEN)")
    p.add_argument("--matches", type=int, default=0,
                   help="exit after this many matches ended (0: with a "
                   "seat token, when its match ends; with a bot token, run "
                   "until stopped)")
    p.add_argument("--strategy", default="random", choices=["random"])
    p.add_argument("--seed", type=int, help="seed for choosing moves (salts "
                   "and seed contributions always come from os.urandom)")
    p.add_argument("--reconnect_for_s", "--reconnect_for", "--reconnect-for",
                   dest="reconnect_for", type=float, default=300,
                   help="when the stream breaks, reconnect with backoff for "
                   "at most this many seconds (0: exit at once)")
    p.add_argument("--verbose", action="store_true",
                   help="print every message received, to stderr")
    p.add_argument("--stubs", help="directory of the generated stubs "
                   "(default: PYTHONPATH, then build/python in the repo)")
    return p.parse_args()


def main():
    args = parse_args()
    # Find the generated stubs: --stubs first, else PYTHONPATH, else build/.
    if args.stubs:
        sys.path.insert(0, args.stubs)
    else:
        sys.path.append(str(REPO_ROOT / "build" / "python"))
    import grpc
    from google.protobuf import text_format
    from pyramid.referee.v1 import game_pb2, referee_service_pb2 as pb
    from pyramid.referee.v1 import pyramid_shambo_pb2 as shambo_pb2
    from pyramid.referee.v1 import referee_service_pb2_grpc as pb_grpc

    if args.token_file:
        try:
            token = Path(args.token_file).read_text().strip()
        except OSError as err:
            sys.exit(f"pyramid_bot: --token_file: cannot read "
                     f"{args.token_file}: {err.strerror}")
    else:
        token = os.environ.get("PYRAMID_TOKEN", "").strip()
    if not token:
        sys.exit("pyramid_bot: give --token_file or set $PYRAMID_TOKEN")
    rng = random.Random(args.seed)  # Only for choosing among legal actions.

    # Short reconnection backoff: gRPC's grows to 2 minutes, and a bot that
    # waits out a referee restart must be back within a few hundred
    # milliseconds of it, before its deadlines: a failed connection is
    # tried again within CONNECT_RETRY_S (await_referee).
    channel = grpc.insecure_channel(args.referee, options=[
        ("grpc.initial_reconnect_backoff_ms", 100),
        ("grpc.max_reconnect_backoff_ms", int(CONNECT_RETRY_S * 1000))])
    stub = pb_grpc.RefereeStub(channel)

    # (match_id, seat, decision_id) -> Choice, of each seat's newest
    # decision, so that after a reconnection or a referee's restart we
    # commit or reveal again the very same (the referee asks again for
    # whatever did not reach its log). In order of use, least recent first.
    pending = {}
    # (match_id, seat) -> the seat's newest decision, until its match ends:
    # an older one (or this one, if dropped from `pending`) is refused.
    newest = {}
    over = set()    # Match ids whose MatchEnded arrived: refused from then on.
    played = set()  # Match ids we were asked to decide in.
    ended = set()   # ...and those of them whose MatchEnded arrived.
    errors = 0
    stream = 0      # Play streams opened so far.
    outbox = None

    def send(**kind):
        outbox.put(pb.PlayRequest(**kind))

    def touch(key):
        """Makes `key` the most recently used (the last in `pending`)."""
        pending[key] = pending.pop(key)

    def commit(key):
        choice = pending[key]
        choice.committed_on = stream
        choice.acked = False  # Its reveal is owed (again).
        touch(key)
        send(commit=pb.CommitMove(
            match_id=key[0], seat=key[1], decision_id=key[2],
            commitment=commitment(*key, choice.salt, choice.action)))

    def reveal(key):
        choice = pending.get(key)
        if choice is None or choice.revealed_on == stream:
            return  # Unknown (refused, or its match ended), or sent already.
        choice.revealed_on = stream
        touch(key)
        send(reveal=pb.RevealMove(match_id=key[0], seat=key[1],
                                  decision_id=key[2], salt=choice.salt,
                                  action=choice.action))

    def make_room():
        """At MAX_OPEN_DECISIONS, drops the least recently used choice: one
        whose reveal was acknowledged if any, else the oldest whose reveal
        is owed (said). Its decision is refused from then on, as `newest`
        keeps its number."""
        if len(pending) < MAX_OPEN_DECISIONS:
            return
        key = next((k for k, c in pending.items() if c.acked), None)
        if key is None:
            key = next(iter(pending))
            print(f"pyramid_bot: match {key[0]} seat {key[1]} decision "
                  f"{key[2]}: dropping its commitment, whose reveal is owed, "
                  f"to make room ({MAX_OPEN_DECISIONS} decisions open at "
                  "once, the bot's limit); it is refused from now on",
                  file=sys.stderr)
        del pending[key]

    def refusal(req):
        """Why we refuse to open `req`, a decision we have no choice for
        (empty: we may)."""
        if not is_match_id(req.match_id):
            return "its match id is not 16 bytes in hex"
        if req.match_id in over:
            return "its match is over"
        last = newest.get((req.match_id, req.seat))
        if last is not None and req.decision_id == last:
            return ("its commitment was dropped to make room "
                    f"({MAX_OPEN_DECISIONS} decisions open at once, the "
                    "bot's limit), and a commitment is never signed twice")
        if last is not None and req.decision_id < last:
            return (f"the seat committed to decision {last} already, and "
                    "a commitment is never signed twice")
        return ""

    def decide(req):
        key = (req.match_id, req.seat, req.decision_id)
        played.add(req.match_id)
        if req.committed:
            return  # Our commitment is in the log: the reveal comes later.
        if key in pending:
            # Asked again after a reconnection: the same choice again,
            # unless it was already sent on this stream. Never a new one:
            # a referee could otherwise draw our move as often as it likes.
            if pending[key].committed_on != stream:
                commit(key)
            return
        why = refusal(req)
        if why:
            print(f"pyramid_bot: refusing match {req.match_id!r} seat "
                  f"{req.seat} decision {req.decision_id}: {why}",
                  file=sys.stderr)
            return
        if req.decision_id == 0:
            # The seed decision: 32 random bytes towards the match's seed,
            # naming the log header the referee announced (protocol.md).
            action = game_pb2.Action(seed=game_pb2.SeedContribution(
                contribution=os.urandom(32), header_hash=req.header_hash))
        elif req.legal_actions:
            action = rng.choice(req.legal_actions)  # --strategy random
        else:
            action = (None if req.legal_actions_listed else
                      unlisted_action(req, game_pb2, shambo_pb2))
            if action is None:
                print(f"pyramid_bot: {req.game} lists no legal actions; "
                      f"cannot play decision {req.decision_id}",
                      file=sys.stderr)
                return
        # The seat's older decision is over: the referee moved on.
        last = newest.get((req.match_id, req.seat))
        if last is not None:
            pending.pop((req.match_id, req.seat, last), None)
        newest[(req.match_id, req.seat)] = req.decision_id
        make_room()
        # Commit to the exact bytes we will reveal: serialize once, keep them.
        pending[key] = Choice(os.urandom(32), action.SerializeToString())
        commit(key)
        # A single-seat decision opens its reveal phase right after our
        # commit: reveal at once instead of waiting for the RevealRequest.
        if len(req.acting_seats) == 1:
            reveal(key)

    def end(match_id):
        """The match is over: its decisions are refused from now on, and
        whether enough matches have ended is returned."""
        over.add(match_id)
        for key in [k for k in pending if k[0] == match_id]:
            del pending[key]
        for key in [k for k in newest if k[0] == match_id]:
            del newest[key]
        # A bot token's new stream also gets the MatchEnded of every match
        # that bot finished earlier: count only ours.
        if match_id in played:
            ended.add(match_id)
        return bool(args.matches) and len(ended) >= args.matches

    def handle(response):
        """Returns False once enough matches have ended."""
        nonlocal errors
        kind = response.WhichOneof("kind")
        if args.verbose:
            text = text_format.MessageToString(getattr(response, kind),
                                               as_one_line=True)
            print(f"<- {kind}: {text}", file=sys.stderr)
        if kind == "decision":
            decide(response.decision)
        elif kind == "reveal_request":
            r = response.reveal_request
            reveal((r.match_id, r.seat, r.decision_id))
        elif kind == "reveal_ack":
            # The choice is kept: a referee that lost the reveal (a power
            # loss under --fsync=checkpoints, docs/durability.md) opens the
            # decision again after its restart, and gets the same commitment.
            # Owed no more, it is the first to go when room is needed.
            r = response.reveal_ack
            key = (r.match_id, r.seat, r.decision_id)
            if key in pending and pending[key].revealed_on >= 0:
                pending[key].acked = True
                touch(key)
        elif kind == "match_ended":
            m = response.match_ended
            term = game_pb2.Termination.Name(m.outcome.termination)
            if m.seat < len(m.outcome.seats):
                mine = m.outcome.seats[m.seat]
                print(f"match {m.match_id} seat {m.seat}: rank {mine.rank}, "
                      f"score {mine.score}"
                      f"{' (forfeited)' if mine.forfeited else ''} [{term}]",
                      flush=True)
            else:  # Not from a referee that keeps the protocol.
                print(f"pyramid_bot: match {m.match_id} seat {m.seat} ended "
                      f"[{term}], but its outcome has "
                      f"{len(m.outcome.seats)} seat(s): no rank for this "
                      "seat", file=sys.stderr)
            if end(m.match_id):
                return False
        elif kind == "error":
            e = response.error
            errors += 1
            print(f"pyramid_bot: match {e.match_id} seat {e.seat} decision "
                  f"{e.decision_id}: code {e.code}: {e.message}"
                  f"{' (faulted)' if e.faulted else ''}", file=sys.stderr)
            # The match broke (the referee could not write its log) and
            # stopped: no MatchEnded will ever come. It is over.
            if e.code == grpc.StatusCode.DATA_LOSS.value[0] and end(e.match_id):
                return False
        # commit_ack and result need no answer.
        return True

    final = {grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED,
             grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.UNIMPLEMENTED}
    window = ReconnectWindow(args.reconnect_for)
    done = False
    try:
        while not done:
            # gRPC Python sends a stream from an iterator; a queue lets us
            # add messages whenever we like. None closes our side.
            outbox = queue.Queue()
            def outgoing(box=outbox):
                while (message := box.get()) is not None:
                    yield message
            stream += 1
            # One Play stream carries every seat this token holds.
            responses = stub.Play(outgoing(),
                                  metadata=[("authorization", "Bearer " + token)])
            got = False
            try:
                for response in responses:
                    got = True
                    if not handle(response):
                        done = True
                        break
                else:
                    done = True  # The referee closed the stream.
            except grpc.RpcError as err:
                status = f"{err.code().name}: {err.details()}"
                # A newer stream of this token replaced ours: another
                # process plays it. Reconnecting would take it back, forever.
                if (err.code() == grpc.StatusCode.ABORTED and
                        err.details() == REPLACED):
                    print("pyramid_bot: another process connected with this "
                          "token; stopping", file=sys.stderr)
                    return 1
                # The referee broke our match: it never resumes.
                if err.code() == grpc.StatusCode.DATA_LOSS:
                    print(f"pyramid_bot: {BROKEN_FAILURE} (stream ended: "
                          f"{status})", file=sys.stderr)
                    return 1
                if err.code() in final or args.reconnect_for <= 0:
                    print(f"pyramid_bot: stream ended: {status}",
                          file=sys.stderr)
                    return 1
                now = monotonic()
                if got or window.began is None:
                    window.begin(now)  # A fresh outage.
                # Every wait is cut to what is left of --reconnect_for_s,
                # so that the last try is made at its end, not past it.
                wait = window.wait(now)
                if wait is None:
                    print("pyramid_bot: giving up: no referee for "
                          f"{window.elapsed(now):.1f} s ({status})",
                          file=sys.stderr)
                    return 1
                print(f"pyramid_bot: stream ended ({status}); reconnecting "
                      f"in {wait:.1f} s", file=sys.stderr)
                # The referee came back: a stream it ends at once is
                # retried soon.
                window.waited(await_referee(channel, wait))
            finally:
                outbox.put(None)     # Half-close our side...
                responses.cancel()   # ...and drop the call.
    finally:
        channel.close()
    print(f"pyramid_bot: {len(ended)} match(es) ended, {errors} error(s)")
    if args.matches and len(ended) < args.matches:
        return 1  # The referee closed the stream before we were done.
    return 0 if errors == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
