class IllegalMove(ValueError):
    """A move the rules do not allow.

    `code` names the refusal (a stable id such as "power_card_not_in_hand") and `data` its
    particulars as plain ids and numbers (area ids, colours, card ids, counts), so that the web side
    can say it in the player's language (games/words/refusals.py). The engine itself holds no sentence:
    str(error) is the code and its data, for logs.
    """

    def __init__(self, code, **data):
        super().__init__(code)
        self.code = code
        self.data = data

    def __str__(self):
        if not self.data:
            return self.code
        return f"{self.code} ({', '.join(f'{key}={value!r}' for key, value in self.data.items())})"

    def __reduce__(self):
        return (_rebuild, (self.code, self.data))


def _rebuild(code, data):
    return IllegalMove(code, **data)


def given(value):
    """A value a forged move gave, as short text for a refusal's data (it may be anything)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"
