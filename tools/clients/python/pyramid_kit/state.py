"""Commitments on disk (--state_dir), so that a bot restarted between a
commit and its reveal can still reveal.

Contract: one file per (match, seat, decision) the bot committed to,
DIR/<match_id>-<seat>-<decision_id>.json, holding one JSON object

  {"match_id": "<32 hex digits>", "seat": S, "decision_id": D,
   "action": "<base64 of the serialized Action committed>",
   "salt": "<base64 of the 32-byte salt>"}

(the Node kit writes and reads the same files, so either kit can reveal
what the other committed). `save` makes it durable before it returns: it
writes a temporary file in DIR, fsyncs it, renames it into place and
fsyncs DIR; the kit calls it before the commit leaves. A record that
cannot be written (ENOSPC, EIO, ...) is said in a warning, and that
decision is committed without it: a restart before its reveal faults the
seat. `load` returns the salt and action bytes, or None when there is no
record (or one that is not a record of that decision, said once).
`newest` is the seat's largest decision with a record: after a restart,
the seat's newest decision, older ones without a record of their own
being refused.

A record is kept until its match ends, whatever its reveal's state (a
referee that lost the reveal in a power loss asks that decision again,
and gets the same commitment): `drop_match` removes every record of a
match, and any temporary file a crash left of one
(DIR/<match_id>-*.json and DIR/<match_id>-*.json.*.tmp), when its
MatchEnded or DATA_LOSS error arrives; nothing else removes records (the
Node kit has the same rule). Names are built only from a match id of 32
hex digits and non-negative seat and decision numbers (ValueError
otherwise). `prepare_dir` makes DIR durably (each directory made, its
parent fsync'd).
"""
from __future__ import annotations

import base64
import binascii
import json
import logging
import os
import re
import tempfile
from typing import Optional

log = logging.getLogger("pyramid_kit")

Key = tuple  # (match_id, seat, decision_id)

_MATCH_ID = re.compile(r"[0-9a-fA-F]{32}")
# A record's name, or a temporary file's (NAME.<random>.tmp here,
# NAME.<pid>.tmp in Node).
_NAME = re.compile(r"([0-9a-fA-F]{32})-([0-9]+)-([0-9]+)\.json(\..+\.tmp)?")


def nameable(key: Key) -> bool:
    """Whether (match_id, seat, decision_id) can name a record."""
    match_id, seat, decision_id = key
    return (isinstance(match_id, str) and _MATCH_ID.fullmatch(match_id)
            is not None and isinstance(seat, int) and seat >= 0 and
            isinstance(decision_id, int) and decision_id >= 0)


def _fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def prepare_dir(path: str) -> None:
    """Makes the directory `path` and its missing parents, fsyncing the
    parent of each one made (so that the directory survives a power loss);
    OSError unless it is a directory this process can write in."""
    path = os.path.abspath(path)
    missing = []
    here = path
    while not os.path.exists(here):
        missing.append(here)
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    for made in reversed(missing):
        try:
            os.mkdir(made)
        except FileExistsError:
            pass  # Made meanwhile by another process.
        _fsync_dir(os.path.dirname(made))
    if not os.path.isdir(path):
        raise NotADirectoryError(20, "Not a directory", path)
    if not os.access(path, os.W_OK | os.X_OK):
        raise PermissionError(13, "Permission denied", path)


class StateDir:
    """The commitment records of one directory."""

    def __init__(self, path: str) -> None:
        self.path = path

    def file(self, key: Key) -> str:
        """The record's path (ValueError when `key` cannot name one)."""
        if not nameable(key):
            raise ValueError(f"no record can be named after match "
                             f"{key[0]!r} seat {key[1]!r} decision "
                             f"{key[2]!r}")
        match_id, seat, decision_id = key
        return os.path.join(self.path, f"{match_id}-{seat}-{decision_id}.json")

    def save(self, key: Key, salt: bytes, action: bytes) -> None:
        """Writes the record of `key` durably (OSError when it cannot,
        ValueError when `key` cannot name a record)."""
        match_id, seat, decision_id = key
        final = self.file(key)
        text = json.dumps({
            "match_id": match_id, "seat": seat, "decision_id": decision_id,
            "action": base64.b64encode(action).decode("ascii"),
            "salt": base64.b64encode(salt).decode("ascii")})
        # Named after the record, so that its match's end removes one a
        # crash left behind (as the Node kit names its own).
        fd, temp = tempfile.mkstemp(
            dir=self.path, prefix=os.path.basename(final) + ".",
            suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="ascii") as out:
                out.write(text + "\n")
                out.flush()
                os.fsync(out.fileno())
            os.rename(temp, final)
        except BaseException:
            try:
                os.unlink(temp)
            except OSError:
                pass
            raise
        _fsync_dir(self.path)

    def load(self, key: Key) -> Optional[tuple[bytes, bytes]]:
        """(salt, action bytes) of `key`'s record; None when there is none
        or it is not a record of that decision (said), or `key` cannot name
        one."""
        if not nameable(key):
            return None
        path = self.file(key)
        try:
            with open(path, encoding="ascii") as f:
                record = json.load(f)
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as err:
            log.warning("match %s seat %d decision %d: cannot read %s: %s; "
                        "ignoring it", *key, path, err)
            return None
        try:
            if (str(record["match_id"]).lower(), record["seat"],
                    record["decision_id"]) != (key[0].lower(), *key[1:]):
                raise ValueError("it names another decision")
            salt = base64.b64decode(record["salt"], validate=True)
            action = base64.b64decode(record["action"], validate=True)
            if len(salt) != 32:
                raise ValueError("its salt is not 32 bytes")
        except (KeyError, TypeError, ValueError, binascii.Error) as err:
            log.warning("match %s seat %d decision %d: %s is not a "
                        "commitment record of it (%s); ignoring it", *key,
                        path, err)
            return None
        return salt, action

    def newest(self, match_id: str, seat: int) -> Optional[int]:
        """The largest decision of (match_id, seat) with a record (by name;
        None when there is none or the directory cannot be read, said)."""
        try:
            names = os.listdir(self.path)
        except OSError as err:
            log.warning("cannot list %s: %s", self.path, err)
            return None
        newest = None
        for name in names:
            m = _NAME.fullmatch(name)
            if (m and not m.group(4) and m.group(1).lower() ==
                    match_id.lower() and int(m.group(2)) == seat):
                newest = max(newest or 0, int(m.group(3)))
        return newest

    def drop_match(self, match_id: str) -> None:
        """Removes every record of `match_id` (its match is over), and
        any temporary file a crash left of one."""
        if not isinstance(match_id, str) or not _MATCH_ID.fullmatch(match_id):
            return
        try:
            names = os.listdir(self.path)
        except OSError as err:
            log.warning("cannot list %s: %s", self.path, err)
            return
        for name in names:
            m = _NAME.fullmatch(name)
            if not m or m.group(1) != match_id:
                continue
            path = os.path.join(self.path, name)
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
            except OSError as err:
                log.warning("cannot remove %s: %s", path, err)
