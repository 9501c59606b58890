"""What the tournaments hear from the games (games/signals.py)."""

from django.dispatch import receiver

from games.signals import game_finished, sweep_checks, swept

from . import services
from .models import Table


@receiver(game_finished)
def next_round_when_a_game_ends(sender, game_id, **kwargs):
    tournament_id = Table.objects.filter(game_id=game_id).values_list("tournament_id", flat=True).first()
    if tournament_id is not None:
        services.advance(tournament_id)


@receiver(sweep_checks)
def tournaments_due(sender, now, **kwargs):
    return {"tournaments": services.due_tournaments(now)}


@receiver(swept)
def catch_up_on_sweep(sender, now, due=None, **kwargs):
    # Only when the sweep's checks found a tournament to start or advance (or asked none).
    if due is None or due.get("tournaments", True):
        services.advance_due(now)
