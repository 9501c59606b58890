"""Plain UPDATE and INSERT statements made from the models' fields, for the deadline sweep.

`Model.save()`, `QuerySet.update()` and `bulk_create()` spend most of their time building and
compiling the query: about a millisecond a statement on this machine, more than everything else
an expired deadline costs (the engine's moves included), with a thousand games per sweep. These
store the very same values, through each field's own `pre_save` and `get_db_prep_save` as the
ORM does, with SQL made from the model's metadata. Only the play room (games/play/) writes with them.

`claim` and `claim_and_store` write a row only if it is still as it was read ("optimistic"
locking by a version column): the sweep reads the overdue games of a batch together, without
locks, and then commits each game on its own, in a transaction that begins by claiming it.
"""

from contextlib import contextmanager
from datetime import datetime

from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections, models


def update(model, pks, values):
    """Set the fields `values` ({name: value}) of the rows of `model` whose keys are `pks`.
    Returns how many rows it changed."""
    db = _db()
    meta = model._meta
    quote = db.ops.quote_name
    fields = [meta.get_field(name) for name in values]
    assignments = ", ".join(f"{quote(field.column)} = %s" for field in fields)
    keys = ", ".join(["%s"] * len(pks))
    params = [_preparer(field, db)(value) for field, value in zip(fields, values.values())]
    with _cursor() as cursor:
        cursor.execute(
            f"UPDATE {quote(meta.db_table)} SET {assignments} WHERE {quote(meta.pk.column)} IN ({keys})",
            [*params, *pks],
        )
        return cursor.rowcount


def update_each(objs, names):
    """Store the fields `names` of each of `objs`, saved instances of one model: one UPDATE by
    primary key, executed once per object."""
    db = _db()
    if not objs:
        return
    meta = objs[0]._meta
    quote = db.ops.quote_name
    fields = [meta.get_field(name) for name in names]
    assignments = ", ".join(f"{quote(field.column)} = %s" for field in fields)
    each = [(field.attname, _preparer(field, db)) for field in fields]
    with _cursor() as cursor:
        cursor.executemany(
            f"UPDATE {quote(meta.db_table)} SET {assignments} WHERE {quote(meta.pk.column)} = %s",
            [[*(prepare(getattr(obj, attname)) for attname, prepare in each), obj.pk] for obj in objs],
        )


def insert(objs):
    """Insert `objs`, new instances of one model with an automatic primary key: one INSERT,
    executed once per object. Their keys are not read back."""
    db = _db()
    if not objs:
        return
    meta = objs[0]._meta
    quote = db.ops.quote_name
    fields = _insert_fields(meta)
    columns = ", ".join(quote(field.column) for field in fields)
    with _cursor() as cursor:
        cursor.executemany(
            f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES ({', '.join(['%s'] * len(fields))})",
            [[_insert_value(field, obj, db) for field in fields] for obj in objs],
        )


def claim(obj, names, conditions):
    """Store the fields `names` of `obj` (a saved instance) in its row if the row still meets
    `conditions`, [(field name, "=" or "<=", value)]; on PostgreSQL only if no other transaction
    holds the row, which is then skipped rather than waited for (SKIP LOCKED). One UPDATE.
    Returns whether it stored them: the row is then this transaction's until it ends."""
    sql, params = _claim_sql(obj, names, conditions)
    with _cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount == 1


# The outcome of a transaction sent when the connection was lost before its answer came.
UNKNOWN = object()


