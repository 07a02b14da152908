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
* "Tournaments": the five checks of `replay verify-tournament` over a
  tournament output directory (schedule.json, logs, proofs, checkpoint, key
  file). Logs are checked at a reduced "chain" level from log-format.md
  (framing, hash chain, header, seal signature), not replayed by the rules
  and not checked for canonical encoding.

Usage:
  docs_only_tlog_check.py --self-test [--testdata DIR]
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
`run_id` and `runId` accepted); a proof of a log that does not count is
"extra". Since the doc was mended from this checker's findings it also
states what this follows: referee.pub and referee.key.pub must hold the
same key when both are there; every sealed log is of the schedule's game;
a proof counts as "in the directory's checkpoint" when its checkpoint names
the same origin, size and root, even if a witness added a cosignature line.

--self-test also checks that tampered inputs are rejected. Every command
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
# Tournaments ("Tournaments": replay verify-tournament's five checks)
# ---------------------------------------------------------------------------


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
                for n in names if n.endswith(suffix)}

    return {
        "checkpoint": read("checkpoint"),
        "schedule": read("schedule.json"),
        # Both may exist; then they must hold the same key (check 1).
        "keys": [k for k in (read("referee.key.pub"), read("referee.pub"))
                 if k is not None],
        "logs": read_dir("logs", ".pyrlog"),
        "proofs": read_dir("proofs", ".tlog-proof"),
    }


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
    """A proto3-JSON uint32: an integral number or a decimal string."""
    if isinstance(value, str) and re.fullmatch(r"-?[0-9]+", value):
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
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


def parse_schedule(data):
    """Parse schedule.json (TournamentSchedule in proto3 JSON; absent
    fields take their defaults, e.g. entry 0 has no "index"). Returns
    (name, game, run_id, [entry dicts with index, label, seats, skipped])."""
    if data is None:
        raise CheckError("schedule.json: missing")
    try:
        top = proto_json_fields(json.loads(data), SCHEDULE_FIELDS, "schedule.json")
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


def check_schedule(name, run_id, entries):
    """Check 2: entries numbered 0, 1, ... without a gap, each labelled
    NAME/RUN_ID/INDEX. Returns (problems, {label: entry})."""
    problems, by_label = [], {}
    for i, entry in enumerate(entries):
        want = f"{name}/{run_id}/{i}"
        if entry["index"] != i:
            problems.append(f"schedule: entry {i} has index {entry['index']}")
        if entry["label"] != want:
            problems.append(f"schedule: entry {i} is labelled {entry['label']!r}, not {want!r}")
        by_label[entry["label"]] = entry
    return problems, by_label


def tournament_key(files, vkey=None, raw_key=None):
    """Check 1's key: --tlog_key, else --key, else the directory's key file."""
    if vkey is not None:
        return vkey, vkey.public_key
    if raw_key is None:
        if not files["keys"]:
            raise CheckError("no referee.pub or referee.key.pub in the directory")
        keys = {parse_hex_key(k.decode("ascii", "replace")) for k in files["keys"]}
        if len(keys) != 1:
            raise CheckError("referee.pub and referee.key.pub hold different keys")
        raw_key = keys.pop()
    return None, raw_key


def same_tree(a, b):
    """Whether two opened checkpoints name the same tree. The doc does not
    say what "the directory's checkpoint" means for a proof; we take the
    same origin, size and root (replay demands the same note bytes)."""
    return (a.origin, a.size, a.root) == (b.origin, b.size, b.root)


def check_log_proof(name, data, info, proof_data, checkpoint, key):
    """Check 4's proof part: the proof's checkpoint is the directory's, the
    log's leaf is at `index` in it, and `extra` is the log's match id."""
    proof = parse_tlog_proof(proof_data)
    proof_cp = open_checkpoint(proof.note, raw_key=key)
    if not same_tree(proof_cp, checkpoint):
        raise CheckError(f"proof is against another checkpoint ({proof_cp})")
    if proof.extra != info.match_id.hex().encode("ascii"):
        raise CheckError(f"proof is for match {proof.extra!r}, the log is {info.match_id.hex()}")
    verify_inclusion(proof.index, checkpoint.size, log_leaf_hash(data),
                     proof.hashes, checkpoint.root)


