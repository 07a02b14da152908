#!/usr/bin/python3
"""Independent, docs-only verifier of `.pyrlog` match logs (format version 1).

Written from the documentation alone, without reading the project's C++, to
test the promise that the log format can be implemented from the docs:

- docs/log-format.md: "File structure" and "Framing rules" (magic, varint
  length prefixes, truncated vs corrupt tails); "Records" and "Canonical
  encoding" (every record parses as a `LogRecord`, holds no unknown field and
  is byte-for-byte its deterministic re-serialization); "Header (record 0)"
  and its table of valid games, rules versions, seat counts and options;
  "The hash chain"; "Signatures (checkpoints and the seal)", "Ed25519",
  "Which signatures are checked" and "Where signatures go"; "Commitments";
  "The seed"; "Record order" and "The replay" (decision order, commit and
  reveal rules, faults and their justification, forfeit outcomes, seed
  reveal); "Verification" and "Verdicts"; "Decisions beyond DESIGN.md".
- docs/test-vectors.md and testdata/vectors/primitives.txt (every hash and
  signature preimage, the ChaCha20 random stream, uniform(n), shuffle).
- proto/pyramid/referee/v1/*.proto (field numbers and types, transcribed by
  hand into SCHEMA below; no generated code is used).
- docs/rules/rock_paper_pyramid.md (shared/rules/): the only game whose rules
  this checker replays. For the three other games the protocol is still
  checked (commitments, reveals, faults, seed, decision ids, moves against
  reveals, outcome shape), but the game's own decisions, results, automatic
  and default moves, initial view and scores are taken from the log as
  written; such logs are reported "OK ... rules not replayed".

Usage:
    docs_only_log_check.py --key HEXKEYFILE [--allow-unsealed] LOG...
    docs_only_log_check.py --self-test

Prints `OK <path> ...` or `REJECTED <path>: <reason>` per log; exits 0 only
when every log is OK. `--self-test` checks the primitive vectors, every
golden log, and tampered copies of each golden log (all must be rejected).
Only the standard library and PyNaCl (libsodium's Ed25519) are used.
"""

import argparse
import glob
import hashlib
import os
import struct
import sys
import time
from collections import deque

import nacl.bindings
import nacl.exceptions

# ---------------------------------------------------------------------------
# Constants (log-format.md "Conventions", "File structure").

MAGIC = b"PYRLOG\x00\x01"
MAX_RECORD_SIZE = 16 * 1024 * 1024
D_C = b"pyramid-referee/commit/v1\x00"
D_S = b"pyramid-referee/commit-sig/v1\x00"
D_RC = b"pyramid-referee/referee-seed/v1\x00"
D_R = b"pyramid-referee/seed/v1\x00"
D_L = b"pyramid-referee/log/v1\x00"
ZERO32 = bytes(32)

POLICY_FORFEIT, POLICY_DEFAULT = 1, 2
FAULT_COMMIT_TIMEOUT, FAULT_REVEAL_TIMEOUT = 1, 2
FAULT_REVEAL_MISMATCH, FAULT_ILLEGAL_ACTION = 3, 4
CONSEQ_FORFEIT, CONSEQ_DEFAULT = 1, 2
MOVE_REVEALED, MOVE_DEFAULT, MOVE_AUTOMATIC = 1, 2, 3
TERM_NORMAL, TERM_MOVE_LIMIT, TERM_FORFEIT = 1, 2, 3

# docs/protocol.md "Action size" / log-format.md decision 17.
MAX_SEED_ACTION_SIZE = 96  # protocol.md "Action size": every game.
MAX_ACTION_SIZE = {"rock_paper_pyramid": 64, "pyramid_shambo": 1024,
                   "flaming_pyramids": 64, "pyramid_scheme": 128}

# ---------------------------------------------------------------------------
# The schema, transcribed from proto/pyramid/referee/v1/*.proto.
# "message NAME" then one field a line: NUMBER NAME TYPE [repeated|optional|
# oneof]. TYPE is a scalar (uint32 uint64 int32 int64 sint32 bool enum string
# bytes) or a message name. Enums are open (proto3) and read as int32.

