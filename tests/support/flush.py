"""The flush that ends each transactional test (Django's TransactionTestCase empties every table)
keeps the content types and permissions that `migrate` wrote when the test database was made,
instead of deleting them and writing them all again through post_migrate. Nothing in the site
reads or writes them but Django's own admin, and no test changes them; writing them again took
about 17 ms of processor per transactional test, 5 s over the suite (bench/README.md)."""

from django.core.management.commands import flush

KEPT = {"django_content_type", "auth_permission"}


def keep_what_migrate_wrote():
    """Make `manage.py flush`, in this process, leave KEPT's tables as they are."""

    def sql_flush(style, connection, reset_sequences=True, allow_cascade=False):
        tables = [
            table for table in connection.introspection.django_table_names(only_existing=True, include_views=False)
            if table not in KEPT
        ]
        return connection.ops.sql_flush(style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)

    flush.sql_flush = sql_flush
    # The rows post_migrate would write are the ones kept.
    flush.emit_post_migrate_signal = lambda *args, **kwargs: None
