"""A JSONField read and written with games.infra.json_codec instead of Python's json module: the state
and events are loaded and saved on every move, and the codec was the bulk of that cost."""

from django.db import models
from django.db.models.fields.json import KeyTransform

from games.infra import json_codec


class FastJSONField(models.JSONField):
    def get_db_prep_value(self, value, connection, prepared=False):
        if not prepared:
            value = self.get_prep_value(value)
        if value is None or hasattr(value, "as_sql"):
            return super().get_db_prep_value(value, connection, prepared=True)
        if connection.vendor == "postgresql":
            from psycopg.types.json import Jsonb

            return Jsonb(value, dumps=json_codec.dumps)
        return json_codec.dumps(value)

    def from_db_value(self, value, expression, connection):
        if isinstance(value, (str, bytes)) and not isinstance(expression, KeyTransform):
            try:
                return json_codec.loads(value)
            except json_codec.DecodeError:
                return value
        return super().from_db_value(value, expression, connection)
