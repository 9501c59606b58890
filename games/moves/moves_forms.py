"""The decision panel's forms: one Django form per kind of decision, built from the engine's view of
the seat (`view_for`: what the rules allow it now), used both to draw the panel and to read the
fields a browser posts into one move of the engine's vocabulary (games/engine/README.md).

The move's path, straight through (games/web/views.py `move`):

    selectors.game_for_move   the game and its seats, loaded once
    read_move(post, view)     the form of the seat's decision, bound to the posted fields
    form.move()               the engine's move, from the form's cleaned data
    moving.submit_move        locks, applies, saves, and hands the saved game back
    selectors.game_context    the play partial's context from that game, `DecisionPanel` included

Field-level checks are the forms' (numbers, choices among those offered, whole rows); whatever a
form accepts, the engine has the last word: a move it refuses comes back with its reason and
changes nothing.

Adding a card's form touches one place on the web side: a `SpecialForm` subclass below, registered
with `@special("<the action its card's options() names>")`, holding its fields, its `move()` and
the template that draws them (templates/games/moves/, rendered from the form's bound fields and
choices). The POST field names are the site's public vocabulary (static/decision.js composes
them on the map): keep them. A select that asks the player to pick (a region, a target, a card) is
an `explicit_choice`, refused by `choose` while left on "— choose —": no control may play an
option the player never picked (the map folds such selects away).
"""

from django import forms
from django.forms import formset_factory
from django.utils.translation import gettext_lazy, ngettext
from django.utils.translation import gettext_lazy as _

from games.moves import move_shapes
from games.moves.move_field import FiniteJSONDecoder, MoveField, unstorable_message, unstorable_text
from games.words.log_text import COLOUR_WORDS
from games.words.texts import ASKED, area_name

# The first option of a select the player must choose in: it posts nothing (moves_forms' explicit
# choices are refused until a real option is picked).
CHOOSE = _("— choose —")

# --- reading a post ----------------------------------------------------------------------------------


class UnreadableFields(ValueError):
    """Posted fields that describe no move at all; the message says which."""


# No decision has anywhere near a thousand rows. Longer numbers are refused before int() sees
# them: a row number of thousands of digits would cost int() its time, or exceed its limit.
ROW_DIGITS = 3
ROW_PREFIXES = ("plan-", "picks-", "order-")


def is_row_number(text):
    """Whether `text` is a row number as the panels write them: ASCII digits. Other characters
    that str.isdigit() takes (superscripts, other scripts' digits) name no row, and int() would
    refuse some of them."""
    return text.isascii() and text.isdigit()


def check_post(post):
    """Refuse, whatever the form, posted names and values that no move can hold: NUL characters
    and lone surrogates (text the database cannot store), and row numbers longer than any
    decision has. Raises UnreadableFields."""
    found = unstorable_text(list(post.lists()))
    if found is not None:
        raise UnreadableFields(unstorable_message(found))
    for key in post:
        for prefix in ROW_PREFIXES:
            if key.startswith(prefix):
                index = key[len(prefix) :].split("-")[0]
                if is_row_number(index) and len(index) > ROW_DIGITS:
                    raise UnreadableFields(
                        _("row %(row)s does not exist") % {"row": index[:12] + ("…" if len(index) > 12 else "")}
                    )


def read_move(post, view, version):
    """The form that the posted fields answer, bound to them: the form of the seat's decision in
    `view` (the engine's view for the poster's seat, None without one) when the post was made
    against the game's current `version`; otherwise a form of the version and seat alone, and
    games.play.moving names the problem (not your turn, stale version, no seat). Raises
    UnreadableFields (check_post)."""
    check_post(post)
    form = MoveForm(post)
    if not form.is_valid():
        return form
    decision = (view or {}).get("decision")
    if decision is None or form.cleaned_data["expected_version"] != version:
        return WholeMoveForm(post) if "move" in post else form
    return form_class(post.get("move_form") if "move" not in post else None, decision)(post, view=view)


