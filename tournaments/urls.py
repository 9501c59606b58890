from django.urls import path

from . import views

urlpatterns = [
    path("tournaments/", views.tournament_list, name="tournaments"),
    path("tournaments/new/", views.new_tournament, name="new_tournament"),
    path("tournaments/<int:tournament_id>/", views.tournament_page, name="tournament"),
    path("tournaments/<int:tournament_id>/sign-up/", views.sign_up, name="tournament_sign_up"),
    path("tournaments/<int:tournament_id>/withdraw/", views.withdraw, name="tournament_withdraw"),
    path("tournaments/<int:tournament_id>/start/", views.start, name="tournament_start"),
]