def check_tournament_log(name, data, proof_data, checkpoint, key, entries,
                         game):
    """Checks 3 and 4 for one log. Returns (problems, notes, label,
    proof_examined): `label` is the schedule label the log counts for
    (None if it does not count)."""
    where = f"logs/{name}.pyrlog"
    try:
        info = check_log(data, key)
    except CheckError as err:
        return [f"{where}: NOT GENUINE: {err}"], [], None, False
    if not info.sealed:
        return [], [f"{where}: unsealed prefix, not counted"], None, False
    if info.game != game:
        return [f"{where}: a {info.game!r} match, the schedule's game is {game!r}"], \
            [], None, False
    entry = entries.get(info.label)
    if entry is None:
        return [f"{where}: label {info.label!r} is not in the schedule"], [], None, False
    if entry["skipped"]:
        return [f"{where}: {info.label!r} is scheduled as skipped"], [], None, False
    if entry["seats"] != info.seats:
        return [f"{where}: seats {info.seats} are not the scheduled {entry['seats']}"], \
            [], None, False
    if proof_data is None:
        return [f"{where}: no proof of inclusion (proofs/{name}.tlog-proof)"], [], None, False
    try:
        check_log_proof(name, data, info, proof_data, checkpoint, key)
    except CheckError as err:
        return [f"proofs/{name}.tlog-proof: {err}"], [], None, True
    return [], [], info.label, True


def check_tournament(files, vkey=None, raw_key=None):
    """The five checks of verify-tournament over a loaded directory.
    Returns (problems, notes, summary)."""
    try:
        vkey, key = tournament_key(files, vkey, raw_key)
        if files["checkpoint"] is None:
            raise CheckError("no checkpoint file")
        checkpoint = open_checkpoint(files["checkpoint"], vkey, key)
        name, game, run_id, schedule = parse_schedule(files["schedule"])
        if not game:
            raise CheckError("schedule.json: the schedule names no game")
    except CheckError as err:
        return [str(err)], [], None
    problems, entries = check_schedule(name, run_id, schedule)
    notes, counted, examined = [], {}, set()
    for log_name, data in sorted(files["logs"].items()):
        found, note, label, proof_examined = check_tournament_log(
            log_name, data, files["proofs"].get(log_name), checkpoint, key, entries,
            game)
        problems += found
        notes += note
        if proof_examined:
            examined.add(log_name)
        if label is not None:
            counted.setdefault(label, []).append(log_name)
    for entry in schedule:
        count = len(counted.get(entry["label"], []))
        if not entry["skipped"] and count != 1:
            problems.append(f"schedule: match {entry['index']} ({entry['label']}) has "
                            f"{count} sealed, included logs, expected 1")
    for proof_name in sorted(set(files["proofs"]) - examined):
        problems.append(f"proofs/{proof_name}.tlog-proof: a proof without a counted log")
    played = sum(1 for e in schedule if not e["skipped"])
    return problems, notes, (f"{played} matches, all included in checkpoint "
                             f"{checkpoint.size} {checkpoint.root.hex()}")


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

    def expect_reject(self, name, func):
        """Run `func`; PASS only if it raises CheckError (a rejection)."""
        try:
            func()
        except CheckError as err:
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


def test_tournament(rep, root):
    """The "Tournaments" section over testdata/tlog/example, and tampering."""
    path = os.path.join(root, "example")
    files = load_tournament(path)
    vkey = parse_vkey(read_testdata(root, "tlog.vkey").decode())
    rep.expect_ok("tournament: example (key from referee.pub)",
                  lambda: tournament_ok(files))
    rep.expect_ok("tournament: example (--tlog_key tlog.vkey)",
                  lambda: tournament_ok(files, vkey=vkey))
    cosigned = copy.deepcopy(files)
    first = sorted(files["proofs"])[0]
    cosigned["proofs"][first] += WITNESS_LINE
    rep.expect_ok("tournament: a proof whose checkpoint carries a witness's line "
                  "(same tree; replay refuses this)", lambda: tournament_ok(cosigned))
    for label, schedule in schedule_variants(files).items():
        variant = dict(files, schedule=json.dumps(schedule).encode())
        rep.expect_ok(f"tournament: schedule.json with {label}",
                      lambda v=variant: tournament_ok(v))
    for label, tampered in tournament_tampers(files, root).items():
        rep.expect_reject(f"tamper: tournament, {label}",
                          lambda t=tampered: tournament_ok(t))


def tournament_ok(files, vkey=None, raw_key=None):
    """Raise CheckError listing the problems, else return the summary."""
    problems, _, summary = check_tournament(files, vkey, raw_key)
    if problems:
        raise CheckError("; ".join(problems))
    return summary