def claim_and_store_each(claims, done):
    """PostgreSQL: for each of `claims`, [(obj, names, conditions, inserts, updates)], `claim` the
    row of `obj` and, only if the claim holds, insert `inserts` (new instances, of one model or
    several, as `insert` does) and run `updates` ([(model, pks, {name: value})], as `update` does): one
    statement, in a transaction of its own (within a transaction of the caller's, a savepoint of
    its own), so that all of it or nothing is stored.

    The statements and their BEGIN and COMMIT are sent together in a pipeline: the server runs
    them one after the other, each transaction committed (and its row released) as soon as it
    ends, and answers them all in one round trip, where one round trip each would cost more than
    the statements themselves on a busy machine.

    `done(index, outcome)` is called for each, in order, once it is known: True (stored), False
    (the claim did not hold), or the DatabaseError that refused it (its transaction rolled back;
    those after it are sent again). A lost connection is raised, after `done` for those known and
    `done(index, UNKNOWN)` for those sent whose answer never came: the server may have committed
    some of them before the connection went (the caller may look, once connected again)."""
    db = _db()
    statements = [_claim_and_store_sql(db, *claim) for claim in claims]
    inside = db.in_atomic_block
    start = 0
    while start < len(statements):
        db.close_if_health_check_failed()
        db.ensure_connection()
        raw = db.connection
        threshold = raw.prepare_threshold
        sent, error = [], None
        try:
            with db.wrap_database_errors, raw.pipeline():
                for index in range(start, len(statements)):
                    opening, closing = (
                        (f"SAVEPOINT sweep_{index}", f"RELEASE SAVEPOINT sweep_{index}") if inside
                        else ("BEGIN", "COMMIT")
                    )
                    cursors = [db._prepare_cursor(psycopg_raw_cursor(raw)) for _ in range(3)]
                    cursors[0].execute(opening)
                    # The game's statement prepared on the server, once per shape and connection
                    # (which a worker process keeps from task to task): the server then neither
                    # parses nor plans it again, a quarter of a game's time in one process
                    # (bench/README.md, "The sweep's statements prepared"). Not while the
                    # connection logs its statements (DEBUG, a test's count), whose log would
                    # have no text for a prepared one.
                    raw.prepare_threshold = threshold if db.queries_logged else 0
                    try:
                        cursors[1].execute(*statements[index])
                    finally:
                        raw.prepare_threshold = threshold
                    cursors[2].execute(closing)
                    sent.append(cursors)
        except DatabaseError as raised:
            error = raised
        # Answered in order: those before the first that failed were committed.
        failed = start + len(sent)
        for index, cursors in enumerate(sent, start):
            if any(cursor.cursor.pgresult is None for cursor in cursors):
                failed = index
                break
            done(index, cursors[1].fetchone()[0] == 1)
        if error is None:
            return
        if raw.closed or raw.broken:
            for index in range(failed, start + len(sent)):
                done(index, UNKNOWN)
            raise error
        if failed >= len(statements):
            raise error
        # The failed transaction is still open (unless its COMMIT failed, which ends it).
        if raw.info.transaction_status == psycopg_status().INERROR:
            with _cursor() as cursor:
                if inside:
                    cursor.execute(f"ROLLBACK TO SAVEPOINT sweep_{failed}")
                    cursor.execute(f"RELEASE SAVEPOINT sweep_{failed}")
                else:
                    cursor.execute("ROLLBACK")
        done(failed, _first_error(db, error))
        start = failed + 1


def _claim_and_store_sql(db, obj, names, conditions, inserts=(), updates=()):
    """(statement, values) of one claim of `claim_and_store_each`, its placeholders numbered ($1,
    $2 ...) for a raw cursor: psycopg then sends the statement as it is, where it would search a
    statement of this length for its placeholders on every execution (its own cache leaves out
    statements over 4 KB), a fifth of the sweep's CPU (bench/README.md). The text depends only on
    the statement's shape (the model and fields of the claim, how many rows of each model it
    inserts, which updates of how many rows): the games of a batch share a few, each built once."""
    of_model = {}
    for each in inserts:
        of_model.setdefault(type(each), []).append(each)
    shape = (
        type(obj), tuple(names), tuple((name, operator) for name, operator, _ in conditions),
        tuple((model, len(objs)) for model, objs in of_model.items()),
        tuple((model, tuple(values), len(pks)) for model, pks, values in updates),
    )
    sql = _SHAPES.get(shape)
    if sql is None:
        if len(_SHAPES) >= _MOST_SHAPES:
            _SHAPES.clear()
        sql = _SHAPES[shape] = _numbered(_claim_and_store_text(db, *shape))
    params = _claim_params(db, obj, names, conditions)
    for model, objs in of_model.items():
        prepare = _insert_preparers(model, db)
        params += [prepared for each in objs for prepared in prepare(each)]
    for model, pks, values in updates:
        meta = model._meta
        params += [_preparer(meta.get_field(name), db)(value) for name, value in values.items()]
        params += pks
    return sql, params


