#!/usr/bin/python3
"""Independent, docs-only client of the referee's Play protocol.

Written from the documentation alone, without reading the project's C++,
its client kits or its other tests, to test the promise that a third party
can write a client in any language from the docs:

- docs/protocol.md: "A match in one paragraph", "Decisions" (automatic
  moves, results), "Commit, then reveal", "The seed decision", "Deadlines",
  "What the referee does with each mistake", "Forfeit policies" and "The
  outcome after forfeits", "Reconnecting", "Play stream features"
  (`observation-once`, `batch`), "Who may watch" and "Checking the referee"
  (GetLog).
- docs/writing-a-bot.md, "Without a kit: the protocol" (sections 1 to 8) and
  "Legal actions and building an action, game by game".
- docs/log-format.md ("File structure", "Records", "Commitments", "The
  seed") and docs/test-vectors.md with testdata/vectors/primitives.txt
  (commitment, commit signature, referee commitment, seed).
- proto/pyramid/referee/v1/*.proto: compiled at run time with
  `protoc --include_imports --descriptor_set_out` and loaded into a
  descriptor pool (no generated code); gRPC's generic stream_stream /
  unary_unary / unary_stream calls with the messages' own serializers.
- README.md and `referee --help` (starting a referee on port 0 with a port
  file; DATA_DIR/admin.token and DATA_DIR/referee.key.pub).

It starts a referee on 127.0.0.1 (port 0, a temporary data directory),
creates matches of every game as the admin, connects every seat with its own
Play stream (or a bot's stream carrying several seats of two matches), plays
each to its end with uniformly random legal actions (Python's `random` with a
fixed seed; salts and seed contributions from os.urandom; every seed
contribution names the log header, a copy of the seed request's
header_hash), checks that every documented message arrives when the docs
say, provokes documented mistakes (among them a seed contribution naming
another header) and checks their answers, then downloads every log
(GetLog), verifies it with `replay verify --key` (which must say how many
seats named the header), and compares the log (commitments, reveals,
acknowledged times, the header's hash, seed, decisions, results, outcome)
with what the streams said.

Writing it found four places where the docs were silent or wrong; each
was then documented as the referee behaves, and the check asserts it:
- a DecisionResult carries the view right after its own move, also when
  automatic moves follow (referee_service.proto said the decision's and the
  automatic moves' results all carried the view after the last one);
- a seat that misses its commit deadline is sent a PlayError
  FAILED_PRECONDITION with faulted = true (protocol.md's table had no code);
- CreateMatch with a valid token that is not the admin's is
  PERMISSION_DENIED, and so is a Play stream opened with the admin token
  (the proto said only UNAUTHENTICATED);
- --port_file is written once the referee serves, atomically, as the port
  and a newline (`referee --help` said only that the port is written).

Usage:
    docs_only_play_check.py [--bin BUILD/bin] [--proto_dir proto]
(--bin defaults to $PYRAMID_BIN, else build/bin.) Prints one line per check,
`OK ...` or `FAILED ...: why`, and exits 0 only when every check passed.
Only the standard library, grpcio, protobuf and PyNaCl are used.
"""

import argparse
import hashlib
import os
import queue
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

import grpc
import nacl.signing
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

# ---------------------------------------------------------------------------
# Constants from the docs.

D_C = b"pyramid-referee/commit/v1\x00"       # protocol.md, test-vectors.md
D_S = b"pyramid-referee/commit-sig/v1\x00"
D_RC = b"pyramid-referee/referee-seed/v1\x00"  # log-format.md "The seed"
D_R = b"pyramid-referee/seed/v1\x00"
MAGIC = b"PYRLOG\x00\x01"                        # log-format.md "File structure"

# google.rpc codes (writing-a-bot.md section 7).
INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS = 3, 5, 6
PERMISSION_DENIED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION = 7, 8, 9
CODE_NAMES = {3: "INVALID_ARGUMENT", 5: "NOT_FOUND", 6: "ALREADY_EXISTS",
              7: "PERMISSION_DENIED", 8: "RESOURCE_EXHAUSTED",
              9: "FAILED_PRECONDITION", 15: "DATA_LOSS"}

COMMIT_MS = 20000   # the referee's default clocks in this check
REVEAL_MS = 20000
WAIT_S = float(os.environ.get("DOCS_ONLY_PLAY_WAIT_S", "30"))  # any one wait
SLACK_MS = 15000    # clock slack when judging a deadline (a slow sanitizer build)
PKG = "pyramid.referee.v1."
SERVICE = "/pyramid.referee.v1.Referee/"

# ---------------------------------------------------------------------------
# Messages, from the proto files compiled at run time.

P = {}   # message name -> class
E = {}   # enum value name -> number


def load_protos(proto_dir, tmp):
    out = os.path.join(tmp, "descriptors.pb")
    files = sorted(os.path.join("pyramid/referee/v1", f)
                   for f in os.listdir(os.path.join(proto_dir, "pyramid/referee/v1"))
                   if f.endswith(".proto"))
    protoc = shutil.which("protoc") or "/usr/bin/protoc"
    subprocess.run([protoc, "-I", proto_dir, "--include_imports",
                    "--descriptor_set_out=" + out] + files, check=True)
    fds = descriptor_pb2.FileDescriptorSet()
    with open(out, "rb") as f:
        fds.ParseFromString(f.read())
    pool = descriptor_pool.DescriptorPool()
    for fd in fds.file:
        pool.Add(fd)
    factory = message_factory.MessageFactory(pool)
    for fd in fds.file:
        desc = pool.FindFileByName(fd.name)
        for name, md in desc.message_types_by_name.items():
            P[name] = (message_factory.GetMessageClass(md)
                       if hasattr(message_factory, "GetMessageClass")
                       else factory.GetPrototype(md))
        for name, ed in desc.enum_types_by_name.items():
            for v in ed.values:
                E[v.name] = v.number


# ---------------------------------------------------------------------------
# Reporting.

RESULTS = []


def report(ok, name, why=""):
    RESULTS.append(ok)
    line = ("OK " + name) if ok else ("FAILED %s: %s" % (name, why))
    print(line, flush=True)


class CheckFailed(Exception):
    pass


def expect(cond, why):
    if not cond:
        raise CheckFailed(why)


def now_ms():
    return int(time.time() * 1000)


# ---------------------------------------------------------------------------
# Primitives (protocol.md "Commit, then reveal", test-vectors.md).

def commitment(match_id_hex, seat, decision_id, salt, action_bytes):
    return hashlib.sha256(D_C + bytes.fromhex(match_id_hex) + seat.to_bytes(4, "big")
                          + decision_id.to_bytes(8, "big") + salt
                          + action_bytes).digest()


def sig_message(match_id_hex, seat, decision_id, c):
    return (D_S + bytes.fromhex(match_id_hex) + seat.to_bytes(4, "big")
            + decision_id.to_bytes(8, "big") + c)


def check_vectors(root):
    vec = {}
    with open(os.path.join(root, "testdata/vectors/primitives.txt")) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#") and " = " in line:
                k, v = line.split(" = ", 1)
                vec[k] = v
            elif line.endswith(" ="):
                vec[line[:-2]] = ""
    for p in ("commit", "commit2"):
        c = commitment(vec[p + ".match_id"], int(vec[p + ".seat"]),
                       int(vec[p + ".decision_id"]), bytes.fromhex(vec[p + ".salt"]),
                       bytes.fromhex(vec[p + ".action"]))
        expect(c.hex() == vec[p + ".hash"], "%s.hash differs" % p)
    sk = nacl.signing.SigningKey(bytes.fromhex(vec["commit_sig.key_seed"]))
    expect(sk.verify_key.encode().hex() == vec["commit_sig.public_key"], "commit_sig key")
    msg = sig_message(vec["commit_sig.match_id"], int(vec["commit_sig.seat"]),
                      int(vec["commit_sig.decision_id"]),
                      bytes.fromhex(vec["commit_sig.commitment"]))
    expect(msg.hex() == vec["commit_sig.message"], "commit_sig.message differs")
    expect(sk.sign(msg).signature.hex() == vec["commit_sig.signature"], "commit_sig.signature")
    rc = hashlib.sha256(D_RC + bytes.fromhex(vec["referee_commitment.match_id"])
                        + bytes.fromhex(vec["referee_commitment.contribution"])).digest()
    expect(rc.hex() == vec["referee_commitment.hash"], "referee_commitment.hash differs")
    seed = hashlib.sha256(D_R + bytes.fromhex(vec["seed.match_id"])
                          + bytes.fromhex(vec["seed.referee_contribution"])
                          + b"".join(bytes.fromhex(s) for s in
                                     vec["seed.seat_contributions"].split(","))).digest()
    expect(seed.hex() == vec["seed.seed"], "seed.seed differs")


