#!/usr/bin/python3
"""Independent, docs-only checker for the referee's transparency log.

Written from docs/transparency-log.md (and docs/log-format.md where it points
there), proto/pyramid/referee/v1/{log,tournament}.proto and public specs
(RFC 9162 2.1, C2SP signed-note, tlog-checkpoint, tlog-proof), WITHOUT reading
the project's C++. It tests the promise that others can interoperate from
the docs alone.

What it checks, by doc section of transparency-log.md:

* "Hashing (RFC 9162 section 2.1)" / "Test vectors": leaf and node hashes,
  MTH, inclusion PATH and consistency PROOF generation and verification
  (RFC 9162 2.1.3.2 and 2.1.4.2) against every vector the doc lists, and the
  doc's claim that a proof's hashes alone do not fix the tree size.
* "Checkpoints": verifier key parsing, key id, signed-note opening (Ed25519
  via libsodium, as the doc requires), the three checkpoint lines; the
  example verifier key and checkpoints in testdata/tlog.
* "Inclusion proofs: .tlog-proof files": parsing, the inclusion of
  SHA-256(log file) at `index` in the checkpoint's tree, the `extra` line
  against the log header's match id.
* "Consistency proofs": the pyramid-referee/tlog-consistency@v1 file between
  two opened checkpoints.
* "Tournaments": the six checks of `replay verify-tournament` over a
  tournament output directory (schedule.json, logs, proofs, checkpoint, key
  files, tournament.txt, superseded/): a schedule with at least one match,
  not all skipped; a tournament.txt (a missing one is a problem: the
  runner writes it before it plays), of the schedule's
  name and game and of what the doc says makes the schedule (its seats,
  its bots, an `sprt` only with 2 bots, 2 seats, round robin; a minimal
  text-format reading: see parse_tournament_txt); a match marked skipped
  only with such a tournament.txt with an `sprt` and only as a suffix of
  the schedule; with the embedded referee (referee.key.pub and
  no referee.pub) a checkpoint whose size is the number of distinct sealed
  logs in logs/ and superseded/ (those of superseded/ with a label of the
  schedule, each in a note), else a note; and the summary line, which names
  the key file the key was taken from when none was given. Logs are checked
  at a reduced "chain" level from log-format.md (framing, hash chain,
  header, seal signature), not replayed by the rules and not checked for
  canonical encoding.

Usage:
  docs_only_tlog_check.py --self-test [--testdata DIR] [--replay BIN]
  docs_only_tlog_check.py checkpoint (--vkey V | --key HEX) CHECKPOINT
  docs_only_tlog_check.py inclusion (--vkey V | --key HEX) PROOF LOG
  docs_only_tlog_check.py consistency (--vkey V | --key HEX) OLD NEW PROOF
  docs_only_tlog_check.py tournament [--vkey V | --key HEX] DIR

Where the doc is silent, this checker follows what `replay` was seen to do
(each found by experiment): base64 must be canonical (padded, zero trailing
bits); a checkpoint's text may not contain an empty line; a malformed
signature line by any key fails the note; a consistency proof from size 0
takes no hashes and needs the empty tree's root; schedule.json is strict
proto3 JSON (unknown fields refused, absent fields are defaults, both
`run_id` and `runId` accepted, but not both, nor a key twice in one object,
nor NaN); a proof of a log that does not count is
"extra". Since the doc was mended from this checker's findings it also
states what this follows: referee.pub and referee.key.pub must hold the
same key when both are there; every sealed log is of the schedule's game;
a proof counts as "in the directory's checkpoint" when its checkpoint names
the same origin, size and root, even if a witness added a cosignature line.
For check 6 the doc leaves open, and this takes (replay agreed on every
case tried): a "sealed log" is a file that verifies against the referee's
key and ends in a seal (a superseded log that does not is silently not
counted); "distinct" is a distinct SHA-256 of the file (the leaf data), so
a log of logs/ copied into superseded/ counts once; a checkpoint smaller
than that number is a problem too ("the checkpoint's size is the number").

--self-test also checks that tampered inputs are rejected, each for the
reason it was made for. Its tournament cases are testdata/tlog/example (a
running referee's directory), edited copies of it, and directories of the
embedded referee that it signs itself (the example's logs and a golden log
of testdata/golden re-signed with a key of its own, log-format.md's hash
chain and seal rebuilt). With --replay BIN every tournament case is also
given to `BIN verify-tournament` (the project's replay: run, not read), whose
exit status and summary line must be the checker's; one case where the doc
leaves room and replay reads it otherwise (a tournament.txt without `name`,
which the proto's default makes "tournament") is expected to differ. Every command
prints one line per check (PASS/FAIL) and exits 0 only if all expected
outcomes hold (1 otherwise, 2 on usage errors).
"""

import argparse
import base64
import binascii
import copy
import hashlib
import json
import os
import re
import struct
import sys

import nacl.exceptions
import nacl.signing

# ---------------------------------------------------------------------------
# Errors and small helpers
# ---------------------------------------------------------------------------


class CheckError(Exception):
    """A verification failure; the message says what did not hold."""


def sha256(data):
    """Return SHA-256 of `data` (bytes)."""
    return hashlib.sha256(data).digest()


def b64decode_strict(text, what, length=None):
    """Decode standard base64 with padding; refuse anything else.

    `length`, when given, is the exact number of bytes expected.
    """
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as err:
        raise CheckError(f"{what}: not standard base64 ({err})") from None
    if base64.b64encode(raw).decode("ascii") != text:
        raise CheckError(f"{what}: non-canonical base64 {text!r}")
    if length is not None and len(raw) != length:
        raise CheckError(f"{what}: {len(raw)} bytes, expected {length}")
    return raw


def parse_decimal(text, what):
    """Parse a decimal number with no sign and no leading zeros."""
    if not re.fullmatch(r"0|[1-9][0-9]*", text):
        raise CheckError(f"{what}: {text!r} is not a decimal without leading zeros")
    return int(text)


# ---------------------------------------------------------------------------
# RFC 9162 section 2.1: Merkle tree hashing and proofs
# ---------------------------------------------------------------------------


def leaf_hash(leaf_data):
    """RFC 9162 2.1.1 leaf hash: SHA-256(0x00 || leaf data)."""
    return sha256(b"\x00" + leaf_data)


def node_hash(left, right):
    """RFC 9162 2.1.1 interior node hash: SHA-256(0x01 || left || right)."""
    return sha256(b"\x01" + left + right)


def log_leaf_hash(log_file_bytes):
    """The tree's leaf hash for a match log: leaf data is SHA-256(file)."""
    return leaf_hash(sha256(log_file_bytes))


def split_point(n):
    """The largest power of two smaller than n (n > 1)."""
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def mth(hashes):
    """MTH over a list of leaf hashes (RFC 9162 2.1.1)."""
    n = len(hashes)
    if n == 0:
        return sha256(b"")
    if n == 1:
        return hashes[0]
    k = split_point(n)
    return node_hash(mth(hashes[:k]), mth(hashes[k:]))


def inclusion_path(m, hashes):
    """PATH(m, D[n]) of RFC 9162 2.1.3.1, over leaf hashes."""
    n = len(hashes)
    if n <= 1:
        return []
    k = split_point(n)
    if m < k:
        return inclusion_path(m, hashes[:k]) + [mth(hashes[k:])]
    return inclusion_path(m - k, hashes[k:]) + [mth(hashes[:k])]


def consistency_proof(m, hashes):
    """PROOF(m, D[n]) of RFC 9162 2.1.4.1, over leaf hashes (0 < m <= n)."""
    return _subproof(m, hashes, True)


def _subproof(m, hashes, complete):
    """SUBPROOF(m, D[n], b) of RFC 9162 2.1.4.1."""
    n = len(hashes)
    if m == n:
        return [] if complete else [mth(hashes)]
    k = split_point(n)
    if m <= k:
        return _subproof(m, hashes[:k], complete) + [mth(hashes[k:])]
    return _subproof(m - k, hashes[k:], False) + [mth(hashes[:k])]


def verify_inclusion(index, size, leaf, proof, root):
    """RFC 9162 2.1.3.2: raise CheckError unless `proof` puts `leaf` at
    `index` in the tree of `size` leaves whose root is `root`."""
    if index >= size:
        raise CheckError(f"inclusion: index {index} is not below tree size {size}")
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            raise CheckError("inclusion: proof has too many hashes for the tree size")
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise CheckError("inclusion: proof has too few hashes for the tree size")
    if r != root:
        raise CheckError(f"inclusion: computed root {r.hex()} != checkpoint root {root.hex()}")


def verify_consistency(first, second, first_root, second_root, proof):
    """RFC 9162 2.1.4.2 (plus the doc's rule: equal sizes need equal roots
    and no hashes). Raise CheckError unless the proof holds."""
    if first == second:
        if proof:
            raise CheckError("consistency: equal sizes take no proof hashes")
        if first_root != second_root:
            raise CheckError("consistency: equal sizes with different roots")
        return
    if first == 0:
        # Not in RFC 9162 (it defines proofs for 0 < m < n) nor in the doc;
        # `replay consistency` accepts it, as transparency-dev/merkle does:
        # the empty tree is a prefix of every tree.
        if proof:
            raise CheckError("consistency: from the empty tree takes no proof hashes")
        if first_root != mth([]):
            raise CheckError("consistency: a tree of size 0 must have root SHA-256()")
        return
    if not 0 < first < second:
        raise CheckError(f"consistency: need old ({first}) <= new ({second})")
    if not proof:
        raise CheckError("consistency: empty proof")
    path = list(proof)
    if first & (first - 1) == 0:
        path.insert(0, first_root)
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            raise CheckError("consistency: proof has too many hashes")
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise CheckError("consistency: proof has too few hashes")
    if fr != first_root:
        raise CheckError("consistency: proof does not lead to the old root")
    if sr != second_root:
        raise CheckError("consistency: proof does not lead to the new root")


# ---------------------------------------------------------------------------
# Signed notes and checkpoints (C2SP signed-note, tlog-checkpoint)
# ---------------------------------------------------------------------------

ED25519_ALG = b"\x01"
EM_DASH_PREFIX = "\u2014 "
MAX_SIGNATURES = 100


class Verifier:
    """A note verifier: key name, 4-byte key id and raw Ed25519 key."""

    def __init__(self, name, public_key):
        """Build from a key name and a 32-byte Ed25519 public key."""
        if len(public_key) != 32:
            raise CheckError(f"public key is {len(public_key)} bytes, not 32")
        self.name = name
        self.public_key = public_key
        self.key_id = key_id(name, public_key)

    def vkey(self):
        """The verifier key string `<name>+<id hex>+<base64(0x01||key)>`."""
        return "%s+%s+%s" % (self.name, self.key_id.hex(),
                             base64.b64encode(ED25519_ALG + self.public_key).decode())


def key_id(name, public_key):
    """Key id: first 4 bytes of SHA-256(name || 0x0A || 0x01 || key)."""
    return sha256(name.encode("utf-8") + b"\n" + ED25519_ALG + public_key)[:4]


def parse_vkey(text):
    """Parse a verifier key `<name>+<8 hex>+<base64(0x01 || key)>`; check
    that the key id is the one the name and key give."""
    parts = text.strip().split("+")
    if len(parts) != 3:
        raise CheckError(f"verifier key {text!r}: not name+id+key")
    name, id_hex, key_b64 = parts
    if not name or any(c.isspace() for c in name):
        raise CheckError(f"verifier key: bad key name {name!r}")
    if not re.fullmatch(r"[0-9a-f]{8}", id_hex):
        raise CheckError(f"verifier key: key id {id_hex!r} is not 8 lower-case hex digits")
    raw = b64decode_strict(key_b64, "verifier key", 33)
    if raw[:1] != ED25519_ALG:
        raise CheckError(f"verifier key: algorithm byte {raw[0]:#x}, not 0x01 (Ed25519)")
    verifier = Verifier(name, raw[1:])
    if verifier.key_id.hex() != id_hex:
        raise CheckError(f"verifier key: id {id_hex} != computed {verifier.key_id.hex()}")
    return verifier


def parse_hex_key(text):
    """Parse a raw Ed25519 public key given as 64 hex digits."""
    text = text.strip()
    if not re.fullmatch(r"[0-9a-fA-F]{64}", text):
        raise CheckError(f"public key {text[:20]!r}...: not 64 hex digits")
    return bytes.fromhex(text)


def ed25519_verify(public_key, message, signature):
    """Ed25519 as libsodium checks it (PyNaCl calls crypto_sign_open)."""
    try:
        nacl.signing.VerifyKey(public_key).verify(message, signature)
        return True
    except (nacl.exceptions.BadSignatureError, nacl.exceptions.ValueError,
            nacl.exceptions.TypeError):
        return False


