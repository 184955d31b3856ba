"""Kill the real bot at random moments mid-game and prove nothing acknowledged is lost.

A fake Discord runs in this process; the real bot runs in a subprocess
(:class:`tests.bot_process.BotProcess`). Solo Cheerio players (one per channel), Hot Score
tables (two players in one channel: the guest joins the lobby, the host starts, both throw)
and Appletters tables (two players taking turns: a word typed in the Play word form when the
hand can lay one, found from the stored state, else Pick and pass) play concurrently through
interactions while the process is SIGKILLed and restarted on the same database. Afterwards:
every move whose interaction was answered (callback received) is in the move log, every game's
stored state equals the replay of its log, every open game plays on, and every enabled control
on every open game's board answers: pressed by the player to act, by the other player and by
someone not in the game, each press gets an edit, a private reply or (Play word) a form. And no
public message the bot ever sent shows a hand the way the owner's DM shows it.

``bench/kill.py`` runs it from the command line and prints the figures; ``tests/test_kill.py``
runs a short version and asserts them. The parts: ``chaos`` (the run), ``drivers`` and
``tables`` (the players), ``controls`` (reading boards), ``words`` (an Appletters player's
word), ``press`` and ``verify`` (the checks after the last restart), ``leaks`` (no hand shown
in public) and ``report`` (the figures).
"""

from tests.killharness.chaos import chaos
from tests.killharness.leaks import check_hands_private, public_bodies
from tests.killharness.report import Ack, Report

__all__ = ["Ack", "Report", "chaos", "check_hands_private", "public_bodies"]
