from django.urls import path

from . import views

urlpatterns = [
    path("ladders/", views.ladder, name="ladders"),
    path("ladders/<int:players>/", views.ladder, name="ladder"),
]