def form_class(move_form, decision):
    """The form class for a post naming `move_form` (None: a button's whole move) to answer
    `decision` (view["decision"])."""
    if move_form is None:
        return ChosenMoveForm if decision["kind"] in CHOSEN else WholeMoveForm
    kind = decision["kind"]
    if move_form == "court" and kind == "court":
        return CourtForm
    if move_form == "share" and kind == "share":
        return ShareForm
    if move_form == "place" and kind == "action" and decision["can_place"]:
        return PlaceForm
    if move_form == "special" and kind == "action" and decision["can_special"]:
        return SPECIAL_FORMS[decision["special"]["action"]]
    return NotThisForm


# The hidden field naming the order of a redistribution's or a court spread's steps (MoveForm.add_order),
# and the most characters it may hold: every area's id once, and the commas, fit in far fewer.
ORDER_FIELD = "to-order"
ORDER_LONGEST = 200

# --- the forms ----------------------------------------------------------------------------------------


class MoveForm(forms.Form):
    """What every post carries: the version the page showed and, optionally, the seat. The base
    of the panel's forms: `move_form` names a fields form in its post (games/partials/
    move_hidden.html), `move()` is the engine's move from the cleaned data."""

    use_required_attribute = False
    move_form = None
    expected_version = forms.IntegerField(min_value=0)
    seat = forms.IntegerField(required=False, min_value=0)

    def __init__(self, data=None, view=None, **kwargs):
        super().__init__(data, auto_id=False, **kwargs)
        self.view = view
        self.decision = (view or {}).get("decision")
        self.names = area_names(view) if view else {}
        if view:
            self.add_fields()

    def add_fields(self):
        """Add the decision's fields, from `self.decision` (and `self.view`)."""

    def move(self):
        """The engine's move (None: the poster has no decision; games.play.moving says why)."""
        return None

    def counts(self, prefix):
        """[bound field, area id, area name] of the count fields named `prefix` + area id."""
        return [
            (self[name], name[len(prefix) :], self.names.get(name[len(prefix) :], name[len(prefix) :]))
            for name in self.fields
            if name.startswith(prefix) and name != ORDER_FIELD
        ]

    def counted(self, prefix):
        """{area id: count} of the non-zero count fields named `prefix` + area id, in the fields'
        order (the engine's, scoring order)."""
        return {
            name[len(prefix) :]: value
            for name, value in self.cleaned_data.items()
            if name.startswith(prefix) and name != ORDER_FIELD and value
        }

    def add_order(self):
        """The optional hidden field `to-order` of a form whose `to-<area>` counts are steps a veto
        may cut (docs/rules.md, "The Veto": the taker fixes their order): the areas in the order the taker
        announces them, ids separated by commas. The map writes it (static/map/form.js); a plain
        form leaves it empty, and the counts go in scoring order."""
        self.fields[ORDER_FIELD] = forms.CharField(required=False, strip=False)

    def clean_order(self, cleaned):
        """Read the posted `to-order` into a list of area ids (empty: none given), or refuse it with
        a sentence for the player: an area that is none of the form's destinations, one named
        twice, an empty name or an order longer than any board's."""
        text = cleaned.get(ORDER_FIELD) or ""
        cleaned[ORDER_FIELD] = []
        if not text:
            return
        if len(text) > ORDER_LONGEST:
            self.add_error(
                None, _("The order of the steps is at most %(count)d characters.") % {"count": ORDER_LONGEST}
            )
            return
        known = [area for _field, area, _name in self.counts("to-")]
        order = text.split(",")
        for index, area in enumerate(order):
            if not area:
                self.add_error(
                    None, _('The order of the steps names areas separated by commas, e.g. "castillo,galicia".')
                )
                return
            if area not in known:
                self.add_error(
                    None,
                    _("The order of the steps names %(area)s, which is none of the areas offered.")
                    % {"area": ascii(area[:40])},
                )
                return
            if area in order[:index]:
                self.add_error(
                    None, _("The order of the steps names %(area)s twice.") % {"area": self.names.get(area, area)}
                )
                return
        cleaned[ORDER_FIELD] = order

    def ordered_counts(self, prefix):
        """The move's `to` from the count fields named `prefix` + area id: without an order posted,
        {area id: count} (the engine reads it in scoring order); with one, [area id, count] pairs
        in that order, the counted areas it leaves out after them in scoring order
        (games/engine/operations.py `parse_area_steps` keeps a list's order)."""
        counts = self.counted(prefix)
        order = self.cleaned_data.get(ORDER_FIELD)
        if not order:
            return counts
        named = [area for area in order if area in counts]
        return [[area, counts[area]] for area in named + [area for area in counts if area not in named]]

    def add_counts(self, prefix, areas, most=None):
        for area in areas:
            self.fields[f"{prefix}{area}"] = forms.IntegerField(
                required=False, min_value=0, max_value=most, initial=0
            )

    def choice(self, name, options, blank=False, required=True, initial=None):
        """A select of `options` ([id] or [(id, label)]), areas named as the board names them."""
        choices = [(o, self.names.get(o, o)) if not isinstance(o, tuple) else o for o in options]
        if blank:
            choices = [("", "–"), *choices]
        self.fields[name] = forms.ChoiceField(choices=choices, required=required, initial=initial)

    def explicit_choice(self, name, options):
        """A select of `options` that starts on "— choose —" and takes no default: a post left
        there is refused by `choose` (no player plays a first option he never picked)."""
        self.fields[name] = forms.ChoiceField(
            choices=[("", CHOOSE), *[(o, self.names.get(o, o)) for o in options]], required=False
        )

    def choose(self, cleaned, name, message):
        """Refuse with `message` (a sentence for the player) an explicit choice left unmade."""
        if name in self.fields and not cleaned.get(name):
            self.add_error(None, message)


