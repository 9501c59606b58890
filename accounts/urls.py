from django.urls import path

from . import views

urlpatterns = [
    path("settings/", views.settings_page, name="settings"),
    path("settings/vacations/<int:pk>/cancel/", views.cancel_vacation, name="cancel_vacation"),
    path("delete/", views.delete_account, name="delete_account"),
    path("players/search/", views.player_search, name="player_search"),
    path("players/<int:pk>/<slug:action>/", views.relation, name="player_relation"),
]