# The statements of `_claim_and_store_sql` by shape; emptied should some odd use make many.
_SHAPES = {}
_MOST_SHAPES = 1000


def _claim_and_store_text(db, model, names, conditions, inserts, updates):
    """The statement of a shape of `_claim_and_store_sql`, with %s placeholders."""
    quote = db.ops.quote_name
    parts = [f"claimed AS ({_claim_text(db, model, names, conditions)} RETURNING 1)"]
    for number, (inserted, count) in enumerate(inserts):
        fields = _insert_fields(inserted._meta)
        row = "(" + ", ".join(_select_placeholder(field, db) for field in fields) + ")"
        parts.append(
            f"inserted_{number} AS (INSERT INTO {quote(inserted._meta.db_table)} "
            f"({', '.join(quote(f.column) for f in fields)}) "
            f"SELECT row.* FROM claimed, (VALUES {', '.join([row] * count)}) AS row)"
        )
    for number, (updated, names_set, count) in enumerate(updates):
        meta = updated._meta
        fields = [meta.get_field(name) for name in names_set]
        table = quote(meta.db_table)
        parts.append(
            f"updated_{number} AS (UPDATE {table} SET {', '.join(f'{quote(f.column)} = %s' for f in fields)} "
            f"FROM claimed WHERE {table}.{quote(meta.pk.column)} IN ({', '.join(['%s'] * count)}))"
        )
    return f"WITH {', '.join(parts)} SELECT count(*) FROM claimed"


def _numbered(sql):
    """`sql`'s %s placeholders as PostgreSQL's own $1, $2 ... (the statements made here hold no
    other %)."""
    pieces = sql.split("%s")
    return "".join(piece + (f"${number}" if number < len(pieces) else "")
                   for number, piece in enumerate(pieces, 1))


def _insert_preparers(model, db):
    """A function that gives the values of an instance of `model` for `insert`'s columns
    (`_insert_fields`), as `_insert_value` does, with the fields and their preparers looked up
    once. Only a field whose `pre_save` does more than read the attribute (a time set on
    creation) is asked for it. Made once per model and database."""
    key = (model, db.alias)
    if key in _INSERTERS:
        return _INSERTERS[key]
    each = [
        (field, field.attname, _preparer(field, db), type(field).pre_save is not models.Field.pre_save)
        for field in _insert_fields(model._meta)
    ]

    def prepare(obj):
        return [
            prepare_value(field.pre_save(obj, True) if own_pre_save else getattr(obj, attname))
            for field, attname, prepare_value, own_pre_save in each
        ]

    _INSERTERS[key] = prepare
    return prepare


_INSERTERS = {}


def _preparer(field, db):
    """A function that gives what `field.get_db_prep_save(value, db)` gives, for the values the
    sweep stores, with less of the way there: on PostgreSQL an int, a bool, a str, an aware time
    or a JSON list or dict goes straight to what Django's chain of calls makes of it (for an
    int, psycopg's wrapper of its column's size), anything else through that chain. The chain's
    calls, a few per value and dozens of values per game, were about a quarter of the sweep's CPU
    (cProfile, bench/README.md, task "sweep")."""
    key = (field, db.alias, db.vendor)
    prepare = _PREPARERS.get(key)
    if prepare is None:
        prepare = _PREPARERS[key] = _make_preparer(field, db)
    return prepare


_PREPARERS = {}


def _make_preparer(field, db):
    def chain(value):
        return field.get_db_prep_save(value, db)

    if db.vendor != "postgresql":
        return chain
    target = field.target_field if isinstance(field, models.ForeignKey) else field
    # The exact classes whose chain is known here; a subclass may change what it stores.
    kind = type(target)
    if issubclass(kind, models.JSONField) and kind.get_db_prep_save is models.JSONField.get_db_prep_save:
        # Django's JSONField.get_db_prep_save hands a plain list or dict on unchanged, and
        # its get_prep_value (a field's own, FastJSONField's included) leaves them be.
        if kind.get_prep_value is not models.JSONField.get_prep_value:
            return chain

        def prepare(value):
            if type(value) in (list, dict):
                return field.get_db_prep_value(value, db, prepared=True)
            return chain(value)

        return prepare
    if kind in _AUTO_FIELDS:
        # A key is checked by the backend (`validate_autopk_value`), which takes any int as it is.
        return lambda value: value if type(value) is int else chain(value)
    if kind in _INTEGER_FIELDS:
        wrap = db.ops.integerfield_type_map[target.get_internal_type()]

        def prepare(value):
            return wrap(value) if type(value) is int else chain(value)

        return prepare
    if kind is models.BooleanField:
        return lambda value: value if type(value) is bool else chain(value)
    if kind is models.CharField:
        return lambda value: value if isinstance(value, str) else chain(value)
    if kind is models.DateTimeField:

        def prepare(value):
            if value is None or (isinstance(value, datetime) and value.tzinfo is not None):
                return value
            return chain(value)

        return prepare
    return chain


