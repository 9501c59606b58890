"""Errors reported to Sentry (SENTRY_DSN), with nothing private of a game or a player in them."""

import sentry_sdk

# What a request carries that can be private: its body (a move, a chat line, a password), its
# cookies (the session) and headers naming the player.
PRIVATE_HEADERS = frozenset({"cookie", "authorization", "x-csrftoken", "x-forwarded-for", "x-real-ip"})


def start_sentry(dsn, *, environment, transport=None):
    sentry_sdk.init(
        dsn=dsn,
        environment=environment,
        # No user, address or cookie is sent (sentry-sdk's default, left as it is: naming
        # send_default_pii=False is deprecated since 2.x, and data_collection, which replaces it,
        # would turn off the SDK's own scrubber), and no local variable of a stack frame (a state,
        # a hand, a seat's view): a traceback's lines say where, the log says the rest.
        include_local_variables=False,
        max_request_body_size="never",
        before_send=without_private,
        traces_sample_rate=0,
        transport=transport,
    )


def without_private(event, hint):
    request = event.get("request")
    if request:
        request.pop("data", None)
        request.pop("cookies", None)
        request.pop("query_string", None)
        request["headers"] = {
            name: value for name, value in (request.get("headers") or {}).items() if name.lower() not in PRIVATE_HEADERS
        }
    event.pop("user", None)
    # What led up to the error is kept as kinds and times only: a cache command names the session's
    # key, a query or a log line may quote a state or an address.
    for crumb in (event.get("breadcrumbs") or {}).get("values", []):
        crumb.pop("message", None)
        crumb.pop("data", None)
    for exception in (event.get("exception") or {}).get("values", []):
        for frame in (exception.get("stacktrace") or {}).get("frames", []):
            frame.pop("vars", None)
    return event
