"""Skill ratings with openskill's Plackett-Luce model: a maintained multiplayer rating library.

A rating is (mu, sigma); boards rank by the conservative ``mu - 3 sigma``, which starts at 0
and grows as the system becomes sure of a player. People see it on a display scale
(:func:`seen_rating`): 1000 for a newcomer, like a chess rating, never negative.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from openskill.models import PlackettLuce

Rating = tuple[float, float]
MODEL = PlackettLuce()


RATING_START = 1000
"""The display rating of a new player, whose ``mu - 3 sigma`` is 0."""
RATING_STEP = 40
"""Display points per point of ``mu - 3 sigma``. A first game between newcomers moves the
winner to about 1140 and the loser to about 930; fifty wins in a row read about 2060, fifty
losses about 570 (openskill's defaults), so the scale reads like a chess rating."""


def conservative(rating: Rating) -> float:
    """What boards rank by: mu minus three sigma."""
    mu, sigma = rating
    return mu - 3 * sigma


def display_rating(conservative: float) -> int:
    """The rating people see for a ``mu - 3 sigma``: never below 0 (that would take one under
    -25; fifty losses in a row reach about -11)."""
    return max(0, round(RATING_START + RATING_STEP * conservative))


def seen_rating(rating: Rating) -> int:
    """The rating people see for a player's ``(mu, sigma)``."""
    return display_rating(conservative(rating))


def rate(previous: Mapping[int, Rating], places: Sequence[tuple[int, int]]) -> dict[int, Rating]:
    """New ratings after one game; ``places`` is (player, placement), ties sharing a place."""
    default = MODEL.rating()
    teams = []
    for player, _ in places:
        mu, sigma = previous.get(player, (default.mu, default.sigma))
        teams.append([MODEL.rating(mu=mu, sigma=sigma)])
    ranked = MODEL.rate(teams, ranks=[float(place) for _, place in places])
    return {
        player: (team[0].mu, team[0].sigma)
        for (player, _), team in zip(places, ranked, strict=True)
    }
