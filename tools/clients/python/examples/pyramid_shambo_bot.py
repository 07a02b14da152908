#!/usr/bin/env python3
"""Pyramid Shambo: challenge the weakest live seat, throw the hand that
beats the opponent's favourite so far, pay with the canonical payment.

Builds each action from the observation; same flags as random_bot.py.
"""
import sys

from pyramid_kit import Bot, is_listed, main
from pyramid_kit.pb import game_pb2, pyramid_shambo_pb2 as ps

BEATS = {ps.SHAMBO_ROCK: ps.SHAMBO_PAPER, ps.SHAMBO_PAPER: ps.SHAMBO_SCISSORS,
         ps.SHAMBO_SCISSORS: ps.SHAMBO_ROCK}  # hand -> the hand that beats it


class ShamboBot(Bot):
    def choose(self, game, observation, legal_actions):
        me, obs = observation.seat, observation.pyramid_shambo
        if obs.phase == ps.SHAMBO_PHASE_CHALLENGE:
            live = [s for s, v in enumerate(obs.seats) if v.live and s != me]
            move = ps.PyramidShamboAction(challenge=ps.ShamboChallenge(
                target=min(live, key=lambda s: obs.seats[s].pips)))
        elif obs.phase == ps.SHAMBO_PHASE_THROW:
            other = obs.target if me == obs.active else obs.active
            counts = list(obs.seats[other].hands_thrown) or [0, 0, 0]
            favourite = [ps.SHAMBO_ROCK, ps.SHAMBO_PAPER,
                         ps.SHAMBO_SCISSORS][counts.index(max(counts))]
            move = ps.PyramidShamboAction(hand=BEATS[favourite])
        else:  # A payment: the canonical one is always legal.
            return game_pb2.Action(pyramid_shambo=ps.PyramidShamboAction(
                canonical=True))
        action = game_pb2.Action(pyramid_shambo=move)
        return action if is_listed(action, legal_actions) else legal_actions[0]


if __name__ == "__main__":
    sys.exit(main(ShamboBot()))
