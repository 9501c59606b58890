from django.urls import path

from games.web import archive_views, chat_views, finding_views, mail_views, record_views, rules_views, views

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("rules/", rules_views.rules, name="rules"),
    path("lobby/my-games/", views.my_games, name="my_games"),
    path("lobby/quick-game/", finding_views.quick_game, name="quick_game"),
    path("games/new/", views.new_game, name="new_game"),
    path("archive/", archive_views.archive_page, name="archive"),
    path("archive.json", archive_views.archive_json, name="archive_json"),
    path("statistics/", archive_views.statistics_page, name="statistics"),
    path("games/<int:pk>/", views.game_page, name="game"),
    path("games/<int:pk>/partials/<slug:name>/", views.game_partial, name="game_partial"),
    path("games/<int:pk>/invitation/<str:token>/", views.invitation, name="invitation"),
    path("games/<int:pk>/join/", views.join, name="join"),
    path("games/<int:pk>/leave/", views.leave, name="leave"),
    path("games/<int:pk>/cancel/", views.cancel, name="cancel"),
    path("games/<int:pk>/autopilot/", views.hand_seat_to_computer, name="hand_seat_to_computer"),
    path("games/<int:pk>/take-back/", views.take_back_seat, name="take_back_seat"),
    path("games/<int:pk>/answers-ahead/", views.answers_ahead, name="answers_ahead"),
    path("games/<int:pk>/move/", views.move, name="move"),
    path("games/<int:pk>/chat/", chat_views.chat_view, name="chat"),
    path("games/<int:pk>/chat/mute/", chat_views.mute, name="chat_mute"),
    path("games/<int:pk>/play/", mail_views.play_link, name="play_link"),
    path("games/<int:pk>/invite/", mail_views.invite, name="invite"),
    path("games/<int:pk>/record.json", record_views.download, name="game_record"),
    path("api/games/<int:pk>/record/", record_views.record_page, name="game_record_api"),
    path("mail/unsubscribe/<str:token>/", mail_views.unsubscribe, name="unsubscribe"),
]
