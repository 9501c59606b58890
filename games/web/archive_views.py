"""The archive of finished games (a page and its JSON twin) and the statistics drawn from it.
Thin: games/reading/archive.py reads, games/reading/statistics.py computes."""

import html
from urllib.parse import urlencode

from django import forms
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from games.reading import archive, list_cache, statistics


class ArchiveJSONForm(archive.ArchiveForm):
    limit = forms.IntegerField(
        required=False, min_value=1, max_value=archive.MOST_PER_PAGE, label="Limit", help_text="Games per page."
    )


@require_GET
def archive_page(request):
    """The archive's page; all of it but the site's header from the cache while no finished game
    changed (games/reading/list_cache.py)."""
    cache_key = list_cache.key(request, "archive-page")
    content = list_cache.get(cache_key)
    status = 200
    if content is None:
        context, status = _archive_context(request)
        content = render_to_string("games/partials/archive_content.html", context, request)
        if status == 200:
            list_cache.keep(cache_key, content)
    return render(request, "games/archive.html", {"content": mark_safe(content)}, status=status)


def _archive_context(request):
    """The context of the archive page's content, and its status (400: a filter it cannot read)."""
    form = archive.ArchiveForm(request.GET)
    choices = [
        {"name": name, "label": form.fields[name].label, "choices": form.fields[name].choices,
         "value": form.data.get(name, "")}
        for name in ("players", "rounds", "veto", "rated", "practice")
    ]
    if not form.is_valid():
        return {"form": form, "choice_fields": choices, "error": form.error_text()}, 400
    filters = form.filters()
    page = archive.page(request.user, filters, form.cursor(), listed=True)
    base = reverse("archive")
    memo, urls = {}, {}
    for row in page.rows:
        for player in row["ranking"]:
            user = player["user"]
            # Once per player a page: a filter's players are in every row.
            key = None if user is None else user.pk
            if key not in urls:
                urls[key] = _player_url(base, user, filters)
            player["archive_url"] = urls[key]
        row["link_text"], row["note"], row["ranking_html"] = _row_html(row, memo)
    return {
        "form": form,
        "choice_fields": choices,
        "filters": filters,
        "filtered": any(value for key, value in request.GET.items() if key not in ("after", "before")),
        "page": page,
        "newer_url": _page_url(request, page.newer),
        "older_url": _page_url(request, page.older),
        "json_url": reverse("archive_json") + (f"?{request.GET.urlencode()}" if request.GET else ""),
    }, 200


@require_GET
def archive_json(request):
    """The archive for programs: the same filters and cursors as the page, `limit` games a page
    (at most 100), and the URLs of the next and previous pages. From the cache while no finished
    game changed (games/reading/list_cache.py)."""
    cache_key = list_cache.key(request, "archive-json")
    body = list_cache.get(cache_key)
    if body is not None:
        return HttpResponse(body, content_type="application/json")
    form = ArchiveJSONForm(request.GET)
    if not form.is_valid():
        return JsonResponse({"error": form.error_text(), "errors": form.errors.get_json_data()}, status=400)
    page = archive.page(request.user, form.filters(), form.cursor(), size=form.cleaned_data["limit"], listed=True)
    response = JsonResponse({
        "games": [_game_json(request, row) for row in page.rows],
        "newer": _page_url(request, page.newer, "archive_json", absolute=True),
        "older": _page_url(request, page.older, "archive_json", absolute=True),
    })
    list_cache.keep(cache_key, response.content)
    return response


@require_GET
def statistics_page(request):
    return render(request, "games/statistics.html", {"stats": statistics.current()})


def _game_json(request, row):
    game = row["game"]
    return {
        "id": game.pk,
        "url": request.build_absolute_uri(game.get_absolute_url()),
        "finished_at": game.finished_at.isoformat(),
        "num_players": game.num_players,
        "rounds": game.num_rounds,
        "veto": game.veto,
        "rated": game.rated,
        "practice": game.practice,
        "private": game.private,
        "imported": game.imported,
        "players": [
            {
                "place": player["place"],
                "seat": player["seat"],
                "name": player["username"],
                "colour": player["colour"],
                "score": player["score"],
            }
            for player in row["ranking"]
        ],
    }


def _row_html(row, memo=None):
    """What a row of the archive's table shows of its game, composed here rather than in the
    template, whose per-row tags were most of the page's rendering (bench/archive.py): the link's
    text, the note of its options, and the ranking's items. `memo`, a dict kept over one page:
    each player's markup written once, as a player of a filter is in every row, and the words
    looked up once. Escaped as `format_html` escapes (tests/archive/test_list_rows.py)."""
    memo = {} if memo is None else memo
    words = memo.get("words")
    if words is None:
        words = memo["words"] = {
            "veto": _esc(_("veto cards")), "no veto": _esc(_("no veto")), "rated": _esc(_("rated")),
            "practice": f'<span class="badge practice">{_esc(_("practice game"))}</span>',
            "private": _esc(_("private")), "imported": _esc(_("imported")),
        }
    game = row["game"]
    options = [
        _esc(_("%(players)s players, %(rounds)s rounds") % {"players": game.num_players, "rounds": game.num_rounds}),
        words["veto"] if game.veto else words["no veto"],
    ]
    for name in ("rated", "practice", "private", "imported"):
        if getattr(game, name):
            options.append(words[name])
    items = []
    for player in row["ranking"]:
        key = (player["colour"], player["label"], player["username"], player["archive_url"])
        shown = memo.get(key)
        if shown is None:
            shown = (
                f'<span class="lobby-player colour-{_esc(player["colour"])}"><span class="chip">'
                f'{_esc(player["label"])}</span> {_esc(player["username"])}</span>'
            )
            if player["archive_url"]:
                title = _esc(_("Games of %(name)s") % {"name": player["username"]})
                shown = f'<a href="{_esc(player["archive_url"])}" class="player-link" title="{title}">{shown}</a>'
            memo[key] = shown
        items.append(
            f'\n          <li><span class="place">{_esc(player["place"])}.</span> {shown} '
            f'<strong class="score">{_esc(player["score"])}</strong></li>'
        )
    return _("Game %(n)s") % {"n": game.pk}, mark_safe(", ".join(options)), mark_safe("".join(items))


def _esc(value):
    """`value` as `format_html` writes an argument: its own markup if it has some, else escaped."""
    return value.__html__() if hasattr(value, "__html__") else html.escape(str(value))


def _player_url(base, user, filters):
    """The archive of `user`'s games; of those against the player the archive shows, if one.
    None for a deleted account, or a player who is not a user here (an imported game)."""
    if user is None or user.deleted_at is not None:
        return None
    if len(filters.players) == 1 and filters.players[0].pk != user.pk:
        return f"{base}?{urlencode({'player': filters.players[0].username, 'against': user.username})}"
    return f"{base}?{urlencode({'player': user.username})}"


def _page_url(request, cursor, name="archive", absolute=False):
    """This request's URL under `name` with its cursor changed to `cursor`; None for no cursor."""
    if cursor is None:
        return None
    query = request.GET.copy()
    for key in ("after", "before"):
        query.pop(key, None)
    query["after" if cursor.older else "before"] = cursor.token()
    url = f"{reverse(name)}?{query.urlencode()}"
    return request.build_absolute_uri(url) if absolute else url
