from datetime import timedelta

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from games.engine.state import num_rounds
from games.fields import FastJSONField

TIME_PER_MOVE_CHOICES = [
    (int(timedelta(minutes=2).total_seconds()), _("Live: 2 minutes")),
    (int(timedelta(minutes=5).total_seconds()), _("Live: 5 minutes")),
    (int(timedelta(hours=12).total_seconds()), _("Slow: 12 hours")),
    (int(timedelta(days=1).total_seconds()), _("Slow: 1 day")),
    (int(timedelta(days=2).total_seconds()), _("Slow: 2 days")),
    (int(timedelta(days=3).total_seconds()), _("Slow: 3 days")),
    (int(timedelta(days=7).total_seconds()), _("Slow: 7 days")),
]
DEFAULT_TIME_PER_MOVE = int(timedelta(days=1).total_seconds())
# Games with at least this much time per move are slow: a vacation stops their clocks.
SLOW_TIME_PER_MOVE = int(timedelta(hours=12).total_seconds())
# The last reminder of a deadline comes this long before it, in games with more than twice as much
# time per move (games.mail.reminders.send_due_reminders).
LAST_REMINDER_BEFORE = timedelta(hours=12)
LAST_REMINDER_ABOVE = int(2 * LAST_REMINDER_BEFORE.total_seconds())
# The running games whose halfway reminder, or last reminder, is still to be decided for their
# present deadline: `Game.reminded_half_for` / `reminded_last_for` is not that deadline. The
# partial indexes of the reminders hold these games alone, and the sweep's query names the same
# conditions, so that a game leaves the index once its reminder is decided and comes back when
# its deadline changes (however it is changed: a move, the sweep, an UPDATE of the deadline).
# A game has a deadline while it runs, and only then: the condition does not name the status, so
# that the sweep's query, which does not either, cannot be answered from the (status, deadline)
# index of the overdue games instead, which holds every running game (PostgreSQL's planner
# cannot tell how few of them are still to remind, and took that one).
HALF_REMINDER_PENDING = models.Q(deadline__isnull=False) & ~models.Q(reminded_half_for=models.F("deadline"))
LAST_REMINDER_PENDING = models.Q(deadline__isnull=False, time_per_move__gt=LAST_REMINDER_ABOVE) & ~models.Q(
    reminded_last_for=models.F("deadline")
)