def split_note(note):
    """Split a signed note (bytes) into (text, [signature lines]) following
    the doc's "note opener": UTF-8, no control character but newline, text
    ending in a newline, one blank line, 1 to 100 signature lines."""
    try:
        s = note.decode("utf-8")
    except UnicodeDecodeError:
        raise CheckError("note: not valid UTF-8") from None
    for c in s:
        if (ord(c) < 0x20 and c != "\n") or ord(c) == 0x7F:
            raise CheckError(f"note: control character {ord(c):#x}")
    cut = s.rfind("\n\n")
    if cut < 0:
        raise CheckError("note: no blank line before the signatures")
    text, sigs = s[:cut + 1], s[cut + 2:]
    if not sigs.endswith("\n"):
        raise CheckError("note: signature block does not end in a newline")
    lines = sigs[:-1].split("\n")
    if not 1 <= len(lines) <= MAX_SIGNATURES:
        raise CheckError(f"note: {len(lines)} signature lines (1 to {MAX_SIGNATURES})")
    return text, lines


def open_note(note, verifier):
    """Open a signed note with `verifier`; return its text. Signature lines
    of other keys are ignored; a line of this key that fails is an error."""
    text, lines = split_note(note)
    found = False
    for line in lines:
        if not line.startswith(EM_DASH_PREFIX):
            raise CheckError(f"note: signature line {line[:30]!r} lacks '\u2014 '")
        fields = line[len(EM_DASH_PREFIX):].split(" ")
        if len(fields) != 2 or not fields[0]:
            raise CheckError(f"note: malformed signature line {line[:40]!r}")
        name, sig_b64 = fields
        sig = b64decode_strict(sig_b64, "note signature")
        if len(sig) < 5:
            raise CheckError("note: signature shorter than its key id")
        if name != verifier.name or sig[:4] != verifier.key_id:
            continue
        if len(sig) != 68 or not ed25519_verify(verifier.public_key,
                                                text.encode("utf-8"), sig[4:]):
            raise CheckError(f"note: signature by {name} does not verify")
        found = True
    if not found:
        raise CheckError(f"note: no signature by {verifier.name}+{verifier.key_id.hex()}")
    return text


class Checkpoint:
    """An opened checkpoint: origin, tree size, root hash, extension lines."""

    def __init__(self, origin, size, root, extensions):
        """Store the parsed fields."""
        self.origin, self.size, self.root, self.extensions = origin, size, root, extensions

    def __str__(self):
        """Short description, as the tools print it."""
        return f"{self.origin} {self.size} {self.root.hex()}"


def parse_checkpoint_text(text):
    """Parse the checkpoint body: origin, size, base64 root, extensions."""
    lines = text.split("\n")[:-1]
    if len(lines) < 3:
        raise CheckError("checkpoint: fewer than three lines")
    origin = lines[0]
    if not origin:
        raise CheckError("checkpoint: empty origin")
    size = parse_decimal(lines[1], "checkpoint size")
    root = b64decode_strict(lines[2], "checkpoint root", 32)
    if "" in lines[3:]:
        raise CheckError("checkpoint: an empty extension line")
    return Checkpoint(origin, size, root, lines[3:])


def verifier_for(note, vkey=None, raw_key=None):
    """The verifier to open `note` with: the verifier key, or the raw key
    under the origin that the note's first line names."""
    if vkey is not None:
        return vkey
    origin = note.split(b"\n", 1)[0].decode("utf-8", "replace")
    return Verifier(origin, raw_key)


def open_checkpoint(note, vkey=None, raw_key=None):
    """Open and parse a checkpoint note; the origin must be the key name."""
    verifier = verifier_for(note, vkey, raw_key)
    checkpoint = parse_checkpoint_text(open_note(note, verifier))
    if checkpoint.origin != verifier.name:
        raise CheckError(f"checkpoint: origin {checkpoint.origin!r} is not the key "
                         f"name {verifier.name!r}")
    return checkpoint


# ---------------------------------------------------------------------------
# Proof files: c2sp.org/tlog-proof@v1 and pyramid-referee/tlog-consistency@v1
# ---------------------------------------------------------------------------

TLOG_PROOF_MAGIC = "c2sp.org/tlog-proof@v1"
CONSISTENCY_MAGIC = "pyramid-referee/tlog-consistency@v1"


class InclusionProofFile:
    """A parsed .tlog-proof: extra data (or None), index, hashes, note."""

    def __init__(self, extra, index, hashes, note):
        """Store the parsed fields."""
        self.extra, self.index, self.hashes, self.note = extra, index, hashes, note


def parse_tlog_proof(data):
    """Parse a C2SP tlog-proof@v1 file (bytes)."""
    head, sep, note = data.partition(b"\n\n")
    if not sep:
        raise CheckError("tlog-proof: no blank line before the checkpoint")
    try:
        lines = head.decode("ascii").split("\n")
    except UnicodeDecodeError:
        raise CheckError("tlog-proof: non-ASCII proof header") from None
    if lines[0] != TLOG_PROOF_MAGIC:
        raise CheckError(f"tlog-proof: first line {lines[0][:40]!r}")
    pos, extra = 1, None
    if pos < len(lines) and lines[pos].startswith("extra "):
        extra = b64decode_strict(lines[pos][6:], "tlog-proof extra")
        pos += 1
    if pos >= len(lines) or not lines[pos].startswith("index "):
        raise CheckError("tlog-proof: no index line")
    index = parse_decimal(lines[pos][6:], "tlog-proof index")
    hashes = [b64decode_strict(h, "tlog-proof hash", 32) for h in lines[pos + 1:]]
    return InclusionProofFile(extra, index, hashes, note)


def parse_consistency_file(data):
    """Parse our consistency file: magic, `old N`, `new N`, hash lines."""
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        raise CheckError("consistency file: not ASCII") from None
    if not text.endswith("\n"):
        raise CheckError("consistency file: does not end in a newline")
    lines = text[:-1].split("\n")
    if len(lines) < 3 or lines[0] != CONSISTENCY_MAGIC:
        raise CheckError("consistency file: bad first line or too short")
    if not lines[1].startswith("old ") or not lines[2].startswith("new "):
        raise CheckError("consistency file: expected 'old N' and 'new N' lines")
    old = parse_decimal(lines[1][4:], "consistency old size")
    new = parse_decimal(lines[2][4:], "consistency new size")
    hashes = [b64decode_strict(h, "consistency hash", 32) for h in lines[3:]]
    return old, new, hashes


def check_consistency(old_note, new_note, proof_data, vkey=None, raw_key=None):
    """What `replay consistency` does: open both checkpoints (same origin,
    same key), match the file's sizes, verify the proof. Returns both."""
    old_cp = open_checkpoint(old_note, vkey, raw_key)
    new_cp = open_checkpoint(new_note, vkey, raw_key)
    if old_cp.origin != new_cp.origin:
        raise CheckError("consistency: checkpoints of different origins")
    old, new, hashes = parse_consistency_file(proof_data)
    if (old, new) != (old_cp.size, new_cp.size):
        raise CheckError(f"consistency: file is {old}->{new}, checkpoints are "
                         f"{old_cp.size}->{new_cp.size}")
    verify_consistency(old, new, old_cp.root, new_cp.root, hashes)
    return old_cp, new_cp


# ---------------------------------------------------------------------------
# Match logs (log-format.md): framing, header fields, chain-level check
# ---------------------------------------------------------------------------

LOG_MAGIC = b"PYRLOG\x00\x01"
MAX_RECORD = 16 * 1024 * 1024
D_LOG = b"pyramid-referee/log/v1\x00"
F_PREV_HASH, F_HEADER, F_SEAL = 1, 2, 11


def read_varint(buf, pos, max_bytes=10):
    """Read a minimal base-128 varint at `pos`; return (value, new pos)."""
    value = shift = 0
    for i in range(max_bytes):
        if pos + i >= len(buf):
            raise CheckError("truncated varint")
        b = buf[pos + i]
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            if i > 0 and b == 0:
                raise CheckError("non-minimal varint")
            return value, pos + i + 1
    raise CheckError("varint too long")


def parse_fields(buf):
    """Parse protobuf wire data into a list of (field, wire type, value)."""
    fields, pos = [], 0
    while pos < len(buf):
        tag, pos = read_varint(buf, pos)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            value, pos = read_varint(buf, pos)
        elif wire == 2:
            length, pos = read_varint(buf, pos)
            if pos + length > len(buf):
                raise CheckError("truncated length-delimited field")
            value, pos = buf[pos:pos + length], pos + length
        elif wire in (1, 5):
            width = 8 if wire == 1 else 4
            value, pos = buf[pos:pos + width], pos + width
        else:
            raise CheckError(f"unsupported wire type {wire}")
        fields.append((number, wire, value))
    return fields


def field(fields, number, default=None):
    """The last value of field `number` in parsed fields, or `default`."""
    values = [v for n, _, v in fields if n == number]
    return values[-1] if values else default


def split_records(data):
    """Split a log file into record bodies (log-format.md "Framing rules")."""
    if data[:8] != LOG_MAGIC:
        raise CheckError("log: bad or truncated magic")
    records, pos = [], 8
    while pos < len(data):
        length, body = read_varint(data, pos, max_bytes=4)
        if length > MAX_RECORD:
            raise CheckError(f"log: record of {length} bytes")
        if body + length > len(data):
            raise CheckError(f"log: record {len(records)} truncated")
        records.append(data[body:body + length])
        pos = body + length
    return records


class LogInfo:
    """What the tlog checks need from a log: header fields and sealing."""

    def __init__(self, match_id, label, seats, referee_key, sealed, game):
        """Store the fields."""
        self.match_id, self.label, self.seats = match_id, label, seats
        self.referee_key, self.sealed, self.game = referee_key, sealed, game


def read_header(record0):
    """Parse record 0's Header: match id, label, seat names, referee key,
    game id (Header.game.game)."""
    rec = parse_fields(record0)
    if field(rec, F_PREV_HASH) != bytes(32):
        raise CheckError("log: record 0's prev_hash is not 32 zero bytes")
    header = field(rec, F_HEADER)
    if header is None:
        raise CheckError("log: record 0 is not a header")
    h = parse_fields(header)
    if field(h, 1, 0) != 1:
        raise CheckError("log: format_version is not 1")
    match_id = field(h, 3, b"")
    if len(match_id) != 16:
        raise CheckError("log: match_id is not 16 bytes")
    seats = [field(parse_fields(s), 1, b"").decode("utf-8")
             for n, _, s in h if n == 5]
    game = field(parse_fields(field(h, 4, b"")), 1, b"").decode("utf-8")
    return (match_id, field(h, 12, b"").decode("utf-8"), seats, field(h, 6, b""),
            game)


def check_chain(records):
    """Check every record's prev_hash against the previous stored bytes."""
    for i in range(1, len(records)):
        if field(parse_fields(records[i]), F_PREV_HASH) != sha256(records[i - 1]):
            raise CheckError(f"log: record {i}: prev_hash breaks the hash chain")


def check_seal(records, match_id, referee_key):
    """Check the seal (last record): record_count, chain_hash, Ed25519 over
    D_l || match_id || u64be(record_count) || chain_hash. False if none."""
    seal = field(parse_fields(records[-1]), F_SEAL)
    if seal is None:
        return False
    s = parse_fields(seal)
    count, chain_hash, sig = field(s, 1, 0), field(s, 2, b""), field(s, 3, b"")
    if count != len(records) - 1:
        raise CheckError("log: seal record_count is not its index")
    if chain_hash != sha256(records[-2]):
        raise CheckError("log: seal chain_hash is not the previous record's hash")
    message = D_LOG + match_id + struct.pack(">Q", count) + chain_hash
    if not ed25519_verify(referee_key, message, sig):
        raise CheckError("log: seal signature does not verify")
    return True


def check_log(data, pinned_key=None):
    """Chain-level check of a log file; return its LogInfo. Raise on a log
    that is not genuine; `sealed` is False for an unsealed prefix."""
    records = split_records(data)
    if not records:
        raise CheckError("log: no records")
    match_id, label, seats, key, game = read_header(records[0])
    if len(key) != 32:
        raise CheckError("log: referee_public_key is not 32 bytes")
    if pinned_key is not None and key != pinned_key:
        raise CheckError("log: signed by another referee key than the pinned one")
    check_chain(records)
    sealed = len(records) > 1 and check_seal(records, match_id, key)
    return LogInfo(match_id, label, seats, key, sealed, game)


def check_inclusion(proof_data, log_data, vkey=None, raw_key=None, log_key=None):
    """What the doc's "by hand" steps and `replay verify --inclusion` do:
    open the proof's checkpoint, verify SHA-256(log) at `index`, compare
    the extra data with the log's match id, check the log. Returns
    (checkpoint, index)."""
    proof = parse_tlog_proof(proof_data)
    info = check_log(log_data, log_key)
    checkpoint = open_checkpoint(proof.note, vkey, raw_key or info.referee_key)
    verify_inclusion(proof.index, checkpoint.size, log_leaf_hash(log_data),
                     proof.hashes, checkpoint.root)
    if proof.extra != info.match_id.hex().encode("ascii"):
        raise CheckError(f"inclusion: extra {proof.extra!r} is not the log's match id "
                         f"{info.match_id.hex()}")
    return checkpoint, proof.index