class WholeMoveForm(MoveForm):
    """A button that carries a whole move as JSON (`move`), for a decision whose moves the panel
    does not list (an action turn's "decline" and "go on without placing"): the engine judges it,
    once it has the vocabulary's shape (games/moves/move_shapes.py). The move kept is that cleaned copy:
    no unknown field, no number out of range, no list longer or deeper than a move has."""

    move_field = MoveField(decoder=FiniteJSONDecoder)

    def __init__(self, data=None, view=None, **kwargs):
        super().__init__(data, view, **kwargs)
        self.fields["move"] = self.fields.pop("move_field")

    def clean(self):
        cleaned = super().clean()
        if "move" in cleaned:
            try:
                cleaned["move"] = move_shapes.clean(cleaned["move"], self.special_action())
            except move_shapes.BadShape as error:
                self.add_error("move", str(error))
        return cleaned

    def special_action(self):
        """The action of the seat's card when it may play it now (its fields alone are allowed)."""
        decision = self.decision or {}
        return decision["special"]["action"] if decision.get("kind") == "action" and decision["can_special"] else None

    def move(self):
        return self.cleaned_data["move"]


# The decisions the panel answers with a button for each of the engine's listed moves.
CHOSEN = ("bid", "card", "region", "castillo", "veto", "counter_veto")


class ChosenMoveForm(WholeMoveForm):
    """A button among the moves the engine lists for the decision (a bid, a card, a secret region,
    a veto): any other move is refused here, and a post without one (no button pressed) is told to
    choose."""

    def __init__(self, data=None, view=None, **kwargs):
        super().__init__(data, view, **kwargs)
        self.fields["move"].error_messages["required"] = _("Choose one of the moves offered.")

    def clean(self):
        cleaned = super().clean()
        if "move" in cleaned and cleaned["move"] not in self.decision["moves"]:
            self.add_error("move", _("This is not one of the moves open to you now."))
        return cleaned


class NotThisForm(MoveForm):
    def clean(self):
        # Said as the mails say what a decision asks: the engine's name of the kind ("bid",
        # "counter_veto") is no word of the reader's language.
        kind = self.decision["kind"]
        raise forms.ValidationError(
            _("These fields do not answer the decision you have now: %(asked)s."),
            params={"asked": ASKED.get(kind, kind.replace("_", " "))},
        )


