"""The rows of a database, serialized and loaded again into an emptied one (tests/test_stored_data.py:
a database migrated once, played on by each test from the same rows)."""

from django.apps import apps
from django.core import serializers
from django.core.management.color import no_style
from django.db import connection

# Rows a flush writes anew (post_migrate), with ids of their own: loaded again, they would clash.
WRITTEN_BY_A_FLUSH = {"contenttypes.ContentType", "auth.Permission"}


def _models():
    return [
        model for model in apps.get_models()
        if model._meta.managed and not model._meta.proxy and model._meta.label not in WRITTEN_BY_A_FLUSH
    ]


def serialized():
    """Every row of every model (but those a flush writes anew), as JSON, in primary-key order."""
    querysets = [model._base_manager.order_by("pk") for model in _models()]
    return serializers.serialize("json", (row for queryset in querysets for row in queryset.iterator()))


def load(rows):
    """Insert `rows` (from serialized()) into the emptied database, and move its sequences past
    their ids for the rows to come (PostgreSQL)."""
    connection.creation.deserialize_db_from_string(rows)
    with connection.cursor() as cursor:
        for statement in connection.ops.sequence_reset_sql(no_style(), _models()):
            cursor.execute(statement)
