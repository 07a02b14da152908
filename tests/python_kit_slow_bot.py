#!/usr/bin/env python3
"""A deliberately slow kit bot, for tests/python_kit_test.sh.

Contract: plays like examples/random_bot.py, except that its strategy
sleeps --delay_s seconds before answering each of its first
--slow_decisions decisions (0: every decision). With a delay past the
commit deadline, the kit must commit its fallback action in time, so the
match ends with no fault. Takes the kit's shared flags too.
"""
import random
import sys
import threading
import time

from pyramid_kit import Bot, fallback_action, main, parser


class SlowBot(Bot):
    def __init__(self, delay_s: float, slow_decisions: int) -> None:
        self.delay_s, self.left = delay_s, slow_decisions
        self.every = slow_decisions == 0
        self.lock = threading.Lock()

    def choose(self, game, observation, legal_actions):
        with self.lock:
            slow = self.every or self.left > 0
            self.left -= 1
        if slow:
            time.sleep(self.delay_s)
        if legal_actions:
            return random.choice(legal_actions)
        return fallback_action(game, observation, legal_actions)


if __name__ == "__main__":
    p = parser(__doc__)
    p.add_argument("--delay_s", type=float, default=3.0)
    p.add_argument("--slow_decisions", type=int, default=0)
    args = p.parse_args()
    sys.exit(main(SlowBot(args.delay_s, args.slow_decisions), args=args))