class CourtForm(MoveForm):
    move_form = "court"

    def add_fields(self):
        allowance, provinces = self.decision["allowance"], self.decision["provinces"]
        self.fields["count"] = forms.TypedChoiceField(
            # The noun goes with each count ("1 caballero", "2 caballeros"): the label round the
            # list cannot know which the player picks.
            choices=[(n, ngettext("%(count)d caballero", "%(count)d caballeros", n) % {"count": n})
                     for n in range(allowance + 1)],
            coerce=int, initial=min(allowance, provinces),
        )
        if provinces < allowance:
            colour = self.view["colour"]
            held = {region["id"]: region["caballeros"].get(colour, 0) for region in self.view["regions"]}
            for region in self.decision["regions"]:
                self.add_counts("from-", [region], held.get(region, 0))

    def from_regions(self):
        return self.counts("from-")

    def move(self):
        move = {"type": "court", "count": self.cleaned_data["count"]}
        taken = self.counted("from-")
        if taken:
            move["from_regions"] = taken
        return move


class PlaceForm(MoveForm):
    move_form = "place"

    def add_fields(self):
        self.add_counts("to-", self.decision["place_areas"], self.decision["place_limit"])
        # Place with every count at 0 gives up the turn's whole placement: sent only with this
        # tick, as the map's Confirm with nothing planned asks a second time (static/map/compose.js).
        self.fields["place_none"] = forms.BooleanField(required=False)

    def clean(self):
        cleaned = super().clean()
        if not self.errors and not self.counted("to-") and not cleaned.get("place_none"):
            self.add_error(None, _(
                "Nothing placed: every count is 0, which would give up placing this turn. Enter how many "
                "caballeros go where, or tick “Place none this turn” and press Place again."
            ))
        return cleaned

    def areas(self):
        return self.counts("to-")

    def move(self):
        return {"type": "place", "to": self.counted("to-")}


class ShareForm(MoveForm):
    move_form = "share"

    def add_fields(self):
        for source in self.decision["sources"]:
            self.add_counts("from-", [source["id"]], source["max"])
        self.names = {**self.names, "court": _("Court")}

    def sources(self):
        return self.counts("from-")

    def move(self):
        return {"type": "share", "from": self.counted("from-")}


# --- the special actions, one form per `options()["action"]` of the cards ----------------------------

SPECIAL_FORMS = {}


def special(action):
    """Register the decorated form for the cards whose `options()` name `action`."""

    def register(form):
        SPECIAL_FORMS[action] = form
        return form

    return register


class SpecialForm(MoveForm):
    """A card's special action. `name`: the form's name (the page's data-special); `map_mode`:
    what a click on the map does (static/decision.js: "count" adds a caballero to that area's
    count field, "select" fills a region field); `template_name`: its fields' markup."""

    move_form = "special"
    name = "confirm"
    map_mode = "select"
    template_name = "games/moves/confirm.html"

    @property
    def special(self):
        return self.decision["special"]

    def move(self):
        return {"type": "special", **self.fields_move()}

    def fields_move(self):
        """The special move's own keys ({"to": …, "plan": …}), from the cleaned data."""
        return {}


@special("none")
class ConfirmForm(SpecialForm):
    pass


@special("keep_veto")
class KeepVetoForm(SpecialForm):
    name = "veto"
    template_name = "games/moves/veto.html"


