"""Settings for the El Grande site, read from the environment.

With no environment at all the site runs embedded: SQLite, the in-memory channel layer and
background jobs inside the web process. DATABASE_URL and REDIS_URL switch to PostgreSQL,
channels-redis and Celery on Redis without any change of code.
"""

import os
import tempfile
from email.utils import parseaddr
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from .email_url import email_settings

BASE_DIR = Path(__file__).resolve().parent.parent


def env_flag(name, default):
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name, default, least=None):
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {value!r}.") from None
    if least is not None and number < least:
        raise ImproperlyConfigured(f"{name} must be at least {least}, not {number}.")
    return number


def env_list(name, default):
    value = os.environ.get(name)
    if value is None:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


DEBUG = env_flag("DEBUG", True)
# --- Secret key: never the development one in production -----------------------------------------
SECRET_KEY = os.environ.get("SECRET_KEY", "").strip()
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY must be set when DEBUG=0: it signs sessions and password-reset links, so a "
            "public site must not use the development key. Generate one with "
            "python -c 'import secrets; print(secrets.token_urlsafe(50))'"
        )
    SECRET_KEY = "django-insecure-dev-only-key-change-me-for-any-public-deployment"
# --- end of the secret key -----------------------------------------------------------------------
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
# A post whose CSRF token no longer matches (most often a page opened before its player logged in or
# out, which changes the token): the site's refusal in the player's words, not Django's page.
CSRF_FAILURE_VIEW = "accounts.views.csrf_failure"

INSTALLED_APPS = [
    # daphne first: its runserver replaces Django's so `manage.py runserver` speaks WebSocket.
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "allauth",
    "allauth.account",
    "accounts",
    "games",
    "ratings",
    "tournaments",
]

MIDDLEWARE = [
    "elgrande_site.middleware.LogRequests",
    # Before the others, so that it bounds every wait on the database of theirs, and answers a
    # request whose database could not be reached with the 503 page, wherever that happened.
    "elgrande_site.middleware.DatabaseUnavailable",
    "elgrande_site.middleware.OwnErrorPagesInDebug",
    "django.middleware.security.SecurityMiddleware",
    "elgrande_site.middleware.RefuseNulInPath",
    "elgrande_site.middleware.RefuseUndecodableForm",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The language: the cookie, else Accept-Language, else English; a signed-in player's own
    # setting then wins (accounts.middleware.UserTimeZoneMiddleware, after authentication).
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "accounts.middleware.UserTimeZoneMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # A GET of a form's address: a page saying so, not Django's empty 405.
    "elgrande_site.middleware.ExplainMethodNotAllowed",
]

if not DEBUG:
    # The static files, from STATIC_ROOT (below); with DEBUG on `runserver` serves them itself.
    MIDDLEWARE.insert(MIDDLEWARE.index("django.middleware.security.SecurityMiddleware") + 1,
                      "whitenoise.middleware.WhiteNoiseMiddleware")

ROOT_URLCONF = "elgrande_site.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "elgrande_site.context_processors.site",
            ],
            # Short month names as Italian and French write them (games.templatetags.typography.py).
            "builtins": ["games.templatetags.typography"],
        },
    },
]

ASGI_APPLICATION = "elgrande_site.asgi.application"

