"""Scoring a region or the Castillo: rank values, the tie rule and the bonuses."""


def values_in_play(values, num_players):
    """2 players score only the 1st value, 3 players the 1st and 2nd, 4–5 players all three."""
    if num_players == 2:
        return tuple(values[:1])
    if num_players == 3:
        return tuple(values[:2])
    return tuple(values[:3])


def rank_groups(counts):
    """Groups of keys with equal counts, highest count first; keys with no caballero are left out."""
    return groups_of(counts.items())


def groups_of(pairs):
    """rank_groups of (key, count) pairs, e.g. enumerate(a row of caballeros by seat)."""
    present = sorted([(-count, key) for key, count in pairs if count > 0])
    groups = []
    previous = None
    for negative, key in present:
        if negative == previous:
            groups[-1].append(key)
        else:
            groups.append([key])
            previous = negative
    return groups


def ranked_awards(counts, values, num_players):
    """The awards rank by rank: a list of (rank position, keys, points each).

    A lone key takes the value at the position and the position advances by one; a tied group
    takes the next value each and the position advances by two. Values beyond those in play are 0.
    """
    return awards_of_groups(rank_groups(counts), values, num_players)


def awards_of_groups(groups, values, num_players):
    """ranked_awards of groups already ranked by rank_groups or groups_of."""
    in_play = values_in_play(values, num_players)
    awards = []
    position = 0
    for group in groups:
        if len(group) == 1:
            index, step = position, 1
        else:
            index, step = position + 1, 2
        points = in_play[index] if index < len(in_play) else 0
        awards.append((position, group, points))
        position += step
    return awards


def rank_points(counts, values, num_players):
    """Points per key for one scoring of one area, without bonuses.

    >>> rank_points({"red": 4, "blue": 4, "yellow": 4, "green": 3}, (5, 3, 1), num_players=4)
    {'red': 3, 'blue': 3, 'yellow': 3, 'green': 1}
    """
    points = {}
    for _position, group, each in ranked_awards(counts, values, num_players):
        for key in group:
            points[key] = each
    return {key: points[key] for key in counts if key in points}


def sole_leader(groups):
    """The key with strictly the most caballeros, or None when nobody is there or first is tied;
    from the rank groups of rank_groups or groups_of."""
    if groups and len(groups[0]) == 1:
        return groups[0][0]
    return None
