from django.contrib import admin
from django.urls import include, path

from accounts import views as account_views

urlpatterns = [
    path("accounts/", include("accounts.urls")),
    path("accounts/", include("allauth.urls")),
    path("players/<str:username>/", account_views.profile_page, name="profile"),
    path("admin/", admin.site.urls),
    path("", include("games.urls")),
]