# Seconds a PostgreSQL session may stay idle inside a transaction before the server ends it.
IDLE_IN_TRANSACTION_LIMIT = 60
# Seconds a web request waits on PostgreSQL at most: for a connection of the pool, and then for each
# statement or commit; and for the pool's check that a connection it hands out still answers. After
# that its connection is cut (a database, or a path to it, that went silent) and the request is
# answered with the 503 page (elgrande_site.database, elgrande_site.middleware.DatabaseUnavailable).
DATABASE_WAIT_LIMIT = env_int("DATABASE_WAIT_LIMIT", 5, least=1)
DATABASE_CHECK_LIMIT = 2
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"]["OPTIONS"] = {
        # A database that stops answering must fail the query that waits on it, not hang it: a
        # connection is given up after 10 s, and an open one whose server no longer acknowledges
        # (a network cut, a lost NAT entry) after 30 s, as soon as there was something to send,
        # or after 30 + 3 × 10 s of silence otherwise (TCP keepalives).
        "connect_timeout": 10,
        "keepalives": 1,
        "keepalives_idle": 30,
        "keepalives_interval": 10,
        "keepalives_count": 3,
        "tcp_user_timeout": 30_000,
        # What the URL's query says (sslmode=require...) comes on top.
        **DATABASES["default"].get("OPTIONS", {}),
        # The server ends a session left idle in a transaction for a minute: its client hangs (a
        # connection gone silent, the server's side never told), and it would hold its rows and
        # keys for hours, until the server's own keepalives gave up, stopping every sweep and
        # mail that needs them. No transaction of the site's waits that long between two
        # statements. Server options the URL names (?options=-c ...) are added after, and win.
        "options": " ".join([
            f"-c idle_in_transaction_session_timeout={IDLE_IN_TRANSACTION_LIMIT * 1000}",
            DATABASES["default"].get("OPTIONS", {}).get("options", ""),
        ]).strip(),
    }
    if env_flag("DATABASE_POOL", True):
        # Under ASGI the requests run in many threads (elgrande_site/http_handler.py keeps them),
        # which persistent connections would each hold; a pool spares each request a new
        # PostgreSQL backend and shares a few among them all. Its connections bound each
        # wait of a web request (elgrande_site.database); one waits at most DATABASE_WAIT_LIMIT for
        # a connection to be free, then the request is answered with the 503 page. A connection
        # lost is opened again on a back-off that doubles (1, 2, 4... s): given up after 10 s, it
        # is opened anew at the next request's need, so that a database back after a long outage
        # is used within seconds, not after a back-off as long as the outage.
        from elgrande_site.database import BoundedConnection

        DATABASES["default"]["OPTIONS"]["pool"] = {
            "min_size": 2, "max_size": env_int("DATABASE_POOL_SIZE", 20, least=2),
            "timeout": DATABASE_WAIT_LIMIT, "reconnect_timeout": 10, "connection_class": BoundedConnection,
        }
elif DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Every transaction here ends in a write (a move, a join). SQLite's default deferred
    # transactions fail with "database is locked" when two of them upgrade to writing at once;
    # immediate ones queue for the write lock instead, and WAL lets readers carry on meanwhile.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    # A file, not Django's default in-memory test database, so that tests with several threads
    # see SQLite's real locking, the same as the site does.
    DATABASES["default"]["TEST"] = {"NAME": str(BASE_DIR / "test_db.sqlite3")}

AUTH_USER_MODEL = "accounts.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    # allauth's backend (log in by username or email, behind its rate limits), with the session's
    # user read by a SELECT written out once. Logins are recorded with it.
    "accounts.backends.AuthenticationBackend",
    # allauth's own, which the sessions of logins made before recorded: they stay logged in. It
    # never checks a password again after the first one failed (accounts/backends.py).
    "allauth.account.auth_backends.AuthenticationBackend",
]
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "lobby"
LOGOUT_REDIRECT_URL = "lobby"

# Accounts (django-allauth). Verification is "optional": an unverified account logs in and plays,
# but only a verified address gets mail or may take part in rated games (accounts.emails).
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
ACCOUNT_FORMS = {
    "login": "accounts.forms.LoginForm",
    "signup": "accounts.forms.SignupForm",
    "reset_password": "accounts.forms.ResetPasswordForm",
}
ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "email*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "optional"
ACCOUNT_UNIQUE_EMAIL = True
# Sign-up answers alike for a new address and one that has an account (accounts.forms.SignupForm):
# allauth's "check your mail" page; the address's owner is mailed that someone tried it.
ACCOUNT_PREVENT_ENUMERATION = True
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
# One address per account; a new one replaces it only once verified.
ACCOUNT_CHANGE_EMAIL = True
# The invitations to private games one account may mail in a day (games.mail.invitations.invite).
INVITATIONS_PER_DAY = env_int("INVITATIONS_PER_DAY", 50, least=0)
# The rate limits count by the client's address. Behind proxies of the site's own, that is the one
# the first proxy saw: TRUSTED_PROXY_COUNT of them append to X-Forwarded-For, or one sets the
# header TRUSTED_CLIENT_IP_HEADER (e.g. X-Real-IP). Without either, every player behind a proxy
# would share the proxy's address, and so its limits.
ALLAUTH_TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0, least=0)
ALLAUTH_TRUSTED_CLIENT_IP_HEADER = os.environ.get("TRUSTED_CLIENT_IP_HEADER", "").strip() or None
ACCOUNT_RATE_LIMITS = {
    # Five wrong passwords for one login within five minutes lock that login (as typed: the
    # username, or the address) for the rest of them, saying so; and ten a minute from one address.
    "login_failed": "10/m/ip,5/300s/key",
    # And five for one account, by any of its logins, lock the account without a word: its
    # answers stay those of a wrong password (accounts.adapter), or a locked username would say
    # which address is its account's.
    "login_failed_account": "5/300s/key",
    "login": "30/m/ip",
    "signup": "20/m/ip",
    "reset_password": "20/m/ip,5/m/key",
    "reset_password_from_key": "20/m/ip",
    "change_password": "5/m/user",
    "manage_email": "10/m/user",
    "confirm_email": "1/180s/key",
}

