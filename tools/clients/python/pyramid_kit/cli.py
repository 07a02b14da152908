"""The command line every kit bot shares.

Contract: `main(bot)` parses the flags below (the C++ reference bot's names,
so a tournament file or script can start either the same way), runs the bot
until it is done, and returns the process exit status: 0 when, without a
PlayError, the `--matches` it was asked for ended (with 0: the referee
closed the stream, as it does a seat token's when its match ends) or
SIGINT/SIGTERM stopped it; 1 otherwise (another process taking the token
over included); 2 for bad flags (a negative count, a referee address that
is not HOST:PORT or unix:PATH, a file that cannot be read or does not hold
what its flag takes: a --key_file that is a public key file, X.pub, or
not the secret half of the X.pub beside it, as the C++ bot refuses it, a
--tls_ca that holds no PEM certificate; or a --state_dir that cannot be
made: the message begins with the flag).

  --referee HOST:PORT       default $PYRAMID_REFEREE, else 127.0.0.1:50051
  --token_file FILE         default $PYRAMID_TOKEN_FILE, else $PYRAMID_TOKEN
  --key_file FILE           Ed25519 seed (keygen format): sign every commit
  --matches N               exit after N matches ended (0: with a seat
                            token, when its match ends; with a bot token,
                            run until stopped)
  --reconnect_for_s S       reconnect for at most S s without a referee
                            (0: exit at once)
  --deadline_margin_ms MS   commit the fallback this long before a deadline
  --tls_ca FILE             PEM roots: connect with TLS
  --state_dir DIR           default $PYRAMID_STATE_DIR: keep every commitment
                            on disk until its match ends, so that a
                            restarted bot still reveals (pyramid_kit.state)
  --quiet / --verbose       print only problems / every message received
"""
from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Callable, Optional, Sequence

import grpc

from pyramid_kit import protocol, state
from pyramid_kit.bot import Bot


def _count(text: str) -> int:
    """An argparse type: an integer, not negative."""
    value = int(text)
    if value < 0:
        raise ValueError(text)
    return value


def _seconds(text: str) -> float:
    """An argparse type: a number, not negative."""
    value = float(text)
    if not value >= 0:  # Also NaN.
        raise ValueError(text)
    return value


# What argparse names the types in "invalid ... value" messages.
_count.__name__ = "non-negative integer"
_seconds.__name__ = "non-negative number"


def _read(flag: str, path: str, read: Callable[[str], object]) -> object:
    """read(path), its OSError made a ValueError naming the flag and file,
    its ValueError (what the file holds instead) led by the flag."""
    try:
        return read(path)
    except OSError as err:
        raise ValueError(f"{flag}: cannot read {path}: "
                         f"{err.strerror or err}") from err
    except ValueError as err:
        raise ValueError(f"{flag}: {err}") from err


def _pem_roots(path: str) -> bytes:
    """The PEM root certificates in the file at `path`; ValueError when it
    holds none (gRPC would take it, then fail every connection, retried as
    if the referee were away), as the C++ bot says it."""
    roots = Path(path).read_bytes()
    if b"-----BEGIN CERTIFICATE-----" not in roots:
        raise ValueError(f"{path} holds no PEM certificate "
                         "(-----BEGIN CERTIFICATE-----)")
    return roots


def _state_dir(path: str) -> None:
    """Makes the directory `path` if missing (durably); OSError unless it
    is a directory this process can write in."""
    state.prepare_dir(path)


def parser(description: Optional[str] = None) -> argparse.ArgumentParser:
    """The shared flags; add your own before calling `main(bot, args=...)`."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--referee",
                   default=os.environ.get("PYRAMID_REFEREE", "127.0.0.1:50051"),
                   help="referee address (default: $PYRAMID_REFEREE, else "
                   "%(default)s)")
    p.add_argument("--token_file", help="file holding a seat or bot token "
                   "(default: $PYRAMID_TOKEN_FILE, else $PYRAMID_TOKEN)")
    p.add_argument("--key_file", help="Ed25519 secret key (keygen format) to "
                   "sign commits with, for seats registered with its key")
    p.add_argument("--matches", type=_count, default=0,
                   help="exit after this many matches ended (0: with a "
                   "seat token, when its match ends; with a bot token, run "
                   "until stopped)")
    p.add_argument("--reconnect_for_s", type=_seconds, default=300,
                   help="reconnect for at most this many seconds without a "
                   "referee (0: exit at once)")
    p.add_argument("--deadline_margin_ms", type=_count, default=500,
                   help="commit the fallback action this long before the "
                   "commit deadline if the strategy has not answered")
    p.add_argument("--tls_ca", help="PEM root certificates: connect with TLS")
    p.add_argument("--state_dir", default=os.environ.get("PYRAMID_STATE_DIR")
                   or None,
                   help="directory to keep every commitment in until its "
                   "match ends (made if missing), so that a bot "
                   "restarted between a commit and its reveal still reveals"
                   " (default: $PYRAMID_STATE_DIR, else none)")
    p.add_argument("--quiet", action="store_true", help="print only problems")
    p.add_argument("--verbose", action="store_true",
                   help="print every message received, to standard error")
    return p


def main(bot: Bot | Callable[[argparse.Namespace], Bot],
         args: Optional[argparse.Namespace] = None,
         argv: Optional[Sequence[str]] = None) -> int:
    """Runs `bot` (or `bot(args)`, for a factory that reads its own flags)
    with the shared flags, parsed from argv unless `args` is given."""
    if args is None:
        args = parser(sys.modules["__main__"].__doc__).parse_args(argv)
    logging.basicConfig(
        format="%(name)s: %(message)s",
        level=(logging.DEBUG if args.verbose else
               logging.WARNING if args.quiet else logging.INFO))
    try:
        try:
            protocol.check_referee_address(args.referee)
        except ValueError as err:
            raise ValueError(f"--referee: {err}") from err
        if args.state_dir:
            try:
                _state_dir(args.state_dir)
            except OSError as err:
                raise ValueError(f"--state_dir: cannot use {args.state_dir}:"
                                 f" {err.strerror or err}") from err
        token = protocol.read_token(args.token_file)
        key = (_read("--key_file", args.key_file, protocol.SeatKey.from_file)
               if args.key_file else None)
        credentials = (grpc.ssl_channel_credentials(_read(
            "--tls_ca", args.tls_ca, _pem_roots)) if args.tls_ca else None)
    except (OSError, ValueError, RuntimeError) as err:
        print(f"pyramid_kit: {err}", file=sys.stderr)
        return 2
    if not isinstance(bot, Bot):
        bot = bot(args)
    bot.quiet = args.quiet
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: bot.stop())
    summary = bot.run(args.referee, token, key=key, matches=args.matches,
                      reconnect_for_s=args.reconnect_for_s,
                      deadline_margin_ms=args.deadline_margin_ms,
                      credentials=credentials, state_dir=args.state_dir)
    if summary.failure:
        print(f"pyramid_kit: giving up: {summary.failure}", file=sys.stderr)
    if not args.quiet or not summary.ok:
        print(f"pyramid_kit: {summary.matches_ended} match(es) ended, "
              f"{summary.errors} error(s), {summary.fallbacks} fallback "
              f"action(s), {summary.streams} stream(s)", flush=True)
    done = not args.matches or summary.matches_ended >= args.matches
    return 0 if summary.ok and (done or bot_stopped(bot)) else 1


def bot_stopped(bot: Bot) -> bool:
    """Whether `bot.stop()` ended its last run."""
    runner = getattr(bot, "_runner", None)
    return bool(runner and runner.stopping.is_set())
