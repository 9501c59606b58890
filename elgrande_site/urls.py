from django.contrib import admin
from django.urls import include, path

from accounts import views as account_views

from . import health, metrics

# allauth's page for a request over a rate limit, which says when the limits cannot be counted.
handler429 = account_views.rate_limited

urlpatterns = [
    # For the load balancer, the supervisor and the scraper (docs/operations.md).
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", metrics.metrics_view, name="metrics"),
    path("accounts/", include("accounts.urls")),
    # The header's language switcher (accounts.views.set_language, Django's own plus the setting).
    path("i18n/setlang/", account_views.set_language, name="set_language"),
    path("accounts/", include("allauth.urls")),
    # <path:…>: a name made outside the sign-up form (the admin, a shell) may hold a "/", and every
    # page naming that player links to this profile.
    path("players/<path:username>/", account_views.profile_page, name="profile"),
    path("admin/", admin.site.urls),
    path("", include("ratings.urls")),
    path("", include("tournaments.urls")),
    path("", include("games.urls")),
]
