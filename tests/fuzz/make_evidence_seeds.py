#!/usr/bin/env python3
"""Writes the evidence fuzz target's seeds (tests/fuzz/seeds/evidence/).

Each seed is a tournament directory in evidence_fuzzer.cc's input format,
made from testdata/tlog/example (its three matches' logs and proofs as
logs/mN.pyrlog and proofs/mN.tlog-proof, N the match's index, and its
tournament.txt): the directory as published under two keys, without
tournament.txt, a match skipped, with the
tournament.txt and results.json the fuzzer makes as the runner writes
them, and damaged copies (results.json changed among them). Run it again when the example changes; the genuine_* seeds must
then still check out (the fuzz_seeds_evidence_genuine test).

  python3 tests/fuzz/make_evidence_seeds.py
"""
import json
import os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
EXAMPLE = os.path.join(ROOT, "testdata", "tlog", "example")
OUT = os.path.join(ROOT, "tests", "fuzz", "seeds", "evidence")
# As evidence_fuzzer.cc: kSeparator, kNames, the key choices.
SEPARATOR = b"@@@@"
# The pseudo-names whose part makes tournament.txt or results.json from
# the directory (evidence_fuzzer.cc: WriteTournament, WriteResults), the
# part's contents picking the fields and changes.
MADE_TOURNAMENT, MADE_RESULTS = "<made tournament.txt>", "<made results.json>"
NAMES = [
    "schedule.json", "checkpoint", "referee.pub", "referee.key.pub",
    "logs/m0.pyrlog", "logs/m1.pyrlog", "logs/m2.pyrlog", "logs/m3.pyrlog",
    "logs/m0.txt", "proofs/m0.tlog-proof", "proofs/m1.tlog-proof",
    "proofs/m2.tlog-proof", "proofs/m3.tlog-proof", "proofs/m4.tlog-proof",
    "proofs/m0.txt", "logs", "proofs", "tournament.txt",
    "superseded/m0.pyrlog", "superseded/m3.pyrlog", "results.json",
    MADE_TOURNAMENT, MADE_RESULTS,
]
FROM_FILES, REFEREE_KEY, VERIFIER_KEY = 0, 1, 2
# Added to a key choice: the auditor's roster of the example's bots, all
# without keys (as they played), or with b2 keyed.
ROSTER, ROSTER_B2_KEYED = 4, 8
DIRECTORY = None  # A part that is an empty directory.
FIFO = object()  # A part that is a FIFO.


class Link:
    """A part that is a symbolic link to another name (its own: a loop)."""

    def __init__(self, target):
        self.target = target


def read(name):
    with open(os.path.join(EXAMPLE, name), "rb") as f:
        return f.read()


def example():
    """The example directory: {name: contents}, logs named by match index."""
    files = {name: read(name) for name in
             ("schedule.json", "checkpoint", "referee.pub", "tournament.txt")}
    schedule = json.loads(files["schedule.json"])
    for log in sorted(os.listdir(os.path.join(EXAMPLE, "logs"))):
        stem = log[:-len(".pyrlog")]
        data = read(os.path.join("logs", log))
        # The log's signed header holds its label as text.
        index = [i for i, m in enumerate(schedule["matches"])
                 if m["label"].encode() in data]
        assert len(index) == 1, log
        files[f"logs/m{index[0]}.pyrlog"] = data
        files[f"proofs/m{index[0]}.tlog-proof"] = read(
            os.path.join("proofs", stem + ".tlog-proof"))
    return files


def write(seed, key, files):
    parts = []
    for name, data in files.items():
        selector = NAMES.index(name)
        if data is DIRECTORY:
            selector, body = selector | 0x80, b""
        elif data is FIFO:
            selector, body = selector | 0xc0, b""
        elif isinstance(data, Link):
            selector, body = selector | 0x40, bytes([NAMES.index(data.target)])
        else:
            body = data
        assert SEPARATOR not in body, (seed, name)
        parts.append(bytes([selector]) + body)
    with open(os.path.join(OUT, seed), "wb") as f:
        f.write(bytes([key]) + SEPARATOR.join(parts))