SCHEMA_TEXT = """
message LogRecord
 1 prev_hash bytes
 2 header Header oneof
 3 decision_opened DecisionOpened oneof
 4 commit Commit oneof
 5 reveal Reveal oneof
 6 fault Fault oneof
 7 seed_reveal SeedReveal oneof
 8 applied Applied oneof
 9 checkpoint Signature oneof
 10 outcome Outcome oneof
 11 seal Signature oneof
 12 restart Restart oneof
message ClockSettings
 1 commit_timeout_ms uint32
 2 reveal_timeout_ms uint32
 3 time_bank_ms uint32
 4 time_bank_increment_ms uint32
 5 seed_timeout_ms uint32
message Seat
 1 name string
 2 public_key bytes
message Header
 1 format_version uint32
 2 rules_version uint32
 3 match_id bytes
 4 game GameConfig
 5 seats Seat repeated
 6 referee_public_key bytes
 7 referee_commitment bytes
 8 clocks ClockSettings
 9 forfeit_policy enum
 10 created_unix_ms int64
 11 checkpoint_interval uint32
 12 label string
message DecisionOpened
 1 decision_id uint64
 2 seats uint32 repeated
 3 simultaneous bool
 4 opened_unix_ms int64
 5 commit_deadline_unix_ms int64
message Commit
 1 decision_id uint64
 2 seat uint32
 3 commitment bytes
 4 signature bytes
 5 received_unix_ms int64
message Reveal
 1 decision_id uint64
 2 seat uint32
 3 salt bytes
 4 action bytes
 5 received_unix_ms int64
message Fault
 1 decision_id uint64
 2 seat uint32
 3 reason enum
 4 consequence enum
 5 detail string
 6 at_unix_ms int64
message SeedReveal
 1 referee_contribution bytes
 2 seed bytes
 3 initial_view Observation
message Move
 1 seat uint32
 2 source enum
 3 action Action
message Applied
 1 decision_id uint64 optional
 2 moves Move repeated
 3 result Result
message Signature
 1 record_count uint64
 2 chain_hash bytes
 3 signature bytes
message Restart
 1 last_record_unix_ms int64
 2 restarted_unix_ms int64
 3 deadline_unix_ms int64
message GameConfig
 1 game string
 2 rock_paper_pyramid RockPaperPyramidOptions oneof
 3 pyramid_shambo PyramidShamboOptions oneof
 4 flaming_pyramids FlamingPyramidsOptions oneof
 5 pyramid_scheme PyramidSchemeOptions oneof
message SeedContribution
 1 contribution bytes
 2 header_hash bytes
message Action
 1 seed SeedContribution oneof
 2 rock_paper_pyramid RockPaperPyramidAction oneof
 3 pyramid_shambo PyramidShamboAction oneof
 4 flaming_pyramids FlamingPyramidsAction oneof
 5 pyramid_scheme PyramidSchemeAction oneof
message Observation
 1 public_view bool
 2 seat uint32
 3 rock_paper_pyramid RockPaperPyramidObservation oneof
 4 pyramid_shambo PyramidShamboObservation oneof
 5 flaming_pyramids FlamingPyramidsObservation oneof
 6 pyramid_scheme PyramidSchemeObservation oneof
message Result
 2 rock_paper_pyramid RockPaperPyramidRoundResult oneof
 3 pyramid_shambo PyramidShamboResult oneof
 4 flaming_pyramids FlamingPyramidsResult oneof
 5 pyramid_scheme PyramidSchemeResult oneof
message SeatOutcome
 1 rank uint32
 2 score int32
 3 forfeited bool
message Outcome
 1 termination enum
 2 seats SeatOutcome repeated

message RppPiece
 1 colour enum
 2 size enum
message RockPaperPyramidOptions
 1 winner_takes enum
 2 red bool
message RockPaperPyramidAction
 1 piece RppPiece
message RppSeatView
 1 pool RppPiece repeated
 2 score int32
 3 scored RppPiece repeated
message RppCapture
 1 claimant uint32
 2 captured uint32
 3 piece RppPiece
message RockPaperPyramidRoundResult
 1 round uint32
 2 played RppPiece repeated
 3 resolution enum
 4 captures RppCapture repeated
 5 kept uint32 repeated
 6 scores int32 repeated
message RockPaperPyramidObservation
 1 rounds_played uint32
 2 total_rounds uint32
 3 seats RppSeatView repeated
 4 history RockPaperPyramidRoundResult repeated

message ShamboPiece
 1 colour enum
 2 size enum
message PyramidShamboOptions
 1 max_throws uint32 optional
message ShamboChallenge
 1 target uint32
message ShamboExchange
 1 provider uint32
 2 payer_gives ShamboPiece repeated
 3 provider_gives ShamboPiece repeated
message ShamboPayment
 1 exchange ShamboExchange
 2 pay ShamboPiece repeated
message PyramidShamboAction
 1 challenge ShamboChallenge oneof
 2 hand enum oneof
 3 payment ShamboPayment oneof
 4 canonical bool oneof
message ShamboHeldPiece
 1 holder uint32
 2 piece ShamboPiece
message ShamboElimination
 1 seat uint32
 2 cause enum
 3 group uint32
 4 removed ShamboHeldPiece repeated
message ShamboSeatView
 1 holding ShamboPiece repeated
 2 pips uint32
 3 live bool
 4 elimination_group uint32
 5 hands_thrown uint32 repeated
message ShamboTiedThrow
 1 hand enum
message ShamboPendingPayment
 1 kind enum
 2 payer uint32
 3 payee uint32
 4 amount uint32
 5 method enum
 6 providers uint32 repeated
 7 options uint64
message PyramidShamboObservation
 1 seats ShamboSeatView repeated
 2 phase enum
 3 active uint32
 4 decider uint32
 5 target uint32
 6 ties uint32
 7 tied_throws ShamboTiedThrow repeated
 8 throws_made uint32
 9 max_throws uint32
 10 winner uint32
 11 payment ShamboPendingPayment
 12 bonus_due uint32 repeated
 13 first_player uint32
message ShamboChallengeResult
 1 active uint32
 2 target uint32
message ShamboThrowResult
 1 active uint32
 2 target uint32
 3 active_hand enum
 4 target_hand enum
 5 throw_number uint32
 6 tie bool
 7 ties uint32
 8 winner uint32
 9 loser uint32
 10 fee uint32
 11 doubled bool
 12 limit_reached bool
message ShamboPaymentResult
 1 kind enum
 2 decider uint32
 3 payer uint32
 4 payee uint32
 5 amount uint32
 6 method enum
 7 canonical bool
 8 payment ShamboPayment
 9 paid uint32
 10 eliminations ShamboElimination repeated
 11 bonus_due uint32 repeated
 12 bonus_cancelled bool
 13 turn_over bool
 14 next_active uint32
 15 game_over bool
 16 holdings ShamboSeatHolding repeated
message ShamboSeatHolding
 1 pieces ShamboPiece repeated
message PyramidShamboResult
 1 challenge ShamboChallengeResult oneof
 2 throw_result ShamboThrowResult oneof
 3 payment ShamboPaymentResult oneof

message FlamingPyramidsOptions
 1 curse bool
 2 max_turns uint32
message FpSpot
 1 row uint32
 2 x sint32
message FpCell
 1 tile uint32
 2 row uint32
 3 x sint32
message FpPlace
 1 tile uint32
 2 row uint32
 3 x sint32
message FlamingPyramidsAction
 1 place FpPlace oneof
 2 fall enum oneof
message FpTileMove
 1 tile uint32
 2 from_row uint32
 3 from_x sint32
 4 to enum
 5 to_row uint32
 6 to_x sint32
 7 pile_seat uint32
message FpEvent
 1 kind enum
 2 cause uint32
 3 receiver uint32
 4 direction enum
 5 moves FpTileMove repeated
message FpPendingFall
 1 kind enum
 2 tile uint32
 3 row uint32
 4 x sint32
 5 chooser uint32
 6 supports FpCell repeated
message FpTurnEnd
 1 drawn uint32
 2 won bool
 3 turns_completed uint32
 4 held uint32 repeated
 5 move_limit bool
message FpTurn
 1 turn uint32
 2 seat uint32
 3 placed FpPlace
 4 events FpEvent repeated
 5 end FpTurnEnd
message FlamingPyramidsResult
 1 turn uint32
 2 seat uint32
 3 placed FpPlace
 4 events FpEvent repeated
 5 pending FpPendingFall
 6 turn_end FpTurnEnd
 7 pyramid FpCell repeated
 8 active_seat uint32
message FpSeatView
 1 hand_size uint32
 2 pile_size uint32
 3 dealt_left uint32
 4 under uint32 repeated
 5 own_hand uint32 repeated
message FlamingPyramidsObservation
 1 phase enum
 2 active_seat uint32
 3 receiver uint32
 4 turns_completed uint32
 5 max_turns uint32
 6 curse bool
 7 pyramid FpCell repeated
 8 seats FpSeatView repeated
 9 removed uint32 repeated
 10 legal_spots FpSpot repeated
 11 pending FpPendingFall
 12 recent_turns FpTurn repeated
 13 current_turn FpTurn
 14 winner uint32 optional

message PssCard
 1 id uint32
 2 colour enum
 3 number uint32
message PssCardTable
 1 colours enum repeated
 2 numbers uint32 repeated
 3 rewards enum repeated
 4 condition_needs uint32 repeated
 5 condition_any uint32 repeated
message PyramidSchemeOptions
 1 max_turns uint32
message PssTake
 1 slot uint32
message PssPlace
 1 card uint32
 2 parent uint32
message PssEmpty
message PssFlip
 1 card uint32
message PssRewardTarget
 1 card uint32
message PssDiscardHand
 1 cards uint32 repeated
message PssReserveGoal
 1 goal uint32
message PssPlacePolice
 1 parent uint32
message PyramidSchemeAction
 1 take PssTake oneof
 2 place PssPlace oneof
 3 use_reset PssEmpty oneof
 4 arm_bypass PssEmpty oneof
 5 flip PssFlip oneof
 6 stop_flipping PssEmpty oneof
 7 reward_target PssRewardTarget oneof
 8 discard_hand PssDiscardHand oneof
 9 reserve_goal PssReserveGoal oneof
 10 place_police PssPlacePolice oneof
 11 end_turn PssEmpty oneof
message PssDecision
 1 phase enum
 2 seat uint32
 3 active_seat uint32
 4 actions_done uint32
 5 bypass_armed bool
 6 reward enum
 7 reward_card uint32
 8 police_goal uint32
message PssNode
 1 card PssCard
 2 kind enum
 3 parent uint32 optional
 4 flipped bool
 5 capacity_tokens uint32 repeated
 6 limit uint32
message PssSeatView
 1 live bool
 2 eliminated_order uint32
 3 hand_size uint32
 4 hand_limit uint32
 5 reset_tokens uint32
 6 bypass_tokens uint32
 7 pyramid PssNode repeated
 8 smart_asses uint32
message PssGoalView
 1 goal uint32
 2 claimed_by uint32 optional
 3 reserved_by uint32 optional
message PssSupply
 1 police uint32
 2 reset_tokens uint32
 3 bypass_tokens uint32
 4 capacity_2_tokens uint32
 5 capacity_3_tokens uint32
message PssDisplaySlot
 1 card PssCard
message PssBoard
 1 turn uint32
 2 max_turns uint32
 3 active_seat uint32
 4 seats PssSeatView repeated
 5 display PssDisplaySlot repeated
 6 deck_size uint32
 7 deck_top PssCard
 8 discard PssCard repeated
 9 goals PssGoalView repeated
 10 supply PssSupply
 11 out_of_game uint32
message PyramidSchemeObservation
 1 board PssBoard
 2 decision PssDecision
 3 hand PssCard repeated
 4 cards PssCardTable
message PssTurnStarted
 1 seat uint32
 2 turn uint32
message PssTook
 1 slot uint32
 2 card PssCard
message PssSlotFilled
 1 slot uint32
 2 card PssCard
message PssReshuffled
 1 deck_size uint32
message PssDiscarded
 1 cards PssCard repeated
message PssPlaced
 1 card PssCard
 2 parent uint32
 3 bypass_used bool
message PssTokenUsed
 1 token enum
message PssFlipped
 1 card PssCard
 2 by_reward enum
message PssRewardResolved
 1 card uint32
 2 reward enum
 3 lost bool
message PssTokenGained
 1 token enum
message PssCapacityPlaced
 1 card uint32
 2 value uint32
message PssHandLimitRaised
 1 hand_limit uint32
message PssGoalReserved
 1 goal uint32
message PssPoliceRemoved
 1 card uint32
 2 tokens_returned uint32
message PssGoalClaimed
 1 goal uint32
 2 seat uint32
message PssPolicePlaced
 1 seat uint32
 2 police uint32
 3 parent uint32
 4 goal uint32
message PssEliminated
 1 seat uint32
 2 reason enum
message PssTurnEnded
 1 seat uint32
 2 turn uint32
 3 board PssBoard
message PssGameEnded
 1 reason enum
 2 board PssBoard
message PssEvent
 1 turn_started PssTurnStarted oneof
 2 took PssTook oneof
 3 slot_filled PssSlotFilled oneof
 4 reshuffled PssReshuffled oneof
 5 discarded PssDiscarded oneof
 6 placed PssPlaced oneof
 7 token_used PssTokenUsed oneof
 8 flipped PssFlipped oneof
 9 reward PssRewardResolved oneof
 10 token_gained PssTokenGained oneof
 11 capacity_placed PssCapacityPlaced oneof
 12 hand_limit_raised PssHandLimitRaised oneof
 13 goal_reserved PssGoalReserved oneof
 14 police_removed PssPoliceRemoved oneof
 15 goal_claimed PssGoalClaimed oneof
 16 police_placed PssPolicePlaced oneof
 17 eliminated PssEliminated oneof
 18 turn_ended PssTurnEnded oneof
 19 game_ended PssGameEnded oneof
message PyramidSchemeResult
 1 seat uint32
 2 events PssEvent repeated
"""