class Game(models.Model):
    """One game: its options, and once started the engine state as JSON.

    `version` grows by one with every change players can see (a seat taken or left, the
    start, every accepted move), so a page knows whether what it shows is current.
    """

    class Status(models.TextChoices):
        OPEN = "open", _("Waiting for players")
        ACTIVE = "active", _("In play")
        FINISHED = "finished", _("Finished")
        CANCELLED = "cancelled", _("Cancelled")

    # None for an imported game (games/records/game_records.py), whose players need not be users here.
    creator = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="created_games"
    )
    num_players = models.PositiveSmallIntegerField(
        choices=[(n, f"{n} players") for n in range(2, 6)]
    )
    short_game = models.BooleanField(default=False, help_text="The 6-round short game.")
    veto = models.BooleanField(default=True, help_text="Play with the two veto cards.")
    show_castillo = models.BooleanField(default=False, help_text="Show the Castillo's counts.")
    time_per_move = models.PositiveIntegerField(
        choices=TIME_PER_MOVE_CHOICES, default=DEFAULT_TIME_PER_MOVE, help_text="Seconds."
    )
    rated = models.BooleanField(default=False)
    private = models.BooleanField(default=False)
    vacations_allowed = models.BooleanField(
        default=True, help_text="In a slow game, a player on vacation has their clock stopped."
    )
    invite_token = models.CharField(max_length=43, blank=True, default="")
    seed = models.BigIntegerField()

    status = models.CharField(max_length=10, choices=Status, default=Status.OPEN)
    state = FastJSONField(null=True, blank=True)
    # The events of the setup (new_game); every later event is stored with the move that made
    # it. Games older than the events hold their converted text log here instead ("legacy").
    first_events = FastJSONField(default=list, blank=True)
    version = models.PositiveIntegerField(default=0)
    # Copied from the state at every save so the lobby can sort "your move" first without
    # loading and decoding every game's state.
    to_act = models.JSONField(default=list, blank=True)
    deadline = models.DateTimeField(null=True, blank=True)
    # When the site answers the open veto question for a seat whose player allows every one ahead
    # (Seat.answers_ahead): a moment drawn at random after it was asked (moving.answer_ahead).
    # Private like the setting: no page, partial, notice or mail shows it, and the deadline above
    # does not depend on it. Null when no such answer is due.
    answers_ahead_due = models.DateTimeField(null=True, blank=True)
    # The deadline whose halfway reminder, and whose last reminder, the sweep has decided (sent, or
    # passed over for those who take none): while it is the game's deadline, the reminders' indexes
    # leave the game out (HALF_REMINDER_PENDING, LAST_REMINDER_PENDING).
    reminded_half_for = models.DateTimeField(null=True, blank=True, editable=False)
    reminded_last_for = models.DateTimeField(null=True, blank=True, editable=False)
    # A public summary of the state, copied at every save for the same reason: the round being
    # played, each seat's colour, and the standings as [place, seat, score] best first (equal
    # scores share a place). Nothing here is private to a seat.
    round = models.PositiveSmallIntegerField(null=True, blank=True)
    colours = models.JSONField(default=list, blank=True)
    standings = models.JSONField(default=list, blank=True)

    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    # A finished game stored from a game record (`manage.py import_game`), not played here: never
    # rated, no deadlines, no mail. `record_digest` identifies the game it records (its options,
    # seed and moves), so that the same game is imported once.
    imported = models.BooleanField(default=False)
    # A practice game: at least one seat is a computer player's (games/computer/players.py). Never rated
    # for its human players; the computer players are rated from it (ratings/rating.py).
    practice = models.BooleanField(default=False)
    record_digest = models.CharField(max_length=64, blank=True, default="", editable=False)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["status", "-finished_at"]),
            # The archive and the lobby's "recently finished": public finished games, newest
            # first, with the filters read from the index itself (PostgreSQL) instead of the rows.
            models.Index(
                fields=["-finished_at", "-id"],
                include=["num_players", "short_game", "veto", "rated"],
                condition=models.Q(status="finished", private=False),
                name="game_archive_idx",
            ),
            # The lobby's open games, newest first.
            models.Index(
                fields=["-created_at", "-id"],
                condition=models.Q(status="open", private=False),
                name="game_open_idx",
            ),
            # The deadline sweep's query: running games whose deadline has passed.
            models.Index(fields=["status", "deadline"], name="game_overdue_idx"),
            # The reminders due (reminders.send_due_reminders): one range per time per move,
            # over the running games whose halfway reminder is not decided yet; and one range over
            # those whose last reminder is not. A sweep with nothing due reads no game's row.
            models.Index(
                fields=["time_per_move", "deadline"], condition=HALF_REMINDER_PENDING, name="game_half_reminder_idx"
            ),
            models.Index(fields=["deadline"], condition=LAST_REMINDER_PENDING, name="game_last_reminder_idx"),
            # A game record to import is looked for among the games played here by its seed
            # (games/records/game_records.py `refuse_stored_game`).
            models.Index(fields=["seed"], name="game_seed_idx"),
            # The sweep's answers given ahead whose time has come (a task lost): the few games
            # with one due.
            models.Index(
                fields=["answers_ahead_due"],
                condition=models.Q(answers_ahead_due__isnull=False),
                name="game_answers_ahead_due_idx",
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["record_digest"], condition=~models.Q(record_digest=""), name="one_import_per_record"
            ),
            models.CheckConstraint(
                condition=models.Q(imported=False) | models.Q(rated=False), name="imported_games_unrated"
            ),
        ]

    def __str__(self):
        return f"Game {self.pk} ({self.get_status_display()})"

    def get_absolute_url(self):
        return reverse("game", args=[self.pk])

    @property
    def slow(self):
        return self.time_per_move >= SLOW_TIME_PER_MOVE

    @property
    def clocks_stop_for_vacations(self):
        """Live games are never paused; a slow game's creator may refuse vacations."""
        return self.slow and self.vacations_allowed

    @property
    def num_rounds(self):
        return num_rounds(self.short_game)

    def engine_options(self):
        return {
            "num_players": self.num_players,
            "seed": self.seed,
            "short_game": self.short_game,
            "veto": self.veto,
            "show_castillo": self.show_castillo,
        }