def main():
    os.makedirs(OUT, exist_ok=True)
    files = example()
    schedule = json.loads(files["schedule.json"])

    write("genuine", FROM_FILES, files)
    # Without tournament.txt, which the runner writes before it plays: a
    # problem (nothing else shows that the schedule lists every match).
    without_tournament = {k: v for k, v in files.items()
                          if k != "tournament.txt"}
    write("without_tournament", FROM_FILES, without_tournament)
    write("genuine_verifier_key", VERIFIER_KEY,
          {k: v for k, v in files.items() if k != "referee.pub"})
    # Match 2, the last, marked skipped: no log, no proof; tournament.txt
    # shows an SPRT, but of 3 seats, which the runner does not take (and
    # of no bots: it did not make the schedule), so the directory does not
    # pass (it did, until verify-tournament held tournament.txt to the
    # schedule without results.json). The example's 3 bots at 3 seats are
    # no tournament of an SPRT: no genuine seed skips a match.
    sprt = (b'name: "example"\ngame {\n  game: "rock_paper_pyramid"\n}\n'
            b'seats: 3\nsprt {\n  elo1: 10\n}\n')
    skipped = json.loads(files["schedule.json"])
    skipped["matches"][2]["skipped"] = True
    write("skipped_match_sprt_of_3_seats", REFEREE_KEY,
          {**{k: v for k, v in files.items() if "m2." not in k},
           "schedule.json": json.dumps(skipped, indent=1).encode(),
           "tournament.txt": sprt})
    # With the results.json the runner writes (made by the fuzzer from the
    # directory) and the tournament.txt it copies there (one whose schedule
    # is schedule.json); compact, with restarts; with changes to fields the
    # check does not compare. Not the runner's: without tournament.txt,
    # with one of another seed, and with match 2 skipped, an SPRT (which
    # the runner takes only with 2 seats).
    write("genuine_results", FROM_FILES,
          {**files, MADE_TOURNAMENT: b"\x00\x02\x05",
           MADE_RESULTS: b"\x00"})
    write("genuine_results_compact_restarts", VERIFIER_KEY,
          {**{k: v for k, v in files.items() if k != "referee.pub"},
           MADE_TOURNAMENT: b"\x00", MADE_RESULTS: b"\x21"})
    write("genuine_results_unchecked_fields", REFEREE_KEY,
          {**files, MADE_TOURNAMENT: b"\x00",
           MADE_RESULTS: b"\x00\x20\x03\x21\x01\x22\x05\x25\x02"})
    write("results_without_tournament", FROM_FILES,
          {**without_tournament, MADE_RESULTS: b"\x10"})
    write("results_tournament_of_another_seed", FROM_FILES,
          {**files, MADE_TOURNAMENT: b"\x08\x00\x00\x08",
           MADE_RESULTS: b"\x00"})
    write("results_skipped_match_sprt", REFEREE_KEY,
          {**{k: v for k, v in files.items() if "m2." not in k},
           "schedule.json": json.dumps(skipped, indent=1).encode(),
           MADE_TOURNAMENT: b"\x04\x00\x00\x00\x09",
           MADE_RESULTS: b"\x04"})
    # results.json changed (WriteResults' operations): a standing's points,
    # a match's outcome (a seat's rank), two places swapped, a match left
    # out, a key twice, a changed byte; and results.json of the input's
    # bytes, of bots and matches the logs do not have.
    for seed, change in (("results_points_changed", b"\x00\x01"),
                         ("results_outcome_changed", b"\x0b\x02"),
                         ("results_standings_swapped", b"\x08\x10"),
                         ("results_match_left_out", b"\x13\x01"),
                         ("results_key_twice", b"\x26\x00"),
                         ("results_byte_changed", b"\x27\x80")):
        write(seed, FROM_FILES,
              {**files, MADE_TOURNAMENT: b"\x00",
               MADE_RESULTS: b"\x00" + change})
    write("results_invented_bots", FROM_FILES,
          {**files, "results.json": json.dumps(
              {"name": "example", "game": {"game": "rock_paper_pyramid"},
               "standings": [{"bot": f"bot{i}"} for i in range(40)],
               "matches": [{"index": i % 3} for i in range(40)]}).encode()})
    # Match 2 skipped without tournament.txt; match 0 skipped before match
    # 1, played.
    write("skipped_without_sprt", REFEREE_KEY,
          {**{k: v for k, v in without_tournament.items() if "m2." not in k},
           "schedule.json": json.dumps(skipped, indent=1).encode()})
    first = json.loads(files["schedule.json"])
    first["matches"][0]["skipped"] = True
    write("skipped_not_last", REFEREE_KEY,
          {**{k: v for k, v in files.items() if "m0." not in k},
           "schedule.json": json.dumps(first, indent=1).encode(),
           "tournament.txt": sprt})
    # As the embedded referee's (referee.key.pub alone): checkpoint 6 holds
    # 3 sealed logs more than the directory; a copy of a log in superseded/
    # is the same leaf.
    write("embedded_checkpoint_larger", FROM_FILES,
          {**{k: v for k, v in files.items() if k != "referee.pub"},
           "referee.key.pub": files["referee.pub"],
           "superseded/m0.pyrlog": files["logs/m0.pyrlog"]})

    # Match 1's log missing; its proof left without it.
    write("missing_log", FROM_FILES,
          {k: v for k, v in files.items() if k != "logs/m1.pyrlog"})
    # Match 0's log and proof twice, under a second name.
    write("duplicate_log", FROM_FILES,
          {**files, "logs/m3.pyrlog": files["logs/m0.pyrlog"],
           "proofs/m3.tlog-proof": files["proofs/m0.tlog-proof"]})
    # A changed byte, a proof that is a directory, an unsealed prefix, a
    # proof without a log, a second key file.
    log = bytearray(files["logs/m2.pyrlog"])
    log[len(log) // 2] ^= 1
    prefix = files["logs/m0.pyrlog"]
    write("damaged", FROM_FILES,
          {**files, "logs/m2.pyrlog": bytes(log),
           "proofs/m1.tlog-proof": DIRECTORY,
           "logs/m3.pyrlog": prefix[:len(prefix) // 2],
           "proofs/m4.tlog-proof": files["proofs/m0.tlog-proof"],
           "referee.key.pub": files["referee.pub"]})
    # Symbolic links: match 0's log and proof again through them, and a
    # loop for a proof.
    write("symbolic_links", FROM_FILES,
          {**files, "logs/m3.pyrlog": Link("logs/m0.pyrlog"),
           "proofs/m3.tlog-proof": Link("proofs/m0.tlog-proof"),
           "proofs/m4.tlog-proof": Link("proofs/m4.tlog-proof")})
    # A FIFO for match 1's log, which the check must name, not wait on.
    write("fifo_log", FROM_FILES, {**files, "logs/m1.pyrlog": FIFO})
    # Match 1 labelled as match 0.
    twice = json.loads(files["schedule.json"])
    twice["matches"][1]["label"] = schedule["matches"][0]["label"]
    write("schedule_label_twice", FROM_FILES,
          {**files, "schedule.json": json.dumps(twice, indent=1).encode()})

    # The seats against an auditor's roster: as they played, and with b2
    # keyed (no log then counts).
    write("genuine_seat_roster", FROM_FILES | ROSTER, files)
    write("seat_roster_b2_keyed", REFEREE_KEY | ROSTER_B2_KEYED, files)
    # A schedule.json protobuf's parser reads, but other JSON readers read
    # otherwise: a key twice (the first value another name), a field under
    # both its names, a trailing comma.
    text = files["schedule.json"].decode()
    write("schedule_key_twice", REFEREE_KEY,
          {**files, "schedule.json": text.replace(
              '"name": "example",', '"name": "evil", "name": "example",'
          ).encode()})
    write("schedule_field_under_both_names", REFEREE_KEY,
          {**files, "schedule.json": text.replace(
              '"run_id":', '"runId": "0", "run_id":').encode()})
    write("schedule_trailing_comma", REFEREE_KEY,
          {**files, "schedule.json": text.replace(
              '"b3"\n   ]\n  }\n ]', '"b3"\n   ],\n  },\n ]').encode()})


if __name__ == "__main__":
    main()