# ---------------------------------------------------------------------------
# Tournaments ("Tournaments": replay verify-tournament's six checks)
# ---------------------------------------------------------------------------

# The key files, in the order the summary names them when both are there.
KEY_FILES = ("referee.key.pub", "referee.pub")


def load_tournament(path):
    """Read a tournament output directory into a dict of bytes, so that
    the self-test can tamper with a copy in memory."""
    def read(name):
        """The bytes of DIR/name, or None when it is not a file."""
        full = os.path.join(path, name)
        return open(full, "rb").read() if os.path.isfile(full) else None

    def read_dir(sub, suffix):
        """{name without suffix: bytes} of DIR/sub/*suffix."""
        d = os.path.join(path, sub)
        names = sorted(os.listdir(d)) if os.path.isdir(d) else []
        return {n[:-len(suffix)]: read(os.path.join(sub, n))
                for n in names if n.endswith(suffix)
                and os.path.isfile(os.path.join(d, n))}

    return {
        "checkpoint": read("checkpoint"),
        "schedule": read("schedule.json"),
        # {file name: bytes} of the key files there. Both may exist; then
        # they must hold the same key (check 1). Which of them is there also
        # says which referee it was (check 6).
        "keys": {n: read(n) for n in KEY_FILES if read(n) is not None},
        # The tournament file as the runner copied it before play; required
        # (check 7).
        "tournament_txt": read("tournament.txt"),
        "logs": read_dir("logs", ".pyrlog"),
        "proofs": read_dir("proofs", ".tlog-proof"),
        # Logs the runner set aside on a resume (check 6).
        "superseded": read_dir("superseded", ".pyrlog"),
        # Check 7 needs the ratings of docs/tournament.md, which this
        # checker does not implement: it only says, as verify-tournament
        # does, when the directory holds none (the test data hold none).
        "results": read("results.json"),
    }


def write_tournament(files, path):
    """Write a loaded (or built) directory to `path`, as load_tournament
    reads it (for --self-test --replay)."""
    os.makedirs(path)

    def write(rel, data):
        """Write DIR/rel, making its folder."""
        full = os.path.join(path, rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)

    for rel, key in (("checkpoint", "checkpoint"), ("schedule.json", "schedule"),
                     ("tournament.txt", "tournament_txt")):
        if files.get(key) is not None:
            write(rel, files[key])
    for name, data in files["keys"].items():
        write(name, data)
    for sub, key, suffix in (("logs", "logs", ".pyrlog"), ("proofs", "proofs", ".tlog-proof"),
                             ("superseded", "superseded", ".pyrlog")):
        for name, data in files.get(key, {}).items():
            write(os.path.join(sub, name + suffix), data)


SCHEDULE_FIELDS = {"name": "name", "game": "game", "run_id": "run_id",
                   "runId": "run_id", "matches": "matches"}
ENTRY_FIELDS = {"index": "index", "label": "label", "seats": "seats",
                "skipped": "skipped"}


def proto_json_fields(obj, fields, what):
    """Map a proto3-JSON object onto proto field names. Both the proto name
    and its lowerCamelCase JSON name are accepted; unknown fields are
    refused, as protobuf's JSON parser (and verify-tournament) does."""
    if not isinstance(obj, dict):
        raise CheckError(f"{what}: not a JSON object")
    out = {}
    for key, value in obj.items():
        if key not in fields:
            raise CheckError(f"{what}: unknown field {key!r}")
        if fields[key] in out:
            raise CheckError(f"{what}: field {key!r} given twice")
        if value is not None:
            out[fields[key]] = value
    return out


def json_uint32(value, what):
    """A uint32 in schedule.json: a JSON number without fraction or exponent
    (the doc refuses the decimal string and the 1.0 that proto3 JSON also
    reads, since other JSON tools read them otherwise)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**32:
        raise CheckError(f"{what}: {value!r} is not a uint32")
    return value


def json_typed(value, kind, what):
    """`value` if it is of JSON type `kind` (str, bool or list of str)."""
    ok = (all(isinstance(v, str) for v in value) if kind is list and isinstance(value, list)
          else isinstance(value, kind) and kind is not list)
    if not ok:
        raise CheckError(f"{what}: {value!r} has the wrong JSON type")
    return value


def strict_json(data):
    """json.loads, refusing what JSON readers read differently (the doc:
    schedule.json is strict JSON with no key twice in one object), which
    Python's reader would otherwise take: a key twice (the last one wins
    there) and NaN or Infinity."""
    def pairs(items):
        seen = {}
        for key, value in items:
            if key in seen:
                raise CheckError(f"schedule.json: the key {key!r} appears twice in one object")
            seen[key] = value
        return seen

    def constant(name):
        raise ValueError(f"{name} is not JSON")
    return json.loads(data, object_pairs_hook=pairs, parse_constant=constant)


def parse_schedule(data):
    """Parse schedule.json (TournamentSchedule in proto3 JSON; absent
    fields take their defaults, e.g. entry 0 has no "index"). Returns
    (name, game, run_id, [entry dicts with index, label, seats, skipped])."""
    if data is None:
        raise CheckError("schedule.json: missing")
    try:
        top = proto_json_fields(strict_json(data), SCHEDULE_FIELDS, "schedule.json")
    except ValueError as err:
        raise CheckError(f"schedule.json: not JSON ({err})") from None
    matches, entries = top.get("matches", []), []
    if not isinstance(matches, list):
        raise CheckError("schedule.json: matches is not a list")
    for i, raw in enumerate(matches):
        e = proto_json_fields(raw, ENTRY_FIELDS, f"schedule.json entry {i}")
        entries.append({
            "index": json_uint32(e.get("index", 0), f"entry {i} index"),
            "label": json_typed(e.get("label", ""), str, f"entry {i} label"),
            "seats": json_typed(e.get("seats", []), list, f"entry {i} seats"),
            "skipped": json_typed(e.get("skipped", False), bool, f"entry {i} skipped"),
        })
    name = json_typed(top.get("name", ""), str, "schedule name")
    run_id = json_typed(top.get("run_id", ""), str, "schedule run_id")
    game = json_typed(top.get("game", ""), str, "schedule game")
    return name, game, run_id, entries


# tournament.txt is a `Tournament` (proto/pyramid/referee/v1/tournament.proto)
# in protobuf's text format. The doc asks only that it "reads as a
# Tournament of the schedule's name and game with an sprt", so this reads
# what that needs and no more, without protoc or generated code:
#   * a generic text-format parser (fields `name: value` or `name {...}` /
#     `name <...>` / `name: {...}`, `[a, b]` lists, `#` comments, optional
#     `,` / `;` separators, adjacent strings concatenated, C escapes,
#     numbers, identifiers) that refuses bad syntax;
#   * at the top level: only Tournament's field names (an unknown field
#     makes the file unreadable, as a protobuf text parser has it), a
#     singular field at most once, each a message or a scalar as its type
#     is, string fields valid UTF-8; the same inside `game` (GameConfig)
#     and `sprt` (SprtSettings);
#   * the values read: `name` (empty or absent: "tournament", the proto's
#     default for Tournament.name), `game { game: "..." }`, and whether
#     `sprt` is present (proto3 message presence: `sprt {}` is present).
#   * for check 7's "tournament.txt made the schedule", what the doc states
#     without the runner's code: `seats` (a match's seats), the bots' names
#     (every seat of the schedule is one of them), `format`, and that an
#     `sprt` is the runner's only with 2 bots, 2 seats and the round-robin
#     format. Scheduling a round robin or gauntlet again (the runner's
#     MakeSchedule, its seeded order) is replay's: not done here.
# Not checked: the content of the other nested messages (clocks, the
# game's options) beyond their syntax, numeric ranges and enum names.
TOURNAMENT_FIELDS = {
    "name": "string", "game": "message", "seats": "number", "bots": "repeated message",
    "format": "enum", "rounds": "number", "concurrency": "number", "clocks": "message",
    "forfeit_policy": "enum", "referee": "string", "admin_token_file": "string",
    "output_dir": "string", "seed": "number", "referee_key": "string",
    "sprt": "message", "signing_key_file": "string"}
GAME_CONFIG_FIELDS = {
    "game": "string", "rock_paper_pyramid": "message", "pyramid_shambo": "message",
    "flaming_pyramids": "message", "pyramid_scheme": "message"}
SPRT_FIELDS = {"elo0": "number", "elo1": "number", "alpha": "number", "beta": "number"}
DEFAULT_TOURNAMENT_NAME = "tournament"

TEXT_TOKEN = re.compile(r"""
    (?P<space>[ \t\r\n\f\v]+|\#[^\n]*)
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<number>(?:0[xX][0-9a-fA-F]+|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)[fF]?)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<punct>[{}<>\[\]:;,\-])
""", re.VERBOSE)
TEXT_ESCAPES = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11,
                "\\": 92, "'": 39, '"': 34, "?": 63}


def text_tokens(text):
    """Tokenize protobuf text format: [(kind, text, line)], comments and
    spaces dropped."""
    tokens, pos, line = [], 0, 1
    while pos < len(text):
        m = TEXT_TOKEN.match(text, pos)
        if not m:
            raise CheckError(f"line {line}: unexpected {text[pos:pos + 10]!r}")
        if m.lastgroup != "space":
            tokens.append((m.lastgroup, m.group(), line))
        line += m.group().count("\n")
        pos = m.end()
    return tokens


def text_unescape(quoted, line):
    """The bytes of one quoted text-format string (C escapes)."""
    body, out, i = quoted[1:-1], bytearray(), 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
            continue
        e = body[i + 1]
        if e in TEXT_ESCAPES:
            out.append(TEXT_ESCAPES[e])
            i += 2
        elif e in "01234567":
            m = re.match(r"[0-7]{1,3}", body[i + 1:])
            if int(m.group(), 8) > 255:
                raise CheckError(f"line {line}: octal escape out of range")
            out.append(int(m.group(), 8))
            i += 1 + len(m.group())
        elif e in "xX":
            m = re.match(r"[0-9a-fA-F]{1,2}", body[i + 2:])
            if not m:
                raise CheckError(f"line {line}: bad \\x escape")
            out.append(int(m.group(), 16))
            i += 2 + len(m.group())
        elif e in "uU":
            width = 4 if e == "u" else 8
            digits = body[i + 2:i + 2 + width]
            if not re.fullmatch(r"[0-9a-fA-F]{%d}" % width, digits) or int(digits, 16) > 0x10FFFF:
                raise CheckError(f"line {line}: bad \\{e} escape")
            out += chr(int(digits, 16)).encode("utf-8", "surrogatepass")
            i += 2 + width
        else:
            raise CheckError(f"line {line}: unknown escape \\{e}")
    return bytes(out)


class TextParser:
    """A recursive-descent parser of protobuf text format without a schema:
    a message is a list of (field name, value, line); a value is
    ("message", [...]), ("string", bytes), ("number", text) or
    ("ident", text)."""

    def __init__(self, text):
        """Tokenize `text`."""
        self.tokens, self.pos = text_tokens(text), 0

    def peek(self, offset=0):
        """The token `offset` ahead, or ("end", "", last line)."""
        i = self.pos + offset
        if i < len(self.tokens):
            return self.tokens[i]
        return ("end", "", self.tokens[-1][2] if self.tokens else 1)

    def take(self, kind=None, text=None):
        """Consume the next token, requiring its kind and/or text."""
        tok = self.peek()
        if (kind and tok[0] != kind) or (text is not None and tok[1] != text):
            raise CheckError(f"line {tok[2]}: expected {text or kind}, found "
                             f"{tok[1] or 'the end'!r}")
        self.pos += 1
        return tok

    def message(self, close=None):
        """Fields until `close` ("}" or ">"), or the end at the top level."""
        fields = []
        while True:
            tok = self.peek()
            if close is None and tok[0] == "end":
                return fields
            if close is not None and tok[1] == close:
                self.pos += 1
                return fields
            name, line = self.take("ident")[1], tok[2]
            colon = self.peek()[1] == ":"
            if colon:
                self.pos += 1
            if self.peek()[1] == "[" and colon:
                self.pos += 1
                if self.peek()[1] != "]":
                    while True:
                        fields.append((name, self.value(colon=True), line, True))
                        if self.peek()[1] != ",":
                            break
                        self.pos += 1
                self.take(text="]")
            else:
                fields.append((name, self.value(colon), line, False))
            if self.peek()[1] in (";", ","):
                self.pos += 1

    def value(self, colon):
        """A field's value: a message, or (after a colon) a scalar."""
        tok = self.peek()
        if tok[1] in ("{", "<"):
            self.pos += 1
            return ("message", self.message("}" if tok[1] == "{" else ">"))
        if not colon:
            raise CheckError(f"line {tok[2]}: expected ':' or '{{' after a field name")
        if tok[0] == "string":
            out = b""
            while self.peek()[0] == "string":
                t = self.take()
                out += text_unescape(t[1], t[2])
            return ("string", out)
        if tok[1] == "-":
            self.pos += 1
            t = self.peek()
            if t[0] != "number" and t[1].lower() not in ("inf", "infinity", "nan"):
                raise CheckError(f"line {t[2]}: expected a number after '-'")
            self.pos += 1
            return ("number", "-" + t[1])
        if tok[0] in ("number", "ident"):
            self.pos += 1
            return (tok[0], tok[1])
        raise CheckError(f"line {tok[2]}: expected a value, found {tok[1] or 'the end'!r}")