_AUTO_FIELDS = {models.AutoField, models.BigAutoField, models.SmallAutoField}
_INTEGER_FIELDS = {
    models.IntegerField, models.BigIntegerField, models.SmallIntegerField, models.PositiveIntegerField,
    models.PositiveBigIntegerField, models.PositiveSmallIntegerField,
}


def _first_error(db, error):
    """The error that refused a statement of a pipeline, as Django's error of its kind, rather
    than the "pipeline aborted" of the statements skipped after it, which psycopg may raise in
    its place."""
    import psycopg

    seen = error
    while seen is not None:
        if isinstance(seen, psycopg.Error) and not isinstance(seen, psycopg.errors.PipelineAborted):
            try:
                with db.wrap_database_errors:
                    raise seen
            except DatabaseError as wrapped:
                return wrapped
        seen = seen.__cause__ or seen.__context__
    return error


def delete_each(model, names, rows):
    """Delete the rows of `model` whose fields `names` hold the values of one of `rows` (tuples,
    in the order of `names`): one DELETE, executed once per tuple."""
    db = _db()
    if not rows:
        return
    meta = model._meta
    quote = db.ops.quote_name
    fields = [meta.get_field(name) for name in names]
    where = " AND ".join(f"{quote(field.column)} = %s" for field in fields)
    with _cursor() as cursor:
        cursor.executemany(
            f"DELETE FROM {quote(meta.db_table)} WHERE {where}",
            [[field.get_db_prep_value(value, db) for field, value in zip(fields, row)] for row in rows],
        )


def _claim_sql(obj, names, conditions):
    db = _db()
    return (
        _claim_text(db, type(obj), tuple(names), tuple((name, operator) for name, operator, _ in conditions)),
        _claim_params(db, obj, names, conditions),
    )


def _claim_text(db, model, names, conditions):
    """The UPDATE of `claim` for `model`'s fields `names`, under `conditions` [(name, operator)]."""
    meta = model._meta
    quote = db.ops.quote_name
    table, pk = quote(meta.db_table), quote(meta.pk.column)
    assignments = ", ".join(f"{quote(meta.get_field(name).column)} = %s" for name in names)
    where = [f"{pk} = %s"]
    for name, operator in conditions:
        if operator not in ("=", "<="):
            raise ValueError(f"unknown operator {operator!r}")
        where.append(f"{quote(meta.get_field(name).column)} {operator} %s")
    where = " AND ".join(where)
    if db.vendor == "postgresql":
        where = f"{pk} = (SELECT {pk} FROM {table} WHERE {where} FOR UPDATE SKIP LOCKED)"
    return f"UPDATE {table} SET {assignments} WHERE {where}"


def _claim_params(db, obj, names, conditions):
    """The values of `_claim_text`'s placeholders for `obj`."""
    meta = obj._meta
    key = (type(obj), tuple(names), db.alias)
    each = _CLAIMED.get(key)
    if each is None:
        each = _CLAIMED[key] = [(meta.get_field(name).attname, _preparer(meta.get_field(name), db)) for name in names]
    params = [prepare(getattr(obj, attname)) for attname, prepare in each]
    params.append(obj.pk)
    params += [meta.get_field(name).get_db_prep_value(value, db) for name, _, value in conditions]
    return params


# The (attribute, preparer) of each field a claim stores, by (model, fields, database): a field's
# hash, which a lookup of `_preparer` takes, costs more than the preparing.
_CLAIMED = {}