class PlanRowForm(forms.Form):
    """One group of caballeros moved: from, to, whose, how many (1 when left empty)."""

    use_required_attribute = False

    def __init__(self, *args, options=None, **kwargs):
        super().__init__(*args, **{**kwargs, "auto_id": False})
        for name in ("from", "to", "colour"):
            self.fields[name] = forms.ChoiceField(choices=[("", "–"), *options[name]], required=False)
        self.fields["count"] = forms.IntegerField(min_value=1, max_value=options["most"], required=False, initial=1)

    def has_changed(self):
        # A row counts once one of its regions or its colour is chosen; its count alone does not.
        return any(self.data.get(self.add_prefix(name)) for name in ("from", "to", "colour"))

    def clean(self):
        cleaned = super().clean()
        if not all(cleaned.get(name) for name in ("from", "to", "colour")):
            raise forms.ValidationError(
                _("Row %(row)s: choose where from, where to and whose caballeros, or leave the row empty."),
                params={"row": int(self.prefix.rsplit("-", 1)[1]) + 1},
            )
        return cleaned


class RowFormSet(forms.BaseFormSet):
    """Rows as the panel names them (`plan-0-from`…), posted without a management form: their
    number is read from the posted names (check_post bounds it)."""

    def __init__(self, data=None, **kwargs):
        if data is not None:
            prefix = kwargs["prefix"]
            numbers = (key[len(prefix) + 1 :].split("-")[0] for key in data if key.startswith(f"{prefix}-"))
            rows = [int(number) for number in numbers if is_row_number(number)]
            data = data.copy()
            data[f"{prefix}-TOTAL_FORMS"] = str(max(rows) + 1 if rows else 0)
            data[f"{prefix}-INITIAL_FORMS"] = "0"
        super().__init__(data, **kwargs)

    def posted(self):
        """Whether the post held any row: a move with none says so with an empty list."""
        return self.total_form_count() > 0

    def chosen(self):
        return [form.cleaned_data for form in self.forms if form.has_changed() and form.cleaned_data]


PlanFormSet = formset_factory(PlanRowForm, formset=RowFormSet, extra=0, max_num=10**ROW_DIGITS)


class FormSetForm(SpecialForm):
    """A special form whose rows are a formset (`self.formset`, set up by `add_fields`): the rows'
    errors are the form's own."""

    formset = None

    def clean(self):
        cleaned = super().clean()
        if self.formset is not None and not self.formset.is_valid():
            for error in self.formset.non_form_errors():
                self.add_error(None, error)
            for form in self.formset.forms:
                for name, messages in form.errors.items():
                    for message in messages:
                        self.add_error(None, message if name == "__all__" else f"{form.add_prefix(name)}: {message}")
        return cleaned


@special("move_caballeros")
class PlanForm(FormSetForm):
    name = "plan"
    template_name = "games/moves/plan.html"

    def add_fields(self):
        special = self.special
        players = {player["colour"]: player for player in self.view["players"]}
        options = {
            "from": [(area, self.names[area]) for area in special["sources"]],
            "to": [(area, self.names[area]) for area in special["destinations"]],
            "colour": [(colour, player_name(players[colour])) for colour in special["colours"]],
            "most": special["most"],
        }
        bound = self.data if self.is_bound else None
        self.formset = PlanFormSet(bound, prefix="plan", form_kwargs={"options": options})
        if not self.is_bound:
            self.formset.extra = special["most"]
        self.limits = [
            {"side": side, "least": special[side][0], "most": special[side][1]}
            for side in ("own", "foreign")
            if special[side][1]
        ]

    def fields_move(self):
        if not self.formset.posted():
            return {}
        return {"plan": [{**row, "count": row["count"] or 1} for row in self.formset.chosen()]}


class PickRowForm(forms.Form):
    """One player's caballero sent to the provinces: the colour (hidden) and the region it leaves."""

    use_required_attribute = False

    def __init__(self, *args, pick=None, **kwargs):
        super().__init__(*args, **{**kwargs, "auto_id": False})
        self.pick = pick or {"colour": "", "regions": []}
        self.fields["colour"] = forms.ChoiceField(choices=[(self.pick["colour"], self.pick["colour"])],
                                                  initial=self.pick["colour"], required=False)
        self.fields["region"] = forms.ChoiceField(choices=[("", CHOOSE), *self.pick["regions"]], required=False)

    def has_changed(self):
        return bool(self.data.get(self.add_prefix("colour")) and self.data.get(self.add_prefix("region")))