def typed_fields(fields, schema, what):
    """Check parsed text-format fields against `schema` ({name: kind});
    return {name: [values]}."""
    out = {}
    for name, value, line, in_list in fields:
        kind = schema.get(name)
        if kind is None:
            raise CheckError(f"{what}: line {line}: no field {name!r}")
        repeated = kind.startswith("repeated ")
        base = kind.split(" ")[-1]
        if name in out and not repeated:
            raise CheckError(f"{what}: line {line}: {name} given twice")
        if in_list and not repeated:
            raise CheckError(f"{what}: line {line}: a list for the singular {name}")
        ok = {"message": value[0] == "message", "string": value[0] == "string",
              "number": value[0] == "number" or (value[0] == "ident" and value[1].lower()
                                                 in ("inf", "infinity", "nan")),
              "enum": value[0] in ("ident", "number")}[base]
        if not ok:
            raise CheckError(f"{what}: line {line}: {name} is not a {base}")
        if base == "string":
            try:
                value = ("string", value[1].decode("utf-8"))
            except UnicodeDecodeError:
                raise CheckError(f"{what}: line {line}: {name} is not UTF-8") from None
        out.setdefault(name, []).append(value)
    return out


def parse_tournament_txt(data):
    """Read tournament.txt (see above); return (name, game id, has sprt,
    {"seats": N, "bots": [names], "format": NAME})."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise CheckError("tournament.txt: not UTF-8") from None
    try:
        top = typed_fields(TextParser(text).message(), TOURNAMENT_FIELDS, "Tournament")
        game = ""
        if "game" in top:
            config = typed_fields(top["game"][0][1], GAME_CONFIG_FIELDS, "game")
            game = config.get("game", [("string", "")])[0][1]
        if "sprt" in top:
            typed_fields(top["sprt"][0][1], SPRT_FIELDS, "sprt")
    except CheckError as err:
        raise CheckError(f"tournament.txt: not a Tournament in text format ({err})") from None
    name = top.get("name", [("string", "")])[0][1] or DEFAULT_TOURNAMENT_NAME
    bots = []
    for bot in top.get("bots", []):
        names = [v for n, v, _, _ in bot[1] if n == "name"]
        bots.append(names[0][1].decode("utf-8", "replace") if names else "")
    shape = {"seats": int(float(top.get("seats", [("number", "0")])[0][1])),
             "bots": bots,
             "format": str(top.get("format", [("ident", "ROUND_ROBIN")])[0][1])}
    return name, game, "sprt" in top, shape


def check_tournament_txt(name, game, entries, tournament_txt):
    """Check 7's binding of tournament.txt (results.json or not): the
    directory must hold it (the runner writes it before it plays; without
    it nobody can tell whether schedule.json lists every match), it must
    be the schedule's tournament (name and game) and have made the
    schedule, of which this checks what the doc states (see above).
    Returns (problems, has_sprt): has_sprt is None unless it passes."""
    if tournament_txt is None:
        return ["there is no tournament.txt, which the runner writes before it "
                "plays: without it nobody can tell whether schedule.json lists "
                "every match"], None
    try:
        t_name, t_game, has_sprt, shape = parse_tournament_txt(tournament_txt)
    except CheckError as err:
        return [str(err)], None
    if t_name != name:
        return [f"tournament.txt is of tournament {t_name!r}, the schedule's is {name!r}"], None
    if t_game != game:
        return [f"tournament.txt is of game {t_game!r}, the schedule's is {game!r}"], None
    round_robin = shape["format"] in ("ROUND_ROBIN", "TOURNAMENT_FORMAT_UNSPECIFIED", "0", "1")
    if has_sprt and not (round_robin and len(shape["bots"]) == 2 and shape["seats"] == 2):
        return ["tournament.txt did not make the schedule: an sprt is the runner's only "
                "with 2 bots, 2 seats and the round-robin format"], None
    seats = len(entries[0]["seats"]) if entries else 0
    if shape["seats"] != seats:
        return [f"tournament.txt did not make the schedule: {shape['seats']} seats, "
                f"schedule.json's match 0 {seats}"], None
    strangers = sorted({b for e in entries for b in e["seats"]} - set(shape["bots"]))
    if strangers:
        return [f"tournament.txt did not make the schedule: {strangers[0]!r} is none "
                f"of its bots"], None
    return [], has_sprt


def check_schedule(name, run_id, entries):
    """Check 2: at least one entry; entries numbered 0, 1, ... without a
    gap, each labelled NAME/RUN_ID/INDEX. Returns (problems, {label: entry})."""
    problems, by_label = [], {}
    if not entries:
        problems.append("schedule: it lists no match")
    for i, entry in enumerate(entries):
        want = f"{name}/{run_id}/{i}"
        if entry["index"] != i:
            problems.append(f"schedule: entry {i} has index {entry['index']}")
        if entry["label"] != want:
            problems.append(f"schedule: entry {i} is labelled {entry['label']!r}, not {want!r}")
        by_label[entry["label"]] = entry
    return problems, by_label


def check_skipped(entries, tournament_txt, has_sprt):
    """Check 5's rule for skipped matches (the "Tournaments" paragraph on
    ScheduleEntry.skipped): a schedule whose every match is skipped is a
    problem; a match marked skipped is one unless tournament.txt is there,
    reads as a Tournament of the schedule's name and game that made the
    schedule (check_tournament_txt's `has_sprt` not None) with an sprt,
    and every match after it is skipped too."""
    skipped = [i for i, e in enumerate(entries) if e["skipped"]]
    if not skipped:
        return []
    problems = []
    if len(skipped) == len(entries):
        problems.append(f"schedule: every match ({len(entries)}) is marked skipped")
    played = [i for i, e in enumerate(entries) if not e["skipped"]]
    for i in skipped:
        if played and i < played[-1]:
            problems.append(f"schedule: match {i} is marked skipped, but match "
                            f"{played[-1]} after it is not (the runner skips only "
                            f"matches never started, which come last)")
    why = None
    if tournament_txt is None:
        why = "there is no tournament.txt"
    elif has_sprt is None:
        why = "tournament.txt did not make the schedule"
    elif not has_sprt:
        why = "tournament.txt has no sprt"
    if why:
        listed = ", ".join(str(i) for i in skipped)
        problems.append(f"schedule: {len(skipped)} match(es) marked skipped ({listed}), "
                        f"but only a decided SPRT skips and {why}")
    return problems


def tournament_key(files, vkey=None, raw_key=None):
    """Check 1's key: --tlog_key, else --key, else the directory's key
    file. Returns (vkey, raw key, origin): origin names the key file(s)
    the key was taken from, None when it was pinned."""
    if vkey is not None:
        return vkey, vkey.public_key, None
    if raw_key is not None:
        return None, raw_key, None
    if not files["keys"]:
        raise CheckError("no referee.pub or referee.key.pub in the directory")
    keys = {parse_hex_key(k.decode("ascii", "replace")) for k in files["keys"].values()}
    if len(keys) != 1:
        raise CheckError("referee.pub and referee.key.pub hold different keys")
    return None, keys.pop(), " and ".join(n for n in KEY_FILES if n in files["keys"])


def problem_count(n):
    """"1 problem", "2 problems": the summary when checks fail."""
    return f"{n} problem" + ("" if n == 1 else "s")


def key_origin(key, origin):
    """The summary's ending when the key came from the directory."""
    if origin is None:
        return ""
    return (f" (referee key {key.hex()} taken from the directory itself, {origin}; "
            f"pin it with --key)")


def same_tree(a, b):
    """Whether two opened checkpoints name the same tree. The doc says a
    proof's checkpoint names the same origin, size and root as the
    directory's (its note may differ, e.g. by a witness's cosignature)."""
    return (a.origin, a.size, a.root) == (b.origin, b.size, b.root)


def check_log_proof(name, data, info, proof_data, checkpoint, key):
    """Check 4's proof part: the proof's checkpoint is the directory's, the
    log's leaf is at `index` in it, and `extra` is the log's match id.
    Returns that index."""
    proof = parse_tlog_proof(proof_data)
    proof_cp = open_checkpoint(proof.note, raw_key=key)
    if not same_tree(proof_cp, checkpoint):
        raise CheckError(f"proof is against another checkpoint ({proof_cp})")
    if proof.extra != info.match_id.hex().encode("ascii"):
        raise CheckError(f"proof is for match {proof.extra!r}, the log is {info.match_id.hex()}")
    verify_inclusion(proof.index, checkpoint.size, log_leaf_hash(data),
                     proof.hashes, checkpoint.root)
    return proof.index


def check_tournament_log(name, data, proof_data, checkpoint, key, entries,
                         game):
    """Checks 3 and 4 for one log. Returns (problems, notes, label,
    proof_examined, leaf): `label` is the schedule label the log counts for
    (None if it does not count), `leaf` its index in the checkpoint."""
    where = f"logs/{name}.pyrlog"
    try:
        info = check_log(data, key)
    except CheckError as err:
        return [f"{where}: NOT GENUINE: {err}"], [], None, False, None
    if not info.sealed:
        return [], [f"{where}: unsealed prefix, not counted"], None, False, None
    if info.game != game:
        return [f"{where}: a {info.game!r} match, the schedule's game is {game!r}"], \
            [], None, False, None
    entry = entries.get(info.label)
    if entry is None:
        return [f"{where}: label {info.label!r} is not in the schedule"], [], None, False, None
    if entry["skipped"]:
        return [f"{where}: {info.label!r} is scheduled as skipped"], [], None, False, None
    if entry["seats"] != info.seats:
        return [f"{where}: seats {info.seats} are not the scheduled {entry['seats']}"], \
            [], None, False, None
    if proof_data is None:
        return [f"{where}: no proof of inclusion (proofs/{name}.tlog-proof)"], [], None, False, None
    try:
        leaf = check_log_proof(name, data, info, proof_data, checkpoint, key)
    except CheckError as err:
        return [f"proofs/{name}.tlog-proof: {err}"], [], None, True, None
    return [], [], info.label, True, leaf


def sealed_log_hash(data, key):
    """(SHA-256 of the file, its LogInfo) for a genuine sealed log signed by
    `key`, else None: what counts as a sealed log for check 6."""
    try:
        info = check_log(data, key)
    except CheckError:
        return None
    return (sha256(data), info) if info.sealed else None


def check_tree_size(files, checkpoint, key, entries):
    """Check 6. With the embedded referee (referee.key.pub and no
    referee.pub) the checkpoint's size must be the number of distinct
    sealed logs in logs/ and superseded/ (those of superseded/ only with a
    label of the schedule, each said in a note); otherwise a note gives
    both numbers. Returns (problems, notes).

    The doc leaves open what makes a log "sealed" here; this takes a file
    that verifies (at this checker's chain level) against the referee's key
    and ends in a seal, "distinct" as a distinct SHA-256 of the file (the
    leaf data), and a label "of the schedule" as any entry's label."""
    hashes, notes = set(), []
    for data in files["logs"].values():
        found = sealed_log_hash(data, key)
        if found:
            hashes.add(found[0])
    in_logs = len(hashes)
    for name, data in sorted(files.get("superseded", {}).items()):
        found = sealed_log_hash(data, key)
        if not found or found[1].label not in entries:
            continue
        if found[0] not in hashes:
            hashes.add(found[0])
            notes.append(f"superseded/{name}.pyrlog: a sealed log labelled "
                         f"{found[1].label!r}, counted toward the checkpoint's size: its "
                         f"match was played again, so its label stands twice in the tree")
    count = len(hashes)
    keys = files["keys"]
    if "referee.key.pub" in keys and "referee.pub" not in keys:
        if checkpoint.size != count:
            missing = checkpoint.size - count
            detail = (f"{missing} sealed log(s) of this tournament not in the directory "
                      "(a match played again after its log was lost, or a log removed)"
                      if missing > 0 else
                      f"{-missing} sealed log(s) more than the tree holds")
            return [f"the checkpoint holds {checkpoint.size} logs and the directory "
                    f"{count}: {detail}; the embedded referee's tree (referee.key.pub, "
                    f"no referee.pub) holds this tournament's logs and nothing else"], notes
        return [], notes
    which = ("referee.pub, a running referee's, whose tree holds other matches too"
             if "referee.pub" in keys else
             "neither key file, so which referee it was is not known")
    notes.append(f"the checkpoint holds {checkpoint.size} logs, the directory {count} "
                 f"sealed logs ({in_logs} in logs/): the directory holds {which}; the "
                 f"size is not checked (with the embedded referee it is)")
    return [], notes


def leaf_span(indexes):
    """How the summary names the leaves of the counted logs: `leaf F`,
    `leaves F..L`, or `N of leaves F..L` when others lie between them."""
    first, last = min(indexes), max(indexes)
    if first == last:
        return f"leaf {first}"
    if last - first + 1 == len(indexes):
        return f"leaves {first}..{last}"
    return f"{len(indexes)} of leaves {first}..{last}"


def quoted(text):
    """A name as the summary prints it: in double quotes, a backslash and a
    double quote escaped, controls as escapes (the doc's rule; the names
    of the test data hold nothing else that it escapes)."""
    out = []
    for ch in text:
        if ch in '\\"':
            out.append("\\" + ch)
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def check_tournament(files, vkey=None, raw_key=None):
    """The checks of verify-tournament over a loaded directory: the first
    six; of the seventh (results.json), only the note when there is none.
    Returns (problems, notes, summary): the summary is the line that the
    doc has verify-tournament print (`N matches, all included in
    checkpoint SIZE ROOT as leaves F..L: tournament "NAME", run "RUN_ID",
    game GAME`, or the problem count), ending with where the key came from
    when no key was given."""
    key, origin = None, None
    try:
        vkey, key, origin = tournament_key(files, vkey, raw_key)
        if files["checkpoint"] is None:
            raise CheckError("no checkpoint file")
        checkpoint = open_checkpoint(files["checkpoint"], vkey, key)
        name, game, run_id, schedule = parse_schedule(files["schedule"])
        if not game:
            raise CheckError("schedule.json: the schedule names no game")
    except CheckError as err:
        return [str(err)], [], problem_count(1) + (key_origin(key, origin) if key else "")
    problems, entries = check_schedule(name, run_id, schedule)
    txt_problems, has_sprt = check_tournament_txt(name, game, schedule,
                                                  files.get("tournament_txt"))
    problems += txt_problems
    problems += check_skipped(schedule, files.get("tournament_txt"), has_sprt)
    notes, counted, examined, leaves = [], {}, set(), {}
    for log_name, data in sorted(files["logs"].items()):
        found, note, label, proof_examined, leaf = check_tournament_log(
            log_name, data, files["proofs"].get(log_name), checkpoint, key, entries,
            game)
        problems += found
        notes += note
        if proof_examined:
            examined.add(log_name)
        if label is not None:
            counted.setdefault(label, []).append(log_name)
            leaves[label] = leaf
    for entry in schedule:
        count = len(counted.get(entry["label"], []))
        if not entry["skipped"] and count != 1:
            problems.append(f"schedule: match {entry['index']} ({entry['label']}) has "
                            f"{count} sealed, included logs, expected 1")
    for proof_name in sorted(set(files["proofs"]) - examined):
        problems.append(f"proofs/{proof_name}.tlog-proof: a proof without a counted log")
    found, note = check_tree_size(files, checkpoint, key, entries)
    problems += found
    notes += note
    if files.get("results") is None:
        notes.append("the directory holds no results.json: no standings to check")
    played = sum(1 for e in schedule if not e["skipped"])
    summary = (problem_count(len(problems)) if problems else
               f"{played} matches, all included in checkpoint "
               f"{checkpoint.size} {checkpoint.root.hex()} as "
               f"{leaf_span([leaves[e['label']] for e in schedule if not e['skipped']])}"
               f": tournament {quoted(name)}, run {quoted(run_id)}, game {game}")
    return problems, notes, summary + key_origin(key, origin)


# ---------------------------------------------------------------------------
# Self-test: the doc's vectors, testdata, and tampering
# ---------------------------------------------------------------------------

VECTOR_LEAVES = ["", "00", "10", "2021", "3031", "40414243",
                 "5051525354555657", "606162636465666768696a6b6c6d6e6f"]
ROOT_7 = "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c"
ROOT_3 = "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77"
LEAF_5 = "4271a26be0d8a84f0bd54c8c302e7cb3a3b5d1fa6780a40bcce2873477dab658"
PATH_5_OF_7 = ["bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
               "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
               "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]
PROOF_3_TO_7 = ["0298d122906dcfc10892cb53a73992fc5b9f493ea4c9badb27b791b4127a7fe7",
                "07506a85fd9dd2f120eb694f86011e5bb4662e5c415a62917033d4a9624487e7",
                "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
                "837dbb152e9b079010717e84e865da4ebc0fa198a806d59d31bf15accef22d0e"]
WITNESS_LINE = "\u2014 witness.example AAAAAAAAAAAA\n".encode()
DOC_VKEY = "pyramid-referee/84c5b30cb33a0e5d+6bddd573+AYTFswyzOg5dn61a1oxHNBmeXGRPv9D4wWBcFVjhHWHW"


class Reporter:
    """Runs named checks, prints one line each, remembers failures."""

    def __init__(self):
        """Start with no failures."""
        self.failures = 0

    def expect_ok(self, name, func):
        """Run `func`; PASS if it raises no CheckError/AssertionError."""
        try:
            detail = func()
        except (CheckError, AssertionError) as err:
            self.failures += 1
            print(f"FAIL {name}: {err}")
            return
        print(f"PASS {name}" + (f": {detail}" if detail else ""))

    def expect_reject(self, name, func, reason=None):
        """Run `func`; PASS only if it raises CheckError (a rejection) and,
        when `reason` is given, the rejection says it (so that a case is
        rejected for what it was made for, not for something incidental)."""
        try:
            func()
        except CheckError as err:
            if reason is not None and reason not in str(err):
                self.failures += 1
                print(f"FAIL {name}: rejected, but not for {reason!r} ({err})")
                return
            print(f"PASS {name}: rejected ({err})")
            return
        self.failures += 1
        print(f"FAIL {name}: accepted, but should have been rejected")


def require(cond, message):
    """AssertionError with `message` unless `cond` (used by self-tests)."""
    if not cond:
        raise AssertionError(message)


def vector_leaf_hashes(count=7):
    """Leaf hashes of the doc's first `count` test-vector leaves."""
    return [leaf_hash(bytes.fromhex(h)) for h in VECTOR_LEAVES[:count]]


def test_vectors(rep):
    """The doc's "Test vectors" section."""
    hashes = vector_leaf_hashes()
    hx = [bytes.fromhex(h) for h in PATH_5_OF_7]
    cx = [bytes.fromhex(h) for h in PROOF_3_TO_7]
    rep.expect_ok("vectors: empty tree root = SHA-256()",
                  lambda: require(mth([]).hex() == sha256(b"").hex(), "MTH({})"))
    rep.expect_ok("vectors: leaf hash of leaf 5 (40414243)",
                  lambda: require(hashes[5].hex() == LEAF_5, hashes[5].hex()))
    rep.expect_ok("vectors: root of 7 leaves",
                  lambda: require(mth(hashes).hex() == ROOT_7, mth(hashes).hex()))
    rep.expect_ok("vectors: root of the first 3",
                  lambda: require(mth(hashes[:3]).hex() == ROOT_3, mth(hashes[:3]).hex()))
    rep.expect_ok("vectors: PATH(5, D[7]) generated = doc's",
                  lambda: require(inclusion_path(5, hashes) == hx, "path differs"))
    rep.expect_ok("vectors: inclusion of leaf 5 in 7 verifies (RFC 9162 2.1.3.2)",
                  lambda: verify_inclusion(5, 7, hashes[5], hx, bytes.fromhex(ROOT_7)))
    rep.expect_ok("vectors: PROOF(3, D[7]) generated = doc's",
                  lambda: require(consistency_proof(3, hashes) == cx, "proof differs"))
    rep.expect_ok("vectors: consistency 3 -> 7 verifies (RFC 9162 2.1.4.2)",
                  lambda: verify_consistency(3, 7, bytes.fromhex(ROOT_3),
                                             bytes.fromhex(ROOT_7), cx))
    rep.expect_ok("vectors: every inclusion and consistency proof of trees 1..8",
                  lambda: all_proofs_roundtrip(vector_leaf_hashes(8)))
    rep.expect_ok("vectors: doc claim: leaf 0's proof in 5 also verifies as size 7",
                  lambda: size_ambiguity_claim(vector_leaf_hashes(5)))
    test_vector_tampering(rep, hashes, hx, cx)


def all_proofs_roundtrip(hashes):
    """Generate and verify every PATH and PROOF for trees of 1..len leaves."""
    for n in range(1, len(hashes) + 1):
        root = mth(hashes[:n])
        for m in range(n):
            verify_inclusion(m, n, hashes[m], inclusion_path(m, hashes[:n]), root)
        for m in range(1, n + 1):
            verify_consistency(m, n, mth(hashes[:m]), root,
                               consistency_proof(m, hashes[:n]))
    return f"trees of 1..{len(hashes)} leaves"


def size_ambiguity_claim(hashes5):
    """The doc says the same hashes prove leaf 0 of a tree of 5 and of 7
    against the same root: check it, so that sizes must come from a signed
    checkpoint."""
    root = mth(hashes5)
    path = inclusion_path(0, hashes5)
    verify_inclusion(0, 5, hashes5[0], path, root)
    verify_inclusion(0, 7, hashes5[0], path, root)
    return "true: the size must come from a signed checkpoint"


def test_vector_tampering(rep, hashes, hx, cx):
    """Changed leaves, proof hashes and indices must be rejected."""
    root7, root3 = bytes.fromhex(ROOT_7), bytes.fromhex(ROOT_3)
    bad_leaf = leaf_hash(bytes.fromhex("40414244"))
    bad_hx = [hx[0], flip(hx[1]), hx[2]]
    rep.expect_reject("tamper: changed leaf data byte, inclusion of leaf 5",
                      lambda: verify_inclusion(5, 7, bad_leaf, hx, root7))
    rep.expect_reject("tamper: wrong inclusion proof hash",
                      lambda: verify_inclusion(5, 7, hashes[5], bad_hx, root7))
    rep.expect_reject("tamper: inclusion proof for the wrong index (4 not 5)",
                      lambda: verify_inclusion(4, 7, hashes[5], hx, root7))
    rep.expect_reject("tamper: inclusion proof with a hash dropped",
                      lambda: verify_inclusion(5, 7, hashes[5], hx[:2], root7))
    rep.expect_reject("tamper: wrong consistency proof hash",
                      lambda: verify_consistency(3, 7, root3, root7, [cx[0], flip(cx[1])] + cx[2:]))
    rep.expect_reject("tamper: consistency proof against the wrong old size",
                      lambda: verify_consistency(2, 7, root3, root7, cx))
    rep.expect_reject("tamper: consistency proof against a wrong new root",
                      lambda: verify_consistency(3, 7, root3, flip(root7), cx))


def unseal(log):
    """The log without its last record (the seal): an unsealed prefix."""
    records = split_records(log)
    return log[:len(log) - len(records[-1]) - len(varint(len(records[-1])))]


def varint(n):
    """Encode n as a protobuf varint."""
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def flip(data, pos=0):
    """A copy of `data` with one bit of byte `pos` changed."""
    out = bytearray(data)
    out[pos] ^= 0x01
    return bytes(out)


def replace_line(note, line_no, new_line):
    """Replace line `line_no` (0-based) of a note, keeping everything else."""
    lines = note.split(b"\n")
    lines[line_no] = new_line
    return b"\n".join(lines)


def read_testdata(root, rel):
    """Read a file under testdata/tlog."""
    with open(os.path.join(root, rel), "rb") as f:
        return f.read()


def test_checkpoints(rep, root):
    """The "Checkpoints" section: verifier key, example checkpoints."""
    vkey_text = read_testdata(root, "tlog.vkey").decode("ascii").strip()
    cp6 = read_testdata(root, "example/checkpoint")
    raw = parse_hex_key(read_testdata(root, "example/referee.pub").decode())
    rep.expect_ok("checkpoint: tlog.vkey is the doc's verifier key",
                  lambda: require(vkey_text == DOC_VKEY, vkey_text))
    vkey = parse_vkey(vkey_text)
    rep.expect_ok("checkpoint: verifier key = referee.pub under the default origin",
                  lambda: require(Verifier("pyramid-referee/" + raw.hex()[:16], raw).vkey()
                                  == vkey_text, "vkey differs"))
    rep.expect_ok("checkpoint: a93Vcw== is the key id 6bddd573",
                  lambda: require(base64.b64decode("a93Vcw==").hex() == "6bddd573", "id"))
    for rel, size in (("checkpoint-3", 3), ("example/checkpoint", 6)):
        note = read_testdata(root, rel)
        rep.expect_ok(f"checkpoint: {rel} opens with tlog.vkey (size {size})",
                      lambda n=note, s=size: describe_size(open_checkpoint(n, vkey), s))
        rep.expect_ok(f"checkpoint: {rel} opens with the raw key under its origin",
                      lambda n=note, s=size: describe_size(open_checkpoint(n, raw_key=raw), s))
    test_checkpoint_tampering(rep, cp6, vkey)


def describe_size(checkpoint, size):
    """Require the checkpoint's size; describe it."""
    require(checkpoint.size == size, f"size {checkpoint.size}, expected {size}")
    return str(checkpoint)


def test_checkpoint_tampering(rep, cp6, vkey):
    """Changed size, root, signature, origin or framing must be refused."""
    root_line = cp6.split(b"\n")[2]
    bad_root = base64.b64encode(flip(base64.b64decode(root_line))).decode().encode()
    sig_line = cp6.split(b"\n")[4]
    name, sig = sig_line.rsplit(b" ", 1)
    bad_sig = name + b" " + base64.b64encode(flip(base64.b64decode(sig), 10))
    other = Verifier("pyramid-referee/84c5b30cb33a0e5d", bytes(31) + b"\x01")
    cases = {
        "changed size (6 -> 7)": replace_line(cp6, 1, b"7"),
        "changed root": replace_line(cp6, 2, bad_root),
        "changed signature byte": replace_line(cp6, 4, bad_sig),
        "size with a leading zero": replace_line(cp6, 1, b"06"),
        "signature line removed": cp6[:cp6.rindex(b"\n\n") + 2],
        "CRLF line ends": cp6.replace(b"\n", b"\r\n"),
        "no blank line": cp6.replace(b"\n\n", b"\n"),
    }
    for label, note in cases.items():
        rep.expect_reject(f"tamper: checkpoint {label}", lambda n=note: open_checkpoint(n, vkey))
    rep.expect_reject("tamper: checkpoint opened with another key of the same name",
                      lambda: open_checkpoint(cp6, other))
    renamed = Verifier("other-origin", vkey.public_key)
    rep.expect_reject("tamper: checkpoint whose origin is not the key name",
                      lambda: open_checkpoint(cp6, renamed))
    extra_sig = cp6 + WITNESS_LINE
    rep.expect_ok("checkpoint: a signature line by another key is ignored",
                  lambda: str(open_checkpoint(extra_sig, vkey)))


def test_consistency(rep, root):
    """The "Consistency proofs" section and its tampering."""
    vkey = parse_vkey(read_testdata(root, "tlog.vkey").decode())
    old = read_testdata(root, "checkpoint-3")
    new = read_testdata(root, "example/checkpoint")
    proof = read_testdata(root, "consistency-3-6")
    rep.expect_ok("consistency: consistency-3-6 from checkpoint-3 to example/checkpoint",
                  lambda: "%s -> %s" % check_consistency(old, new, proof, vkey))
    rep.expect_ok("consistency: a checkpoint is consistent with itself (no hashes)",
                  lambda: str(check_consistency(new, new, CONSISTENCY_MAGIC.encode()
                                                + b"\nold 6\nnew 6\n", vkey)[0]))
    lines = proof.split(b"\n")
    bad_hash = base64.b64encode(flip(base64.b64decode(lines[4]))).decode().encode()
    cases = {
        "wrong proof hash": replace_line(proof, 4, bad_hash),
        "file sizes not the checkpoints'": replace_line(proof, 1, b"old 2"),
        "a hash dropped": b"\n".join(lines[:-2]) + b"\n",
        "hashes reordered": b"\n".join(lines[:3] + [lines[4], lines[3]] + lines[5:]),
    }
    for label, data in cases.items():
        rep.expect_reject(f"tamper: consistency {label}",
                          lambda d=data: check_consistency(old, new, d, vkey))
    rep.expect_reject("tamper: consistency with old and new swapped",
                      lambda: check_consistency(new, old, proof, vkey))


def test_inclusion(rep, root):
    """The ".tlog-proof files" section over testdata/tlog/example."""
    vkey = parse_vkey(read_testdata(root, "tlog.vkey").decode())
    raw = parse_hex_key(read_testdata(root, "example/referee.pub").decode())
    files = load_tournament(os.path.join(root, "example"))
    cp6 = read_testdata(root, "example/checkpoint")
    for name in sorted(files["logs"]):
        log, proof = files["logs"][name], files["proofs"][name]
        rep.expect_ok(f"inclusion: {name} (verifier key)",
                      lambda l=log, p=proof: "leaf %d of %s" % swap(check_inclusion(p, l, vkey)))
        rep.expect_ok(f"inclusion: {name} (raw key, pinned)",
                      lambda l=log, p=proof: "leaf %d of %s" % swap(
                          check_inclusion(p, l, raw_key=raw, log_key=raw)))
        rep.expect_ok(f"inclusion: {name}'s checkpoint is example/checkpoint",
                      lambda p=proof: require(parse_tlog_proof(p).note == cp6, "differs"))
    test_inclusion_tampering(rep, files, vkey)


def swap(pair):
    """(checkpoint, index) -> (index, checkpoint), for messages."""
    return pair[1], pair[0]


def test_inclusion_tampering(rep, files, vkey):
    """Changed log bytes, proof hashes, indices and checkpoints."""
    names = sorted(files["logs"])
    log, proof = files["logs"][names[1]], files["proofs"][names[1]]
    lines = proof.split(b"\n")
    idx = int(lines[2][6:])
    cp = lines.index(b"") + 1  # the checkpoint's first line
    bad_hash = base64.b64encode(flip(base64.b64decode(lines[3]))).decode().encode()
    cases = {
        "changed byte in the log (last byte)": (proof, log[:-1] + flip(log[-1:])),
        "changed byte in the log's match id": (proof, log[:60] + flip(log[60:61]) + log[61:]),
        "wrong proof hash": (replace_line(proof, 3, bad_hash), log),
        "proof for the wrong index": (replace_line(proof, 2, b"index %d" % (idx - 1)), log),
        "index beyond the tree": (replace_line(proof, 2, b"index 6"), log),
        "another log's proof": (files["proofs"][names[0]], log),
        "checkpoint size changed": (replace_line(proof, cp + 1, b"7"), log),
        "checkpoint root changed": (replace_line(proof, cp + 2, base64.b64encode(
            flip(base64.b64decode(lines[cp + 2])))), log),
        "extra data of another match": (replace_line(proof, 1, files["proofs"][names[0]]
                                                     .split(b"\n")[1]), log),
    }
    no_extra = b"\n".join(lines[:1] + lines[2:])
    cases["no extra line (C2SP makes it optional; the doc requires it)"] = (no_extra, log)
    for label, (p, l) in cases.items():
        rep.expect_reject(f"tamper: inclusion, {label}",
                          lambda p=p, l=l: check_inclusion(p, l, vkey))
    parsed, cp = parse_tlog_proof(proof), open_checkpoint(proof.split(b"\n\n", 1)[1], vkey)
    changed = log[:-1] + flip(log[-1:])
    rep.expect_reject("tamper: changed byte in the log, leaf alone (no log check)",
                      lambda: verify_inclusion(parsed.index, cp.size, log_leaf_hash(changed),
                                               parsed.hashes, cp.root))


def test_tournament(rep, root, replay=None):
    """The "Tournaments" section over testdata/tlog/example (a running
    referee's directory: referee.pub), directories signed here as the
    embedded referee's, and tampering. With `replay` (the path of the
    project's replay binary), every case is also given to `replay
    verify-tournament` and its exit status (and summary line) compared."""
    path = os.path.join(root, "example")
    files = load_tournament(path)
    vkey = parse_vkey(read_testdata(root, "tlog.vkey").decode())
    cases = []

    def ok(label, t, want=None, note=None, replay_differs=None, **keys):
        """A directory that verifies; its summary (or a note) must hold `want`
        (`note`). `replay_differs`: why replay is known to refuse it."""
        cases.append((f"tournament: {label}", t, True, want, note, keys, replay_differs))

    def bad(label, t, reason, **keys):
        """A directory with a problem that says `reason`."""
        cases.append((f"tamper: tournament, {label}", t, False, reason, None, keys, None))

    ok("example (key from referee.pub)", files,
       "(referee key 84c5b30cb33a0e5d9fad5ad68c4734199e5c644fbfd0f8c1605c1558e11d61d6 "
       "taken from the directory itself, referee.pub; pin it with --key)",
       "not checked")
    ok("example (--tlog_key tlog.vkey): no key origin in the summary", files,
       "matches, all included in checkpoint 6 f7fabef3", vkey=vkey)
    ok("example (--key): no key origin", files, "checkpoint 6 f7fabef3",
       raw_key=vkey.public_key)
    cosigned = copy.deepcopy(files)
    first = sorted(files["proofs"])[0]
    cosigned["proofs"][first] += WITNESS_LINE
    ok("a proof whose checkpoint carries a witness's line (same tree)", cosigned)
    for label, (schedule, txt) in schedule_variants(files).items():
        ok(f"schedule.json with {label}",
           dict(files, schedule=json.dumps(schedule).encode(), tournament_txt=txt))
    for label, (tampered, reason) in tournament_tampers(files, root).items():
        bad(label, tampered, reason)
    for label, t, accept, want, keys in embedded_cases(root):
        (ok if accept else bad)(label, t, want, **keys)
    for name, t, accept, want, note, keys, _ in cases:
        if accept:
            rep.expect_ok(name, lambda t=t, w=want, n=note, k=keys:
                          tournament_ok(t, want=w, note=n, **k))
        else:
            rep.expect_reject(name, lambda t=t, k=keys: tournament_ok(t, **k), want)
    if replay:
        compare_with_replay(rep, replay, cases)


def tournament_ok(files, vkey=None, raw_key=None, want=None, note=None):
    """Raise CheckError listing the problems, else return the summary,
    which must hold `want` (and a note `note`) when given."""
    problems, notes, summary = check_tournament(files, vkey, raw_key)
    if problems:
        raise CheckError("; ".join(problems) + " => " + summary)
    require(want is None or want in summary, f"{summary!r} lacks {want!r}")
    require(note is None or any(note in n for n in notes), f"no note says {note!r}: {notes}")
    return summary + "".join(f" [note: {n}]" for n in notes)


def compare_with_replay(rep, replay, cases):
    """Give every case to `replay verify-tournament` too: the exit status
    must be the checker's (0 or 1), and so must the summary line when the
    directory verifies (`DIR: ...`) and the key origin at the end of the
    problem count when it does not. A case where the doc leaves room and
    replay is known to read it otherwise expects replay's other status."""
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, t, accept, _, _, keys, differs) in enumerate(cases):
            d = os.path.join(tmp, str(i))
            write_tournament(t, d)
            argv = [replay, "verify-tournament"]
            if keys.get("vkey"):
                argv.append("--tlog_key=" + keys["vkey"].vkey())
            if keys.get("raw_key"):
                argv.append("--key=" + keys["raw_key"].hex())
            run = subprocess.run(argv + [d], capture_output=True, text=True, check=False)
            lines = run.stdout.strip().split("\n")
            last = lines[-1][len(d) + 2:] if lines[-1].startswith(d + ": ") else lines[-1]
            _, _, summary = check_tournament(t, keys.get("vkey"), keys.get("raw_key"))

            def agree(run=run, accept=accept, last=last, summary=summary, differs=differs):
                """The exit status, and the summary or its key origin."""
                if differs:
                    require(run.returncode == (1 if accept else 0),
                            f"exit {run.returncode}: no longer differs ({differs})?")
                    return f"exit {run.returncode}, known to differ: {differs}: {last}"
                require(run.returncode == (0 if accept else 1),
                        f"exit {run.returncode}: {run.stdout.strip()} {run.stderr.strip()}")
                if accept:
                    require(last == summary, f"replay says {last!r}, the checker {summary!r}")
                else:
                    ours, theirs = (x[x.find(" (referee key"):] if "(referee key" in x else ""
                                    for x in (summary, last))
                    require(ours == theirs, f"replay ends {theirs!r}, the checker {ours!r}")
                return f"exit {run.returncode}: {last}"
            rep.expect_ok(f"replay: {name}", agree)


def tournament_tampers(files, root):
    """Tampered copies of a tournament directory, each to be rejected:
    {label: (files, what the problem must say)}."""
    names = sorted(files["logs"])
    out = {}

    def variant(label, edit, reason):
        """Record a deep copy of `files` changed by `edit` under `label`."""
        t = copy.deepcopy(files)
        edit(t)
        out[label] = (t, reason)

    schedule = json.loads(files["schedule"])
    labels = {read_header(split_records(files["logs"][n])[0])[1]: n for n in names}
    first = labels[schedule["matches"][0]["label"]]   # match 0's log
    second = labels[schedule["matches"][1]["label"]]  # match 1's log

    def sched(matches):
        """schedule.json with these entries."""
        return json.dumps(dict(schedule, matches=matches)).encode()

    def drop(t, *which):
        """Remove these logs and their proofs."""
        for n in which:
            t["logs"].pop(n)
            t["proofs"].pop(n)

    variant("a log and its proof removed", lambda t: drop(t, names[0]), "has 0 sealed")
    variant("a proof removed", lambda t: t["proofs"].pop(names[0]), "no proof of inclusion")
    variant("a stray proof", lambda t: t["proofs"].update(x=files["proofs"][names[0]]),
            "a proof without a counted log")
    variant("a log twice", lambda t: (t["logs"].update(dup=files["logs"][names[0]]),
                                      t["proofs"].update(dup=files["proofs"][names[0]])),
            "has 2 sealed")
    variant("a byte changed in a log", lambda t: t["logs"].update(
        {names[0]: files["logs"][names[0]][:-1] + flip(files["logs"][names[0]][-1:])}),
        "NOT GENUINE")
    variant("a proof for the wrong index", lambda t: t["proofs"].update(
        {names[0]: replace_line(files["proofs"][names[0]], 2, b"index 4")}), "inclusion")
    variant("a log cut short (unsealed prefix) with its proof", lambda t: t["logs"].update(
        {names[0]: unseal(files["logs"][names[0]])}), "has 0 sealed")
    variant("proofs swapped between two logs", lambda t: t["proofs"].update(
        {names[0]: files["proofs"][names[1]], names[1]: files["proofs"][names[0]]}),
        "proof is for match")
    variant("checkpoint replaced by checkpoint-3",
            lambda t: t.update(checkpoint=read_testdata(root, "checkpoint-3")),
            "another checkpoint")
    variant("checkpoint size changed",
            lambda t: t.update(checkpoint=replace_line(files["checkpoint"], 1, b"7")),
            "does not verify")
    variant("another referee key", lambda t: t.update(keys={"referee.pub": b"11" * 32 + b"\n"}),
            "no signature by")
    variant("referee.pub and referee.key.pub disagree", lambda t: t["keys"].update(
        {"referee.key.pub": b"11" * 32 + b"\n"}), "hold different keys")
    variant("the schedule names another game", lambda t: t.update(schedule=json.dumps(
        dict(schedule, game="pyramid_scheme")).encode()), "the schedule's game is")
    variant("the schedule names no game", lambda t: t.update(schedule=json.dumps(
        {k: v for k, v in schedule.items() if k != "game"}).encode()), "names no game")
    variant("schedule entry cut", lambda t: t.update(schedule=sched(schedule["matches"][:2])),
            "is not in the schedule")
    variant("schedule seats changed", lambda t: t.update(schedule=sched(
        [dict(schedule["matches"][0], seats=["b1", "b2", "b3"])] + schedule["matches"][1:])),
        "are not the scheduled")
    variant("schedule with a gap in the numbering", lambda t: t.update(schedule=sched(
        schedule["matches"][:2] + [dict(schedule["matches"][2], index=3)])), "has index 3")
    extra = {"index": 3, "label": f"{schedule['name']}/{schedule['run_id']}/3",
             "seats": ["b1", "b2", "b3"]}
    variant("schedule with an extra match", lambda t: t.update(
        schedule=sched(schedule["matches"] + [extra])), "match 3")
    variant("schedule marks a played match skipped", lambda t: t.update(schedule=sched(
        [dict(schedule["matches"][0], skipped=True)] + schedule["matches"][1:])),
        "is scheduled as skipped")
    variant("schedule.json with an unknown field", lambda t: t.update(
        schedule=json.dumps(dict(schedule, extraField=1)).encode()), "unknown field")
    variant("schedule.json with a key twice in one object", lambda t: t.update(
        schedule=b'{"name": "other", ' + json.dumps(schedule).encode()[1:]), "appears twice")
    variant("schedule.json with an index as a JSON string", lambda t: t.update(
        schedule=sched(schedule["matches"][:1] + [dict(schedule["matches"][1], index="1")]
                       + schedule["matches"][2:])), "is not a uint32")
    variant("schedule.json with NaN", lambda t: t.update(
        schedule=b'{"nan": NaN, ' + json.dumps(schedule).encode()[1:]), "not JSON")
    # Skipped matches (docs: only a decided SPRT skips, only matches never
    # started, which come last). Each case differs from the accepted one
    # ("a skipped last match", schedule_variants) in one thing.
    skipped = dict(extra, skipped=True)
    with_skip = sched(schedule["matches"] + [skipped])
    good_txt = tournament_txt(schedule)
    variant("tournament.txt removed (the runner writes it before it plays)",
            lambda t: t.update(tournament_txt=None), "there is no tournament.txt")
    variant("a skipped match without tournament.txt",
            lambda t: t.update(schedule=with_skip, tournament_txt=None),
            "there is no tournament.txt")
    variant("a skipped match, tournament.txt without an sprt", lambda t: t.update(
        schedule=with_skip, tournament_txt=tournament_txt(
            schedule, sprt=None, seats=3, bots=("b1", "b2", "b3"))),
        "tournament.txt has no sprt")
    # An sprt the runner does not take (the example has 3 bots at 3
    # seats): it skips nothing, whatever the order (check 7; it passed).
    skipped_too = dict(skipped, index=4, label=skipped["label"][:-1] + "4")
    variant("a skipped last match, tournament.txt with an sprt over 3 seats",
            lambda t: t.update(schedule=with_skip, tournament_txt=tournament_txt(
                schedule, seats=3, bots=("b1", "b2", "b3"))),
            "an sprt is the runner's only with 2 bots, 2 seats")
    variant("a skipped last match, tournament.txt with an sprt and no seats",
            lambda t: t.update(schedule=with_skip, tournament_txt=good_txt),
            "an sprt is the runner's only with 2 bots, 2 seats")
    variant("two skipped last matches, tournament.txt with an empty sprt {}",
            lambda t: t.update(schedule=sched(schedule["matches"] + [skipped, skipped_too]),
                               tournament_txt=tournament_txt(schedule, sprt="")),
            "an sprt is the runner's only with 2 bots, 2 seats")
    spelled = (b"# comments, other separators and spellings of the text format\n"
               b"name: 'exa' \"mple\";  # adjacent strings are one\n"
               b"game: < game: \"rock_paper_\\x70yramid\" rock_paper_pyramid {} >,\n"
               b"bots: [{ name: \"b1\" }, { name: \"b2\" }]\n"
               b"clocks { commit_timeout_ms: 2000 }\n"
               b"sprt: { elo0: -1.5 elo1: 1e1 alpha: .05 }\n")
    variant("a skipped last match, tournament.txt in other text-format spellings",
            lambda t: t.update(schedule=with_skip, tournament_txt=spelled),
            "an sprt is the runner's only with 2 bots, 2 seats")
    # Read with no skipped match too: a tournament.txt of other seats did
    # not make the schedule (it was read only for a skipped match).
    variant("no skipped match, a tournament.txt of other seats", lambda t: t.update(
        tournament_txt=tournament_txt(schedule, sprt=None)), "0 seats")
    variant("a skipped match, tournament.txt of another name", lambda t: t.update(
        schedule=with_skip, tournament_txt=tournament_txt(schedule, name="other")),
        "is of tournament 'other'")
    variant("a skipped match, tournament.txt naming no name (so 'tournament')",
            lambda t: t.update(schedule=with_skip,
                               tournament_txt=tournament_txt(schedule, name=None)),
            "is of tournament 'tournament'")
    variant("a skipped match, tournament.txt of another game", lambda t: t.update(
        schedule=with_skip, tournament_txt=tournament_txt(schedule, game="pyramid_shambo")),
        "is of game 'pyramid_shambo'")
    variant("a skipped match, tournament.txt that does not parse", lambda t: t.update(
        schedule=with_skip, tournament_txt=good_txt.replace(b"}", b"", 1)),
        "not a Tournament in text format")
    variant("a skipped match, tournament.txt with an unknown field", lambda t: t.update(
        schedule=with_skip, tournament_txt=good_txt + b"colour: \"red\"\n"),
        "no field 'colour'")
    variant("a skipped match, tournament.txt with sprt as a scalar", lambda t: t.update(
        schedule=with_skip, tournament_txt=tournament_txt(schedule, sprt=None)
        + b"sprt: 1\n"), "sprt is not a message")
    variant("a skipped match before a played one (not a suffix)", lambda t: (
        drop(t, second), t.update(tournament_txt=good_txt, schedule=sched(
            [schedule["matches"][0], dict(schedule["matches"][1], skipped=True)]
            + schedule["matches"][2:]))), "but match 2 after it is not")
    variant("every match skipped", lambda t: (
        drop(t, *names), t.update(tournament_txt=good_txt, schedule=sched(
            [dict(e, skipped=True) for e in schedule["matches"]]))),
        "every match (3) is marked skipped")
    variant("an empty schedule", lambda t: (
        drop(t, *names), t.update(schedule=sched([]))), "lists no match")
    variant("an empty schedule (matches left out of schedule.json)", lambda t: (
        drop(t, *names), t.update(schedule=json.dumps(
            {k: v for k, v in schedule.items() if k != "matches"}).encode())),
        "lists no match")
    assert first != second
    return out


def tournament_txt(schedule, name="", game="", sprt="elo0: 0 elo1: 10", seats=None,
                   bots=("b1", "b2")):
    """A tournament.txt as the runner copies it (a Tournament in text
    format) for `schedule`; name/game "" take the schedule's, None leaves
    the field out; sprt None leaves `sprt` out; seats None leaves `seats`
    out (0: not the example's 3, so it did not make its schedule)."""
    name = schedule["name"] if name == "" else name
    game = schedule["game"] if game == "" else game
    lines = ["# the tournament file as the runner copied it"]
    if name is not None:
        lines.append(f'name: "{name}"')
    if game is not None:
        lines.append(f'game {{ game: "{game}" }}')
    if seats is not None:
        lines.append(f"seats: {seats}")
    lines += [f'bots {{ name: "{b}" command: "build/bin/bot" }}' for b in bots]
    lines += ["format: ROUND_ROBIN", "rounds: 2"]
    if sprt is not None:
        lines.append(f"sprt {{ {sprt} }}")
    return ("\n".join(lines) + "\n").encode()


def schedule_variants(files):
    """Valid spellings of the example's schedule.json (proto3 JSON):
    {label: (schedule, tournament.txt)}. (No skipped match: the example's
    3 bots at 3 seats are no tournament the runner takes an SPRT with.)"""
    schedule = json.loads(files["schedule"])
    camel = {k: v for k, v in schedule.items() if k != "run_id"}
    camel["runId"] = schedule["run_id"]
    return {
        "runId instead of run_id": (camel, files["tournament_txt"]),
        "entry 0 with an explicit index 0": (dict(
            schedule, matches=[dict(schedule["matches"][0], index=0)]
            + schedule["matches"][1:]), files["tournament_txt"]),
    }


# The embedded referee's key for the directories the self-test signs
# (deterministic, so that every run builds the same bytes).
EMBEDDED_SEED = sha256(b"docs_only_tlog_check: an embedded referee")


def encode_fields(fields):
    """Serialize parsed protobuf fields (parse_fields' output) again, in
    their order; a canonical record comes back byte for byte."""
    out = bytearray()
    for number, wire, value in fields:
        out += varint(number << 3 | wire)
        if wire == 0:
            out += varint(value)
        elif wire == 2:
            out += varint(len(value)) + value
        else:
            out += value
    return bytes(out)


def resign_log(data, signing_key, label=None):
    """The log `data` as another referee would have written it: its
    header's referee_public_key (and, given, label) replaced, every
    prev_hash rechained, every checkpoint and the seal signed again with
    `signing_key` (log-format.md: "The hash chain", "Signatures"). The
    moves are untouched, so the log still replays."""
    out, prev, match_id = bytearray(LOG_MAGIC), bytes(32), None
    for i, record in enumerate(split_records(data)):
        fields = []
        for number, wire, value in parse_fields(record):
            if number == F_PREV_HASH:
                value = prev
            elif number == F_HEADER:
                header = []
                for n, w, v in parse_fields(value):
                    match_id = v if n == 3 else match_id
                    v = bytes(signing_key.verify_key) if n == 6 else v
                    v = label.encode("utf-8") if n == 12 and label is not None else v
                    header.append((n, w, v))
                if label is not None and all(n != 12 for n, _, _ in header):
                    header.append((12, 2, label.encode("utf-8")))  # the last field
                value = encode_fields(header)
            elif number in (9, F_SEAL):
                message = D_LOG + match_id + struct.pack(">Q", i) + prev
                value = encode_fields([
                    (n, w, prev if n == 2 else signing_key.sign(message).signature
                     if n == 3 else v) for n, w, v in parse_fields(value)])
            fields.append((number, wire, value))
        body = encode_fields(fields)
        out += varint(len(body)) + body
        prev = sha256(body)
    return bytes(out)


def signed_tournament(signing_key, schedule, logs, tree, key_files=("referee.key.pub",),
                      superseded=None, tournament_txt_data=None):
    """A tournament directory signed with `signing_key`: `logs` in logs/,
    each with its proof in a checkpoint over the leaves of `tree` (log
    files, in the tree's order: a log of the tree need not be in logs/),
    and `tournament_txt_data` as its tournament.txt (None: none)."""
    pub = bytes(signing_key.verify_key)
    origin = "pyramid-referee/" + pub.hex()[:16]
    leaves = [log_leaf_hash(t) for t in tree]
    root = mth(leaves)
    checkpoint = sign_note(f"{origin}\n{len(leaves)}\n{base64.b64encode(root).decode()}\n",
                           origin, signing_key)
    proofs = {}
    for name, data in logs.items():
        index = leaves.index(log_leaf_hash(data))
        match_id = read_header(split_records(data)[0])[0]
        lines = [TLOG_PROOF_MAGIC,
                 "extra " + base64.b64encode(match_id.hex().encode()).decode(),
                 f"index {index}"]
        lines += [base64.b64encode(h).decode() for h in inclusion_path(index, leaves)]
        proofs[name] = ("\n".join(lines) + "\n\n").encode() + checkpoint
    return {"checkpoint": checkpoint, "schedule": schedule,
            "keys": {k: pub.hex().encode() + b"\n" for k in key_files},
            "tournament_txt": tournament_txt_data, "logs": dict(logs), "proofs": proofs,
            "superseded": dict(superseded or {})}


def embedded_cases(root):
    """Check 6 over directories of the embedded referee, signed here: the
    example's logs re-signed with EMBEDDED_SEED's key, and a golden log
    (testdata/golden) relabelled as the example's match 1, standing for
    that match's first log, lost and played again. Returns
    [(label, files, accepted, what the summary/problem says, key args)]."""
    import nacl.signing as signing
    sk = signing.SigningKey(EMBEDDED_SEED)
    example = load_tournament(os.path.join(root, "example"))

    def signed(*args, **kw):
        """signed_tournament with the example's tournament.txt (which made
        its schedule) unless another is given."""
        kw.setdefault("tournament_txt_data", example["tournament_txt"])
        return signed_tournament(*args, **kw)

    schedule = json.loads(example["schedule"])
    logs = {n: resign_log(d, sk) for n, d in example["logs"].items()}
    by_label = {read_header(split_records(d)[0])[1]: n for n, d in logs.items()}
    order = [by_label[e["label"]] for e in schedule["matches"]]
    golden = read_testdata(root, os.path.join(os.pardir, "golden", "rock_paper_pyramid",
                                               "classic.pyrlog"))
    label1 = schedule["matches"][1]["label"]
    lost = resign_log(golden, sk, label=label1)
    stranger = resign_log(golden, sk, label="other/" + label1.split("/", 1)[1])
    foreign = resign_log(golden, signing.SigningKey(sha256(b"another referee")), label=label1)
    three = [logs[order[0]], logs[order[1]], logs[order[2]]]
    four = [logs[order[0]], lost, logs[order[1]], logs[order[2]]]
    four_other = [logs[order[0]], stranger, logs[order[1]], logs[order[2]]]
    sched = example["schedule"]
    pub = bytes(sk.verify_key)
    from_dir = (f"(referee key {pub.hex()} taken from the directory itself, "
                f"referee.key.pub; pin it with --key)")
    size = "the checkpoint holds 4 logs and the directory 3"
    cases = [
        ("embedded referee: checkpoint of 3 over its 3 logs", signed(
            sk, sched, logs, three), True, from_dir, {}),
        ("embedded referee, --key: the size is still checked", signed(
            sk, sched, logs, three), True, "matches, all included in checkpoint 3 ",
         {"raw_key": pub}),
        ("embedded referee: checkpoint of 4 over 3 logs (match 1 played again, its "
         "first log lost)", signed(sk, sched, logs, four), False, size, {}),
        ("embedded referee, --key: checkpoint of 4 over 3 logs",
         signed(sk, sched, logs, four), False, size, {"raw_key": pub}),
        ("embedded referee: checkpoint of 4, the lost log found in superseded/",
         signed(sk, sched, logs, four, superseded={"lost": lost}), True,
         "matches, all included in checkpoint 4 ", {}),
        ("embedded referee: the superseded log's label is not the schedule's",
         signed(sk, sched, logs, four_other, superseded={"lost": stranger}),
         False, size, {}),
        ("embedded referee: the superseded log is cut short (unsealed)",
         signed(sk, sched, logs, four, superseded={"lost": unseal(lost)}),
         False, size, {}),
        ("embedded referee: the superseded log is signed by another referee",
         signed(sk, sched, logs, [logs[order[0]], foreign, logs[order[1]],
                                             logs[order[2]]],
                           superseded={"lost": foreign}), False, size, {}),
        ("embedded referee: a log of logs/ also in superseded/ counts once",
         signed(sk, sched, logs, three, superseded={"copy": logs[order[0]]}),
         True, "checkpoint 3 ", {}),
        ("embedded referee: checkpoint of 3 over 3 logs and a superseded one of match 1",
         signed(sk, sched, logs, three, superseded={"lost": lost}), False,
         "the checkpoint holds 3 logs and the directory 4", {}),
        ("running referee (referee.pub): checkpoint of 4 over 3 logs, a note",
         signed(sk, sched, logs, four, key_files=("referee.pub",)), True,
         "referee.pub; pin it with --key)", {}),
        ("both key files (a running referee's): checkpoint of 4 over 3 logs, a note",
         signed(sk, sched, logs, four,
                           key_files=("referee.key.pub", "referee.pub")), True,
         "referee.key.pub and referee.pub; pin it with --key)", {}),
        ("no key file, --key: checkpoint of 4 over 3 logs, a note",
         signed(sk, sched, logs, four, key_files=()), True,
         "matches, all included in checkpoint 4 ", {"raw_key": pub}),
    ]
    skipped = dict(schedule, matches=schedule["matches"] + [
        {"index": 3, "label": f"{schedule['name']}/{schedule['run_id']}/3",
         "seats": ["b1", "b2", "b3"], "skipped": True}])
    sprt_not_taken = "an sprt is the runner's only with 2 bots, 2 seats"
    cases.append(("embedded referee: a skipped last match with tournament.txt",
                  signed(sk, json.dumps(skipped).encode(), logs, three,
                                    tournament_txt_data=tournament_txt(schedule)),
                  False, sprt_not_taken, {}))
    # A tournament named by default: Tournament.name's comment says an empty
    # name is "tournament", so a tournament.txt without `name` is of the
    # tournament "tournament". (The runner writes `name: "tournament"` in
    # its copy.) Its sprt over 3 seats is refused, which is checked only
    # once the file is taken as the schedule's tournament by its name.
    run_id = schedule["run_id"]
    default = dict(schedule, name=DEFAULT_TOURNAMENT_NAME, matches=[
        dict(e, label=f"{DEFAULT_TOURNAMENT_NAME}/{run_id}/{e.get('index', 0)}")
        for e in skipped["matches"]])
    relabelled = {n: resign_log(d, sk, label=default["matches"][order.index(n)]["label"])
                  for n, d in logs.items()}
    cases.append(("a tournament named by default, tournament.txt without a name",
                  signed(sk, json.dumps(default).encode(), relabelled,
                                    [relabelled[n] for n in order],
                                    tournament_txt_data=tournament_txt(default, name=None)),
                  False, sprt_not_taken, {}))
    return cases


def sign_note(text, name, signing_key):
    """Sign `text` as a one-signature note (for self-tests only)."""
    kid = key_id(name, bytes(signing_key.verify_key))
    sig = signing_key.sign(text.encode("utf-8")).signature
    return (text + "\n\u2014 " + name + " " + base64.b64encode(kid + sig).decode() + "\n").encode()


def test_signed_edge_cases(rep):
    """Note and checkpoint rules that need a signing key: an ephemeral one.
    Each expectation was compared with `replay consistency`."""
    sk = nacl.signing.SigningKey.generate()
    name = "example.com/docs-only-test"
    verifier = Verifier(name, bytes(sk.verify_key))
    hashes = vector_leaf_hashes(7)

    def cp(size, root=None, extra_lines=""):
        """A checkpoint of the vectors' first `size` leaves, signed."""
        root = mth(hashes[:size]) if root is None else root
        text = f"{name}\n{size}\n{base64.b64encode(root).decode()}\n{extra_lines}"
        return sign_note(text, name, sk)

    def cons(old, new, proof=()):
        """A consistency proof file."""
        lines = [CONSISTENCY_MAGIC, f"old {old}", f"new {new}"]
        return ("\n".join(lines + [base64.b64encode(h).decode() for h in proof]) + "\n").encode()

    rep.expect_ok("signed: extension lines after the root are ignored",
                  lambda: str(open_checkpoint(cp(7, extra_lines="ext one\next two\n"), verifier)))
    rep.expect_reject("signed: an empty line inside the checkpoint text",
                      lambda: open_checkpoint(cp(7, extra_lines="\nx\n"), verifier))
    rep.expect_reject("signed: origin other than the key name",
                      lambda: open_checkpoint(sign_note(
                          f"other.example\n7\n{base64.b64encode(mth(hashes)).decode()}\n",
                          name, sk), verifier))
    rep.expect_ok("signed: consistency from the empty tree (0 -> 7, no hashes)",
                  lambda: "%s -> %s" % check_consistency(cp(0), cp(7), cons(0, 7), verifier))
    rep.expect_reject("signed: size 0 with a root other than SHA-256()",
                      lambda: check_consistency(cp(0, hashes[0]), cp(7), cons(0, 7), verifier))
    rep.expect_ok("signed: consistency 3 -> 7 with generated proof",
                  lambda: "%s -> %s" % check_consistency(
                      cp(3), cp(7), cons(3, 7, consistency_proof(3, hashes)), verifier))
    rep.expect_reject("signed: consistency 3 -> 7 against a forked tree",
                      lambda: check_consistency(cp(3), cp(7, mth(hashes[:6] + [hashes[0]])),
                                                cons(3, 7, consistency_proof(3, hashes)),
                                                verifier))


def self_test(testdata, replay=None):
    """Run every check over the doc's vectors and testdata/tlog (and, with
    `replay`, compare every tournament case with replay verify-tournament)."""
    rep = Reporter()
    test_vectors(rep)
    test_signed_edge_cases(rep)
    test_checkpoints(rep, testdata)
    test_consistency(rep, testdata)
    test_inclusion(rep, testdata)
    test_tournament(rep, testdata, replay)
    print(f"{'OK' if rep.failures == 0 else 'FAILED'}: {rep.failures} failure(s)")
    return 0 if rep.failures == 0 else 1


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------


def read_file(path):
    """Read a whole file as bytes."""
    with open(path, "rb") as f:
        return f.read()


def key_args(args):
    """(verifier key, raw key) from --vkey VALUE|FILE and --key HEX|FILE."""
    def text(value):
        """The argument itself, or the contents of the file it names."""
        return read_file(value).decode("ascii") if os.path.isfile(value) else value
    vkey = parse_vkey(text(args.vkey)) if args.vkey else None
    raw = parse_hex_key(text(args.key)) if args.key else None
    return vkey, raw


def run_command(args):
    """Run one non-self-test command; print its verdict line."""
    vkey, raw = key_args(args)
    if vkey is None and raw is None and args.command != "tournament":
        raise CheckError(f"{args.command} needs --vkey or --key (pin the referee)")
    if args.command == "checkpoint":
        print(f"PASS checkpoint: {open_checkpoint(read_file(args.file), vkey, raw)}")
    elif args.command == "inclusion":
        cp, index = check_inclusion(read_file(args.proof), read_file(args.log),
                                    vkey, raw, log_key=raw)
        print(f"PASS inclusion: {args.log} is leaf {index} of {cp}")
    elif args.command == "consistency":
        old, new = check_consistency(read_file(args.old), read_file(args.new),
                                     read_file(args.proof), vkey, raw)
        print(f"PASS consistency: {old} -> {new}")
    elif args.command == "tournament":
        problems, notes, summary = check_tournament(load_tournament(args.dir), vkey, raw)
        for n in notes:
            print(f"NOTE {n}")
        for p in problems:
            print(f"FAIL {p}")
        print(f"{'FAIL' if problems else 'PASS'} {args.dir}: {summary}")
        if problems:
            return 1
    return 0


def parse_args(argv):
    """Command-line parsing."""
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--self-test", action="store_true", help="run every check over testdata")
    p.add_argument("--testdata", default=os.path.join(here, "..", "testdata", "tlog"))
    p.add_argument("--replay", metavar="BIN",
                   help="with --self-test: also give every tournament case to "
                        "BIN verify-tournament (the project's replay) and compare")
    sub = p.add_subparsers(dest="command")
    for name, positionals in (("checkpoint", ["file"]), ("inclusion", ["proof", "log"]),
                              ("consistency", ["old", "new", "proof"]),
                              ("tournament", ["dir"])):
        c = sub.add_parser(name)
        c.add_argument("--vkey", help="verifier key, or a file holding it")
        c.add_argument("--key", help="raw Ed25519 key as 64 hex digits, or a file")
        for pos in positionals:
            c.add_argument(pos)
    args = p.parse_args(argv)
    if not args.self_test and not args.command:
        p.error("give --self-test or a command")
    return args


def main(argv=None):
    """Entry point; returns the exit status."""
    args = parse_args(argv)
    if args.self_test:
        return self_test(os.path.normpath(args.testdata), args.replay)
    try:
        return run_command(args)
    except CheckError as err:
        print(f"FAIL {args.command}: {err}")
        return 1
    except OSError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