def seed_of(match_id_hex, referee_contribution, contributions):
    return hashlib.sha256(D_R + bytes.fromhex(match_id_hex) + referee_contribution
                          + b"".join(contributions)).digest()


# ---------------------------------------------------------------------------
# gRPC plumbing (generic calls, our own serializers).

def ser(m):
    return m.SerializeToString()


class Api:
    def __init__(self, target, admin):
        self.channel = grpc.insecure_channel(target)
        self.admin = admin

    def md(self, token):
        return [("authorization", "Bearer " + token)] if token else []

    def unary(self, method, req, resp_cls, token=None, timeout=None):
        call = self.channel.unary_unary(SERVICE + method, request_serializer=ser,
                                        response_deserializer=resp_cls.FromString)
        return call(req, metadata=self.md(token), timeout=timeout or WAIT_S)

    def create_match(self, game, seats, options=None, clocks=None, policy=0,
                     label="", token="admin"):
        req = P["CreateMatchRequest"]()
        req.game.game = game
        if options is not None:
            getattr(req.game, game).CopyFrom(options)
        for s in seats:
            spec = req.seats.add()
            spec.name = s.get("name", "")
            spec.bot_id = s.get("bot_id", "")
            spec.public_key = s.get("public_key", b"")
        if clocks:
            for k, v in clocks.items():
                setattr(req.clocks, k, v)
        req.forfeit_policy = policy
        req.label = label
        tok = self.admin if token == "admin" else token
        return self.unary("CreateMatch", req, P["CreateMatchResponse"], tok)

    def register_bot(self, name, public_key=b""):
        return self.unary("RegisterBot", P["RegisterBotRequest"](name=name, public_key=public_key),
                          P["RegisterBotResponse"], self.admin)

    def get_match(self, match_id):
        return self.unary("GetMatch", P["GetMatchRequest"](match_id=match_id), P["MatchInfo"])

    def get_log(self, match_id, token=None):
        call = self.channel.unary_stream(SERVICE + "GetLog", request_serializer=ser,
                                         response_deserializer=P["LogChunk"].FromString)
        return b"".join(c.data for c in call(P["GetLogRequest"](match_id=match_id),
                                              metadata=self.md(token), timeout=WAIT_S))


class Stream:
    """One Play stream: a writer fed from a queue, a reader thread that
    flattens batches into `inbox`, and the stream's end in `inbox` too."""

    def __init__(self, api, token, features=None, name="stream"):
        self.name = name
        self.out = queue.Queue()
        self.inbox = queue.Queue()
        self.batches = 0        # PlayResponse.batch messages received
        self.batch_problems = []
        self.ended = None       # (code, details) once the call ended
        md = api.md(token)
        if features is not None:
            md.append(("pyramid-play-features", features))
        play = api.channel.stream_stream(SERVICE + "Play", request_serializer=ser,
                                         response_deserializer=P["PlayResponse"].FromString)
        self.call = play(self._requests(), metadata=md)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _requests(self):
        while True:
            m = self.out.get()
            if m is None:
                return
            yield m

    def _read(self):
        try:
            for resp in self.call:
                if resp.WhichOneof("kind") == "batch":
                    self.batches += 1
                    if not resp.batch.responses:
                        self.batch_problems.append("an empty batch")
                    if len(resp.batch.responses) > 256:
                        self.batch_problems.append("a batch of %d messages"
                                                   % len(resp.batch.responses))
                    for r in resp.batch.responses:
                        if r.WhichOneof("kind") == "batch":
                            self.batch_problems.append("a nested batch")
                        self.inbox.put(("msg", r))
                else:
                    self.inbox.put(("msg", resp))
            self.ended = (grpc.StatusCode.OK, "")
        except grpc.RpcError as e:
            self.ended = (e.code(), e.details() or "")
        except Exception as e:  # a deserialization problem, say
            self.ended = (None, repr(e))
        self.inbox.put(("end", self.ended))

    def send(self, req):
        self.out.put(req)

    def recv(self, timeout=None):
        try:
            return self.inbox.get(timeout=timeout or WAIT_S)
        except queue.Empty:
            raise CheckFailed("%s: nothing arrived within %.0f s" % (self.name, timeout or WAIT_S))

    def next_msg(self, what="a message", timeout=None):
        kind, m = self.recv(timeout)
        if kind == "end":
            raise CheckFailed("%s ended (%s %s) while waiting for %s" %
                              (self.name, m[0], m[1], what))
        return m

    def expect_kind(self, kind, what=None):
        m = self.next_msg(what or kind)
        k = m.WhichOneof("kind")
        if k != kind:
            raise CheckFailed("%s: expected %s, got %s %s" %
                              (self.name, what or kind, k, short(m)))
        return getattr(m, kind)

    def wait_end(self, timeout=None):
        deadline = time.time() + (timeout or WAIT_S)
        extra = []
        while True:
            kind, m = self.recv(max(0.1, deadline - time.time()))
            if kind == "end":
                return m, extra
            extra.append(m)

    def close(self):
        self.out.put(None)

    def cancel(self):
        self.out.put(None)
        self.call.cancel()


def short(m):
    s = str(m).replace("\n", " ")
    return s if len(s) < 300 else s[:300] + "..."


def commit_req(mid, seat, d, c, sig=b""):
    return P["PlayRequest"](commit=P["CommitMove"](match_id=mid, seat=seat, decision_id=d,
                                                   commitment=c, signature=sig))


def reveal_req(mid, seat, d, salt, action):
    return P["PlayRequest"](reveal=P["RevealMove"](match_id=mid, seat=seat, decision_id=d,
                                                   salt=salt, action=action))


def seed_action(header_hash):
    """protocol.md, "The seed decision": 32 random bytes, and a copy of the
    request's header_hash (the SHA-256 of the log's header record)."""
    a = P["Action"]()
    a.seed.contribution = os.urandom(32)
    a.seed.header_hash = header_hash
    return a


def other_header(header_hash):
    """A header hash that is not the request's (one bit flipped)."""
    return bytes([header_hash[0] ^ 1]) + header_hash[1:]


# ---------------------------------------------------------------------------
# The random player: one Stream, any number of (match, seat)s.

class SeatState:
    def __init__(self, match, seat):
        self.match = match
        self.seat = seat
        self.requests = []        # (decision_id, acting_seats, simultaneous)
        self.pending = {}         # decision_id -> dict
        self.results = []         # DecisionResult.decision_id, in order
        self.result_obs = []      # and its observation's bytes
        self.last_result_obs = None
        self.result_since_request = False
        self.outcome = None
        self.reveal_requests = {}  # decision_id -> count
        self.faulted = {}          # decision_id -> PlayError
        self.obs_once_used = 0
        self.header_hash = None    # The seed decision's DecisionRequest.header_hash


class Match:
    def __init__(self, name, game, num_seats, options=None, clocks=None, policy=0,
                 keys=None):
        self.name = name
        self.game = game
        self.num_seats = num_seats
        self.options = options
        self.clocks = clocks or {}
        self.policy = policy
        self.keys = keys or {}   # seat -> SigningKey
        self.id = None
        self.tokens = None
        self.seats = {}          # seat -> SeatState
        self.misbehave = {}      # (seat, decision_id) -> kind