class PickFormSet(RowFormSet):
    def get_form_kwargs(self, index):
        picks = self.form_kwargs["picks"]
        return {"pick": picks[index] if index < len(picks) else None}


PickFormSetOf = formset_factory(PickRowForm, formset=PickFormSet, extra=0, max_num=10**ROW_DIGITS)


@special("picks")
class PicksForm(FormSetForm):
    name = "picks"
    template_name = "games/moves/picks.html"

    def add_fields(self):
        players = {player["colour"]: player for player in self.view["players"]}
        picks = [
            {
                "colour": pick["colour"],
                "label": players[pick["colour"]]["label"],
                "name": player_name(players[pick["colour"]]),
                "regions": [(area, self.names[area]) for area in pick["regions"]],
            }
            for pick in self.special["picks"]
        ]
        bound = self.data if self.is_bound else None
        self.formset = PickFormSetOf(bound, prefix="picks", form_kwargs={"picks": picks})
        if not self.is_bound:
            self.formset.extra = len(picks)

    def clean(self):
        cleaned = super().clean()
        if self.formset is not None and self.formset.is_valid() and any(
            not form.cleaned_data.get("region") for form in self.formset.forms
        ):
            self.add_error(None, _("Choose the region of every player's caballero."))
        return cleaned

    def fields_move(self):
        if not self.formset.posted():
            return {}
        return {"picks": [{"colour": row["colour"], "region": row["region"]} for row in self.formset.chosen()]}


@special("redistribute")
class OwnRegionForm(SpecialForm):
    """All the seat's caballeros of one region, spread over the destinations."""

    name = "own_region"
    map_mode = "count"
    template_name = "games/moves/own_region.html"

    def add_fields(self):
        self.explicit_choice("region", self.special["regions"])
        self.add_counts("to-", self.special["destinations"])
        self.add_order()

    def clean(self):
        cleaned = super().clean()
        self.choose(cleaned, "region", _("Choose the region whose caballeros you redistribute."))
        self.clean_order(cleaned)
        return cleaned

    def destinations(self):
        return self.counts("to-")

    def fields_move(self):
        return {"region": self.cleaned_data["region"], "to": self.ordered_counts("to-")}


@special("either")
class EitherForm(OwnRegionForm):
    """Caballeros from the court, or all of one region's: the option says which."""

    name = "either"
    template_name = "games/moves/own_region.html"

    def add_fields(self):
        court, own_region = self.special["options"]["court"], self.special["options"]["own_region"]
        self.count = court["count"]
        self.fields["option"] = forms.ChoiceField(choices=[("court", "court"), ("own_region", "own_region")],
                                                  initial="court")
        self.explicit_choice("region", own_region["regions"])
        self.add_counts("to-", court["destinations"])
        self.add_order()

    def clean(self):
        # The region is asked only for the redistributing option.
        cleaned = SpecialForm.clean(self)
        if cleaned.get("option") == "own_region":
            self.choose(cleaned, "region", _("Choose the region whose caballeros you redistribute."))
        self.clean_order(cleaned)
        return cleaned

    def fields_move(self):
        move = {"option": self.cleaned_data["option"], "to": self.ordered_counts("to-")}
        if self.cleaned_data["region"]:
            move["region"] = self.cleaned_data["region"]
        return move


@special("court_to_regions")
class CourtSpreadForm(SpecialForm):
    name = "court_spread"
    map_mode = "count"
    template_name = "games/moves/court_spread.html"

    def add_fields(self):
        self.count = self.special["count"]
        self.add_counts("to-", self.special["destinations"], self.count)
        self.add_order()

    def clean(self):
        cleaned = super().clean()
        self.clean_order(cleaned)
        return cleaned

    def destinations(self):
        return self.counts("to-")

    def fields_move(self):
        return {"to": self.ordered_counts("to-")}