LANGUAGE_CODE = "en"
# The site's languages (docs/architecture.md, "Languages"). URLs stay the same in every one of them.
LANGUAGES = [("en", "English"), ("it", "Italiano"), ("fr", "Français")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# `manage.py collectstatic` copies the files here; with DEBUG=0 the web process serves them from
# here itself (WhiteNoise), compressed, under names holding a hash of their content, cached for a
# year by browsers. So DEBUG=0 needs collectstatic first (docs/operations.md), after each upgrade.
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", "") or BASE_DIR / "staticfiles")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "elgrande_site.storage.StaticFilesStorage"
    },
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "")

# Every connection to Redis gives up on a command unanswered after this many seconds, and on a
# connection not made within them (the channel layer's blocking receives aside, which wait longer).
REDIS_SOCKET_TIMEOUT = 2
if REDIS_URL:
    # Django's Redis cache, whose calls answer as misses while Redis cannot be reached
    # (elgrande_site/cache.py): sessions are then read from the database, pages rendered anew.
    CACHES = {
        "default": {
            "BACKEND": "elgrande_site.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {"socket_timeout": REDIS_SOCKET_TIMEOUT, "socket_connect_timeout": REDIS_SOCKET_TIMEOUT},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
# Each stored move's log lines, as the game page says them (games/reading/log_lines.py): in this
# process's memory, where a look-up costs microseconds (Redis would cost a round trip a page), and
# not pickled (elgrande_site/memory_cache.py).
CACHES["log_lines"] = {
    "BACKEND": "elgrande_site.memory_cache.PlainMemoryCache",
    "LOCATION": "log-lines",
    "TIMEOUT": 60 * 60,
    "OPTIONS": {"MAX_ENTRIES": 20000},
}
# What each seat's render saw of the map's areas, per game, version and seat, for the seat's next
# render to mark what changed since without replaying the game (games/reading/since_visit.py): in
# this process's memory, as the log's lines, some 1.5 KB an entry.
CACHES["seat_areas"] = {
    "BACKEND": "elgrande_site.memory_cache.PlainMemoryCache",
    "LOCATION": "seat-areas",
    "TIMEOUT": 60 * 60,
    "OPTIONS": {"MAX_ENTRIES": 20000},
}
# Sessions are read on every page and rarely written: keep them in the cache, backed by the database
# (Django's cached_db, refusing forged keys that PostgreSQL cannot look up: elgrande_site/sessions.py).
SESSION_ENGINE = "elgrande_site.sessions"

# --- Channel layer: live updates of the game pages --------------------------------------------
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "elgrande_site.channel_layers.WaitingRedisChannelLayer",
            "CONFIG": {
                "hosts": [
                    {
                        "address": REDIS_URL,
                        # Most Redis connections one web process opens for its sockets; commands
                        # beyond that wait up to `timeout` seconds for a free one.
                        "max_connections": env_int("REDIS_MAX_CONNECTIONS", 100, least=1),
                        "timeout": 20,
                        # redis-py 8 gives up on any read after 5 s by default, and an idle page's
                        # receive is a read that Redis holds open for channels-redis's 5 s
                        # blocking pop: every idle socket was closed with 1011. Wait longer than
                        # that pop, but not for ever, so that a Redis gone silent is noticed.
                        "socket_timeout": 15,
                        "socket_connect_timeout": REDIS_SOCKET_TIMEOUT,
                    }
                ]
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
# --- end of the channel layer -------------------------------------------------------------------

# Celery reads the CELERY_* names below (see elgrande_site/celery.py). Without Redis there is
# no broker: tasks called directly run in the caller.
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
# Any task still running after this long is killed, its worker process replaced: one that hangs on
# a connection gone silent (a mail, a computer's move) would otherwise hold its process for good,
# and with every process held no sweep would run. What it was doing is not lost: the sweep sends a
# mail left unsent again (games.mail.outbox.LOST_AFTER), a computer's move has its deadline
# (BOT_STALL_SECONDS). The sweep's own tasks have DEADLINE_SWEEP_TIME_LIMIT.
CELERY_TASK_TIME_LIMIT = 300
# Processes of one Celery worker (`make serve`, deploy/systemd): sweeps' batches, mails and computer
# players' moves run side by side in them.
CELERY_WORKER_CONCURRENCY = env_int("WORKER_CONCURRENCY", 2, least=1)
# Celery's Django fixup closes a worker process's database connections before and after every
# task unless this is set; set, it closes them only every this many tasks, and the worker keeps
# its connection between tasks for its CONN_MAX_AGE, checked around each (elgrande_site/celery.py):
# each of a sweep's batch tasks no longer opens a new PostgreSQL backend (bench/README.md).
CELERY_DB_REUSE_MAX = 1000
# The broker's connections (the worker's, beat's, and every process's that queues a task) notice a
# Redis gone silent (a network that drops packets, a firewall that forgot the connection) instead
# of waiting on it for ever: a command unanswered after REDIS_SOCKET_TIMEOUT fails and is retried
# on a new connection; the worker's blocking pop unanswered after 1 + 5 s is dropped and made
# again (kombu's health check, every 5 s, which also pings connections idle for that long). A
# broker away for any length of time is waited for, never given up on: without Redis no sweep runs.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "socket_timeout": REDIS_SOCKET_TIMEOUT,
    "socket_connect_timeout": REDIS_SOCKET_TIMEOUT,
    "socket_keepalive": True,
    "health_check_interval": 5,
}
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = TIME_ZONE

# Mail: EMAIL_URL names an SMTP server (smtp:// with STARTTLS, smtps:// with TLS from the start);
# without it every mail is written as a file under sent_mail/ for a local reader.
globals().update(email_settings(os.environ.get("EMAIL_URL", ""), file_path=BASE_DIR / "sent_mail"))
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "El Grande <elgrande@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# Where players write about their account or the site: named in every page's footer and on the
# account pages ("contact us" when a reset mail does not come). Defaults to the sender's address.
CONTACT_EMAIL = os.environ.get("CONTACT_EMAIL", "") or parseaddr(DEFAULT_FROM_EMAIL)[1]
# A mail server that does not answer must not hold a request for long.
EMAIL_TIMEOUT = 15
# Where players reach the site: the links in mails (the game, an invitation, one-click unsubscribe)
# start with it, and their Message-IDs name its host. https in production, since mail clients only
# offer one-click unsubscribe over https (RFC 8058). Unset, the address `make run` serves on PORT,
# so that links work on any port; a public site (DEBUG=0) must say it.
SITE_URL = os.environ.get("SITE_URL", "").strip()
if not SITE_URL:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SITE_URL must be set when DEBUG=0: the links in mails (a game, an invitation, one-click "
            "unsubscribe) start with it. Give the address players reach the site at, e.g. "
            "SITE_URL=https://elgrande.example.org"
        )
    SITE_URL = f"http://localhost:{env_int('PORT', 8000, least=1)}"
try:
    _site = urlsplit(SITE_URL)
    _site_ok = _site.scheme in {"http", "https"} and bool(_site.hostname)
except ValueError:  # an unclosed [ of an IPv6 address
    _site_ok = False
if not _site_ok:
    raise ImproperlyConfigured(
        f"SITE_URL must be an http:// or https:// address with a host, such as https://elgrande.example.org, "
        f"not {SITE_URL!r}."
    )

# The site's name in its mails, whatever host a request came to: their subjects' prefix ("[El
# Grande] ", accounts.adapter and games.mail.links) and allauth's "Hello from El Grande!".
SITE_NAME = os.environ.get("SITE_NAME", "").strip() or "El Grande"

# --- HTTPS in production --------------------------------------------------------------------------
# A production site is served over HTTPS, as a rule behind a proxy that ends TLS: cookies are only
# sent back over HTTPS unless DEBUG=1. Redirects to HTTPS and HSTS (which browsers remember for
# SECURE_HSTS_SECONDS, so turn it on once HTTPS works) are asked for explicitly.
SESSION_COOKIE_SECURE = env_flag("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_flag("CSRF_COOKIE_SECURE", not DEBUG)
SECURE_SSL_REDIRECT = env_flag("SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_flag("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_flag("SECURE_HSTS_PRELOAD", False)
# Only behind a proxy that sets X-Forwarded-Proto itself (and drops the client's own): the site
# then takes a request that arrived at the proxy over HTTPS as secure.
if env_flag("SECURE_PROXY_SSL_HEADER", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# --- end of HTTPS --------------------------------------------------------------------------------

# --- "Your move" mails (games/infra/presence.py) -----------------------------------------------------
# No "your move" mail goes to a player who has the game open, nor within this many seconds after
# they last had it open: if the decision is still theirs then, the deadline sweep sends it.
try:
    YOUR_MOVE_GRACE_SECONDS = float(os.environ.get("YOUR_MOVE_GRACE_SECONDS", "120"))
except ValueError:
    YOUR_MOVE_GRACE_SECONDS = float("nan")
if not 0 <= YOUR_MOVE_GRACE_SECONDS < float("inf"):
    raise ImproperlyConfigured(
        "YOUR_MOVE_GRACE_SECONDS must be a number of seconds, 0 or more, "
        f"not {os.environ['YOUR_MOVE_GRACE_SECONDS']!r}."
    )

# --- Deadlines (games/deadlines.py) ------------------------------------------------------------
# One sweep over Game.deadline every DEADLINE_SWEEP_SECONDS plays for the seats whose time ran
# out, so a deadline is late by at most one interval (plus any database outage). With Redis,
# Celery beat sends the sweep to a worker; embedded, DEADLINE_TICKER (on by default without
# REDIS_URL) makes the web process sweep from a thread of its own, started by
# elgrande_site/asgi.py when a server loads the site.
try:
    DEADLINE_SWEEP_SECONDS = float(os.environ.get("DEADLINE_SWEEP_SECONDS", "5"))
except ValueError:
    DEADLINE_SWEEP_SECONDS = float("nan")
if not 0 < DEADLINE_SWEEP_SECONDS < float("inf"):
    raise ImproperlyConfigured(
        f"DEADLINE_SWEEP_SECONDS must be a positive number of seconds, not {os.environ['DEADLINE_SWEEP_SECONDS']!r}."
    )
DEADLINE_TICKER = env_flag("DEADLINE_TICKER", not REDIS_URL)
# A sweep that has not ended after this many seconds (a database that stopped answering without
# closing the connection) is stopped: with Celery its worker process is killed and replaced
# (the tasks' time_limit); embedded the ticker starts the next sweep beside it.
DEADLINE_SWEEP_TIME_LIMIT = env_int("DEADLINE_SWEEP_TIME_LIMIT", 60, least=1)
# Overdue games moved on in one transaction, and with Celery in one task of a sweep spread over the
# worker's processes: a player moving in one of them waits for the batch's commit.
DEADLINE_SWEEP_BATCH = env_int("DEADLINE_SWEEP_BATCH", 100, least=1)
# With Celery, a sweep of several batches sends them in this many lanes, each task of a lane
# sending the lane's next batch as it begins (games/deadlines.py): no more batches wait in the
# queue than there are lanes, so none expires unstarted. Twice the processes of all the site's
# workers together (bench/README.md: two lanes for two processes took 3-4 times as long as four);
# by default twice one worker's.
DEADLINE_SWEEP_LANES = env_int("DEADLINE_SWEEP_LANES", 2 * CELERY_WORKER_CONCURRENCY, least=1)
# The statistics page shows figures at most this old with Celery beat, twice this old embedded
# (where the first request to find them older computes them again).
STATISTICS_SECONDS = env_int("STATISTICS_SECONDS", 600, least=1)

# --- Computer players (games/computer/players.py) -----------------------------------------------------
# Seconds between a change that leaves a computer player to act and its move, so a person can
# follow; the strong player's CPU seconds per decision; how often a crashed decision is tried again
# before the greedy, then the random player decides; and how long after its pause a computer
# player's decision may wait (a worker died) before the deadline sweep plays it as a timeout.
def _seconds(name, default):
    try:
        value = float(os.environ.get(name, default))
    except ValueError:
        value = float("nan")
    if not 0 <= value < float("inf"):
        raise ImproperlyConfigured(f"{name} must be a number of seconds, not {os.environ.get(name)!r}.")
    return value


BOT_MOVE_DELAY = _seconds("BOT_MOVE_DELAY", "1")
BOT_STRONG_BUDGET = _seconds("BOT_STRONG_BUDGET", "1") or 1.0
BOT_RETRIES = env_int("BOT_RETRIES", 2, least=0)
BOT_STALL_SECONDS = _seconds("BOT_STALL_SECONDS", "60")


# --- Answers given ahead (games/play/services.py answer_ahead) ----------------------------------------
# The site answers a veto question for a seat whose player allows every one ahead after a pause
# drawn at random between these bounds (seconds, "least,most"), as a player at the table would:
# an answer that came with the question would tell the others of the standing setting.
def _bounds(name, default):
    raw = os.environ.get(name, default)
    try:
        least, most = (float(part) for part in raw.split(","))
    except ValueError:
        least = most = float("nan")
    if not 0 <= least <= most < float("inf"):
        raise ImproperlyConfigured(
            f"{name} must be two numbers of seconds, the least and the most, as \"3,12\"; not {raw!r}."
        )
    return least, most


ANSWERS_AHEAD_DELAY = _bounds("ANSWERS_AHEAD_DELAY", "3,12")

CELERY_BEAT_SCHEDULE = {
    "sweep-deadlines": {
        "task": "games.tasks.sweep_deadlines",
        "schedule": DEADLINE_SWEEP_SECONDS,
        "options": {"expires": DEADLINE_SWEEP_SECONDS},
    },
    # The daily digest goes out at 07:00 in each player's own time zone, so it is looked for every
    # hour; a player gets one a day however often it runs.
    "daily-digests": {"task": "games.tasks.send_daily_digests", "schedule": 60 * 60},
    # The statistics page's figures (games/reading/statistics.py), computed off the requests.
    "refresh-statistics": {
        "task": "games.tasks.refresh_statistics",
        "schedule": STATISTICS_SECONDS,
        "options": {"expires": STATISTICS_SECONDS},
    },
}
# ------------------------------------------------------------------------------------------------

# The console log: LOG_LEVEL=INFO adds a line per request and a line per sweep that did something
# (or one a minute); LOG_FORMAT=json writes each record as one JSON object for a log collector.
# Celery's lines for each routine sweep (sent, received, succeeded: every 5 s) are left out.
LOG_FORMAT = os.environ.get("LOG_FORMAT", "text")
if LOG_FORMAT not in ("text", "json"):
    raise ImproperlyConfigured(f"LOG_FORMAT must be text or json, not {LOG_FORMAT!r}.")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "text": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s",
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
        },
    },
    "filters": {"without_routine_sweeps": {"()": "elgrande_site.logs.WithoutRoutineSweeps"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT, "filters": ["without_routine_sweeps"]}
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
# Celery keeps the logging set up above instead of its own.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Beat's record of when it last sent each task, outside the code (a lost one costs nothing: every
# task of the schedule runs at an interval).
CELERY_BEAT_SCHEDULE_FILENAME = os.environ.get("BEAT_SCHEDULE_FILE", "") or str(
    Path(tempfile.gettempdir()) / "elgrande-celerybeat-schedule"
)

# ---- operations (docs/operations.md) -----------------------------------------------------------
# /metrics answers a scraper sending "Authorization: Bearer <METRICS_TOKEN>", or one connecting
# directly (no proxy) from METRICS_ALLOWED_IPS.
METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "")
METRICS_ALLOWED_IPS = env_list("METRICS_ALLOWED_IPS", ["127.0.0.1/32", "::1/128"])
# /readyz wants a deadline sweep to have ended within this many seconds.
READY_SWEEP_SECONDS = 60
# Errors go to Sentry when set, without request bodies, cookies, users or local variables: those
# can hold a player's hand or address (elgrande_site/errors.py).
SENTRY_DSN = os.environ.get("SENTRY_DSN", "")
if SENTRY_DSN:
    from .errors import start_sentry

    start_sentry(SENTRY_DSN, environment=os.environ.get("SENTRY_ENVIRONMENT", "production"))