VARINT_TYPES = {"uint32", "uint64", "int32", "int64", "sint32", "bool", "enum"}
LEN_SCALARS = {"string", "bytes"}


class Field:
    """One field of a message: number, name, type and label."""

    def __init__(self, number, name, ftype, label):
        self.number, self.name, self.type, self.label = number, name, ftype, label
        self.repeated = label == "repeated"
        # Explicit presence: `optional`, oneof members and message fields.
        self.presence = label in ("optional", "oneof")
        self.is_message = ftype not in VARINT_TYPES and ftype not in LEN_SCALARS
        self.packed = self.repeated and ftype in VARINT_TYPES


def parse_schema(text):
    """Turns SCHEMA_TEXT into {message name: {field number: Field}}."""
    schema, current = {}, None
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "message":
            current = schema.setdefault(parts[1], {})
            continue
        label = parts[3] if len(parts) > 3 else "singular"
        current[int(parts[0])] = Field(int(parts[0]), parts[1], parts[2], label)
    for fields in schema.values():
        for f in fields.values():
            assert not f.is_message or f.type in schema, f.type
    return schema


SCHEMA = parse_schema(SCHEMA_TEXT)

# ---------------------------------------------------------------------------
# Protobuf wire format, by hand (log-format.md "Canonical encoding").


class ParseError(Exception):
    """The bytes do not parse as the message (a proto3 parser refuses them)."""


class UnknownFieldError(Exception):
    """The bytes parse but hold a field the schema does not define."""


def read_varint(buf, pos, end):
    """Reads a protobuf varint (at most 10 bytes); returns (value, new pos)."""
    value, shift = 0, 0
    while True:
        if pos >= end or shift >= 70:
            raise ParseError("varint cut off or too long")
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, pos


def encode_varint(value):
    """Minimal base-128 varint of a non-negative integer."""
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def to_signed(value, bits):
    """Two's complement reading of the low `bits` bits."""
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def convert_varint(ftype, raw):
    """The value a C++ proto3 parser stores for a varint of this field type."""
    if ftype == "uint32":
        return raw & 0xFFFFFFFF
    if ftype == "uint64":
        return raw & 0xFFFFFFFFFFFFFFFF
    if ftype in ("int32", "enum"):
        return to_signed(raw, 32)
    if ftype == "int64":
        return to_signed(raw, 64)
    if ftype == "sint32":
        low = raw & 0xFFFFFFFF
        return (low >> 1) ^ -(low & 1)
    if ftype == "bool":
        return raw != 0
    raise AssertionError(ftype)


def varint_of(ftype, value):
    """The canonical varint bytes a serializer writes for a scalar value."""
    if ftype == "bool":
        return encode_varint(1 if value else 0)
    if ftype == "sint32":
        return encode_varint(((value << 1) ^ (value >> 31)) & 0xFFFFFFFF)
    return encode_varint(value & 0xFFFFFFFFFFFFFFFF)


def decode(msg_name, buf, pos=0, end=None):
    """Parses `buf[pos:end]` as message `msg_name` into a dict.

    Mirrors a proto3 parser: repeated scalars may come packed or not, the
    last of a repeated singular field or of several oneof members wins,
    varints are truncated to the field's width. Raises ParseError for bytes
    no parser accepts and UnknownFieldError for an undefined field (or a
    known field with the wrong wire type, which parsers keep as unknown)."""
    if end is None:
        end = len(buf)
    fields, out = SCHEMA[msg_name], {}
    while pos < end:
        tag, pos = read_varint(buf, pos, end)
        number, wire = tag >> 3, tag & 7
        if number == 0 or tag > 0xFFFFFFFF:
            raise ParseError("field number 0 or tag too large")
        if wire in (4, 6, 7):
            raise ParseError("wire type %d (stray end-group or invalid)" % wire)
        f = fields.get(number)
        if f is None or wire == 3 or not wire_matches(f, wire):
            raise UnknownFieldError("unknown field %d (wire type %d) in %s"
                                    % (number, wire, msg_name))
        pos = decode_field(f, wire, buf, pos, end, out, fields)
    return out


def wire_matches(f, wire):
    """Whether a wire type is accepted for a known field."""
    if f.type in VARINT_TYPES:
        return wire == 0 or (f.repeated and wire == 2)
    return wire == 2


def decode_field(f, wire, buf, pos, end, out, fields):
    """Decodes one occurrence of field `f` into `out`; returns the new pos."""
    if wire == 0:
        raw, pos = read_varint(buf, pos, end)
        store(f, convert_varint(f.type, raw), out, fields)
        return pos
    length, pos = read_varint(buf, pos, end)
    if pos + length > end:
        raise ParseError("length-delimited field %s cut off" % f.name)
    stop = pos + length
    if f.packed:
        items = out.setdefault(f.name, [])
        while pos < stop:
            raw, pos = read_varint(buf, pos, stop)
            items.append(convert_varint(f.type, raw))
        return stop
    if f.is_message:
        value = decode(f.type, buf, pos, stop)
    elif f.type == "string":
        try:
            value = bytes(buf[pos:stop]).decode("utf-8")
        except UnicodeDecodeError:
            raise ParseError("string field %s is not valid UTF-8" % f.name)
    else:
        value = bytes(buf[pos:stop])
    store(f, value, out, fields)
    return stop


def store(f, value, out, fields):
    """Stores a decoded value (appending to repeated fields; for a oneof,
    clearing its other members as a parser does)."""
    if f.repeated:
        out.setdefault(f.name, []).append(value)
        return
    if f.label == "oneof":
        for other in fields.values():
            if other.label == "oneof" and other.name != f.name:
                out.pop(other.name, None)
    out[f.name] = value


def default_of(f):
    """The proto3 default of a scalar field."""
    if f.type == "bool":
        return False
    if f.type == "string":
        return ""
    if f.type == "bytes":
        return b""
    return 0


def encode(msg_name, msg):
    """Deterministic (canonical) serialization of a decoded message dict."""
    out = bytearray()
    for number in sorted(SCHEMA[msg_name]):
        f = SCHEMA[msg_name][number]
        if f.name not in msg:
            continue
        value = msg[f.name]
        if f.packed:
            if value:
                body = b"".join(varint_of(f.type, v) for v in value)
                out += encode_varint(number << 3 | 2) + encode_varint(len(body)) + body
        elif f.repeated:
            for item in value:
                out += encode_len_field(f, number, item)
        elif f.is_message:
            out += encode_len_field(f, number, value)
        elif not f.presence and value == default_of(f):
            continue
        elif f.type in VARINT_TYPES:
            out += encode_varint(number << 3) + varint_of(f.type, value)
        else:
            out += encode_len_field(f, number, value)
    return bytes(out)


def encode_len_field(f, number, value):
    """Tag, length and body of a string, bytes or message field."""
    if f.is_message:
        body = encode(f.type, value)
    elif f.type == "string":
        body = value.encode("utf-8")
    else:
        body = value
    return encode_varint(number << 3 | 2) + encode_varint(len(body)) + body


def strict_decode(msg_name, data):
    """Decodes and requires the canonical encoding; returns (msg, error)."""
    try:
        msg = decode(msg_name, data)
    except ParseError as e:
        return None, "does not parse (%s)" % e
    except UnknownFieldError as e:
        return None, "holds unknown fields (%s)" % e
    if encode(msg_name, msg) != bytes(data):
        return None, "is not in its canonical encoding"
    return msg, None


# ---------------------------------------------------------------------------
# Framing (log-format.md "File structure", "Framing rules").


