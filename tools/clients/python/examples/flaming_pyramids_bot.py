#!/usr/bin/env python3
"""Flaming Pyramids: place the highest tile of the hand on the highest
legal spot; let falls go right.

Builds each action from the observation; same flags as random_bot.py.
"""
import sys

from pyramid_kit import Bot, is_listed, main
from pyramid_kit.pb import game_pb2, flaming_pyramids_pb2 as fp


class HighBot(Bot):
    def choose(self, game, observation, legal_actions):
        obs = observation.flaming_pyramids
        if obs.phase == fp.FP_PLACE:
            spot = max(obs.legal_spots, key=lambda s: (s.row, -s.x))
            tile = max(obs.seats[observation.seat].own_hand)
            move = fp.FlamingPyramidsAction(
                place=fp.FpPlace(tile=tile, row=spot.row, x=spot.x))
        else:  # FP_FALL: we choose where the pending tile falls.
            move = fp.FlamingPyramidsAction(fall=fp.FP_RIGHT)
        action = game_pb2.Action(flaming_pyramids=move)
        return action if is_listed(action, legal_actions) else legal_actions[0]


if __name__ == "__main__":
    sys.exit(main(HighBot()))
