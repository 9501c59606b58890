"""Django's mail settings from one URL, the way DATABASE_URL gives the database's."""

from urllib.parse import parse_qs, unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

SCHEMES = {"smtp": 587, "smtps": 465}
FALSE = {"0", "false", "no", "off"}


def email_settings(url, *, file_path):
    """`smtp://user:password@host:587` sends over SMTP upgraded with STARTTLS (`?starttls=off` for a
    local relay that has no TLS), `smtps://user:password@host:465` over TLS from the first byte.
    User and password are percent-decoded. An empty URL writes each mail as a file in `file_path`."""
    if not url:
        return {
            "EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
            "EMAIL_FILE_PATH": str(file_path),
        }
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise ImproperlyConfigured(f"EMAIL_URL must start with smtp:// or smtps://, not {parts.scheme!r}.")
    if not parts.hostname:
        raise ImproperlyConfigured("EMAIL_URL names no host.")
    try:
        port = parts.port or SCHEMES[parts.scheme]
    except ValueError as error:
        raise ImproperlyConfigured(f"EMAIL_URL has a bad port: {error}.") from None
    options = {key: values[-1].lower() for key, values in parse_qs(parts.query).items()}
    unknown = set(options) - {"starttls"}
    if unknown:
        raise ImproperlyConfigured(f"EMAIL_URL has unknown options: {', '.join(sorted(unknown))}.")
    ssl = parts.scheme == "smtps"
    return {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": parts.hostname,
        "EMAIL_PORT": port,
        "EMAIL_HOST_USER": unquote(parts.username or ""),
        "EMAIL_HOST_PASSWORD": unquote(parts.password or ""),
        "EMAIL_USE_SSL": ssl,
        "EMAIL_USE_TLS": not ssl and options.get("starttls", "on") not in FALSE,
    }
