"""A finished game's record (games/records/game_records.py): the whole of it as a file to download, and the
same as JSON pages for programs, the moves a page at a time after a version. Read-only. An
unfinished game, or a private one to someone not seated in it, has no record: 404, as for a game
that does not exist."""

import re

from django.http import HttpResponse
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from games.infra import json_codec
from games.records import game_records

PAGE_SIZE = 200
MAX_PAGE_SIZE = 1000
_NUMBER = re.compile(r"[0-9]{1,10}")


@require_GET
def download(request, pk):
    game = _game(request, pk)
    if game is None:
        return _error(_("No such finished game."), 404)
    response = _json(game_records.export(game), game)
    response["Content-Disposition"] = f'attachment; filename="el-grande-game-{game.pk}.json"'
    return response


@require_GET
def record_page(request, pk):
    """The record with a page of its moves: those after version `after` (default 0), at most
    `limit` (default 200, at most 1000). `next` is the URL of the next page, null on the last."""
    try:
        after = _number(request.GET, "after", 0, 0, game_records.MAX_VERSION)
        limit = _number(request.GET, "limit", PAGE_SIZE, 1, MAX_PAGE_SIZE)
    except ValueError as error:
        return _error(str(error), 400)
    game = _game(request, pk)
    if game is None:
        return _error(_("No such finished game."), 404)
    moves = game_records.moves(game, after=after, limit=limit + 1)
    next_url = None
    if len(moves) > limit:
        moves = moves[:limit]
        query = urlencode({"after": moves[-1]["version"], "limit": limit})
        next_url = request.build_absolute_uri(f"{reverse('game_record_api', args=[game.pk])}?{query}")
    return _json({**game_records.header(game), "moves": moves, "next": next_url}, game)


def _game(request, pk):
    game = game_records.record_queryset().filter(pk=pk).first()
    if game is None or not game_records.may_read(game, request.user):
        return None
    return game


def _number(query, name, default, lowest, highest):
    value = query.get(name)
    if value is None:
        return default
    if not _NUMBER.fullmatch(value) or not lowest <= int(value) <= highest:
        raise ValueError(
            _('"%(name)s" must be a whole number from %(lowest)s to %(highest)s.')
            % {"name": name, "lowest": lowest, "highest": highest}
        )
    return int(value)


def _json(data, game):
    response = HttpResponse(json_codec.dumps(data), content_type="application/json")
    if game.private:
        patch_cache_control(response, private=True)
    return response


def _error(message, status):
    return HttpResponse(json_codec.dumps({"error": message}), content_type="application/json", status=status)
