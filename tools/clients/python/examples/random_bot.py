#!/usr/bin/env python3
"""A random bot for every game: a uniformly random legal action.

    python3 random_bot.py --referee 127.0.0.1:50051 --token_file seat-0.token

Flags: see pyramid_kit.cli (--matches, --key_file, --quiet, ...).
"""
import random
import sys

from pyramid_kit import Bot, fallback_action, main


class RandomBot(Bot):
    def choose(self, game, observation, legal_actions):
        if legal_actions:  # Listed: pick any of them.
            return random.choice(legal_actions)
        # Unlisted (a Pyramid Shambo payment with very many options).
        return fallback_action(game, observation, legal_actions)


if __name__ == "__main__":
    sys.exit(main(RandomBot()))