class Seat(models.Model):
    """A player's place in a game. `index` is the engine's seat, drawn when the game starts.

    The player is a user of the site, or in an imported game only a `name` from its record."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    # No index of its own: seat_user_game_idx (Meta) starts with the user and serves every look-up by it.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="seats",
        db_index=False,
    )
    name = models.CharField(max_length=150, blank=True, default="")
    index = models.PositiveSmallIntegerField(null=True, blank=True)
    # Deadlines this seat let pass on its decisions in a row; the player's own move resets it.
    timeouts = models.PositiveSmallIntegerField(default=0)
    # After two timeouts in a row the site moves for the seat at once, every time it must act,
    # until the player moves himself again (moving.take_back_seat, or a move).
    autopilot = models.BooleanField(default=False)
    # The player's standing answer, until he takes it back: the site allows every veto question
    # (not a veto-on-veto question) asked of this seat, as his own move, after a short pause
    # (moving.set_answers_ahead, answer_ahead). Private: only the seat's own page shows it.
    answers_ahead = models.BooleanField(default=False)
    # The level of the computer player in this seat (games/bots.LEVELS); "" for a person. Its user
    # is then that computer player's account (accounts.User.computer_level).
    computer = models.CharField(max_length=8, blank=True, default="")
    # The game's version when its player last looked at the page: the log marks what came after.
    seen_version = models.PositiveIntegerField(default=0)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["index", "joined_at", "pk"]
        indexes = [
            # The lobby's "my games" reads a player's seats in unfinished games: from this index alone
            # (index-only), not from thousands of heap rows of their finished games' seats (player0 of
            # bench/archive.py, 7,277 seats: 4.6-5.1 ms with the user_id index, 1.1 ms with this one).
            models.Index(fields=["user", "game"], include=["index"], name="seat_user_game_idx"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["game", "user"], name="one_seat_per_user"),
            models.UniqueConstraint(fields=["game", "index"], name="one_user_per_seat"),
            models.CheckConstraint(
                condition=models.Q(user__isnull=False) | ~models.Q(name=""), name="seat_has_a_player"
            ),
        ]

    def __str__(self):
        return f"{self.display_name} in game {self.game_id} (seat {self.index})"

    def answers_ahead_now(self, state):
        """Whether the site answers "allow" for this seat, by its player's standing answer, in
        `state` (an engine GameState): only a veto question asked of it, never a veto-on-veto
        question (allowing one lets a veto stand: not what "allow every veto question" says) nor
        any other decision."""
        return (
            self.answers_ahead
            and not state.is_over
            and state.phase == "special"
            and state.action["stage"] == "veto"
            and self.index in state.action["awaiting"]
        )

    @property
    def display_name(self):
        """The name to show beside this seat anywhere on the site (select the user with the seat)."""
        return self.user.display_name if self.user_id is not None else self.name


class Result(models.Model):
    """One seat of a finished game, as the archive and the statistics read it: who sat there, the
    place and score, and what the game's events say of the seat (its position in the first
    round's bidding, its home region, the action cards it took).

    The game's date and options are copied here, so that a player's games come from one index in
    the archive's order (newest first) with the filters read from the index itself. Written once,
    in the transaction that finishes the game (games/play/results.py, record_results)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="results", db_index=False)
    # Mirrors the seat's user; None for a player who is not a user of the site (an imported game).
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="results",
        db_index=False,
    )
    seat = models.PositiveSmallIntegerField()
    place = models.PositiveSmallIntegerField()
    score = models.PositiveSmallIntegerField()
    # From the game's events; None and "" for a game stored before the events (legacy).
    position = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Where the seat bid in the first round: 0 bid first."
    )
    home = models.CharField(max_length=20, blank=True, default="", help_text="The region of its Grande at the start.")
    cards = FastJSONField(null=True, blank=True, help_text="The action cards it took, round by round.")

    finished_at = models.DateTimeField()
    num_players = models.PositiveSmallIntegerField()
    short_game = models.BooleanField()
    veto = models.BooleanField()
    rated = models.BooleanField()
    private = models.BooleanField()
    practice = models.BooleanField(default=False)

    class Meta:
        ordering = ["-finished_at", "-game", "place", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seat"], name="one_result_per_seat"),
            # Also the index of "games between these two players": is this user in that game?
            models.UniqueConstraint(fields=["game", "user"], name="one_result_per_user"),
        ]
        indexes = [
            # A player's games, newest first; the filters are read from the index (PostgreSQL).
            models.Index(
                fields=["user", "-finished_at", "-game"],
                include=["num_players", "short_game", "veto", "rated", "private"],
                name="result_player_idx",
            ),
        ]

    def __str__(self):
        return f"Game {self.game_id}, seat {self.seat}: place {self.place}, {self.score} points"


