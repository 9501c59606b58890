from django.urls import path

from . import views

urlpatterns = [
    path("settings/", views.settings_page, name="settings"),
    path("settings/vacations/<int:pk>/cancel/", views.cancel_vacation, name="cancel_vacation"),
    path("delete/", views.delete_account, name="delete_account"),
]
