"""Actions every bot needs without a strategy: the seed contribution (which
names the log header the referee announced) and a legal fallback for any
decision.

Contract: `fallback_action` always returns a legal action for a decision of
any of the four games (decision 1 on): the first listed legal action (the
list is sorted by serialized bytes, so it is the same action in every
language) or, for the one decision the referee may leave unlisted (a Pyramid
Shambo payment with more than 100,000 options), `canonical: true`, the
rules page's canonical payment. The kit sends it when a strategy misses its
deadline or fails. It is not always the rules page's own default action (the
one the referee applies to a faulted seat under FORFEIT_POLICY_DEFAULT_ACTION);
it is simply always legal.
"""
from __future__ import annotations

import os
from typing import Optional, Sequence

from pyramid_kit.pb import game_pb2, pyramid_shambo_pb2

# Which games list every decision's legal actions (DecisionRequest.
# legal_actions, legal_actions_listed): all of them, except that a Pyramid
# Shambo payment with more than 100,000 options comes unlisted.
LISTS_LEGAL_ACTIONS = {
    "rock_paper_pyramid": "always",
    "pyramid_shambo": "except payments with more than 100,000 options",
    "flaming_pyramids": "always",
    "pyramid_scheme": "always",
}


def seed_action(header_hash: bytes = b"") -> game_pb2.Action:
    """Decision 0: 32 bytes from the system's secure random source, naming
    the match log's header: pass the seed decision's
    DecisionRequest.header_hash (SeedContribution.header_hash, which binds
    the seat's commitment to that header; empty names none)."""
    return game_pb2.Action(seed=game_pb2.SeedContribution(
        contribution=os.urandom(32), header_hash=header_hash))


def unlisted_action(game: str,
                    observation: game_pb2.Observation) -> Optional[
                        game_pb2.Action]:
    """A legal action for a decision whose legal actions are not listed, or
    None when this kit knows of no such decision in that position."""
    if (game == "pyramid_shambo" and observation.pyramid_shambo.phase ==
            pyramid_shambo_pb2.SHAMBO_PHASE_PAYMENT):
        return game_pb2.Action(pyramid_shambo=pyramid_shambo_pb2.
                               PyramidShamboAction(canonical=True))
    return None


def is_listed(action: game_pb2.Action,
              legal_actions: Optional[Sequence[game_pb2.Action]]) -> bool:
    """Whether `action` serializes to the bytes of one of the listed legal
    actions: a check for an action a strategy built itself. (The referee
    accepts any encoding of a legal action; for these messages Python's
    serialization is the referee's, so a legal action is found.)"""
    if legal_actions is None:
        return False
    wanted = action.SerializeToString()
    return any(a.SerializeToString() == wanted for a in legal_actions)


def fallback_action(game: str, observation: game_pb2.Observation,
                    legal_actions: Optional[Sequence[game_pb2.Action]]
                    ) -> game_pb2.Action:
    """The first listed legal action, else the unlisted decision's
    canonical action (see the module's contract). Raises ValueError when
    neither exists, which no referee of this protocol version causes."""
    if legal_actions:
        return legal_actions[0]
    action = unlisted_action(game, observation)
    if action is None:
        raise ValueError(f"{game}: no legal action listed and none known")
    return action
