"""The static files' storage with DEBUG=0: WhiteNoise's compressed manifest storage, which also
rewrites the imports between the map's ES modules (static/decision.js, static/map/) to their hashed
names, so that a module and the modules it imports are always of the same release. Only ours:
Django's switch for this (support_js_module_import_aggregation) would rewrite every package's
scripts too, and django-htmx's extensions name files that do not exist."""

from whitenoise.storage import CompressedManifestStaticFilesStorage

_MODULE_IMPORTS = CompressedManifestStaticFilesStorage._js_module_import_aggregation_patterns[1]


class StaticFilesStorage(CompressedManifestStaticFilesStorage):
    patterns = (
        *CompressedManifestStaticFilesStorage.patterns,
        ("decision.js", _MODULE_IMPORTS),
        ("map/*.js", _MODULE_IMPORTS),
    )