class Player:
    def __init__(self, api, token, features, name, rng_seed, batch_sends=False):
        self.api = api
        self.token = token
        self.features = features
        self.name = name
        self.rng = random.Random(rng_seed)
        self.batch_sends = batch_sends
        self.obs_once = features is not None and "observation-once" in features
        self.seats = {}          # (match_id, seat) -> (Match, SeatState)
        self.errors = []
        self.done = threading.Event()
        self.stream = None
        self.thread = None
        self.expected = 0        # (match, seat)s that must end
        self.all_added = threading.Event()
        self.all_added.set()
        self.lock = threading.Lock()

    def add(self, match, seat):
        st = SeatState(match, seat)
        match.seats[seat] = st
        with self.lock:
            self.seats[(match.id, seat)] = (match, st)
            self.expected += 1

    def start(self):
        if self.stream:
            return
        self.stream = Stream(self.api, self.token, self.features, self.name)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def err(self, why):
        if len(self.errors) < 20:
            self.errors.append("%s: %s" % (self.name, why))

    def _run(self):
        try:
            ended = 0
            deadline = time.time() + 6 * WAIT_S
            while not self.all_added.is_set() or ended < self.expected:
                if time.time() > deadline:
                    self.err("the matches did not end in time")
                    break
                try:
                    kind, m = self.stream.inbox.get(timeout=0.5)
                except queue.Empty:
                    continue
                if kind == "end":
                    self.err("stream ended early: %s %s" % m)
                    break
                ended += self.handle(m)
            self.stream.close()
        except CheckFailed as e:
            self.err(str(e))
        except Exception:
            self.err(traceback.format_exc())
        finally:
            self.done.set()

    def lookup(self, m, what):
        key = (m.match_id, m.seat)
        # A bot's stream opened before its matches were created: a request
        # may come before CreateMatch has answered us.
        deadline = time.time() + WAIT_S
        while key not in self.seats and not self.all_added.is_set() and time.time() < deadline:
            time.sleep(0.005)
        if key not in self.seats:
            self.err("%s for a seat this stream does not play: %s" % (what, short(m)))
            return None, None
        return self.seats[key]

    def send(self, reqs):
        if self.batch_sends and len(reqs) > 1:
            b = P["PlayRequest"]()
            for r in reqs:
                b.batch.requests.add().CopyFrom(r)
            self.stream.send(b)
        else:
            for r in reqs:
                self.stream.send(r)

    def handle(self, resp):
        k = resp.WhichOneof("kind")
        m = getattr(resp, k)
        if k == "decision":
            self.on_decision(m)
        elif k == "reveal_request":
            self.on_reveal_request(m)
        elif k == "commit_ack":
            match, st = self.lookup(m, "CommitAck")
            if st:
                p = st.pending.get(m.decision_id)
                if p is None or not p["commit_sent"]:
                    self.err("CommitAck for decision %d never committed" % m.decision_id)
                elif p["commit_ack"] is not None:
                    self.err("a second CommitAck for decision %d" % m.decision_id)
                else:
                    p["commit_ack"] = m.received_unix_ms
                    if not (now_ms() - SLACK_MS <= m.received_unix_ms <= now_ms() + 1000):
                        self.err("CommitAck.received_unix_ms %d is not now" % m.received_unix_ms)
        elif k == "reveal_ack":
            match, st = self.lookup(m, "RevealAck")
            if st:
                p = st.pending.get(m.decision_id)
                if p is None or not p["reveal_sent"]:
                    self.err("RevealAck for decision %d never revealed" % m.decision_id)
                elif p["reveal_ack"]:
                    self.err("a second RevealAck for decision %d" % m.decision_id)
                elif p.get("bad"):
                    self.err("RevealAck for the bad reveal of decision %d" % m.decision_id)
                else:
                    p["reveal_ack"] = True
        elif k == "result":
            match, st = self.lookup(m, "DecisionResult")
            if st:
                if st.outcome is not None:
                    self.err("DecisionResult after MatchEnded")
                obs = m.observation
                if obs.WhichOneof("game") != match.game or obs.public_view or obs.seat != m.seat:
                    self.err("DecisionResult's observation is not the seat's view of %s: %s"
                             % (match.game, short(obs)))
                if m.decision_id:
                    p = st.pending.get(m.decision_id)
                    if p and p["reveal_sent"] and not p["reveal_ack"] and not p.get("bad"):
                        self.err("DecisionResult %d before the RevealAck of the seat's reveal"
                                 % m.decision_id)
                st.results.append(m.decision_id)
                st.last_result_obs = obs.SerializeToString(deterministic=True)
                st.result_obs.append(st.last_result_obs)
                st.result_since_request = True
        elif k == "match_ended":
            match, st = self.lookup(m, "MatchEnded")
            if st:
                if st.outcome is not None:
                    self.err("a second MatchEnded")
                    return 0
                st.outcome = m.outcome
                for d, p in st.pending.items():
                    if p["commit_sent"] and p["commit_ack"] is None and d not in st.faulted:
                        self.err("MatchEnded while the commit of decision %d is unacknowledged" % d)
                    if p["reveal_sent"] and not p["reveal_ack"] and not p.get("bad"):
                        self.err("MatchEnded while the reveal of decision %d is unacknowledged" % d)
                return 1
        elif k == "error":
            match, st = self.lookup(m, "PlayError")
            if st:
                p = st.pending.get(m.decision_id)
                if p and p.get("bad") and p["reveal_sent"]:
                    st.faulted[m.decision_id] = m
                else:
                    self.err("unexpected PlayError %s" % short(m))
        else:
            self.err("unknown PlayResponse %s" % short(resp))
        return 0

    def on_decision(self, m):
        match, st = self.lookup(m, "DecisionRequest")
        if not st:
            return
        d = m.decision_id
        if st.outcome is not None:
            self.err("DecisionRequest after MatchEnded")
        if m.game != match.game or m.num_seats != match.num_seats:
            self.err("DecisionRequest names game %r with %d seats" % (m.game, m.num_seats))
        if st.requests and d <= st.requests[-1][0]:
            self.err("decision %d asked after decision %d" % (d, st.requests[-1][0]))
        if not st.requests and d != 0:
            self.err("first request is decision %d, not the seed decision" % d)
        acting = list(m.acting_seats)
        st.requests.append((d, acting, m.simultaneous))
        if m.seat not in acting or acting != sorted(set(acting)):
            self.err("acting_seats %s (seat %d)" % (acting, m.seat))
        if m.committed:
            self.err("committed = true on a first stream")
        if m.commit_deadline_unix_ms:
            lim = match.clocks.get("seed_timeout_ms" if d == 0 else "commit_timeout_ms") or COMMIT_MS
            if not (now_ms() - SLACK_MS <= m.commit_deadline_unix_ms <= now_ms() + lim + 1000):
                self.err("commit_deadline_unix_ms %d is not within %d ms of now (%d)"
                         % (m.commit_deadline_unix_ms, lim, now_ms()))
        else:
            self.err("no commit deadline in a match with a commit timeout")
        listed = [a.SerializeToString(deterministic=True) for a in m.legal_actions]
        if d == 0:
            if (acting != list(range(match.num_seats)) or not m.simultaneous
                    or m.legal_actions_listed or listed or m.HasField("observation")
                    or m.observation_in_result or len(m.header_hash) != 32):
                self.err("seed decision request is not as documented: %s" % short(m))
            st.header_hash = m.header_hash
            named = m.header_hash
            if match.misbehave.get((m.seat, d)) == "other_header":
                named = other_header(named)   # Committed honestly; illegal.
            action = seed_action(named)
        else:
            if m.header_hash:
                self.err("decision %d: header_hash set outside the seed decision" % d)
            if m.observation_in_result:
                if not self.obs_once:
                    self.err("observation_in_result on a stream without observation-once")
                if not st.result_since_request or m.HasField("observation"):
                    self.err("observation_in_result without a result just before, "
                             "or with an observation")
                st.obs_once_used += 1
                obs_bytes = st.last_result_obs
            else:
                obs = m.observation
                obs_bytes = obs.SerializeToString(deterministic=True)
                if obs.WhichOneof("game") != match.game or obs.public_view or obs.seat != m.seat:
                    self.err("request's observation is not the seat's view: %s" % short(obs))
                if st.result_since_request:
                    if self.obs_once:
                        self.err("decision %d: observation repeated on an observation-once "
                                 "stream right after a result" % d)
                    elif obs_bytes != st.last_result_obs:
                        self.err("decision %d: the request's observation differs from the "
                                 "result's just before" % d)
            if len(acting) == 1 and len(listed) == 1:
                self.err("decision %d: a single seat with a single legal action was asked "
                         "(protocol.md: automatic moves)" % d)
            if m.legal_actions_listed:
                if not listed:
                    self.err("decision %d: legal actions listed but empty" % d)
                if listed != sorted(listed) or len(set(listed)) != len(listed):
                    self.err("decision %d: legal actions not sorted by their bytes" % d)
                action = m.legal_actions[self.rng.randrange(len(listed))]
            elif match.game == "pyramid_shambo":
                action = P["Action"]()
                action.pyramid_shambo.canonical = True
            else:
                self.err("decision %d: legal actions not listed in %s" % (d, match.game))
                return
            st.first_legal = m.legal_actions[0] if listed else None
        st.result_since_request = False
        abytes = action.SerializeToString()
        salt = os.urandom(32)
        c = commitment(m.match_id, m.seat, d, salt, abytes)
        reveal_bytes, reveal_salt = abytes, salt
        bad = match.misbehave.get((m.seat, d))
        if bad == "unknown_field":
            # Commit to it honestly: the action itself is what is wrong.
            abytes = abytes + b"\xa0\x06\x01"   # field 100, varint 1
            c = commitment(m.match_id, m.seat, d, salt, abytes)
            reveal_bytes = abytes
        elif bad == "mismatch":
            reveal_salt = os.urandom(32)
        sig = b""
        if m.seat in match.keys:
            sig = match.keys[m.seat].sign(sig_message(m.match_id, m.seat, d, c)).signature
        st.pending[d] = {"salt": reveal_salt, "action": reveal_bytes, "commitment": c,
                         "signature": sig, "commit_sent": True, "commit_ack": None,
                         "reveal_sent": False, "reveal_ack": False, "bad": bad,
                         "single": len(acting) == 1,
                         "contribution": action.seed.contribution if d == 0 else None,
                         "first_legal": getattr(st, "first_legal", None) if d else None}
        reqs = [commit_req(m.match_id, m.seat, d, c, sig)]
        if len(acting) == 1:
            # protocol.md: a single-seat decision's reveal may follow the commit.
            reqs.append(reveal_req(m.match_id, m.seat, d, reveal_salt, reveal_bytes))
            st.pending[d]["reveal_sent"] = True
        self.send(reqs)

    def on_reveal_request(self, m):
        match, st = self.lookup(m, "RevealRequest")
        if not st:
            return
        d = m.decision_id
        st.reveal_requests[d] = st.reveal_requests.get(d, 0) + 1
        p = st.pending.get(d)
        if p is None:
            self.err("RevealRequest for decision %d never committed" % d)
            return
        if st.reveal_requests[d] > 1:
            self.err("a second RevealRequest for decision %d" % d)
        if m.reveal_deadline_unix_ms:
            lim = match.clocks.get("reveal_timeout_ms") or REVEAL_MS
            if not (now_ms() - SLACK_MS <= m.reveal_deadline_unix_ms <= now_ms() + lim + 1000):
                self.err("reveal_deadline_unix_ms %d is not within %d ms of now"
                         % (m.reveal_deadline_unix_ms, lim))
        else:
            self.err("no reveal deadline in a match with a reveal timeout")
        if not p["reveal_sent"]:
            p["reveal_sent"] = True
            self.send([reveal_req(m.match_id, m.seat, d, p["salt"], p["action"])])