def split_records(data):
    """Splits a file into complete record bodies and a tail verdict.

    Returns (records, tail) where records is a list of (offset, body) and
    tail is None (file ends after the last record) or (kind, offset,
    why) with kind "truncated" or "corrupt"."""
    if len(data) < len(MAGIC):
        if MAGIC.startswith(data):
            return [], ("truncated", 0, "file shorter than the magic")
        return [], ("corrupt", 0, "bad magic")
    if data[:8] != MAGIC:
        return [], ("corrupt", 0, "bad magic")
    records, pos = [], 8
    while pos < len(data):
        start, length, shift, i = pos, 0, 0, 0
        while True:
            if pos >= len(data):
                return records, ("truncated", start, "length prefix cut off")
            if i == 4:
                return records, ("corrupt", start, "length prefix over 4 bytes")
            b = data[pos]
            pos += 1
            i += 1
            length |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        if i > 1 and data[pos - 1] == 0:
            return records, ("corrupt", start, "non-minimal length prefix")
        if length > MAX_RECORD_SIZE:
            return records, ("corrupt", start, "record longer than 16 MiB")
        if pos + length > len(data):
            return records, ("truncated", start, "record body cut off")
        records.append((start, data[pos:pos + length]))
        pos += length
    return records, None


# ---------------------------------------------------------------------------
# Primitives (log-format.md "Commitments", "The seed", "Signatures";
# test-vectors.md).


def sha256(*parts):
    """SHA-256 of the concatenation of byte strings."""
    h = hashlib.sha256()
    for p in parts:
        h.update(p)
    return h.digest()


def u32be(x):
    """x as 4 bytes big-endian."""
    return struct.pack(">I", x)


def u64be(x):
    """x as 8 bytes big-endian."""
    return struct.pack(">Q", x)


def ed25519_verify(public_key, message, signature):
    """libsodium's crypto_sign_verify_detached (via crypto_sign_open)."""
    if len(public_key) != 32 or len(signature) != 64:
        return False
    try:
        nacl.bindings.crypto_sign_open(signature + message, public_key)
        return True
    except (nacl.exceptions.BadSignatureError, ValueError,
            nacl.exceptions.CryptoError):
        return False


def commitment(match_id, seat, decision_id, salt, action_bytes):
    """c = SHA-256(D_c ‖ match_id ‖ u32be(seat) ‖ u64be(id) ‖ salt ‖ action)."""
    return sha256(D_C, match_id, u32be(seat), u64be(decision_id), salt,
                  action_bytes)


def commit_sig_message(match_id, seat, decision_id, c):
    """The 90 bytes a keyed seat signs for its commit."""
    return D_S + match_id + u32be(seat) + u64be(decision_id) + c


def log_sig_message(match_id, record_count, chain_hash):
    """The 79 bytes a checkpoint or the seal signs."""
    return D_L + match_id + u64be(record_count) + chain_hash


def referee_commitment(match_id, contribution):
    """SHA-256(D_rc ‖ match_id ‖ referee_contribution)."""
    return sha256(D_RC, match_id, contribution)


def match_seed(match_id, referee_contribution, seat_contributions):
    """SHA-256(D_r ‖ match_id ‖ referee_contribution ‖ s_0 ‖ … ‖ s_(n-1))."""
    return sha256(D_R, match_id, referee_contribution, *seat_contributions)


def chacha20_block(key, counter, nonce=bytes(12)):
    """One 64-byte ChaCha20 keystream block (RFC 8439 section 2.3)."""
    def rotl(v, c):
        return ((v << c) & 0xFFFFFFFF) | (v >> (32 - c))

    def qr(s, a, b, c, d):
        s[a] = (s[a] + s[b]) & 0xFFFFFFFF; s[d] = rotl(s[d] ^ s[a], 16)
        s[c] = (s[c] + s[d]) & 0xFFFFFFFF; s[b] = rotl(s[b] ^ s[c], 12)
        s[a] = (s[a] + s[b]) & 0xFFFFFFFF; s[d] = rotl(s[d] ^ s[a], 8)
        s[c] = (s[c] + s[d]) & 0xFFFFFFFF; s[b] = rotl(s[b] ^ s[c], 7)

    init = ([0x61707865, 0x3320646E, 0x79622D32, 0x6B206574]
            + list(struct.unpack("<8I", key)) + [counter]
            + list(struct.unpack("<3I", nonce)))
    s = list(init)
    for _ in range(10):
        qr(s, 0, 4, 8, 12); qr(s, 1, 5, 9, 13); qr(s, 2, 6, 10, 14); qr(s, 3, 7, 11, 15)
        qr(s, 0, 5, 10, 15); qr(s, 1, 6, 11, 12); qr(s, 2, 7, 8, 13); qr(s, 3, 4, 9, 14)
    return struct.pack("<16I", *[(a + b) & 0xFFFFFFFF for a, b in zip(s, init)])