@special("order")
class OrderForm(SpecialForm):
    """The order in which the other players are affected (clockwise from the taker's left)."""

    name = "order"
    template_name = "games/moves/order.html"
    optional = False

    def add_fields(self):
        players = {player["colour"]: player for player in self.view["players"]}
        colours = [(colour, player_name(players[colour])) for colour in self.special["order"]]
        for index, colour in enumerate(self.special["order"]):
            self.choice(f"order-{index}", colours, blank=self.optional, required=not self.optional,
                        initial="" if self.optional else colour)

    def slots(self):
        return [self[name] for name in self.fields if name.startswith("order-")]

    def fields_move(self):
        order = [self.cleaned_data[name] for name in self.fields if name.startswith("order-")]
        order = [colour for colour in order if colour]
        return {"order": order} if order else {}


@special("evict")
class EvictionForm(OrderForm):
    name = "eviction"
    optional = True

    def add_fields(self):
        self.explicit_choice("region", self.special["regions"])
        super().add_fields()

    def clean(self):
        cleaned = super().clean()
        self.choose(cleaned, "region", _("Choose the region to evict."))
        return cleaned

    def fields_move(self):
        return {"region": self.cleaned_data["region"], **super().fields_move()}


@special("score_area")
class ScoreRegionForm(SpecialForm):
    name = "score_region"
    template_name = "games/moves/score_region.html"

    def add_fields(self):
        self.explicit_choice("region", self.special["areas"])

    def clean(self):
        cleaned = super().clean()
        self.choose(cleaned, "region", _("Choose the area to score."))
        return cleaned

    def fields_move(self):
        return {"region": self.cleaned_data["region"]}


@special("mobile_scoreboard")
class MobileForm(SpecialForm):
    """One of the mobile scoreboards (a radio) onto one of its targets (a select per board)."""

    name = "mobile"
    template_name = "games/moves/mobile.html"

    def add_fields(self):
        boards = self.special["scoreboards"]
        self.boards = []
        if boards:
            self.fields["scoreboard"] = forms.ChoiceField(
                choices=[(board["id"], board["id"]) for board in boards], initial=boards[0]["id"]
            )
        for board in boards:
            self.explicit_choice(f"mobile-to-{board['id']}", board["targets"])
            where = board["where"]
            self.boards.append(
                {"id": board["id"], "where": self.names[where] if where else None,
                 "targets": self[f"mobile-to-{board['id']}"]}
            )

    def clean(self):
        # Only the chosen scoreboard's target is asked.
        cleaned = super().clean()
        if cleaned.get("scoreboard"):
            self.choose(cleaned, f"mobile-to-{cleaned['scoreboard']}", _("Choose where the mobile scoreboard goes."))
        return cleaned

    def fields_move(self):
        board = self.cleaned_data.get("scoreboard")
        if not board:
            return {}
        move = {"scoreboard": board}
        if self.cleaned_data.get(f"mobile-to-{board}"):
            move["to"] = self.cleaned_data[f"mobile-to-{board}"]
        return move


@special("move_king")
class KingForm(SpecialForm):
    name = "king"
    template_name = "games/moves/to.html"
    label = _("Move the King to")
    missing = _("Choose where the King goes.")

    def add_fields(self):
        self.explicit_choice("to", self.special["targets"])

    def clean(self):
        cleaned = super().clean()
        self.choose(cleaned, "to", self.missing)
        return cleaned

    def fields_move(self):
        return {"to": self.cleaned_data["to"]}


@special("move_grande")
class GrandeForm(KingForm):
    name = "grande"
    label = _("Move your Grande to")
    missing = _("Choose where your Grande goes.")


@special("retake_power_card")
class RetakeForm(SpecialForm):
    name = "retake"
    template_name = "games/moves/retake.html"

    def add_fields(self):
        played = self.special["cards"]
        if played:
            self.fields["card"] = forms.TypedChoiceField(
                choices=[("", CHOOSE), *[(c, str(c)) for c in played]], coerce=int, required=False, empty_value=None
            )

    def clean(self):
        cleaned = super().clean()
        self.choose(cleaned, "card", _("Choose the power card to take back."))
        return cleaned

    def fields_move(self):
        return {"card": self.cleaned_data["card"]} if "card" in self.fields else {}