class Move(models.Model):
    """Every accepted move in order, so any past position can be rebuilt from the seed."""

    # No index of its own: the unique (game, version) and the (game, round) indexes begin with it,
    # and a third copy of the game's id in every move's index entries is one more to write per move.
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves", db_index=False)
    seat = models.ForeignKey(Seat, on_delete=models.PROTECT, related_name="moves")
    # The game version this move produced; increasing, so it orders the moves.
    version = models.PositiveIntegerField()
    move = models.JSONField()
    # What the move did, as the engine's events (games/engine/README.md, Events), private ones
    # included: the page filters them per reader. `round` is the round after the move, so the
    # page reads the recent log with one bounded query (0: a legacy move without events).
    events = FastJSONField(default=list, blank=True)
    round = models.PositiveSmallIntegerField(default=0)
    # True when the site chose the move for the seat: its deadline passed, or it is on autopilot.
    # `events` may then end with the site's own events about the seat ("autopilot_on"/"_off").
    # A veto question answered ahead (Seat.answers_ahead) is not automatic: the player's own
    # standing answer, its events led by a private "answered_ahead" that only his seat reads.
    automatic = models.BooleanField(default=False)
    # Of those, the moves of a seat on autopilot (Seat.autopilot).
    autopilot = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "version"]
        indexes = [models.Index(fields=["game", "round"])]
        constraints = [
            models.UniqueConstraint(fields=["game", "version"], name="one_move_per_version"),
        ]

    def __str__(self):
        return f"Move {self.version} of game {self.game_id}: {self.move}"


class Snapshot(models.Model):
    """A stored position of a game, so that a replay rebuilds any position by replaying at most one
    round of moves (games/reading/replays.py). Written the first time a replay needs it; a position once
    reached never changes, so a snapshot is never updated.

    `position` counts the moves made (0: the setup); `version` is the version of the last of those
    moves (0 at the setup), to read the moves after it. `kind` says what the position is: the start
    of a round, the start of a general scoring, or the end of the game. `scores` repeats the
    state's scores, for the score chart to read without decoding states.
    """

    class Kind(models.TextChoices):
        ROUND = "round", _("Start of a round")
        SCORING = "scoring", _("Start of a general scoring")
        END = "end", _("End of the game")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="snapshots")
    kind = models.CharField(max_length=7, choices=Kind)
    position = models.PositiveIntegerField()
    version = models.PositiveIntegerField()
    round = models.PositiveSmallIntegerField()
    scores = models.JSONField()
    state = FastJSONField()

    class Meta:
        ordering = ["game", "position", "kind"]
        constraints = [
            models.UniqueConstraint(fields=["game", "kind", "position"], name="one_snapshot_per_kind_and_position"),
        ]

    def __str__(self):
        return f"{self.get_kind_display()} of game {self.game_id} at position {self.position}"

class ChatMessage(models.Model):
    """One line of table talk, written by a seated player of a running game and kept with the game
    for good. The text is plain: templates escape it like any other text."""

    MAX_LENGTH = 500

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="chat_messages")
    # Written only once the game has started, when seats are no longer given up.
    seat = models.ForeignKey(Seat, on_delete=models.PROTECT, related_name="chat_messages")
    text = models.CharField(max_length=MAX_LENGTH)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "id"]
        # The chat reads the latest messages of one game, and older ones by id (keyset).
        indexes = [models.Index(fields=["game", "id"], name="chat_message_game_idx")]

    def __str__(self):
        return f"Chat {self.pk} in game {self.game_id}: {self.text[:40]}"