class RandomStream:
    """The match's random stream (test-vectors.md "Random stream")."""

    def __init__(self, seed):
        self.seed, self.block, self.words = seed, 0, deque()
        self.consumed = 0

    def next_word(self):
        """Next little-endian u64 word of the ChaCha20 keystream."""
        if not self.words:
            self.words.extend(struct.unpack("<8Q", chacha20_block(self.seed, self.block)))
            self.block += 1
        self.consumed += 1
        return self.words.popleft()

    def uniform(self, n):
        """Uniform integer in [0, n) by rejection (always draws once)."""
        limit = 2 ** 64 - (2 ** 64 % n)
        while True:
            w = self.next_word()
            if w < limit:
                return w % n

    def shuffle(self, items):
        """Fisher-Yates, i = m-1 down to 1, j = uniform(i+1)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.uniform(i + 1)
            items[i], items[j] = items[j], items[i]
        return items


def competition_ranks(keys):
    """1 + number of seats with a strictly better (smaller) key."""
    return [1 + sum(1 for k in keys if k < mine) for mine in keys]


# ---------------------------------------------------------------------------
# Rock, Paper, Pyramid! (docs/rules/rock_paper_pyramid.md), the one game
# replayed. Colours B=1 W=2 C=3 Red=4, sizes L=1 M=2 S=3 (the proto enums).

RPP_BEATS = {(1, 2), (2, 3), (3, 1)}  # colour and size cycles alike
RPP_CAPTURES, RPP_WASHOUT, RPP_STANDOFF, RPP_WISHBONE = 1, 2, 3, 4


def rpp_beats_colour(a, b):
    """Colour a beats colour b (Red beats every other colour)."""
    if a == 4 or b == 4:
        return a == 4 and b != 4
    return (a, b) in RPP_BEATS


def rpp_captures(x, y):
    """Piece x (colour, size) captures piece y."""
    x_wins = rpp_beats_colour(x[0], y[0]) or (x[1], y[1]) in RPP_BEATS
    y_wins = rpp_beats_colour(y[0], x[0]) or (y[1], x[1]) in RPP_BEATS
    return x_wins and not y_wins


def rpp_piece(p):
    """RppPiece dict of a (colour, size) pair."""
    return {"colour": p[0], "size": p[1]}


def rpp_points(p):
    """Large 3, Medium 2, Small 1."""
    return 4 - p[1]


class RockPaperPyramid:
    """Game state G of Rock, Paper, Pyramid! (the replay's interface)."""

    SEATS = 3

    def __init__(self, options, stream):
        self.takes_all = options.get("winner_takes", 0) == 2
        red = options.get("red", False)
        self.pools = [sorted((c, s) for c in (1, 2, 3) for s in (1, 2, 3))
                      for _ in range(3)]
        if red:
            sizes = stream.shuffle([1, 2, 3])
            for seat in range(3):
                self.pools[seat] = sorted(self.pools[seat] + [(4, sizes[seat])])
        self.total = 10 if red else 9
        self.rounds = 0
        self.scores = [0, 0, 0]
        self.scored = [[], [], []]
        self.history = []

    def acting_seats(self):
        """Every round, all three seats act."""
        return [0, 1, 2]

    def is_simultaneous(self):
        """Every decision is simultaneous."""
        return True

    def is_terminal(self):
        """The game ends after its 9 (or 10) rounds."""
        return self.rounds >= self.total

    def sole_legal_action(self, seat):
        """Never asked: three seats always act."""
        return None

    def validate(self, seat, action):
        """The action plays a piece from the seat's own pool."""
        rpp = action.get("rock_paper_pyramid")
        if rpp is None:
            return "not a rock_paper_pyramid action"
        piece = rpp.get("piece", {})
        key = (piece.get("colour", 0), piece.get("size", 0))
        if key not in self.pools[seat]:
            return "piece not in the seat's pool"
        return None

    def default_action(self, seat):
        """The seat's first remaining piece in sorted order."""
        return {"rock_paper_pyramid": {"piece": rpp_piece(self.pools[seat][0])}}

    def apply(self, actions):
        """Plays one round; returns the Result dict."""
        played = []
        for seat, action in enumerate(actions):
            p = action["rock_paper_pyramid"].get("piece", {})
            played.append((p.get("colour", 0), p.get("size", 0)))
            self.pools[seat].remove(played[-1])
        self.rounds += 1
        resolution, claim = self.resolve(played)
        captures, kept = [], []
        gains = [[], [], []]
        if resolution == RPP_CAPTURES:
            for victim in range(3):
                if victim in claim:
                    captures.append({"claimant": claim[victim], "captured": victim,
                                     "piece": rpp_piece(played[victim])})
                    gains[claim[victim]].append(played[victim])
            if self.takes_all:
                for seat in sorted(set(claim.values())):
                    kept.append(seat)
                    gains[seat].append(played[seat])
        for seat in range(3):
            for p in gains[seat]:
                self.scored[seat].append(p)
                self.scores[seat] += rpp_points(p)
        result = {"round": self.rounds, "played": [rpp_piece(p) for p in played],
                  "resolution": resolution, "captures": captures, "kept": kept,
                  "scores": list(self.scores)}
        self.history.append(result)
        return {"rock_paper_pyramid": result}

    @staticmethod
    def resolve(played):
        """Three-way resolution: (resolution, {captured seat: claimant})."""
        edges = {(a, b) for a in range(3) for b in range(3)
                 if a != b and rpp_captures(played[a], played[b])}
        captured = {b for _, b in edges}
        if not captured:
            return RPP_WASHOUT, {}
        free = [s for s in range(3) if s not in captured]
        if not free:
            return RPP_STANDOFF, {}
        claim = {}
        for victim in sorted(captured):
            claimants = [u for u in free if reaches(edges, u, victim)]
            if len(claimants) != 1:
                return RPP_WISHBONE, {}
            claim[victim] = claimants[0]
        return RPP_CAPTURES, claim

    def public_view(self):
        """The Observation every seat and watcher sees."""
        seats = [{"pool": [rpp_piece(p) for p in self.pools[s]],
                  "score": self.scores[s],
                  "scored": [rpp_piece(p) for p in self.scored[s]]} for s in range(3)]
        return {"public_view": True, "seat": 0, "rock_paper_pyramid": {
            "rounds_played": self.rounds, "total_rounds": self.total,
            "seats": seats, "history": list(self.history)}}

    def stopped_outcome(self):
        """Ranks by score so far; scores as they stand."""
        ranks = competition_ranks([-s for s in self.scores])
        return [{"rank": r, "score": s} for r, s in zip(ranks, self.scores)]

    def outcome(self):
        """Final outcome: ranks by score, TERMINATION_NORMAL."""
        return {"termination": TERM_NORMAL, "seats": self.stopped_outcome()}


def reaches(edges, start, target):
    """Whether `target` is reachable from `start` along capture edges."""
    seen, todo = {start}, [start]
    while todo:
        a = todo.pop()
        for x, y in edges:
            if x == a and y not in seen:
                if y == target:
                    return True
                seen.add(y)
                todo.append(y)
    return False


GAMES_REPLAYED = {("rock_paper_pyramid", 1): RockPaperPyramid}

# ---------------------------------------------------------------------------
# Header (log-format.md "Header (record 0)" and its table of valid values).

GAME_TABLE = {
    # game: (rules versions, min seats, max seats)
    "flaming_pyramids": ({1, 2}, 2, 6),
    "pyramid_scheme": ({1}, 2, 4),
    "pyramid_shambo": ({1}, 2, 10),
    "rock_paper_pyramid": ({1}, 3, 3),
}


def check_options(game, options):
    """Checks the options oneof member against the table; None if valid."""
    members = [m for m in GAME_TABLE if m in options]
    if not members:
        return None
    if members != [game]:
        return "options of another game than %s" % game
    opt = options[game]
    if game == "flaming_pyramids" and opt.get("max_turns", 0) > 100000:
        return "flaming_pyramids max_turns over 100000"
    if game == "pyramid_scheme" and opt.get("max_turns", 0) > 100000:
        return "pyramid_scheme max_turns over 100000"
    if game == "pyramid_shambo" and opt.get("max_throws", 1) == 0:
        return "pyramid_shambo max_throws 0"
    if game == "rock_paper_pyramid" and opt.get("winner_takes", 0) not in (0, 1, 2):
        return "rock_paper_pyramid winner_takes undefined"
    return None


def check_header(h, pinned_key):
    """All header checks of the full level; returns an error or None."""
    if h.get("format_version", 0) != 1:
        return "format_version is not 1"
    if len(h.get("match_id", b"")) != 16:
        return "match_id is not 16 bytes"
    if len(h.get("referee_public_key", b"")) != 32:
        return "referee_public_key is not 32 bytes"
    if pinned_key is not None and h["referee_public_key"] != pinned_key:
        return "referee_public_key is not the pinned key"
    if len(h.get("referee_commitment", b"")) != 32:
        return "referee_commitment is not 32 bytes"
    for i, seat in enumerate(h.get("seats", [])):
        if len(seat.get("public_key", b"")) not in (0, 32):
            return "seat %d public_key is neither empty nor 32 bytes" % i
    config = h.get("game", {})
    game = config.get("game", "")
    if game not in GAME_TABLE:
        return "unknown game %r" % game
    versions, lo, hi = GAME_TABLE[game]
    if h.get("rules_version", 0) not in versions:
        return "rules_version %d of %s not implemented" % (h.get("rules_version", 0), game)
    if not lo <= len(h.get("seats", [])) <= hi:
        return "%d seats; %s takes %d to %d" % (len(h.get("seats", [])), game, lo, hi)
    return check_options(game, config)


# ---------------------------------------------------------------------------
# The replay (log-format.md "The replay").


class BadRecord(Exception):
    """Record `index` fails a check: the log is not genuine."""

    def __init__(self, index, reason):
        super().__init__("record %d: %s" % (index, reason))
        self.index, self.reason = index, reason


class Decision:
    """The open decision's bookkeeping."""

    def __init__(self, decision_id, seats):
        self.id, self.seats, self.phase = decision_id, list(seats), "commit"
        self.commitment, self.revealed, self.faulted = {}, set(), set()
        self.action = {}  # seat -> usable Action dict

    def resolved(self, seat):
        """Faulted, or has a usable action."""
        return seat in self.faulted or seat in self.action


class Verifier:
    """Replays one log's records in order (full level)."""

    def __init__(self, pinned_key):
        self.pinned_key = pinned_key
        self.chain, self.since = ZERO32, 0
        self.sealed = self.outcome_seen = False
        self.signed = None  # index of the last signature record
        self.expect = deque()
        self.decision, self.owed = None, None
        self.game = None  # G, from the seed reveal on (replayed games only)
        self.next_id = 0
        self.records = []  # stored bytes, for the final signature check
        self.outcome = None

    # -- per record -------------------------------------------------------

    def feed(self, i, body):
        """Checks record i (steps 1 to 8 of the replay)."""
        if self.sealed:
            raise BadRecord(i, "record after the seal")
        rec, err = strict_decode("LogRecord", body)
        if err:
            raise BadRecord(i, "the record " + err)
        self.records.append(body)
        if rec.get("prev_hash", b"") != self.chain:
            raise BadRecord(i, "prev_hash does not match the hash chain")
        self.chain = sha256(body)
        if i == 0:
            self.header_hash = self.chain
        kind = next((f.name for n, f in sorted(SCHEMA["LogRecord"].items())
                     if n >= 2 and f.name in rec), None)
        if i == 0:
            return self.on_header(i, rec)
        self.check_placement(i, rec, kind)
        if kind is None:
            raise BadRecord(i, "record of unknown kind (no kind set)")
        if kind == "header":
            raise BadRecord(i, "a second header")
        getattr(self, "on_" + kind)(i, rec[kind])

    def check_placement(self, i, rec, kind):
        """Steps 5 to 7: a due checkpoint, an owed fault, signature fields."""
        n = self.interval
        if n and self.since >= n and kind != "checkpoint":
            raise BadRecord(i, "a checkpoint is due (%d records since the last "
                               "signature)" % self.since)
        if self.owed and kind not in ("fault", "checkpoint"):
            raise BadRecord(i, "a fault is owed for seat %d (reason %d)" % self.owed)
        if kind in ("checkpoint", "seal"):
            sig = rec[kind]
            if sig.get("record_count", 0) != i:
                raise BadRecord(i, "signature record_count %d is not its index"
                                % sig.get("record_count", 0))
            if sig.get("chain_hash", b"") != rec.get("prev_hash", b""):
                raise BadRecord(i, "signature chain_hash is not its prev_hash")
        elif kind is not None:
            self.since += 1

    def on_header(self, i, rec):
        """Record 0: the header, checked; the seed decision expected."""
        h = rec.get("header")
        if h is None:
            raise BadRecord(i, "record 0 is not a header")
        err = check_header(h, self.pinned_key)
        if err:
            raise BadRecord(i, "bad header: " + err)
        self.header, self.match_id = h, h["match_id"]
        self.n = len(h["seats"])
        self.keys = [s.get("public_key", b"") for s in h["seats"]]
        self.policy_default = h.get("forfeit_policy", 0) == POLICY_DEFAULT
        self.interval = h.get("checkpoint_interval", 0)
        self.game_id = h["game"]["game"]
        self.options = h["game"].get(self.game_id, {})
        self.rules = GAMES_REPLAYED.get((self.game_id, h["rules_version"]))
        self.since = 1
        self.expect.append(("decision", 0, list(range(self.n)), True))

    def on_checkpoint(self, i, _):
        """A checkpoint: never two signatures in a row."""
        if self.since == 0:
            raise BadRecord(i, "two signature records in a row")
        self.since, self.signed = 0, i

    def on_seal(self, i, _):
        """The seal: only after the outcome."""
        if not self.outcome_seen:
            raise BadRecord(i, "seal before the outcome")
        self.sealed, self.signed = True, i

    def on_restart(self, i, r):
        """A restart: before the outcome, times in order."""
        if self.outcome_seen:
            raise BadRecord(i, "restart after the outcome")
        if r.get("restarted_unix_ms", 0) < r.get("last_record_unix_ms", 0):
            raise BadRecord(i, "restart earlier than the last record")

    def on_decision_opened(self, i, d):
        """Must be the decision the rules (or the protocol) expect next."""
        want = self.expect[0] if self.expect else None
        did, seats = d.get("decision_id", 0), d.get("seats", [])
        if want is None or want[0] not in ("decision", "continue"):
            raise BadRecord(i, "decision opened when none is due")
        if want[0] == "continue":  # rules not replayed: trust seats
            if did != self.next_id + 1:
                raise BadRecord(i, "decision %d opened, %d expected" % (did, self.next_id + 1))
            if not seats or seats != sorted(set(seats)) or seats[-1] >= self.n:
                raise BadRecord(i, "decision seats not ascending valid seats")
            self.next_id = did
        elif (did, seats, d.get("simultaneous", False)) != tuple(want[1:]):
            raise BadRecord(i, "decision %d %s opened; expected decision %d %s"
                            % (did, seats, want[1], want[2]))
        self.expect.popleft()
        self.decision = Decision(did, seats)

    def open_decision_for(self, i, msg, what):
        """The open decision for a commit, reveal or fault of this seat."""
        dec = self.decision
        if dec is None or dec.id != msg.get("decision_id", 0):
            raise BadRecord(i, "%s for decision %d, which is not open"
                            % (what, msg.get("decision_id", 0)))
        if msg.get("seat", 0) not in dec.seats:
            raise BadRecord(i, "%s for seat %d, not in the decision"
                            % (what, msg.get("seat", 0)))
        return dec, msg.get("seat", 0)

    def on_commit(self, i, c):
        """Commit rules and the seat's signature."""
        dec, seat = self.open_decision_for(i, c, "commit")
        if dec.phase != "commit":
            raise BadRecord(i, "commit in the reveal phase")
        if seat in dec.commitment or seat in dec.faulted:
            raise BadRecord(i, "seat %d already committed or faulted" % seat)
        cm = c.get("commitment", b"")
        if len(cm) != 32:
            raise BadRecord(i, "commitment is not 32 bytes")
        sig = c.get("signature", b"")
        if not self.keys[seat]:
            if sig:
                raise BadRecord(i, "keyless seat %d commit carries a signature" % seat)
        elif not ed25519_verify(self.keys[seat],
                                commit_sig_message(self.match_id, seat, dec.id, cm), sig):
            raise BadRecord(i, "seat %d commit signature does not verify" % seat)
        dec.commitment[seat] = cm
        self.progress()

    def on_reveal(self, i, r):
        """Reveal rules: commitment over stored bytes, then usability."""
        dec, seat = self.open_decision_for(i, r, "reveal")
        if dec.phase != "reveal":
            raise BadRecord(i, "reveal in the commit phase")
        if seat not in dec.commitment or seat in dec.faulted or seat in dec.revealed:
            raise BadRecord(i, "seat %d may not reveal (not committed, faulted "
                               "or revealed)" % seat)
        salt, action = r.get("salt", b""), r.get("action", b"")
        if len(salt) != 32:
            raise BadRecord(i, "salt is not 32 bytes")
        limit = MAX_SEED_ACTION_SIZE if dec.id == 0 else MAX_ACTION_SIZE[self.game_id]
        if len(action) > limit:
            raise BadRecord(i, "action longer than the game's maximum")
        dec.revealed.add(seat)
        if commitment(self.match_id, seat, dec.id, salt, action) != dec.commitment[seat]:
            self.owed = (seat, FAULT_REVEAL_MISMATCH)
            return
        parsed = self.usable_action(dec.id, seat, action)
        if parsed is None:
            self.owed = (seat, FAULT_ILLEGAL_ACTION)
            return
        dec.action[seat] = parsed
        self.progress()

    def usable_action(self, decision_id, seat, action_bytes):
        """The parsed Action if usable, else None (illegal)."""
        try:
            action = decode("Action", action_bytes)
        except (ParseError, UnknownFieldError):
            return None
        if decision_id == 0:
            # log-format.md, "Decisions beyond DESIGN.md" 20: a seed names
            # no header or this log's (the hash of record 0).
            seed = action.get("seed")
            ok = (seed is not None and len(seed.get("contribution", b"")) == 32
                  and seed.get("header_hash", b"") in (b"", self.header_hash))
            return action if ok else None
        if self.game is not None:
            return action if self.game.validate(seat, action) is None else None
        # Rules not replayed: only the kind of action is checked.
        return action if self.game_id in action else None

    def on_fault(self, i, f):
        """Fault justification and consequence."""
        dec, seat = self.open_decision_for(i, f, "fault")
        want = CONSEQ_DEFAULT if self.policy_default else CONSEQ_FORFEIT
        if f.get("consequence", 0) != want:
            raise BadRecord(i, "fault consequence %d, the policy gives %d"
                            % (f.get("consequence", 0), want))
        reason = f.get("reason", 0)
        if self.owed:
            if (seat, reason) != self.owed:
                raise BadRecord(i, "fault (%d, %d) but (%d, %d) is owed"
                                % ((seat, reason) + self.owed))
            self.owed = None
        elif reason == FAULT_COMMIT_TIMEOUT:
            if dec.phase != "commit" or seat in dec.commitment or seat in dec.faulted:
                raise BadRecord(i, "commit timeout not owed by seat %d" % seat)
        elif reason == FAULT_REVEAL_TIMEOUT:
            if (dec.phase != "reveal" or seat not in dec.commitment
                    or seat in dec.revealed or seat in dec.faulted):
                raise BadRecord(i, "reveal timeout not owed by seat %d" % seat)
        else:
            raise BadRecord(i, "unjustified fault (reason %d)" % reason)
        dec.faulted.add(seat)
        dec.action.pop(seat, None)
        self.progress()

    def on_seed_reveal(self, i, s):
        """The referee's contribution, the seed and the initial view."""
        self.pop_expected(i, "seed_reveal")
        contrib = s.get("referee_contribution", b"")
        if len(contrib) != 32:
            raise BadRecord(i, "referee_contribution is not 32 bytes")
        if referee_commitment(self.match_id, contrib) != self.header["referee_commitment"]:
            raise BadRecord(i, "referee contribution does not match the header's commitment")
        seed = match_seed(self.match_id, contrib, self.contributions)
        if s.get("seed", b"") != seed:
            raise BadRecord(i, "seed is not the one derived from the contributions")
        view = s.get("initial_view")
        if self.rules is not None:
            self.game = self.rules(self.options, RandomStream(seed))
            if view is None or encode("Observation", view) != encode(
                    "Observation", self.game.public_view()):
                raise BadRecord(i, "initial_view is not the game's public view")
            self.advance()
        else:
            if view is None or not view.get("public_view") or view.get("seat", 0) != 0 \
                    or self.game_id not in view:
                raise BadRecord(i, "initial_view is not a public view of this game")
            self.expect.append(("continue",))

    def on_applied(self, i, a):
        """Applied: the expected message (replayed) or the closed decision's
        moves (rules not replayed)."""
        want = self.expect[0] if self.expect else None
        if want and want[0] == "continue":
            return self.check_automatic(i, a)
        want = self.pop_expected(i, "applied")
        if want[1] is not None:
            if encode("Applied", a) != want[1]:
                raise BadRecord(i, "applied move or result differs from the rules")
            return
        self.check_trusted_applied(i, a, want[2])
        self.expect.append(("continue",))

    def check_automatic(self, i, a):
        """An automatic move (rules not replayed): its shape only."""
        moves = a.get("moves", [])
        if "decision_id" in a or len(moves) != 1 \
                or moves[0].get("source", 0) != MOVE_AUTOMATIC \
                or moves[0].get("seat", 0) >= self.n \
                or self.game_id not in moves[0].get("action", {}) \
                or self.game_id not in a.get("result", {}):
            raise BadRecord(i, "applied record is not a well-formed automatic move")

    def check_trusted_applied(self, i, a, dec):
        """The moves of a closed decision (rules not replayed)."""
        if a.get("decision_id") != dec.id:
            raise BadRecord(i, "applied decision_id is not the closed decision %d" % dec.id)
        moves = a.get("moves", [])
        if [m.get("seat", 0) for m in moves] != dec.seats:
            raise BadRecord(i, "applied moves are not one per seat, ascending")
        for m in moves:
            seat, src = m.get("seat", 0), m.get("source", 0)
            if seat in dec.faulted:
                if src != MOVE_DEFAULT or self.game_id not in m.get("action", {}):
                    raise BadRecord(i, "seat %d was faulted: a default move is due" % seat)
            elif src != MOVE_REVEALED or encode("Action", m.get("action", {})) != \
                    encode("Action", dec.action[seat]):
                raise BadRecord(i, "seat %d move is not its revealed action" % seat)
        if self.game_id not in a.get("result", {}):
            raise BadRecord(i, "applied result is not of this game")

    def on_outcome(self, i, o):
        """The outcome: expected message, or a checked shape."""
        want = self.expect[0] if self.expect else None
        if want and want[0] == "continue":  # a normal end, rules not replayed
            self.expect.popleft()
            self.check_outcome_shape(i, o, set(), normal=True)
        else:
            want = self.pop_expected(i, "outcome")
            if want[1] is not None:
                if encode("Outcome", o) != want[1]:
                    raise BadRecord(i, "outcome differs from the expected one")
            else:
                self.check_outcome_shape(i, o, want[2], normal=False)
        self.outcome_seen, self.outcome = True, o

    def check_outcome_shape(self, i, o, forfeited, normal):
        """Ranks are competition ranks; forfeits as log-format.md rules."""
        seats = o.get("seats", [])
        term = o.get("termination", 0)
        if len(seats) != self.n:
            raise BadRecord(i, "outcome does not have one entry per seat")
        if normal and term not in (TERM_NORMAL, TERM_MOVE_LIMIT):
            raise BadRecord(i, "outcome termination %d is not normal or move limit" % term)
        if not normal and term != TERM_FORFEIT:
            raise BadRecord(i, "forfeit outcome without TERMINATION_FORFEIT")
        rest = [s for s in range(self.n) if s not in forfeited]
        ranks = [seats[s].get("rank", 0) for s in rest]
        if ranks != competition_ranks(ranks):
            raise BadRecord(i, "outcome ranks are not competition ranks")
        for s in range(self.n):
            flag = seats[s].get("forfeited", False)
            if flag != (s in forfeited):
                raise BadRecord(i, "seat %d forfeited flag is wrong" % s)
            if s in forfeited and seats[s].get("rank", 0) != len(rest) + 1:
                raise BadRecord(i, "forfeiting seat %d does not rank last" % s)

    def pop_expected(self, i, kind):
        """Pops the front of `expect`, which must be of this kind."""
        if not self.expect or self.expect[0][0] != kind:
            raise BadRecord(i, "%s record where %s is due" % (
                kind, self.expect[0][0] if self.expect else "nothing"))
        return self.expect.popleft()

    # -- progress, close, advance -------------------------------------------

    def progress(self):
        """After a commit, usable reveal or fault (log-format.md *progress*)."""
        dec = self.decision
        if dec.phase == "commit":
            if any(s not in dec.commitment and s not in dec.faulted for s in dec.seats):
                return
            forfeits = not self.policy_default and dec.faulted
            if forfeits or all(dec.resolved(s) for s in dec.seats):
                self.close()
            else:
                dec.phase = "reveal"
        elif all(dec.resolved(s) for s in dec.seats):
            self.close()

    def close(self):
        """Closes the open decision and pushes what the rules require."""
        dec, self.decision = self.decision, None
        if not self.policy_default and dec.faulted:
            self.push_forfeit(dec)
        elif dec.id == 0:
            self.contributions = [ZERO32 if s in dec.faulted else
                                  dec.action[s]["seed"]["contribution"]
                                  for s in range(self.n)]
            self.expect.append(("seed_reveal",))
        elif self.game is None:
            self.expect.append(("applied", None, dec))
        else:
            self.apply_decision(dec)

    def apply_decision(self, dec):
        """Builds, applies and expects the moves of a closed decision."""
        moves, actions = [], []
        for s in dec.seats:
            if s in dec.faulted:
                act, src = self.game.default_action(s), MOVE_DEFAULT
            else:
                act, src = dec.action[s], MOVE_REVEALED
            moves.append({"seat": s, "source": src, "action": act})
            actions.append(act)
        result = self.game.apply(actions)
        applied = {"decision_id": dec.id, "moves": moves, "result": result}
        self.expect.append(("applied", encode("Applied", applied)))
        self.advance()

    def push_forfeit(self, dec):
        """ForfeitOutcome(F) of log-format.md."""
        forfeited = set(dec.faulted)
        if self.game is None and dec.id != 0:
            self.expect.append(("outcome", None, forfeited))
            return
        stopped = (self.game.stopped_outcome() if self.game is not None
                   else [{"rank": 1, "score": 0} for _ in range(self.n)])
        rest = [s for s in range(self.n) if s not in forfeited]
        rest_ranks = competition_ranks([stopped[s]["rank"] for s in rest])
        seats = []
        for s in range(self.n):
            if s in forfeited:
                seats.append({"rank": len(rest) + 1, "score": stopped[s]["score"],
                              "forfeited": True})
            else:
                seats.append({"rank": rest_ranks[rest.index(s)],
                              "score": stopped[s]["score"]})
        out = {"termination": TERM_FORFEIT, "seats": seats}
        self.expect.append(("outcome", encode("Outcome", out)))

    def advance(self):
        """Automatic moves, then the outcome or the next decision."""
        g = self.game
        while not g.is_terminal():
            acting = g.acting_seats()
            sole = g.sole_legal_action(acting[0]) if len(acting) == 1 else None
            if sole is None:
                break
            result = g.apply([sole])
            applied = {"moves": [{"seat": acting[0], "source": MOVE_AUTOMATIC,
                                  "action": sole}], "result": result}
            self.expect.append(("applied", encode("Applied", applied)))
        if g.is_terminal():
            self.expect.append(("outcome", encode("Outcome", g.outcome())))
        else:
            self.next_id += 1
            self.expect.append(("decision", self.next_id, g.acting_seats(),
                                g.is_simultaneous()))

    # -- the end ------------------------------------------------------------

    def final_signature_ok(self):
        """Ed25519 of the last signature record over its 79 bytes."""
        rec = decode("LogRecord", self.records[self.signed])
        sig = rec.get("seal") or rec.get("checkpoint")
        msg = log_sig_message(self.match_id, self.signed, sig.get("chain_hash", b""))
        return ed25519_verify(self.header["referee_public_key"], msg,
                              sig.get("signature", b""))


def verify_log(data, pinned_key, allow_unsealed=False):
    """Verifies one log file's bytes; returns (ok, message)."""
    records, tail = split_records(data)
    v = Verifier(pinned_key)
    try:
        for i, (_, body) in enumerate(records):
            v.feed(i, body)
    except BadRecord as e:
        return False, "not genuine: %s" % e
    return judge_end(v, records, tail, allow_unsealed)


def judge_end(v, records, tail, allow_unsealed):
    """log-format.md "Verdicts", after every complete record passed."""
    count = len(records)
    if v.signed is not None and not v.final_signature_ok():
        return False, "not genuine: record %d: signature does not verify" % v.signed
    if tail and tail[0] == "corrupt":
        return False, "not genuine: record %d: corrupt tail at byte %d (%s)" % (
            count, tail[1], tail[2])
    if v.sealed:
        if tail:
            return False, "not genuine: record %d: bytes after the seal" % count
        o = v.outcome
        ranks = " ".join(str(s.get("rank", 0)) for s in o.get("seats", []))
        scores = " ".join(str(s.get("score", 0)) for s in o.get("seats", []))
        note = "" if v.rules else ", rules not replayed"
        return True, "genuine (%d records, %s, termination %d, ranks %s, scores %s%s)" % (
            count, v.game_id, o.get("termination", 0), ranks, scores, note)
    if v.signed is None:
        why = " (%s)" % tail[2] if tail else ""
        return False, "not genuine: record %d: no valid signature record%s" % (count, why)
    msg = "unsealed prefix: records 0 to %d signed, %d unsigned after" % (
        v.signed, count - 1 - v.signed)
    return allow_unsealed, msg


# ---------------------------------------------------------------------------
# Command line and self-test.


def read_key_file(path):
    """A key file: 64 hex digits, either case, surrounding white space
    ignored (test-vectors.md "Key files"); a bare hex string also works."""
    text = open(path).read() if os.path.exists(path) else path
    key = bytes.fromhex(text.strip())
    if len(key) != 32:
        raise ValueError("key is not 32 bytes")
    return key


def check_paths(paths, key, allow_unsealed):
    """Verifies each log and prints its line; returns True if all OK."""
    all_ok = True
    for path in paths:
        with open(path, "rb") as fh:
            ok, msg = verify_log(fh.read(), key, allow_unsealed)
        print(("OK %s %s" if ok else "REJECTED %s: %s") % (path, msg))
        all_ok &= ok
    return all_ok


def load_vectors(path):
    """testdata/vectors/primitives.txt as a dict of strings."""
    vec = {}
    for line in open(path):
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, value = line.partition("=")
            vec[name.strip()] = value.strip()
    return vec


def self_test_vectors(root):
    """Checks this file's primitives against the published vectors."""
    v = load_vectors(os.path.join(root, "testdata/vectors/primitives.txt"))
    h = bytes.fromhex
    ints = lambda s: [int(x) for x in s.split(",")]
    checks = [
        ("commit", commitment(h(v["commit.match_id"]), int(v["commit.seat"]),
                              int(v["commit.decision_id"]), h(v["commit.salt"]),
                              h(v["commit.action"])) == h(v["commit.hash"])),
        ("commit2", commitment(h(v["commit2.match_id"]), int(v["commit2.seat"]),
                               int(v["commit2.decision_id"]), h(v["commit2.salt"]),
                               h(v["commit2.action"])) == h(v["commit2.hash"])),
        ("commit_sig", commit_sig_message(h(v["commit_sig.match_id"]), 1, 7,
                                          h(v["commit_sig.commitment"]))
         == h(v["commit_sig.message"]) and ed25519_verify(
             h(v["commit_sig.public_key"]), h(v["commit_sig.message"]),
             h(v["commit_sig.signature"]))),
        ("referee_commitment", referee_commitment(
            h(v["referee_commitment.match_id"]), h(v["referee_commitment.contribution"]))
         == h(v["referee_commitment.hash"])),
        ("seed", match_seed(h(v["seed.match_id"]), h(v["seed.referee_contribution"]),
                            [h(x) for x in v["seed.seat_contributions"].split(",")])
         == h(v["seed.seed"])),
        ("log_sig", log_sig_message(h(v["log_sig.match_id"]), int(v["log_sig.record_count"]),
                                    h(v["log_sig.chain_hash"])) == h(v["log_sig.message"])
         and ed25519_verify(h(v["commit_sig.public_key"]), h(v["log_sig.message"]),
                            h(v["log_sig.signature"]))),
        ("chacha20", chacha20_block(h(v["chacha20.rfc8439.key"]), 1,
                                    h(v["chacha20.rfc8439.nonce"]))
         == h(v["chacha20.rfc8439.block"])),
    ]
    s = RandomStream(h(v["stream.seed"]))
    checks.append(("stream.words", [s.next_word() for _ in range(8)] == ints(v["stream.words"])))
    s = RandomStream(h(v["stream.seed"]))
    checks.append(("stream.uniform_6", [s.uniform(6) for _ in range(10)]
                   == ints(v["stream.uniform_6"])))
    s = RandomStream(h(v["stream.seed"]))
    checks.append(("stream.shuffle_52", s.shuffle(list(range(52)))
                   == ints(v["stream.shuffle_52"])))
    s = RandomStream(h(v["stream.seed"]))
    big = [s.uniform(int(v["stream.uniform_big.n"])) for _ in range(4)]
    checks.append(("stream.uniform_big", big == ints(v["stream.uniform_big"])
                   and s.consumed == int(v["stream.uniform_big.words_consumed"])))
    s = RandomStream(h(v["seed.seed"]))
    checks.append(("seed.stream_words", [s.next_word() for _ in range(8)]
                   == ints(v["seed.stream_words"])))
    failed = [name for name, ok in checks if not ok]
    print("vectors: %d checked, %d failed %s" % (len(checks), len(failed), failed or ""))
    return not failed


def tampered_copies(data):
    """Yields (description, bytes) of tampered copies of a golden log."""
    records, _ = split_records(data)
    bounds = [(start, start + len(encode_varint(len(b))) + len(b)) for start, b in records]
    mid = len(records) // 2
    for name, k in (("header", 0), ("middle record %d" % mid, mid),
                    ("seal", len(records) - 1)):
        start, end = bounds[k]
        body = start + len(encode_varint(len(records[k][1])))
        for label, pos, bit in (("length prefix", start, 0), ("first body byte", body, 0),
                                ("middle byte", (body + end) // 2, 3),
                                ("last byte", end - 1, 7)):
            copy = bytearray(data)
            copy[pos] ^= 1 << bit
            yield "flip bit %d of %s of %s (byte %d)" % (bit, label, name, pos), bytes(copy)
    for cut in (len(data) - 1, bounds[-1][0], len(data) // 2, bounds[1][1], 8, 3, 0):
        yield "truncate to %d bytes" % cut, data[:cut]
    raw = [data[s:e] for s, e in bounds]
    yield "drop record %d" % mid, MAGIC + b"".join(raw[:mid] + raw[mid + 1:])
    yield "drop the seal", MAGIC + b"".join(raw[:-1])
    swapped = raw[:mid] + [raw[mid + 1], raw[mid]] + raw[mid + 2:]
    yield "swap records %d and %d" % (mid, mid + 1), MAGIC + b"".join(swapped)
    yield "duplicate record %d" % mid, MAGIC + b"".join(raw[:mid + 1] + raw[mid:])
    yield "append a byte", data + b"\x00"


def self_test():
    """Vectors, every golden log OK, every tampered copy REJECTED."""
    t0 = time.time()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ok = self_test_vectors(root)
    key = read_key_file(os.path.join(root, "testdata/golden/referee.pub"))
    logs = sorted(glob.glob(os.path.join(root, "testdata/golden/*/*.pyrlog")))
    ok &= check_paths(logs, key, False)
    tried = rejected = 0
    for path in logs:
        data = open(path, "rb").read()
        copies = list(tampered_copies(data))
        if path == logs[0]:
            print("tampering tried on each log (positions for %s):" % os.path.basename(path))
            for what, _ in copies:
                print("  " + what)
        before = rejected
        for what, copy in copies:
            tried += 1
            good, msg = verify_log(copy, key)
            if good:
                print("TAMPER ACCEPTED %s: %s (%s)" % (path, what, msg))
            else:
                rejected += 1
        print("tampered %s: %d of %d copies rejected" % (
            os.path.relpath(path, root), rejected - before, len(copies)))
    print("tampering: %d copies of %d logs tried, %d rejected" % (tried, len(logs), rejected))
    print("self-test %s in %.1f s" % ("passed" if ok and tried == rejected else "FAILED",
                                       time.time() - t0))
    return ok and tried == rejected


def main(argv):
    """Parses the command line and runs."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--key", help="file holding the referee's public key (hex)")
    ap.add_argument("--allow-unsealed", action="store_true",
                    help="accept an unsealed prefix (a log cut short)")
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("logs", nargs="*")
    args = ap.parse_args(argv)
    if args.self_test:
        return 0 if self_test() else 1
    if not args.key or not args.logs:
        ap.error("--key and at least one LOG are required")
    return 0 if check_paths(args.logs, read_key_file(args.key), args.allow_unsealed) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