# ---------------------------------------------------------------------------
# The log (log-format.md "File structure", "Records").

class Records(list):
    """The log's records, parsed; `stored` holds each one's stored bytes."""
    stored = None


def parse_log(data):
    expect(data[:8] == MAGIC, "the log does not start with the magic")
    pos, recs = 8, Records()
    recs.stored = []
    while pos < len(data):
        n, shift = 0, 0
        while True:
            b = data[pos]
            pos += 1
            n |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        body = data[pos:pos + n]
        expect(len(body) == n, "a record is cut off")
        pos += n
        recs.stored.append(body)
        recs.append(P["LogRecord"].FromString(body))
    return recs


def verify_log(bin_dir, pub_file, path):
    r = subprocess.run([os.path.join(bin_dir, "replay"), "verify", "--key=" + pub_file, path],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    out = r.stdout.decode(errors="replace").strip()
    expect(r.returncode == 0 and "genuine" in out,
           "replay verify exit %d: %s" % (r.returncode, out[-300:]))
    return out


def expect_named(out, recs, named):
    """log-format.md, "What a log proves": replay verify prints "N of M
    seats named this header" (N: the seats in `named`, whose seed
    contribution named it) and, unless every seat has a key, how many of
    the seats with keys did (only those vouch for it)."""
    seats = len(recs[0].header.seats)
    keyed = {i for i, s in enumerate(recs[0].header.seats) if s.public_key}
    want = "; %d of %d seats named this header" % (len(named), seats)
    if not keyed:
        want += ", none with a key to vouch; "
    elif len(keyed) == seats:
        want += "; "
    else:
        want += ", %d of the %d with %s (only those vouch); " % (
            len(keyed & set(named)), len(keyed), "a key" if len(keyed) == 1 else "keys")
    expect(want in out, "replay verify does not say %r: %s" % (want.strip("; "), out[-300:]))


def check_log_against_streams(match, recs, referee_pub):
    """What the log says equals what the streams said and what we sent."""
    mid = match.id
    h = recs[0].header
    expect(recs[0].WhichOneof("kind") == "header", "record 0 is not the header")
    expect(h.match_id.hex() == mid, "header match_id %s" % h.match_id.hex())
    expect(h.game.game == match.game and len(h.seats) == match.num_seats, "header game/seats")
    expect(h.referee_public_key == referee_pub, "header referee key is not referee.key.pub")
    for s, key in match.keys.items():
        expect(h.seats[s].public_key == key.verify_key.encode(), "seat %d key not in header" % s)
    want_policy = match.policy or E["FORFEIT_POLICY_FORFEIT"]
    expect(h.forfeit_policy == want_policy, "header forfeit_policy %d" % h.forfeit_policy)
    for k, v in (match.clocks or {"commit_timeout_ms": COMMIT_MS,
                                  "reveal_timeout_ms": REVEAL_MS}).items():
        expect(getattr(h.clocks, k) == v, "header clocks.%s = %d, not %d"
               % (k, getattr(h.clocks, k), v))
    # referee_service.proto: the seed request's header_hash is the SHA-256
    # of the stored bytes of record 0.
    header_hash = hashlib.sha256(recs.stored[0]).digest()
    for s, st in match.seats.items():
        expect(st.header_hash == header_hash, "seat %d was told header_hash %s, record 0 "
               "hashes to %s" % (s, (st.header_hash or b"").hex(), header_hash.hex()))
    opened, commits, reveals, faults, applied = [], {}, {}, [], []
    seed_reveal = outcome = None
    for r in recs[1:]:
        k = r.WhichOneof("kind")
        x = getattr(r, k)
        if k == "decision_opened":
            opened.append(x)
        elif k == "commit":
            commits[(x.decision_id, x.seat)] = x
        elif k == "reveal":
            reveals[(x.decision_id, x.seat)] = x
        elif k == "fault":
            faults.append(x)
        elif k == "seed_reveal":
            seed_reveal = x
        elif k == "applied":
            applied.append(x)
        elif k == "outcome":
            outcome = x
    expect([o.decision_id for o in opened] == list(range(len(opened))),
           "decision ids in the log are not 0, 1, 2, ...")
    expect(outcome is not None, "no outcome in the log")
    # Every seat: its requests are exactly the log's decisions it acts in.
    for s, st in match.seats.items():
        want = [(o.decision_id, list(o.seats), o.simultaneous) for o in opened if s in o.seats]
        expect(st.requests == want, "seat %d was asked %s, the log opened %s"
               % (s, [r[0] for r in st.requests], [w[0] for w in want]))
        for d, p in st.pending.items():
            c = commits.get((d, s))
            expect(c is not None, "seat %d's commit of decision %d is not in the log" % (s, d))
            expect(c.commitment == p["commitment"] and c.signature == p["signature"],
                   "seat %d decision %d: the logged commit is not ours" % (s, d))
            if p["commit_ack"] is not None:
                expect(c.received_unix_ms == p["commit_ack"],
                       "seat %d decision %d: CommitAck.received_unix_ms %d, log %d"
                       % (s, d, p["commit_ack"], c.received_unix_ms))
            rv = reveals.get((d, s))
            if p["reveal_sent"] and (p["reveal_ack"] or p.get("bad")):
                expect(rv is not None and rv.salt == p["salt"] and rv.action == p["action"],
                       "seat %d decision %d: the logged reveal is not ours" % (s, d))
        # One DecisionResult per seed close and per Applied record.
        want_results = [0] + [a.decision_id if a.HasField("decision_id") else 0
                              for a in applied]
        if outcome.termination == E["TERMINATION_FORFEIT"] and seed_reveal is None:
            want_results = []
        expect(st.results == want_results, "seat %d got results %s, the log applied %s"
               % (s, st.results, want_results))
        # Every decision the seat committed to gets one RevealRequest (also a
        # single-seat one, after its commit), unless the match ended there.
        for d, p in st.pending.items():
            if not (outcome.termination == E["TERMINATION_FORFEIT"] and d == opened[-1].decision_id):
                expect(st.reveal_requests.get(d, 0) == 1, "seat %d: %d RevealRequests for "
                       "decision %d" % (s, st.reveal_requests.get(d, 0), d))
        expect(st.outcome is not None and st.outcome.SerializeToString(deterministic=True)
               == outcome.SerializeToString(deterministic=True),
               "seat %d's MatchEnded outcome differs from the log's" % s)
    if seed_reveal is not None:
        # protocol.md: under the default-action policy a seat faulted in the
        # seed decision contributes 32 zero bytes.
        faulted0 = {f.seat for f in faults if f.decision_id == 0}
        contribs = [bytes(32) if s in faulted0 else
                    match.seats[s].pending[0]["contribution"] if s in match.seats else None
                    for s in range(match.num_seats)]
        expect(all(c is not None for c in contribs), "a seed contribution is unknown")
        rc = hashlib.sha256(D_RC + bytes.fromhex(mid) + seed_reveal.referee_contribution).digest()
        expect(rc == h.referee_commitment, "referee_commitment does not open")
        expect(seed_reveal.seed == seed_of(mid, seed_reveal.referee_contribution, contribs),
               "the seed is not SHA-256(D_r || match_id || referee || seats)")
    return {"opened": opened, "faults": faults, "applied": applied, "outcome": outcome,
            "seed_reveal": seed_reveal, "commits": commits, "reveals": reveals}


# ---------------------------------------------------------------------------
# The referee.

class Referee:
    def __init__(self, bin_dir, tmp):
        self.data = os.path.join(tmp, "data")
        port_file = os.path.join(tmp, "port")
        self.log = open(os.path.join(tmp, "referee.err"), "wb")
        self.proc = subprocess.Popen(
            [os.path.join(bin_dir, "referee"), "--listen=127.0.0.1:0",
             "--port_file=" + port_file, "--data_dir=" + self.data,
             "--commit_timeout_ms=%d" % COMMIT_MS, "--reveal_timeout_ms=%d" % REVEAL_MS],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.time() + 60
        port = ""
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise CheckFailed("the referee exited %d" % self.proc.returncode)
            try:
                with open(port_file) as f:
                    port = f.read()
            except OSError:
                port = ""
            if port.endswith("\n") and port.strip().isdigit() and int(port) > 0:
                break
            time.sleep(0.02)
        expect(port.strip().isdigit(), "no port file")
        self.target = "127.0.0.1:" + port.strip()
        with open(os.path.join(self.data, "admin.token")) as f:
            self.admin = f.read().strip()
        self.pub_file = os.path.join(self.data, "referee.key.pub")
        with open(self.pub_file) as f:
            self.pub = bytes.fromhex(f.read().strip())

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


# ---------------------------------------------------------------------------
# The checks.

def rpc_code(fn):
    try:
        fn()
    except grpc.RpcError as e:
        return e.code(), e.details()
    return grpc.StatusCode.OK, ""


def expect_error(stream, code, faulted, what, mid=None, seat=None, d=None):
    m = stream.next_msg("PlayError for " + what)
    expect(m.WhichOneof("kind") == "error",
           "%s: expected a PlayError, got %s" % (what, short(m)))
    e = m.error
    expect(e.code == code and e.faulted == faulted,
           "%s: PlayError code %s faulted %s (%r), documented %s faulted %s"
           % (what, CODE_NAMES.get(e.code, e.code), e.faulted, e.message,
              CODE_NAMES[code], faulted))
    if mid is not None:
        expect(e.match_id == mid and e.seat == seat and e.decision_id == d,
               "%s: PlayError names %s/%d/%d" % (what, e.match_id, e.seat, e.decision_id))
    return e


def play_matches(api, players, matches, timeout):
    for p in players:
        p.start()
    deadline = time.time() + timeout
    for p in players:
        p.done.wait(max(0.1, deadline - time.time()))
    errors = []
    for p in players:
        if not p.done.is_set():
            errors.append("%s did not finish" % p.name)
            p.stream.cancel()
        errors.extend(p.errors)
        errors.extend(p.stream.batch_problems)
    return errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--bin", default=os.environ.get("PYRAMID_BIN",
                                                    os.path.join(root, "build/bin")))
    ap.add_argument("--proto_dir", default=os.path.join(root, "proto"))
    args = ap.parse_args()
    start = time.time()
    tmp = tempfile.mkdtemp(prefix="docs-only-play-")
    referee = None
    streams = []
    try:
        load_protos(args.proto_dir, tmp)
        check_vectors(root)
        report(True, "test vectors: commitment, commit signature, referee commitment, seed")
        referee = Referee(args.bin, tmp)
        report(True, "referee started on %s (port file, admin.token, referee.key.pub)"
               % referee.target)
        api = Api(referee.target, referee.admin)
        run_checks(api, referee, args.bin, tmp, streams)
    except CheckFailed as e:
        report(False, "setup", str(e))
    except Exception:
        report(False, "setup", traceback.format_exc())
    finally:
        for s in streams:
            try:
                s.cancel()
            except Exception:
                pass
        if referee:
            referee.stop()
        if all(RESULTS) and RESULTS:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("(files kept in %s)" % tmp)
    print("%d checks, %d failed, %.1f s" % (len(RESULTS), RESULTS.count(False),
                                           time.time() - start))
    return 0 if RESULTS and all(RESULTS) else 1


