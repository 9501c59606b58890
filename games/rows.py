"""Plain UPDATE and INSERT statements made from the models' fields, for the deadline sweep.

`Model.save()`, `QuerySet.update()` and `bulk_create()` spend most of their time building and
compiling the query: about a millisecond a statement on this machine, more than everything else
an expired deadline costs (the engine's moves included), with a thousand games per sweep. These
store the very same values, through each field's own `pre_save` and `get_db_prep_save` as the
ORM does, with SQL made from the model's metadata. Only games/services.py writes with them.
"""

from django.db import connection


def update(model, pks, values):
    """Set the fields `values` ({name: value}) of the rows of `model` whose keys are `pks`.
    Returns how many rows it changed."""
    meta = model._meta
    quote = connection.ops.quote_name
    fields = [meta.get_field(name) for name in values]
    assignments = ", ".join(f"{quote(field.column)} = %s" for field in fields)
    keys = ", ".join(["%s"] * len(pks))
    params = [field.get_db_prep_save(value, connection) for field, value in zip(fields, values.values())]
    with _cursor() as cursor:
        cursor.execute(
            f"UPDATE {quote(meta.db_table)} SET {assignments} WHERE {quote(meta.pk.column)} IN ({keys})",
            [*params, *pks],
        )
        return cursor.rowcount


def update_each(objs, names):
    """Store the fields `names` of each of `objs`, saved instances of one model, in one statement."""
    if not objs:
        return
    meta = objs[0]._meta
    quote = connection.ops.quote_name
    fields = [meta.get_field(name) for name in names]
    table, key = quote(meta.db_table), quote(meta.pk.column)
    values = [[field.get_db_prep_save(getattr(obj, field.attname), connection) for field in fields] for obj in objs]
    with _cursor() as cursor:
        if connection.vendor == "postgresql":
            columns = [meta.pk, *fields]
            assignments = ", ".join(f"{quote(field.column)} = v.{quote(field.column)}" for field in fields)
            cursor.execute(
                f"UPDATE {table} SET {assignments} FROM {_unnest(columns)} WHERE {table}.{key} = v.{key}",
                [[obj.pk for obj in objs], *(list(column) for column in zip(*values))],
            )
        else:
            assignments = ", ".join(f"{quote(field.column)} = %s" for field in fields)
            cursor.executemany(
                f"UPDATE {table} SET {assignments} WHERE {key} = %s",
                [[*row, obj.pk] for row, obj in zip(values, objs)],
            )


def insert(objs):
    """Insert `objs`, new instances of one model with an automatic primary key, in one statement.
    Their keys are not read back."""
    if not objs:
        return
    meta = objs[0]._meta
    quote = connection.ops.quote_name
    fields = [field for field in meta.concrete_fields if not field.primary_key]
    table, columns = quote(meta.db_table), ", ".join(quote(field.column) for field in fields)
    values = [[field.get_db_prep_save(field.pre_save(obj, True), connection) for field in fields] for obj in objs]
    with _cursor() as cursor:
        if connection.vendor == "postgresql":
            by_column = [list(column) for column in zip(*values)]
            cursor.execute(f"INSERT INTO {table} ({columns}) SELECT * FROM {_unnest(fields)}", by_column)
        else:
            cursor.executemany(f"INSERT INTO {table} ({columns}) VALUES ({', '.join(['%s'] * len(fields))})", values)


def _unnest(fields):
    """PostgreSQL: the rows `v` made of one array parameter per field, each of its column's type.
    A statement with one parameter per column, whatever the number of rows, is read and planned
    as quickly for a thousand rows as for one."""
    quote = connection.ops.quote_name
    arrays = ", ".join(f"%s::{field.cast_db_type(connection)}[]" for field in fields)
    return f"unnest({arrays}) AS v({', '.join(quote(field.column) for field in fields)})"


def _cursor():
    """A cursor of the default connection. On PostgreSQL one that sends the values apart from the
    statement (server-side binding), where Django's own merges them into its text (client-side
    binding, `server_side_binding` off): psycopg then sends each array of values as such, rather
    than writing every value into the statement."""
    if connection.vendor != "postgresql":
        return connection.cursor()
    import psycopg

    connection.ensure_connection()
    with connection.wrap_database_errors:
        return connection._prepare_cursor(psycopg.Cursor(connection.connection))