# --- the panel ----------------------------------------------------------------------------------------


class DecisionPanel:
    """What the panel draws for the seat's decision (view["decision"]): its kind, the forms that
    answer it (unbound, from the engine's view), and the words around them. Built by
    selectors.game_context; decision.html only draws it."""

    def __init__(self, view):
        decision = view["decision"]
        self.view = view
        self.decision = decision
        self.kind = decision["kind"]
        names = area_names(view)
        kind = self.kind
        if kind == "court":
            self.court = CourtForm(view=view)
        elif kind == "card":
            texts = {card["id"]: card for card in view["cards"]}
            self.offers = [{"move": move, "card": texts.get(move["card"])} for move in decision["moves"]]
        elif kind == "action":
            self.card = decision["card"]
            self.place = PlaceForm(view=view) if decision["can_place"] and decision["place_limit"] else None
            self.special = SPECIAL_FORMS[decision["special"]["action"]](view=view) if decision["can_special"] else None
        elif kind == "veto":
            pending = view.get("pending") or {}
            self.window = decision["window"]
            self.before = pending.get("before")
            steps = (pending.get("steps") or []) if decision["window"] == "plan" else []
            self.steps = [{"cut": index, "number": index + 1, "step": step} for index, step in enumerate(steps)]
        elif kind in ("region", "castillo"):
            pending = view.get("pending") or {}
            card = pending.get("card") if kind == "region" else None
            evicted = pending.get("region") if card == "eviction" else None
            self.card = card
            self.evicted = names.get(evicted) if evicted else None
            self.purpose = _purpose(card, self.evicted)
            # Eviction: the region evicted and the King's send the evicted caballeros to court; the
            # Castillo's choice at a general scoring: the King's region sends them to court.
            to_court = {evicted, view.get("king")} if evicted else {view.get("king")} if kind == "castillo" else set()
            self.choices = [
                {
                    "move": move,
                    "name": names.get(move["region"], move["region"]),
                    "region": move["region"],
                    "to_court": move["region"] in to_court,
                }
                for move in decision["moves"]
            ]
        elif kind == "share":
            self.share = ShareForm(view=view)
            self.needed = decision["needed"]

    @classmethod
    def for_view(cls, view):
        """The panel of `view`'s decision, or None with nothing to decide."""
        return cls(view) if view.get("decision") else None


# What a secret region choice is for, by the card that asks for it.
PURPOSES = {
    "eviction": gettext_lazy(
        "%(region)s is evicted: choose the region where all your caballeros in %(region)s go. "
        "Choosing %(region)s itself or the King's region sends them to your court."
    ),
    "secret_two_to_provinces": gettext_lazy(
        "Choose one of your regions holding at least 2 of your caballeros (one holding 1 if none "
        "holds 2): 2 of them (or the 1) go from there to the provinces."
    ),
    "secret_all_to_provinces": gettext_lazy(
        "Choose one of your regions: all your caballeros there go to the provinces."
    ),
    "secret_unique_scoring": gettext_lazy(
        "Choose a region to score: every region chosen by exactly one player is scored, in scoring order."
    ),
}


def _purpose(card, evicted):
    text = PURPOSES.get(card)
    return str(text) % {"region": evicted or _("The region")} if text else ""


def area_names(view):
    """{area id: name} of the board in `view`."""
    names = {region["id"]: area_name(region["id"]) for region in view["regions"]}
    names[view["castillo"]["id"]] = area_name(view["castillo"]["id"])
    return names


def player_name(player):
    """"alice (green)", or the colour alone when the seat's user is gone."""
    # The colour in the reader's words, as the log says it.
    word = str(COLOUR_WORDS.get(player["colour"], player["colour"]))
    user = player.get("user")
    return f"{user.username} ({word})" if user else word.capitalize()