def _insert_fields(meta):
    return [field for field in meta.concrete_fields if not field.primary_key]


def _select_placeholder(field, db):
    """A value's placeholder in the VALUES that an INSERT selects from: PostgreSQL takes an untyped
    NULL there for text, which a column of another type (a nullable time) then refuses."""
    if field.null and db.vendor == "postgresql":
        return f"CAST(%s AS {field.db_type(db)})"
    return "%s"


def _insert_value(field, obj, db):
    return field.get_db_prep_save(field.pre_save(obj, True), db)


@contextmanager
def commits_without_waiting():
    """On PostgreSQL, the commits made inside do not wait for the disk (`synchronous_commit`
    off for this connection meanwhile): the deadline sweep's, each of which would otherwise wait
    for its own flush. Should the database lose some in a crash, the expired deadlines are
    still in the rows, and the next sweep plays the very same moves again (their random choices
    are seeded by the game and its version)."""
    if _db().vendor != "postgresql":
        yield
        return
    with _cursor() as cursor:
        cursor.execute("SET synchronous_commit TO OFF")
    try:
        yield
    finally:
        try:
            with _cursor() as cursor:
                cursor.execute("RESET synchronous_commit")
        except DatabaseError:
            # The connection is lost (it goes with its setting), or an enclosing transaction
            # failed (whose rollback undoes the SET): whatever stopped the sweep is raised.
            pass


def exist_each(querysets):
    """[whether each of `querysets` has a row]: one statement of an EXISTS each, one round trip
    where a query each would cost one each (the deadline sweep's checks of what is due, which
    nearly always find nothing).

    Each query is a MATERIALIZED common table expression, planned as if all its rows were
    wanted: a bare EXISTS lets PostgreSQL plan for the first row alone, and it then chose to
    scan every running game for the reminders' check (an OR of ranges of partial indexes) in
    the hope of meeting one early, 14-21 ms at 10,000 games (bench/README.md), where the
    indexes answer in a tenth of a millisecond. The rows are still read only until the first."""
    from django.core.exceptions import EmptyResultSet

    parts, params, found = [], [], []
    for queryset in querysets:
        try:
            sql, more = queryset.order_by().values("pk").query.sql_with_params()
        except EmptyResultSet:
            found.append(False)  # no row can match: asked of nobody
            continue
        found.append(None)
        parts.append(sql)
        params += more
    if parts:
        tables = ", ".join(f"check_{number} AS MATERIALIZED ({sql})" for number, sql in enumerate(parts))
        exists = ", ".join(f"EXISTS (SELECT 1 FROM check_{number})" for number in range(len(parts)))
        with _cursor() as cursor:
            cursor.execute(f"WITH {tables} SELECT {exists}", params)
            answers = iter(cursor.fetchone())
        found = [bool(next(answers)) if each is None else each for each in found]
    return found


def _db():
    # The connection itself, not django.db.connection, whose every attribute is looked up again
    # in this thread's connections: the sweep prepares thousands of values.
    return connections[DEFAULT_DB_ALIAS]


def _cursor():
    """A cursor of the default connection. On PostgreSQL one that sends the values apart from the
    statement (server-side binding), where Django's own merges them into its text (client-side
    binding, `server_side_binding` off): psycopg then reads the statement for its placeholders
    once rather than once a row, and the server parses and plans it once as a prepared statement
    when it is executed for many rows, all of which psycopg sends in one round trip.

    A connection kept from an earlier task or request is checked first, as Django's own cursors
    check it (CONN_HEALTH_CHECKS): one the database dropped meanwhile is replaced."""
    db = _db()
    if db.vendor != "postgresql":
        return db.cursor()
    db.close_if_health_check_failed()
    db.ensure_connection()
    with db.wrap_database_errors:
        return db._prepare_cursor(psycopg_cursor(db.connection))


def psycopg_cursor(raw):
    import psycopg

    return psycopg.Cursor(raw)


def psycopg_raw_cursor(raw):
    """A cursor that takes PostgreSQL's own numbered placeholders ($1), sent as they are."""
    import psycopg

    return psycopg.RawCursor(raw)


def psycopg_status():
    from psycopg.pq import TransactionStatus

    return TransactionStatus