def run_check(name, fn, *a):
    try:
        extra = fn(*a)
        report(True, name + (" (%s)" % extra if extra else ""))
    except CheckFailed as e:
        report(False, name, str(e))
    except grpc.RpcError as e:
        report(False, name, "call failed %s %s" % (e.code(), e.details()))
    except Exception:
        report(False, name, traceback.format_exc())


def run_checks(api, referee, bin_dir, tmp, streams):
    # --- Authentication and CreateMatch refusals (referee_service.proto). ---
    def create_refusals():
        code, det = rpc_code(lambda: api.create_match("rock_paper_pyramid", [{}] * 3, token=None))
        expect(code == grpc.StatusCode.UNAUTHENTICATED,
               "CreateMatch without a token: %s %s" % (code, det))
        code, det = rpc_code(lambda: api.create_match("rock_paper_pyramid", [{}] * 3,
                                                      token="not-a-token"))
        expect(code == grpc.StatusCode.UNAUTHENTICATED,
               "CreateMatch with an unknown token: %s %s" % (code, det))
        code, det = rpc_code(lambda: api.create_match("rock_paper_pyramid", [{}] * 2))
        expect(code == grpc.StatusCode.INVALID_ARGUMENT,
               "rock_paper_pyramid with 2 seats: %s %s" % (code, det))
        code, det = rpc_code(lambda: api.create_match("no_such_game", [{}] * 2))
        expect(code == grpc.StatusCode.NOT_FOUND, "an unknown game: %s %s" % (code, det))
        code, det = rpc_code(lambda: api.create_match(
            "rock_paper_pyramid", [{}] * 3, clocks={"commit_timeout_ms": 10}))
        expect(code == grpc.StatusCode.INVALID_ARGUMENT and "clocks.commit_timeout_ms" in det,
               "commit_timeout_ms 10: %s %s" % (code, det))
    run_check("CreateMatch refusals: no token, unknown token UNAUTHENTICATED; bad seat "
              "count, bad clock INVALID_ARGUMENT; unknown game NOT_FOUND", create_refusals)

    # --- The matches played to their end by random players. ---
    rpp = Match("rock_paper_pyramid (3 seats, default-action policy, batch streams)",
                "rock_paper_pyramid", 3, policy=E["FORFEIT_POLICY_DEFAULT_ACTION"])
    sh2 = Match("pyramid_shambo (2 seats)", "pyramid_shambo", 2,
                options=P["PyramidShamboOptions"](max_throws=8),
                clocks={"commit_timeout_ms": 15000, "reveal_timeout_ms": 15000})
    fp = Match("flaming_pyramids (2 seats, observation-once, batched sends, signed seats)",
               "flaming_pyramids", 2, options=P["FlamingPyramidsOptions"](max_turns=10),
               keys={0: nacl.signing.SigningKey.generate(),
                     1: nacl.signing.SigningKey.generate()})
    bot_key = nacl.signing.SigningKey.generate()
    sh3 = Match("pyramid_shambo (3 seats; a bot plays seats 0 and 1)", "pyramid_shambo", 3,
                options=P["PyramidShamboOptions"](max_throws=8),
                keys={0: bot_key, 1: bot_key, 2: nacl.signing.SigningKey.generate()})
    ps = Match("pyramid_scheme (2 seats; the bot plays seat 1)", "pyramid_scheme", 2,
               options=P["PyramidSchemeOptions"](max_turns=8), keys={1: bot_key})
    played = [rpp, sh2, fp, sh3, ps]
    players = []

    def setup_matches():
        bot = api.register_bot("docs-only-bot", bot_key.verify_key.encode())
        expect(bot.bot_id and bot.bot_token, "RegisterBot answered no id or token")
        # The bot's stream opens before its matches exist: it must be sent
        # every later request (referee_service.proto, Play).
        botp = Player(api, bot.bot_token, "batch,observation-once", "bot stream", 7)
        botp.all_added.clear()
        botp.start()
        for m in played:
            seats = []
            for s in range(m.num_seats):
                if (m is sh3 and s in (0, 1)) or (m is ps and s == 1):
                    seats.append({"bot_id": bot.bot_id})
                else:
                    spec = {"name": "docs-only %d" % s}
                    if s in m.keys:
                        spec["public_key"] = m.keys[s].verify_key.encode()
                    seats.append(spec)
            r = api.create_match(m.game, seats, options=m.options, clocks=m.clocks,
                                 policy=m.policy,
                                 # One match per label (protocol.md).
                                 label="docs-only-play " + m.name)
            expect(len(r.match_id) == 32 and int(r.match_id, 16) >= 0,
                   "match id %r is not 32 hex digits" % r.match_id)
            expect(len(r.seat_tokens) == m.num_seats, "seat_tokens has %d entries"
                   % len(r.seat_tokens))
            m.id, m.tokens = r.match_id, list(r.seat_tokens)
            for s, spec in enumerate(seats):
                expect(bool(m.tokens[s]) == (not spec.get("bot_id")),
                       "seat %d's token: a bot seat must get none, another one" % s)
        rpp.misbehave[(0, 0)] = "other_header"
        rpp.misbehave[(1, 2)] = "unknown_field"
        rpp.misbehave[(2, 4)] = "mismatch"
        for m in played:
            for s in range(m.num_seats):
                if m.tokens[s]:
                    feats = None
                    if m is rpp:
                        feats = "batch"
                    elif m is fp:
                        feats = "observation-once"
                    elif m is ps:
                        feats = "no-such-feature"
                    p = Player(api, m.tokens[s], feats, "%s seat %d" % (m.game, s),
                               1000 * len(players) + s, batch_sends=(m is fp))
                    p.add(m, s)
                    players.append(p)
        for m in (sh3, ps):
            for s in range(m.num_seats):
                if not m.tokens[s]:
                    botp.add(m, s)
        botp.all_added.set()
        players.append(botp)
        return "bot %s" % bot.bot_id
    run_check("RegisterBot with a key, CreateMatch of the four games (seat tokens; "
              "bot seats get none)", setup_matches)
    if len(players) < 2:
        return

    # The bot's stream is open already (it was sent its seats' requests as
    # the matches were created); now every seat's stream.
    t0 = time.time()
    errors = play_matches(api, players, played, 8 * WAIT_S)
    streams.extend(p.stream for p in players)
    report(not errors, "five matches played to the end over %d Play streams in %.1f s"
           % (len(players), time.time() - t0), "; ".join(errors[:6]))

    # Error checks on fresh matches, while the logs are checked later.
    logs = {}

    def fetch_and_verify(m, token=None):
        data = api.get_log(m.id, token)
        path = os.path.join(tmp, m.id + ".pyrlog")
        with open(path, "wb") as f:
            f.write(data)
        out = verify_log(bin_dir, referee.pub_file, path)
        recs = parse_log(data)
        logs[m.id] = recs
        return out, recs

    for m in played:
        def check_match(m=m):
            expect(all(st.outcome is not None for st in m.seats.values()),
                   "not every seat got MatchEnded")
            out, recs = fetch_and_verify(m)
            info = check_log_against_streams(m, recs, referee.pub)
            # Every seat names the header, but a seat planned to name another.
            expect_named(out, recs, [s for s in range(m.num_seats)
                                     if m.misbehave.get((s, 0)) != "other_header"])
            o = info["outcome"]
            expect(o.termination in (E["TERMINATION_NORMAL"], E["TERMINATION_MOVE_LIMIT"]),
                   "termination %d" % o.termination)
            expect(len(o.seats) == m.num_seats, "outcome has %d seats" % len(o.seats))
            gm = api.get_match(m.id)
            expect(gm.status == E["MATCH_FINISHED"] and gm.outcome.SerializeToString(
                deterministic=True) == o.SerializeToString(deterministic=True),
                "GetMatch: status %d or outcome differs" % gm.status)
            extra = []
            autos = sum(1 for a in info["applied"] if not a.HasField("decision_id"))
            extra.append("%d decisions, %d automatic moves" % (len(info["opened"]), autos))
            if m is rpp:
                # The planned faults: a seed contribution naming another
                # header (ILLEGAL_ACTION; the seat contributes 32 zero bytes,
                # which check_log_against_streams checked), an unknown field
                # (ILLEGAL_ACTION) and a mismatched reveal, each with the
                # default action applied.
                f = {(x.seat, x.decision_id): x for x in info["faults"]}
                expect(len(info["faults"]) == 3, "%d faults logged, 3 provoked"
                       % len(info["faults"]))
                x = f.get((0, 0))
                expect(x is not None and x.reason == E["FAULT_ILLEGAL_ACTION"]
                       and x.consequence == E["FAULT_DEFAULT_ACTION"],
                       "seat 0 decision 0 (another header): fault %s" % (x and short(x)))
                pe = m.seats[0].faulted.get(0)
                expect(pe is not None and pe.code == INVALID_ARGUMENT and pe.faulted
                       and m.seats[0].pending[0]["reveal_ack"] is False,
                       "seat 0 decision 0 (another header): PlayError %s (documented "
                       "INVALID_ARGUMENT, faulted)" % (pe and short(pe)))
                for (seat, d), reason in (((1, 2), "FAULT_ILLEGAL_ACTION"),
                                          ((2, 4), "FAULT_REVEAL_MISMATCH")):
                    x = f.get((seat, d))
                    expect(x is not None and x.reason == E[reason]
                           and x.consequence == E["FAULT_DEFAULT_ACTION"],
                           "seat %d decision %d: fault %s" % (seat, d, x and short(x)))
                    pe = m.seats[seat].faulted.get(d)
                    expect(pe is not None and pe.code == INVALID_ARGUMENT and pe.faulted,
                           "seat %d decision %d: PlayError %s (documented INVALID_ARGUMENT, "
                           "faulted)" % (seat, d, pe and short(pe)))
                    ap_ = [a for a in info["applied"] if a.HasField("decision_id")
                           and a.decision_id == d]
                    mv = [x for x in ap_[0].moves if x.seat == seat] if ap_ else []
                    first = m.seats[seat].pending[d]["first_legal"]
                    expect(mv and mv[0].source == E["MOVE_DEFAULT"]
                           and mv[0].action.SerializeToString(deterministic=True)
                           == first.SerializeToString(deterministic=True),
                           "seat %d decision %d: the applied move is not the default "
                           "(the first legal action)" % (seat, d))
                    expect(m.seats[seat].pending[d]["reveal_ack"] is False,
                           "a faulted reveal was acknowledged")
                # A batch stream: the last committer's CommitAck travels
                # with its RevealRequest.
                rpp_streams = [p.stream for p in players if p.seats and
                               next(iter(p.seats.values()))[0] is rpp]
                nb = sum(s.batches for s in rpp_streams)
                expect(nb > 0, "no PlayResponse.batch on the three batch streams")
                extra.append("3 faults with default actions (one a seed naming another "
                             "header), %d batches received" % nb)
            if m is sh2:
                # Each DecisionResult carries the view right after its own
                # move: with two seats the first challenge is automatic, so
                # the seed decision's result shows the challenge still to be
                # made and the automatic move's result the throw it leads to.
                # (referee_service.proto says both carry the view after the
                # last automatic move: they do not.)
                for s_, st in m.seats.items():
                    o0 = P["Observation"].FromString(st.result_obs[0]).pyramid_shambo
                    o1 = P["Observation"].FromString(st.result_obs[1]).pyramid_shambo
                    expect(st.results[:2] == [0, 0]
                           and o0.phase == E["SHAMBO_PHASE_CHALLENGE"]
                           and o1.phase == E["SHAMBO_PHASE_THROW"],
                           "seat %d: the first two results (seed, automatic challenge) show "
                           "phases %d and %d" % (s_, o0.phase, o1.phase))
                extra.append("each result shows its own move's view")
            if m is fp:
                used = sum(st.obs_once_used for st in m.seats.values())
                expect(used > 0, "observation_in_result never set on observation-once streams")
                extra.append("%d requests with observation_in_result" % used)
            if m in (sh3, ps):
                bots = [p for p in players if p.name == "bot stream"][0]
                extra.append("bot stream: %d batches" % bots.stream.batches)
            return "; ".join(extra) + "; " + out.splitlines()[0][:80]
        run_check("%s: every message as documented, log genuine and equal to the streams"
                  % m.name, check_match)

    def finished_log_without_token():
        data = api.get_log(played[1].id, None)
        expect(data.startswith(MAGIC), "not a log")
    run_check("GetLog of a finished match needs no token", finished_log_without_token)

    def create_with_seat_token():
        code, det = rpc_code(lambda: api.create_match("rock_paper_pyramid", [{}] * 3,
                                                      token=sh2.tokens[0]))
        # The proto says only "UNAUTHENTICATED without the admin token"; a
        # valid token of another kind is PERMISSION_DENIED, as for Play.
        expect(code == grpc.StatusCode.PERMISSION_DENIED,
               "CreateMatch with a seat token: %s %r" % (code, det))
    run_check("CreateMatch with a seat token is PERMISSION_DENIED", create_with_seat_token)

    def reconnect_after_end():
        m = sh2
        s = Stream(api, m.tokens[0], None, "reconnect after the end")
        streams.append(s)
        me = s.expect_kind("match_ended", "MatchEnded again (protocol.md: Reconnecting)")
        expect(me.match_id == m.id and me.seat == 0 and me.outcome.SerializeToString(
            deterministic=True) == m.seats[0].outcome.SerializeToString(deterministic=True),
            "the repeated MatchEnded differs")
        # protocol.md "Reconnecting": a seat token's stream ends OK after its
        # MatchEnded, nothing more sent.
        (c, det), extra = s.wait_end()
        expect(c == grpc.StatusCode.OK and not extra,
               "after the repeated MatchEnded the stream ended %s %r, with %s"
               % (c, det, [short(x) for x in extra]))
        s.close()
    run_check("a seat token reconnecting after the end gets MatchEnded again, then the "
              "stream ends OK", reconnect_after_end)

    run_check("stream refusals: unknown token UNAUTHENTICATED, no token UNAUTHENTICATED, "
              "admin token PERMISSION_DENIED", stream_refusals, api, streams)
    run_check("mistakes in the seed decision (rock_paper_pyramid): wrong decision, short "
              "commitment, other seat, unknown match, extra signature, second commit, early "
              "reveal, short salt, running log, reconnection, reveal mismatch forfeits",
              seed_mistakes, api, referee, bin_dir, tmp, streams, fetch_and_verify)
    run_check("a missed commit deadline (seed decision, forfeit policy)",
              commit_timeout, api, streams, fetch_and_verify)


