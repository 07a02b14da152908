#!/usr/bin/python3
"""Drives all three seats of a fresh Rock, Paper, Pyramid! match (forfeit
policy) in lock step and checks what the referee sends around a fault:

  * decision 0 is played honestly (each seat's seed contribution names the
    log header its request announced);
  * in decision 1, seat 1 reveals with a wrong salt: it must get a PlayError
    with code INVALID_ARGUMENT (3) and faulted = true, and no RevealAck;
  * seats 0 and 2 then reveal; the last reveal closes the decision and ends
    the match by forfeit, yet both RevealAcks must name decision 1;
  * every seat gets MatchEnded with seat 1 forfeited.

Usage: python_fault_check.py ADDR STUBS TOKEN_DIR MATCH_ID (the tokens are
TOKEN_DIR/seat-N.token, as `refctl create-match --token_dir` writes them).
"""
import hashlib
import os
import queue
import sys
import threading

addr, stubs, token_dir, match_id = sys.argv[1:5]
sys.path.insert(0, stubs)
import grpc  # noqa: E402
from pyramid.referee.v1 import game_pb2  # noqa: E402
from pyramid.referee.v1 import referee_service_pb2 as pb  # noqa: E402
from pyramid.referee.v1 import referee_service_pb2_grpc as pb_grpc  # noqa: E402

INVALID_ARGUMENT = 3
inbox = queue.Queue()  # (seat, PlayResponse) from every stream, in order.


def commitment(seat, decision, salt, action):
    return hashlib.sha256(b"pyramid-referee/commit/v1\0" +
                          bytes.fromhex(match_id) + seat.to_bytes(4, "big") +
                          decision.to_bytes(8, "big") + salt + action).digest()


class Seat:
    def __init__(self, stub, seat):
        self.seat, self.out = seat, queue.Queue()
        token = open(f"{token_dir}/seat-{seat}.token").read().strip()
        self.call = stub.Play(iter(self.out.get, None),
                              metadata=[("authorization", "Bearer " + token)])
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        try:
            for response in self.call:
                inbox.put((self.seat, response))
        except grpc.RpcError:
            pass

    def commit(self, decision, action):
        self.salt, self.action = os.urandom(32), action.SerializeToString()
        self.out.put(pb.PlayRequest(commit=pb.CommitMove(
            match_id=match_id, seat=self.seat, decision_id=decision,
            commitment=commitment(self.seat, decision, self.salt, self.action))))

    def reveal(self, decision, salt=None):
        self.out.put(pb.PlayRequest(reveal=pb.RevealMove(
            match_id=match_id, seat=self.seat, decision_id=decision,
            salt=salt or self.salt, action=self.action)))


backlog = []  # Messages read but not yet consumed by expect().
seen = []     # Every (seat, kind, decision_id) received, in order.


def expect(kind, seats):
    """Returns, by seat, the first unconsumed message of `kind` for each seat
    in `seats`; other messages wait in the backlog. A PlayError not asked
    for fails the check."""
    got = {}
    def take(seat, response):
        k = response.WhichOneof("kind")
        if k == kind and seat in seats and seat not in got:
            got[seat] = getattr(response, k)
            return True
        if k == "error" and kind != "error":
            sys.exit(f"FAIL: seat {seat} got {response}")
        return False
    backlog[:] = [(s, r) for s, r in backlog if not take(s, r)]
    while set(got) != set(seats):
        seat, response = inbox.get(timeout=10)
        k = response.WhichOneof("kind")
        seen.append((seat, k, getattr(response, k).decision_id
                     if k in ("reveal_ack", "error") else None))
        if not take(seat, response):
            backlog.append((seat, response))
    return got


def main():
    channel = grpc.insecure_channel(addr)
    stub = pb_grpc.RefereeStub(channel)
    seats = [Seat(stub, s) for s in range(3)]
    everyone = [0, 1, 2]
    requests = expect("decision", everyone)
    for s in seats:
        # The seed names the log header the request announced.
        header_hash = requests[s.seat].header_hash
        if len(header_hash) != 32:
            sys.exit(f"FAIL: seat {s.seat}'s seed request has a "
                     f"{len(header_hash)}-byte header_hash")
        s.commit(0, game_pb2.Action(seed=game_pb2.SeedContribution(
            contribution=os.urandom(32), header_hash=header_hash)))
    expect("reveal_request", everyone)
    for s in seats:
        s.reveal(0)
    expect("reveal_ack", everyone)
    requests = expect("decision", everyone)
    for s in seats:
        s.commit(1, requests[s.seat].legal_actions[0])
    expect("reveal_request", everyone)

    seats[1].reveal(1, salt=os.urandom(32))  # Does not match the commitment.
    error = expect("error", [1])[1]
    if (error.code, error.faulted, error.decision_id) != (INVALID_ARGUMENT,
                                                          True, 1):
        sys.exit(f"FAIL: the mismatched reveal got {error}")
    seats[0].reveal(1)
    seats[2].reveal(1)  # The last reveal: the decision closes, forfeit.
    acks = expect("reveal_ack", [0, 2])
    for seat, ack in acks.items():
        if ack.decision_id != 1:
            sys.exit(f"FAIL: seat {seat}'s RevealAck names decision "
                     f"{ack.decision_id}, not 1")
    for seat, ended in expect("match_ended", everyone).items():
        if not ended.outcome.seats[1].forfeited:
            sys.exit(f"FAIL: seat {seat}'s MatchEnded: {ended}")
    if (1, "reveal_ack", 1) in seen:
        sys.exit("FAIL: the mismatched reveal was acknowledged")
    for s in seats:
        s.out.put(None)
        s.call.cancel()
    channel.close()
    print("fault check: mismatch -> INVALID_ARGUMENT, faulted; "
          "RevealAcks name decision 1; seat 1 forfeited")


if __name__ == "__main__":
    main()
