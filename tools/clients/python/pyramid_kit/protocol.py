"""The protocol's bytes: commitments, commit signatures and key files.

Contract: byte for byte as docs/protocol.md ("Commit, then reveal") and
docs/test-vectors.md define them; tests/python_kit_unit_test.py checks every
function here against testdata/vectors/primitives.txt.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Optional

COMMIT_DOMAIN = b"pyramid-referee/commit/v1\0"          # 26 bytes
COMMIT_SIG_DOMAIN = b"pyramid-referee/commit-sig/v1\0"  # 30 bytes
SALT_BYTES = 32


def match_id_bytes(match_id_hex: str) -> bytes:
    """A match id's 16 raw bytes, from its 32 hex digits; ValueError for
    anything else (other lengths, spaces, non-hex characters)."""
    if len(match_id_hex) != 32 or not all(
            c in "0123456789abcdefABCDEF" for c in match_id_hex):
        raise ValueError(f"match id {match_id_hex!r} is not 16 bytes in hex")
    return bytes.fromhex(match_id_hex)


def _header(match_id_hex: str, seat: int, decision_id: int) -> bytes:
    """match_id (16 raw bytes, from its 32 hex digits) || u32be(seat) ||
    u64be(decision_id)."""
    return (match_id_bytes(match_id_hex) + seat.to_bytes(4, "big") +
            decision_id.to_bytes(8, "big"))


def commitment(match_id_hex: str, seat: int, decision_id: int, salt: bytes,
               action_bytes: bytes) -> bytes:
    """SHA-256(D_c || match_id || u32be(seat) || u64be(decision_id) || salt
    || action_bytes): what CommitMove.commitment holds."""
    if len(salt) != SALT_BYTES:
        raise ValueError("the salt must be 32 bytes")
    return hashlib.sha256(COMMIT_DOMAIN + _header(match_id_hex, seat,
                                                  decision_id) +
                          salt + action_bytes).digest()


def commit_signature_message(match_id_hex: str, seat: int, decision_id: int,
                             commitment_bytes: bytes) -> bytes:
    """The 90 bytes a keyed seat signs: D_s || match_id || u32be(seat) ||
    u64be(decision_id) || commitment."""
    return (COMMIT_SIG_DOMAIN + _header(match_id_hex, seat, decision_id) +
            commitment_bytes)


def check_referee_address(address: str) -> str:
    """`address` when it is one the kit connects to: HOST:PORT with a port
    from 1 to 65535 (an IPv6 host in brackets, "[::1]:50051"), or a Unix
    domain socket, "unix:PATH" (the referee's --listen takes it too).
    ValueError saying what is wrong otherwise."""
    if address.startswith("unix:"):
        if len(address) == len("unix:"):
            raise ValueError(f"{address!r}: unix: needs a socket path "
                             "(unix:PATH)")
        return address
    usage = ("the referee's address is HOST:PORT (a port from 1 to 65535; "
             "an IPv6 host in brackets, [::1]:50051) or unix:PATH")
    if "://" in address or "/" in address:
        raise ValueError(f"{address!r}: not a URL: {usage}")
    host, colon, port = address.rpartition(":")
    if not colon:
        raise ValueError(f"{address!r} has no port: {usage}")
    if host.startswith("[") and host.endswith("]"):
        inner = host[1:-1]
        if not inner or not all(c in "0123456789abcdefABCDEF:." for c in inner):
            raise ValueError(f"{address!r}: {host} is not an IPv6 address: "
                             f"{usage}")
    elif not host or ":" in host or "[" in host or "]" in host or any(
            c.isspace() for c in host):
        raise ValueError(f"{address!r}: bad host {host!r}: {usage}")
    if not (port.isascii() and port.isdigit() and 1 <= int(port) <= 65535):
        raise ValueError(f"{address!r}: bad port {port!r}: {usage}")
    return address


def new_salt() -> bytes:
    """32 fresh bytes from the system's secure random source."""
    return os.urandom(SALT_BYTES)


_ASCII_SPACE = " \t\n\v\f\r"
_HEX_DIGITS = "0123456789abcdefABCDEF"


def _read_hex_file(path: str, size: int) -> bytes:
    """The `size` bytes the file at `path` holds as hex digits (surrounding
    ASCII whitespace allowed); OSError when it cannot be read, ValueError
    saying what it holds instead, as the C++ programs say it ("F: expected
    64 hex digits, found 62 of them")."""
    text = Path(path).read_bytes().decode("latin-1").strip(_ASCII_SPACE)
    if len(text) == 2 * size and all(c in _HEX_DIGITS for c in text):
        return bytes.fromhex(text)
    if not text:
        found = "nothing"
    elif all(c in _HEX_DIGITS for c in text):
        found = f"{len(text)} of them"
    else:
        found = f"{len(text)} characters, not all hex digits"
    raise ValueError(f"{path}: expected {2 * size} hex digits, found {found}")


def _is_public_key(key: bytes) -> bool:
    """Whether `key` is an Ed25519 public key: a point of the curve's main
    subgroup, in canonical form, not of small order (libsodium's
    crypto_core_ed25519_is_valid_point, as the C++ programs check it)."""
    from nacl.bindings import crypto_core_ed25519_is_valid_point
    return crypto_core_ed25519_is_valid_point(key)


class SeatKey:
    """An Ed25519 signing key for seats registered with its public key.

    Uses PyNaCl (Debian: python3-nacl), imported only when a key is used, so
    bots without keys need nothing beyond grpc and protobuf.
    """

    def __init__(self, seed: bytes) -> None:
        if len(seed) != 32:
            raise ValueError("an Ed25519 seed is 32 bytes")
        try:
            from nacl.signing import SigningKey
        except ImportError as err:  # pragma: no cover - depends on the host
            raise RuntimeError("seat keys need PyNaCl (Debian: apt-get "
                               "install python3-nacl)") from err
        self._key = SigningKey(seed)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> "SeatKey":
        """Reads a key file as `keygen` writes it: the 32-byte seed as 64 hex
        digits (surrounding whitespace and upper case allowed). ValueError,
        worded as the C++ bot's (ReadSigningKey, referee/crypto/ed25519.cc),
        for a public key file (a name ending in .pub: its 64 hex digits
        would sign with a "secret" anyone has), for text that is not 64 hex
        digits, and for a key that is not the secret half of the public key
        in PATH.pub beside it, when that is a regular file holding one."""
        path = os.fspath(path)
        if path.endswith(".pub"):
            raise ValueError(f"{path} is a public key file (.pub): give the "
                             "secret key file (keygen writes it without "
                             ".pub)")
        seed = _read_hex_file(path, 32)
        key = cls(seed)
        sibling = path + ".pub"
        if os.path.isfile(sibling):
            try:
                published: Optional[bytes] = _read_hex_file(sibling, 32)
            except (OSError, ValueError):
                published = None  # Not a key: not this check's business.
            if (published is not None and _is_public_key(published) and
                    published != key.public_key):
                if published == seed:
                    raise ValueError(
                        f"{path} holds the public key that {sibling} holds, "
                        "not a secret key: give the secret key file (the "
                        f"one keygen wrote beside {sibling})")
                raise ValueError(
                    f"{sibling}, next to it, holds another public key than "
                    f"{path}'s: the key in {path} is not its secret half; "
                    f"give the secret key that matches {sibling}, or remove "
                    f"or replace {sibling} (keygen writes a matching pair)")
        return key

    @property
    def public_key(self) -> bytes:
        """The raw 32-byte public key (what SeatSpec.public_key takes)."""
        return bytes(self._key.verify_key)

    def sign(self, message: bytes) -> bytes:
        """The pure Ed25519 (RFC 8032) signature of message, 64 bytes."""
        return self._key.sign(message).signature

    def sign_commit(self, match_id_hex: str, seat: int, decision_id: int,
                    commitment_bytes: bytes) -> bytes:
        """CommitMove.signature for this commitment."""
        return self.sign(commit_signature_message(match_id_hex, seat,
                                                  decision_id,
                                                  commitment_bytes))


def read_token(path: Optional[str]) -> str:
    """The Play token: from the file at path, else $PYRAMID_TOKEN_FILE (the
    tournament runner sets it), else $PYRAMID_TOKEN itself. Never printed.
    ValueError naming where it came from, a file after its flag or
    variable as the C++ bot names it ("--token_file: F ..."), when that
    holds no token: a token is printable ASCII without spaces (it travels
    as gRPC metadata), or when the file cannot be read ("--token_file:
    cannot read F: No such file or directory") or is empty ("--token_file:
    F is empty")."""
    flag = "--token_file" if path else "$PYRAMID_TOKEN_FILE"
    path = path or os.environ.get("PYRAMID_TOKEN_FILE")
    source = f"{flag}: {path}" if path else "$PYRAMID_TOKEN"
    try:
        token = (Path(path).read_bytes().decode("latin-1") if path else
                 os.environ.get("PYRAMID_TOKEN", "")).strip()
    except OSError as err:
        raise ValueError(f"{flag}: cannot read {path}: "
                         f"{err.strerror or err}") from err
    if not token and path:
        raise ValueError(f"{flag}: {path} is empty")
    if not token:
        raise ValueError("no token: give --token_file, or set "
                         "$PYRAMID_TOKEN_FILE or $PYRAMID_TOKEN")
    if not all("!" <= c <= "~" for c in token):
        raise ValueError(f"{source} does not hold a token: a token is "
                         "printable ASCII without spaces")
    return token