def stream_refusals(api, streams):
    for token, code in (("no-such-token", grpc.StatusCode.UNAUTHENTICATED),
                        (None, grpc.StatusCode.UNAUTHENTICATED),
                        (api.admin, grpc.StatusCode.PERMISSION_DENIED)):
        s = Stream(api, token, None, "stream with token %s" % (
            "admin" if token == api.admin else token))
        streams.append(s)
        (c, det), extra = s.wait_end()
        expect(c == code and not extra, "%s: ended %s %r after %d messages, documented %s"
               % (s.name, c, det, len(extra), code))


def seed_mistakes(api, referee, bin_dir, tmp, streams, fetch_and_verify):
    m = Match("errors", "rock_paper_pyramid", 3)
    r = api.create_match(m.game, [{}] * 3, label="docs-only-play errors")
    m.id, m.tokens = r.match_id, list(r.seat_tokens)
    mid = m.id
    s = [Stream(api, m.tokens[i], None, "errors seat %d" % i) for i in range(3)]
    streams.extend(s)
    hh = []
    for i in range(3):
        dr = s[i].expect_kind("decision", "the seed DecisionRequest")
        expect(dr.decision_id == 0 and dr.seat == i and dr.match_id == mid
               and len(dr.header_hash) == 32,
               "seat %d's first request: %s" % (i, short(dr)))
        hh.append(dr.header_hash)
    expect(hh[0] == hh[1] == hh[2], "the seats were told different header hashes")
    acts = [seed_action(hh[i]).SerializeToString() for i in range(3)]
    salts = [os.urandom(32) for _ in range(3)]
    cs = [commitment(mid, i, 0, salts[i], acts[i]) for i in range(3)]
    checks = []

    s[0].send(commit_req(mid, 0, 5, cs[0]))
    expect_error(s[0], FAILED_PRECONDITION, False, "a commit for decision 5 (not open)",
                 mid, 0, 5)
    checks.append("decision not open")
    s[0].send(commit_req(mid, 0, 0, cs[0][:31]))
    expect_error(s[0], INVALID_ARGUMENT, False, "a 31-byte commitment", mid, 0, 0)
    s[0].send(commit_req(mid, 1, 0, cs[1]))
    expect_error(s[0], PERMISSION_DENIED, False, "a commit for a seat the token does not hold",
                 mid, 1, 0)
    other = os.urandom(16).hex()
    s[0].send(commit_req(other, 0, 0, cs[0]))
    expect_error(s[0], NOT_FOUND, False, "a commit for an unknown match", other, 0, 0)
    s[0].send(commit_req(mid, 0, 0, cs[0], sig=os.urandom(64)))
    expect_error(s[0], INVALID_ARGUMENT, False, "a signature from a seat without a key",
                 mid, 0, 0)
    s[0].send(commit_req(mid, 0, 0, cs[0]))
    ack = s[0].expect_kind("commit_ack")
    expect(ack.match_id == mid and ack.seat == 0 and ack.decision_id == 0, "CommitAck names")
    s[0].send(commit_req(mid, 0, 0, cs[0]))
    expect_error(s[0], ALREADY_EXISTS, False, "a second commit", mid, 0, 0)
    s[0].send(reveal_req(mid, 0, 0, salts[0], acts[0]))
    expect_error(s[0], FAILED_PRECONDITION, False, "a reveal before the reveal phase",
                 mid, 0, 0)
    checks.append("6 refusals")

    # GetLog of a running match: the admin token only (protocol.md "Who may watch").
    code, det = rpc_code(lambda: api.get_log(mid, None))
    expect(code == grpc.StatusCode.FAILED_PRECONDITION,
           "GetLog of a running match without a token: %s %s" % (code, det))
    code, det = rpc_code(lambda: api.get_log(mid, m.tokens[1]))
    expect(code == grpc.StatusCode.FAILED_PRECONDITION,
           "GetLog of a running match with a seat token: %s %s" % (code, det))
    expect(api.get_log(mid, api.admin).startswith(MAGIC), "the admin's running log")
    checks.append("running log admin-only")

    # Reconnection: the old stream ends ABORTED, the new one is told the
    # referee holds the commitment.
    old = s[0]
    s[0] = Stream(api, m.tokens[0], None, "errors seat 0 (reconnected)")
    streams.append(s[0])
    dr = s[0].expect_kind("decision", "the DecisionRequest re-sent on reconnection")
    expect(dr.decision_id == 0 and dr.committed and dr.header_hash == hh[0],
           "re-sent request: %s" % short(dr))
    (c, det), extra = old.wait_end()
    expect(c == grpc.StatusCode.ABORTED and not extra,
           "the replaced stream ended %s %r" % (c, det))
    checks.append("reconnection")

    for i in (1, 2):
        s[i].send(commit_req(mid, i, 0, cs[i]))
        s[i].expect_kind("commit_ack")
    for i in range(3):
        rr = s[i].expect_kind("reveal_request")
        expect(rr.decision_id == 0 and rr.seat == i, "RevealRequest names")
    s[0].send(reveal_req(mid, 0, 0, salts[0][:31], acts[0]))
    expect_error(s[0], INVALID_ARGUMENT, False, "a 31-byte salt", mid, 0, 0)
    s[0].send(reveal_req(mid, 0, 0, os.urandom(32), acts[0]))
    expect_error(s[0], INVALID_ARGUMENT, True, "a reveal that does not match its commitment",
                 mid, 0, 0)
    for i in (1, 2):
        s[i].send(reveal_req(mid, i, 0, salts[i], acts[i]))
        s[i].expect_kind("reveal_ack")
    outs = []
    for i in range(3):
        me = s[i].expect_kind("match_ended", "MatchEnded after the forfeit")
        outs.append(me.outcome)
    o = outs[0]
    ranks = [(x.rank, x.score, x.forfeited) for x in o.seats]
    expect(o.termination == E["TERMINATION_FORFEIT"]
           and ranks == [(3, 0, True), (1, 0, False), (1, 0, False)],
           "outcome %s (protocol.md: forfeit in the seed decision: others rank 1, scores 0, "
           "the forfeiting seat last)" % short(o))
    # protocol.md: a seat token's stream ends OK after its MatchEnded.
    for i in range(3):
        (c, det), extra = s[i].wait_end()
        expect(c == grpc.StatusCode.OK and not extra,
               "seat %d's stream ended %s %r after MatchEnded, with %s"
               % (i, c, det, [short(x) for x in extra]))
    for x in s:
        x.close()
    out, recs = fetch_and_verify(m)
    expect(hashlib.sha256(recs.stored[0]).digest() == hh[0],
           "header_hash is not the SHA-256 of record 0's stored bytes")
    expect_named(out, recs, [1, 2])   # Seat 0's reveal did not open its commitment.
    kinds = [r.WhichOneof("kind") for r in recs]
    faults = [r.fault for r in recs if r.WhichOneof("kind") == "fault"]
    reveals = [r.reveal for r in recs if r.WhichOneof("kind") == "reveal"]
    expect(len(faults) == 1 and faults[0].seat == 0 and faults[0].decision_id == 0
           and faults[0].reason == E["FAULT_REVEAL_MISMATCH"]
           and faults[0].consequence == E["FAULT_FORFEIT"], "faults %s" % faults)
    expect(any(r.seat == 0 and r.salt != salts[0] for r in reveals),
           "the mismatched reveal is not logged as received")
    expect("seed_reveal" not in kinds, "a seed was revealed in a forfeited seed decision")
    commits = {r.commit.seat: r.commit for r in recs if r.WhichOneof("kind") == "commit"}
    expect(sorted(commits) == [0, 1, 2] and commits[0].received_unix_ms == ack.received_unix_ms,
           "the logged commits or seat 0's acknowledged time")
    lo = [r.outcome for r in recs if r.WhichOneof("kind") == "outcome"]
    expect(lo and all(x.SerializeToString(deterministic=True) == lo[0].SerializeToString(
        deterministic=True) for x in outs), "the log's outcome differs from MatchEnded")
    checks.append("log genuine, fault REVEAL_MISMATCH, 2 of 3 seats named the header")
    return ", ".join(checks)


