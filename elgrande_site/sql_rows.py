"""A model's rows read with a SELECT written out once per process, and its instances built from them
as the ORM builds them (its converters applied, `from_db`): for the few reads on every request,
where the ORM's queryset, built and compiled each time, cost more CPU than the query itself (the
game page's game and seats, games/reading/page_game.py; the session's user, accounts/backends.py)."""

from functools import cache

from django.db import connection


def holds_id(model, pk):
    """Whether `pk` fits `model`'s id column: an id past it names no row, as the ORM answers it,
    where the SELECT written out would fail (SQLite: OverflowError; PostgreSQL: out of range)."""
    low, high = connection.ops.integer_field_range(model._meta.pk.get_internal_type())
    return low <= pk <= high


def concrete_fields(model, leave_out=()):
    return [field for field in model._meta.concrete_fields if field.name not in leave_out]


def columns(model, fields):
    table = model._meta.db_table
    return ", ".join(f'"{table}"."{field.column}"' for field in fields)


def ordering(model):
    """The model's default ORDER BY, written out."""
    table = model._meta.db_table
    return ", ".join(
        f'"{table}"."{model._meta.get_field("id" if name == "pk" else name).column}"' for name in model._meta.ordering
    )


@cache
def _converters(vendor, model, fields):
    """Per field, the functions that turn its database value into the Python value, as the ORM's
    compiler applies them (SQLite's booleans and dates come as numbers and text)."""
    converters = []
    for field in fields:
        column = field.get_col(model._meta.db_table)
        converters.append((column, connection.ops.get_db_converters(column) + column.get_db_converters(connection)))
    return converters


def converted(model, fields, values):
    """`values` (a list, changed in place and returned) of `fields` as the ORM would give them."""
    converters = _converters(connection.vendor, model, tuple(fields))
    for position, (column, functions) in enumerate(converters):
        for function in functions:
            values[position] = function(values[position], column, connection)
    return values


def instance(model, fields, values):
    """The instance of `model` loaded with `values` of `fields`, as the ORM loads it."""
    return model.from_db(connection.alias, [field.attname for field in fields], converted(model, fields, values))
