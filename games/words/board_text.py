"""The board in words, for screen readers: a visually hidden table that the map's SVG names with
aria-describedby (templates/games/partials/board_text.html). Like the drawing, everything comes from
a `view_for` result, so it says nothing the seat may not see: a closed Castillo shows only the
seat's own caballeros, the others' counts are "hidden"."""

from games.words.texts import area_name


def board_text(view):
    """{players: [{colour, name}], areas: [{name, values, mobile, king, closed, cells: [{count,
    grande, hidden}] one per player}], scores: [{name, colour, score}]} in the players' seat order."""
    players = sorted(view["players"], key=lambda player: player["seat"])
    areas = [_area(region, region["caballeros"], region["grandes"], players, False) for region in view["regions"]]
    castillo = view["castillo"]
    shown = castillo["caballeros"]
    if shown is None:
        own = {view["colour"]: castillo["own"]} if view.get("colour") and castillo.get("own") else {}
        areas.append(_area(castillo, own, [], players, closed=True, seen=view.get("colour")))
    else:
        areas.append(_area(castillo, shown, [], players, closed=False))
    return {
        "players": [{"colour": player["colour"], "name": player.get("name") or ""} for player in players],
        "areas": areas,
        # Highest first, equal scores in seat order: as the scoreboard beside the map lists them
        # (game_page.players_by_score), so that both readings agree.
        "scores": sorted(
            ({"colour": p["colour"], "name": p.get("name") or "", "score": p["score"]} for p in players),
            key=lambda row: -row["score"],
        ),
    }


def _area(area, caballeros, grandes, players, closed, seen=None):
    return {
        "id": area["id"],
        "name": area_name(area["id"]),
        "values": "/".join(str(value) for value in area["values"]),
        "mobile": area["mobile"],
        "king": bool(area.get("king")),
        "closed": closed,
        "cells": [
            {
                "count": caballeros.get(player["colour"], 0),
                "grande": player["colour"] in grandes,
                "hidden": closed and player["colour"] != seen,
            }
            for player in players
        ],
    }