def commit_timeout(api, streams, fetch_and_verify):
    m = Match("timeout", "rock_paper_pyramid", 3,
              clocks={"commit_timeout_ms": 6000, "reveal_timeout_ms": 6000})
    r = api.create_match(m.game, [{}] * 3, clocks=m.clocks, label="docs-only-play timeout")
    m.id, m.tokens = r.match_id, list(r.seat_tokens)
    mid = m.id
    s = [Stream(api, m.tokens[i], None, "timeout seat %d" % i) for i in range(3)]
    streams.extend(s)
    hh = [s[i].expect_kind("decision", "the seed DecisionRequest").header_hash
          for i in range(3)]
    for i in (0, 1):
        a = seed_action(hh[i]).SerializeToString()
        s[i].send(commit_req(mid, i, 0, commitment(mid, i, 0, os.urandom(32), a)))
        s[i].expect_kind("commit_ack")
    # Seat 2 never commits. protocol.md: no reveal phase, seat 2 forfeits.
    got = {}
    for i in range(3):
        msgs = []
        while True:
            x = s[i].next_msg("MatchEnded after the commit timeout", timeout=WAIT_S)
            msgs.append(x)
            if x.WhichOneof("kind") == "match_ended":
                break
        got[i] = msgs
    for i in (0, 1):
        kinds = [x.WhichOneof("kind") for x in got[i]]
        expect(kinds == ["match_ended"], "seat %d got %s (no reveal phase after a commit "
               "timeout under the forfeit policy)" % (i, kinds))
    k2 = [x.WhichOneof("kind") for x in got[2]]
    # writing-a-bot.md section 7: a fault is logged "and you get a PlayError
    # with faulted: true", FAILED_PRECONDITION for a commit or reveal timeout.
    expect(k2 == ["error", "match_ended"] and got[2][0].error.code == FAILED_PRECONDITION
           and got[2][0].error.faulted and got[2][0].error.decision_id == 0,
           "the timed-out seat got %s" % [short(x) for x in got[2]])
    o = got[0][-1].match_ended.outcome
    ranks = [(x.rank, x.score, x.forfeited) for x in o.seats]
    expect(o.termination == E["TERMINATION_FORFEIT"]
           and ranks == [(1, 0, False), (1, 0, False), (3, 0, True)], "outcome %s" % short(o))
    # protocol.md: a seat token's stream ends OK after its MatchEnded, the
    # timed-out seat's too; a commit then would not be read.
    for i in range(3):
        (c, det), extra = s[i].wait_end()
        expect(c == grpc.StatusCode.OK and not extra,
               "seat %d's stream ended %s %r after MatchEnded, with %s"
               % (i, c, det, [short(x) for x in extra]))
    for x in s:
        x.close()
    out, recs = fetch_and_verify(m)
    expect_named(out, recs, [])   # No seat revealed: none named the header in the log.
    faults = [r.fault for r in recs if r.WhichOneof("kind") == "fault"]
    expect(len(faults) == 1 and faults[0].seat == 2
           and faults[0].reason == E["FAULT_COMMIT_TIMEOUT"]
           and faults[0].consequence == E["FAULT_FORFEIT"], "faults %s" % faults)
    expect(not any(r.WhichOneof("kind") == "reveal" for r in recs), "a reveal was logged")
    return "seat 2 got PlayError FAILED_PRECONDITION faulted (%r), then MatchEnded" % (
        got[2][0].error.message)


if __name__ == "__main__":
    sys.exit(main())
