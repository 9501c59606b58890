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
    """Store the fields `names` of each of `objs`, saved instances of one model: one UPDATE by
    primary key, executed once per object."""
    if not objs:
        return
    meta = objs[0]._meta
    quote = connection.ops.quote_name
    fields = [meta.get_field(name) for name in names]
    assignments = ", ".join(f"{quote(field.column)} = %s" for field in fields)
    with _cursor() as cursor:
        cursor.executemany(
            f"UPDATE {quote(meta.db_table)} SET {assignments} WHERE {quote(meta.pk.column)} = %s",
            [[*(field.get_db_prep_save(getattr(obj, field.attname), connection) for field in fields), obj.pk]
             for obj in objs],
        )


def insert(objs):
    """Insert `objs`, new instances of one model with an automatic primary key: one INSERT,
    executed once per object. Their keys are not read back."""
    if not objs:
        return
    meta = objs[0]._meta
    quote = connection.ops.quote_name
    fields = [field for field in meta.concrete_fields if not field.primary_key]
    columns = ", ".join(quote(field.column) for field in fields)
    with _cursor() as cursor:
        cursor.executemany(
            f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES ({', '.join(['%s'] * len(fields))})",
            [[field.get_db_prep_save(field.pre_save(obj, True), connection) for field in fields] for obj in objs],
        )


def _cursor():
    """A cursor of the default connection. On PostgreSQL one that sends the values apart from the
    statement (server-side binding), where Django's own merges them into its text (client-side
    binding, `server_side_binding` off): psycopg then reads the statement for its placeholders
    once rather than once a row, and the server parses and plans it once as a prepared statement
    when it is executed for many rows, all of which psycopg sends in one round trip."""
    if connection.vendor != "postgresql":
        return connection.cursor()
    import psycopg

    connection.ensure_connection()
    with connection.wrap_database_errors:
        return connection._prepare_cursor(psycopg.Cursor(connection.connection))
