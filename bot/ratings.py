"""Skill ratings with openskill's Plackett-Luce model: a maintained multiplayer rating library.

A rating is (mu, sigma); what players see is the conservative ``mu - 3 sigma``, which starts
at 0 and grows as the system becomes sure of a player.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from openskill.models import PlackettLuce

Rating = tuple[float, float]
MODEL = PlackettLuce()


def shown(rating: Rating) -> float:
    """The number on the board: mu minus three sigma."""
    mu, sigma = rating
    return mu - 3 * sigma


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
