"""Reading the game page's forms the way a browser does, and filling them in, for the web tests."""

import json
from html.parser import HTMLParser


class Form:
    def __init__(self, attrs):
        self.attrs = attrs
        self.fields = []  # [name, kind, value or options, checked]
        self.buttons = []  # (name, value, text)
        self.selects = {}

    @property
    def action(self):
        return self.attrs.get("hx-post") or self.attrs.get("action")

    def defaults(self):
        """What a browser sends before anyone touches the form (without the clicked button)."""
        data = {}
        for name, kind, value, checked in self.fields:
            if kind in ("radio", "checkbox"):
                if checked:
                    data[name] = value
            else:
                data[name] = value
        for name, options in self.selects.items():
            chosen = [value for value, selected in options if selected]
            data[name] = chosen[0] if chosen else (options[0][0] if options else "")
        return data

    def names(self):
        return {field[0] for field in self.fields} | set(self.selects)

    def options(self, name):
        if name in self.selects:
            return [value for value, _selected in self.selects[name]]
        return [value for field, kind, value, _c in self.fields if field == name and kind == "radio"]

    def fill(self, values, button=None):
        """The POST data after setting `values` (each field must exist, and a select or radio must
        offer the value) and clicking `button` (a (name, value) the form must have)."""
        data = self.defaults()
        for name, value in values.items():
            value = str(value)
            assert name in self.names(), f"the form has no field {name!r}: {sorted(self.names())}"
            options = self.options(name)
            if options:
                assert value in options, f"{name!r} does not offer {value!r}: {options}"
            else:
                hidden = [f for f in self.fields if f[0] == name and f[1] == "hidden"]
                assert not hidden or hidden[0][2] == value, f"hidden {name!r} is {hidden[0][2]!r}, not {value!r}"
            data[name] = value
        if button is not None:
            assert button in [(name, value) for name, value, _text in self.buttons], (button, self.buttons)
            data[button[0]] = button[1]
        return data


class FormParser(HTMLParser):
    def __init__(self):
        super().__init__()
        self.forms = []
        self.form = None
        self.select = None
        self.option = None
        self.button = None

    def handle_starttag(self, tag, attrs):
        attrs = {key: (value if value is not None else "") for key, value in attrs}
        if tag == "form":
            self.form = Form(attrs)
            self.forms.append(self.form)
        elif self.form is None:
            return
        elif tag == "input":
            kind = attrs.get("type", "text")
            self.form.fields.append([attrs.get("name"), kind, attrs.get("value", ""), "checked" in attrs])
        elif tag == "select":
            self.select = attrs.get("name")
            self.form.selects[self.select] = []
        elif tag == "option" and self.select:
            self.form.selects[self.select].append([attrs.get("value", ""), "selected" in attrs])
        elif tag == "button":
            self.button = [attrs.get("name"), attrs.get("value"), ""]

    def handle_data(self, data):
        if self.button is not None:
            self.button[2] += data

    def handle_endtag(self, tag):
        if tag == "form":
            self.form = None
        elif tag == "select":
            self.select = None
        elif tag == "button" and self.button is not None:
            if self.form is not None:
                self.form.buttons.append(tuple(self.button))
            self.button = None


def forms_in(html):
    parser = FormParser()
    parser.feed(html)
    return [form for form in parser.forms if form.action and "/move/" in form.action]


def move_buttons(forms):
    """Every whole move a button of these forms posts."""
    return [json.loads(value) for form in forms for name, value, _text in form.buttons if name == "move"]


def find_form(forms, move_form=None, button=None):
    for form in forms:
        if move_form is not None and form.defaults().get("move_form") == move_form:
            return form
        if button is not None and button in [(n, v) for n, v, _t in form.buttons]:
            return form
    raise AssertionError(f"no form for {move_form or button}")


def special_fields(move):
    """The panel's field values that describe a special move (the inverse of moves_forms)."""
    values = {}
    for field in ("option", "region", "scoreboard", "card"):
        if field in move:
            values[field] = move[field]
    to = move.get("to")
    if isinstance(to, dict):
        for area, count in to.items():
            values[f"to-{area}"] = count
    elif to is not None:
        values["to"] = to
    for index, colour in enumerate(move.get("order") or []):
        values[f"order-{index}"] = colour
    for index, entry in enumerate(move.get("plan") or []):
        for field in ("from", "to", "colour"):
            values[f"plan-{index}-{field}"] = entry[field]
        values[f"plan-{index}-count"] = entry.get("count", 1)
    return values
