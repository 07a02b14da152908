#!/usr/bin/env python3
"""Rock, Paper, Pyramid!: play a large piece while there is one, else any.

Builds its action from the observation (the seat's own pool) instead of
picking from the list; same flags as random_bot.py.
"""
import random
import sys

from pyramid_kit import Bot, is_listed, main
from pyramid_kit.pb import game_pb2, rock_paper_pyramid_pb2 as rpp


class LargeFirstBot(Bot):
    def choose(self, game, observation, legal_actions):
        pool = observation.rock_paper_pyramid.seats[observation.seat].pool
        large = [p for p in pool if p.size == rpp.RPP_LARGE]
        piece = random.choice(large or list(pool))
        action = game_pb2.Action(rock_paper_pyramid=rpp.RockPaperPyramidAction(
            piece=rpp.RppPiece(colour=piece.colour, size=piece.size)))
        # Every piece of the pool is legal; check anyway, as any bot may.
        return action if is_listed(action, legal_actions) else legal_actions[0]


if __name__ == "__main__":
    sys.exit(main(LargeFirstBot()))
