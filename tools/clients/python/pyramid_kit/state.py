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
fsyncs DIR; the kit calls it before the commit leaves. `load` returns the
salt and action bytes, or None when there is no record (or one that is not
a record of that decision, said once). `drop` and `drop_match` remove
records whose decision is over.
"""
from __future__ import annotations

import base64
import binascii
import glob
import json
import logging
import os
import tempfile
from typing import Optional

log = logging.getLogger("pyramid_kit")

Key = tuple  # (match_id, seat, decision_id)


class StateDir:
    """The commitment records of one directory."""

    def __init__(self, path: str) -> None:
        self.path = path

    def file(self, key: Key) -> str:
        match_id, seat, decision_id = key
        return os.path.join(self.path, f"{match_id}-{seat}-{decision_id}.json")

    def save(self, key: Key, salt: bytes, action: bytes) -> None:
        """Writes the record of `key` durably (OSError when it cannot)."""
        match_id, seat, decision_id = key
        text = json.dumps({
            "match_id": match_id, "seat": seat, "decision_id": decision_id,
            "action": base64.b64encode(action).decode("ascii"),
            "salt": base64.b64encode(salt).decode("ascii")})
        final = self.file(key)
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
        dir_fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)

    def load(self, key: Key) -> Optional[tuple[bytes, bytes]]:
        """(salt, action bytes) of `key`'s record; None when there is none
        or it is not a record of that decision (said)."""
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

    def drop(self, key: Key) -> None:
        """Removes `key`'s record, if any."""
        try:
            os.unlink(self.file(key))
        except FileNotFoundError:
            pass
        except OSError as err:
            log.warning("cannot remove %s: %s", self.file(key), err)

    def drop_match(self, match_id: str) -> None:
        """Removes every record of `match_id` (its match is over), and
        any temporary file a crash left of one."""
        base = os.path.join(glob.escape(self.path), glob.escape(match_id))
        for path in (glob.glob(base + "-*.json") +
                     glob.glob(base + "-*.json.*.tmp")):
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
            except OSError as err:
                log.warning("cannot remove %s: %s", path, err)