class ChatMute(models.Model):
    """`user` no longer reads what `muted_user` writes, in any game, until they unmute them."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_mutes")
    muted_user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "muted_user"], name="one_mute_per_pair"),
            models.CheckConstraint(condition=~models.Q(user=models.F("muted_user")), name="no_muting_oneself"),
        ]

    def __str__(self):
        return f"{self.user_id} mutes {self.muted_user_id}"


class Notification(models.Model):
    """One mail the site decided to send, kept so that deciding or sending twice mails once.

    The key is (recipient, game, version, kind): the same event seen twice finds its row. The
    message is rendered when the row is made, from the state of that version, and stored, so a
    retry days later sends what was true then. `status` moves pending → sending → unknown → sent:
    `sending` is claimed by one task, `unknown` is handed to the mail server, and stays so when
    its outcome was never recorded (games.mail.outbox.deliver: never sent again by itself). A
    send that the server refused goes back to `failed` with `next_attempt_at` set, for the sweep
    to retry.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting to be sent"
        SENDING = "sending", "Being sent"
        UNKNOWN = "unknown", "Handed to the mail server, outcome unknown"
        SENT = "sent", "Sent"
        FAILED = "failed", "Failed, to be retried"
        GAVE_UP = "gave_up", "Failed too often"
        DROPPED = "dropped", "No longer relevant"

    # The recipient: a player, or (an invitation to someone without an account) just an address.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="notifications"
    )
    address = models.EmailField(blank=True, default="")
    # None for the daily digest, which is about several games; its version is the day's ordinal.
    game = models.ForeignKey(Game, null=True, blank=True, on_delete=models.CASCADE, related_name="notifications")
    version = models.PositiveIntegerField()
    kind = models.CharField(max_length=20)
    # What one mail covers beyond its version: the turn for "your move" (a turn that comes back to
    # its player soon after makes no second mail), the deadline for reminders.
    scope = models.CharField(max_length=64, blank=True, default="")

    subject = models.CharField(max_length=200)
    text = models.TextField()
    html = models.TextField()

    status = models.CharField(max_length=8, choices=Status, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.TextField(blank=True, default="")
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "game", "version", "kind"],
                condition=models.Q(user__isnull=False, game__isnull=False),
                name="one_notification_per_user_event",
            ),
            models.UniqueConstraint(
                fields=["address", "game", "version", "kind"],
                condition=models.Q(user__isnull=True),
                name="one_notification_per_address_event",
            ),
            models.UniqueConstraint(
                fields=["user", "version", "kind"],
                condition=models.Q(game__isnull=True),
                name="one_digest_per_user_day",
            ),
        ]
        indexes = [
            models.Index(fields=["status", "next_attempt_at"]),
            models.Index(fields=["user", "game", "kind", "scope"]),
            # Who was reminded of a game's deadline already (reminders.send_due_reminders), without
            # a walk through every mail: the reminders alone.
            models.Index(
                fields=["game", "version", "kind"],
                condition=models.Q(kind__in=["reminder_half", "reminder_last"]),
                name="notification_reminder_idx",
            ),
        ]

    def __str__(self):
        return f"{self.kind} to {self.user or self.address} ({self.get_status_display()})"


class MailToDecide(models.Model):
    """A commit whose mails are still to be decided: written in the very transaction that stores
    the game's new version, deleted once the mails it calls for are recorded (as Notification
    rows, which are then safe: games.mail.outbox.retry_due sends those that were lost).

    The mails are decided after the commit, from the state it made; a process killed or a
    database lost in between would lose them. This row outlives that: the sweep decides the
    commits whose row is still here after MAIL_DECISION_LOST_AFTER (games.mail.late_decisions)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    version = models.PositiveIntegerField()
    # The seats that had to act before this version, as `decisions.game_saved` was told
    # (empty when unknown: every seat to act is then a new decision).
    previous_to_act = FastJSONField(default=list, blank=True)
    # Whether this version started the game (its state's events, which are not stored, said so).
    started = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    # A decision whose "your move" mails wait (games/infra/presence.py): the seats whose players had the
    # game open, or just closed it, and when to look again. The sweep decides these
    # (late_decisions.decide_waiting), not as lost ones.
    waiting_for = FastJSONField(default=list, blank=True)
    due_at = models.DateTimeField(null=True, blank=True, db_index=True)

    class Meta:
        verbose_name_plural = "mails to decide"
        constraints = [models.UniqueConstraint(fields=["game", "version"], name="one_mail_decision_per_version")]

    def __str__(self):
        return f"mails of game {self.game_id} at version {self.version}"


class MailOptOut(models.Model):
    """An address without an account that asked, by the link in an invitation, for no more."""

    address = models.EmailField(unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return self.address
