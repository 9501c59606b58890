"""Usernames that cannot pass for another player's, nor for an address.

A username is kept in Unicode's NFKC form, so "ａｌｉｃｅ" (fullwidth) is "alice", and taken if alice
is. Nor may one look like an existing one: "аlice" with a Cyrillic а reads as "alice". Two names
look alike when their skeletons match (Unicode TR39): each character is replaced by the one it
is confusable with, from Unicode's confusables data (the confusable-homoglyphs package), and
the result is lower-cased, since usernames are unique whatever their case (and so is the name's
lower case, likewise). Each user's two are stored (User.username_skeleton, .username_lower_skeleton),
so that a new name is compared with all in one indexed query.
A username may not hold an "@" either: it would read as an email address, perhaps another
player's. Nor an invisible character: the Hangul fillers are letters to Unicode (and to Django's
username check), but print as nothing, so "alice" with one after it read as alice's name, and a
name of fillers alone as no name at all.
"""

import unicodedata
from functools import cache

from django import forms
from django.contrib.auth import get_user_model
from django.db.models import Q
from django.utils.translation import gettext as _

# A skeleton is kept this long at most: a 150-character name of characters NFKC spells with
# many (e.g. U+FDFA, 18) must still fit an index entry.
SKELETON_LENGTH = 300
# Unicode's marks of direction, which the data wraps right-to-left characters in.
_LEFT_TO_RIGHT = "\u200e"


def normalize(username):
    return unicodedata.normalize("NFKC", username)


@cache
def _prototypes():
    """{code point: the prototype it is confusable with}, for str.translate. The package keeps the
    confusables both ways: a character confusable with a prototype lists that prototype alone,
    and the prototype lists all of them. A prototype with a single such character lists it alone
    too: the pair then maps to the smaller, so that both have one skeleton."""
    from confusable_homoglyphs.confusables import confusables_data

    table = {}
    for char, glyphs in confusables_data.items():
        char = char.replace(_LEFT_TO_RIGHT, "")
        if len(char) != 1 or len(glyphs) != 1:
            continue
        prototype = glyphs[0]["c"].replace(_LEFT_TO_RIGHT, "")
        back = [glyph["c"].replace(_LEFT_TO_RIGHT, "") for glyph in confusables_data.get(prototype, ())]
        if back == [char]:
            prototype = min(char, prototype)
        if prototype != char:
            table[ord(char)] = prototype
    return table


def skeleton(username):
    """What `username` looks like: two names with one skeleton can be taken for each other."""
    return normalize(username).translate(_prototypes()).lower()[:SKELETON_LENGTH]


def lower_skeleton(username):
    """What `username` looks like in lower case. Needed beside `skeleton`, since a name is taken
    in any case: "ΑLICE" (a Greek Α) reads as "ALICE", which is alice's name, but its skeleton is
    "allce" (a capital I looks like an l); its lower case "αlice" reads as "alice"."""
    return skeleton(normalize(username).lower())


def check(username, user=None):
    """Refuse `username` (in NFKC form) if it is an address, holds an invisible character, or looks
    like another player's name (not `user`'s own): a ValidationError that says which."""
    refuse_address(username)
    refuse_invisible(username)
    refuse_lookalike(username, user)


# Unicode's Default_Ignorable_Code_Point characters (DerivedCoreProperties.txt), which print as
# nothing. Django's username check lets through those it counts as letters (the Hangul fillers,
# U+115F, U+1160, U+3164, U+FFA0); the others are refused there already, and here as well.
INVISIBLE = frozenset(
    [0x00AD, 0x034F, 0x061C, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFEFF, 0xFFA0]
    + [*range(0x180B, 0x1810), *range(0x200B, 0x2010), *range(0x202A, 0x202F), *range(0x2060, 0x2070)]
    + [*range(0xFE00, 0xFE10), *range(0xFFF0, 0xFFF9), *range(0x1BCA0, 0x1BCA4), *range(0x1D173, 0x1D17B)]
    + [*range(0xE0000, 0xE1000)]
)


def refuse_invisible(username):
    if any(ord(char) in INVISIBLE for char in username):
        raise forms.ValidationError(
            _("A username may not contain an invisible character: it would read as another name."),
            code="invisible",
        )


def refuse_address(username):
    if "@" in username:
        raise forms.ValidationError(
            _("A username may not contain “@”: it would read as an email address."), code="address"
        )


def refuse_lookalike(username, user=None):
    """The same name in another case is left to the check that it is not taken."""
    # The user model through Django, not accounts.models: that module imports this one.
    alike = get_user_model().objects.filter(
        Q(username_skeleton=skeleton(username)) | Q(username_lower_skeleton=lower_skeleton(username))
    ).exclude(username__iexact=username)
    if user is not None and user.pk is not None:
        alike = alike.exclude(pk=user.pk)
    name = alike.values_list("username", flat=True).first()
    if name is not None:
        raise forms.ValidationError(
            _("This username looks too much like “%(name)s”, another player's. Please choose another.")
            % {"name": name},
            code="confusable",
        )