def tournament_tampers(files, root):
    """Tampered copies of a tournament directory, each to be rejected."""
    names = sorted(files["logs"])
    out = {}

    def variant(label, edit):
        """Record a deep copy of `files` changed by `edit` under `label`."""
        t = copy.deepcopy(files)
        edit(t)
        out[label] = t

    schedule = json.loads(files["schedule"])
    variant("a log and its proof removed", lambda t: (t["logs"].pop(names[0]),
                                                      t["proofs"].pop(names[0])))
    variant("a proof removed", lambda t: t["proofs"].pop(names[0]))
    variant("a stray proof", lambda t: t["proofs"].update(x=files["proofs"][names[0]]))
    variant("a log twice", lambda t: (t["logs"].update(dup=files["logs"][names[0]]),
                                      t["proofs"].update(dup=files["proofs"][names[0]])))
    variant("a byte changed in a log", lambda t: t["logs"].update(
        {names[0]: files["logs"][names[0]][:-1] + flip(files["logs"][names[0]][-1:])}))
    variant("a proof for the wrong index", lambda t: t["proofs"].update(
        {names[0]: replace_line(files["proofs"][names[0]], 2, b"index 4")}))
    variant("a log cut short (unsealed prefix) with its proof", lambda t: t["logs"].update(
        {names[0]: unseal(files["logs"][names[0]])}))
    variant("proofs swapped between two logs", lambda t: t["proofs"].update(
        {names[0]: files["proofs"][names[1]], names[1]: files["proofs"][names[0]]}))
    variant("checkpoint replaced by checkpoint-3",
            lambda t: t.update(checkpoint=read_testdata(root, "checkpoint-3")))
    variant("checkpoint size changed",
            lambda t: t.update(checkpoint=replace_line(files["checkpoint"], 1, b"7")))
    variant("another referee key", lambda t: t.update(keys=[b"11" * 32 + b"\n"]))
    variant("referee.pub and referee.key.pub disagree", lambda t: t.update(
        keys=files["keys"][:1] + [b"11" * 32 + b"\n"]))
    variant("the schedule names another game", lambda t: t.update(schedule=json.dumps(
        dict(schedule, game="pyramid_scheme")).encode()))
    variant("the schedule names no game", lambda t: t.update(schedule=json.dumps(
        {k: v for k, v in schedule.items() if k != "game"}).encode()))
    variant("schedule entry cut", lambda t: t.update(schedule=json.dumps(
        dict(schedule, matches=schedule["matches"][:2])).encode()))
    variant("schedule seats changed", lambda t: t.update(schedule=json.dumps(
        dict(schedule, matches=[dict(schedule["matches"][0], seats=["b1", "b2", "b3"])]
             + schedule["matches"][1:])).encode()))
    variant("schedule with a gap in the numbering", lambda t: t.update(schedule=json.dumps(
        dict(schedule, matches=schedule["matches"][:2]
             + [dict(schedule["matches"][2], index=3)])).encode()))
    extra = {"index": 3, "label": f"{schedule['name']}/{schedule['run_id']}/3",
             "seats": ["b1", "b2", "b3"]}
    variant("schedule with an extra match", lambda t: t.update(schedule=json.dumps(
        dict(schedule, matches=schedule["matches"] + [extra])).encode()))
    variant("schedule marks a played match skipped", lambda t: t.update(schedule=json.dumps(
        dict(schedule, matches=[dict(schedule["matches"][0], skipped=True)]
             + schedule["matches"][1:])).encode()))
    variant("schedule.json with an unknown field", lambda t: t.update(
        schedule=json.dumps(dict(schedule, extraField=1)).encode()))
    return out


def schedule_variants(files):
    """Valid spellings of the example's schedule.json (proto3 JSON)."""
    schedule = json.loads(files["schedule"])
    camel = {k: v for k, v in schedule.items() if k != "run_id"}
    camel["runId"] = schedule["run_id"]
    skipped = {"index": 3, "label": f"{schedule['name']}/{schedule['run_id']}/3",
               "seats": ["b1", "b2", "b3"], "skipped": True}
    return {
        "runId instead of run_id": camel,
        "entry 0 with an explicit index 0": dict(
            schedule, matches=[dict(schedule["matches"][0], index=0)] + schedule["matches"][1:]),
        "an index as a JSON string": dict(
            schedule, matches=schedule["matches"][:1] + [dict(schedule["matches"][1], index="1")]
            + schedule["matches"][2:]),
        "a skipped match without a log": dict(schedule, matches=schedule["matches"] + [skipped]),
    }


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


def self_test(testdata):
    """Run every check over the doc's vectors and testdata/tlog."""
    rep = Reporter()
    test_vectors(rep)
    test_signed_edge_cases(rep)
    test_checkpoints(rep, testdata)
    test_consistency(rep, testdata)
    test_inclusion(rep, testdata)
    test_tournament(rep, testdata)
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
        if problems:
            return 1
        print(f"PASS {args.dir}: {summary}")
    return 0


def parse_args(argv):
    """Command-line parsing."""
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--self-test", action="store_true", help="run every check over testdata")
    p.add_argument("--testdata", default=os.path.join(here, "..", "testdata", "tlog"))
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
        return self_test(os.path.normpath(args.testdata))
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
