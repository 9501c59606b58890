from django.contrib import admin
from django.utils import timezone

from games.models import ChatMessage, Game, MailToDecide, Move, Notification, Seat


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ["id", "creator", "num_players", "status", "version", "created_at"]
    list_filter = ["status", "private", "rated", "imported"]
    inlines = [SeatInline]


@admin.register(Move)
class MoveAdmin(admin.ModelAdmin):
    list_display = ["game", "version", "seat", "automatic", "created_at"]


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    """Every mail decided, with its sending status: where a failed or given-up mail shows."""

    list_display = ["id", "kind", "user", "address", "game", "version", "status", "attempts", "created_at", "sent_at"]
    list_filter = ["status", "kind"]
    search_fields = ["user__username", "address", "subject"]
    readonly_fields = ["last_error"]
    actions = ["send_again"]

    @admin.action(description="Send again (mails of unknown outcome that the mail server's log shows did not go)")
    def send_again(self, request, queryset):
        # deliver() never sends an `unknown` mail again by itself: the operator decides, and the
        # sweep sends it as a retry that is due.
        count = queryset.filter(status=Notification.Status.UNKNOWN).update(
            status=Notification.Status.FAILED, next_attempt_at=timezone.now()
        )
        self.message_user(request, f"{count} mail(s) of unknown outcome will be sent again by the next sweep.")

    def get_exclude(self, request, obj=None):
        # An account mail's text holds its confirmation link: not for the staff's eyes.
        if obj is not None and obj.kind == "account":
            return ["text", "html"]
        return super().get_exclude(request, obj)


@admin.register(MailToDecide)
class MailToDecideAdmin(admin.ModelAdmin):
    """Commits whose mails are not decided yet: a row older than a few minutes is one the sweep
    is deciding again (games.mail.late_decisions.decide_lost), and the log says why it failed; one with a
    due time waits for its players to leave the game (late_decisions.decide_waiting)."""

    list_display = ["game", "version", "started", "previous_to_act", "created_at", "waiting_for", "due_at"]
    raw_id_fields = ["game"]


@admin.register(ChatMessage)
class ChatMessageAdmin(admin.ModelAdmin):
    """The table talk of every game, for moderation."""

    list_display = ["id", "game", "seat", "text", "created_at"]
    list_select_related = ["seat__user"]
    search_fields = ["text", "seat__user__username"]
    raw_id_fields = ["game", "seat"]
