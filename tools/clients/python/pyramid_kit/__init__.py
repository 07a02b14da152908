"""pyramid_kit: write a bot for the pyramid referee in a few lines.

Subclass `Bot`, implement `choose(game, observation, legal_actions)`, and
hand an instance to `main` (flags --referee, --token_file, --key_file, ...)
or call `Bot.run(referee, token)` yourself. The kit does the protocol:
commit-reveal, salts, seat-key signatures, many matches on one bot token,
reconnection, deadlines and shutdown (docs/writing-a-bot.md).

The generated messages are in `pyramid_kit.pb` (game_pb2, the per-game
modules, referee_service_pb2 and its gRPC stub).
"""
from pyramid_kit.actions import (LISTS_LEGAL_ACTIONS, fallback_action,
                                 is_listed, seed_action)
from pyramid_kit.bot import Bot, RunSummary
from pyramid_kit.cli import main, parser
from pyramid_kit.protocol import SeatKey, commitment

__all__ = ["Bot", "RunSummary", "main", "parser", "SeatKey", "commitment",
           "fallback_action", "is_listed", "seed_action", "LISTS_LEGAL_ACTIONS"]
