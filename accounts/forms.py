from allauth.account.adapter import get_adapter
from allauth.account.app_settings import EmailVerificationMethod
from allauth.account.forms import LoginForm as AllauthLoginForm
from allauth.account.forms import ResetPasswordForm as AllauthResetPasswordForm
from allauth.account.forms import SignupForm as AllauthSignupForm
from allauth.account.internal import flows
from allauth.account.internal.userkit import filter_users_by_email, get_user_by_username
from allauth.account.models import Login
from allauth.account.utils import get_next_redirect_url
from django import forms
from django.conf import settings
from django.core.validators import MaxLengthValidator
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from . import usernames, vacations
from .emails import holds_address
from .models import User, time_zone_names

# The zones most players pick, first in the settings' list (the rest follow in a group of their
# own): the site's players are mostly in Europe and the Americas.
COMMON_TIME_ZONES = (
    "UTC",
    "Europe/London",
    "Europe/Lisbon",
    "Europe/Madrid",
    "Europe/Paris",
    "Europe/Rome",
    "Europe/Berlin",
    "Europe/Athens",
    "America/New_York",
    "America/Chicago",
    "America/Denver",
    "America/Los_Angeles",
    "America/Sao_Paulo",
    "America/Argentina/Buenos_Aires",
    "Asia/Kolkata",
    "Asia/Shanghai",
    "Asia/Tokyo",
    "Australia/Sydney",
    "Pacific/Auckland",
)


def time_zone_choices():
    """The settings' time zones: the common ones first, then every other zone the tz database
    knows, sorted, in a group of its own (no zone listed twice)."""
    known = time_zone_names()
    common = [name for name in COMMON_TIME_ZONES if name in known]
    others = sorted(known - set(common))
    return [
        (_("Common time zones"), [(name, name.replace("_", " ")) for name in common]),
        (_("All other time zones"), [(name, name.replace("_", " ")) for name in others]),
    ]


class SettingsForm(forms.ModelForm):
    time_zone = forms.ChoiceField(
        label=_("Time zone"), help_text=_("Times on the site and in mails are shown in it."), choices=()
    )
    # The "your move" mails of slow games, one choice of three, kept in two fields of the account:
    # notify_your_move (off: none, what the mails' unsubscribe link sets) and digest (which kind).
    # "none" leaves digest as it was, for the day the player switches them on again.
    NO_YOUR_MOVE_MAIL = "none"
    digest = forms.ChoiceField(
        label=User._meta.get_field("notify_your_move").verbose_name,
        choices=[
            (User.Digest.SINGLE, _("A mail for each decision that waits for me (none while I have the game open)")),
            (User.Digest.DAILY, User.Digest.DAILY.label),
            (NO_YOUR_MOVE_MAIL, _("No mail (the reminders before a deadline still go, if ticked above)")),
        ],
        widget=forms.RadioSelect,
    )

    class Meta:
        model = User
        fields = [
            "time_zone",
            "language",
            "notify_live_your_move",
            "notify_reminder",
            "notify_game_started",
            "notify_game_finished",
            "notify_invitation",
        ]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["time_zone"].choices = time_zone_choices()
        self.fields["language"].choices = [("", _("The browser's language")), *settings.LANGUAGES]
        self.fields["language"].help_text = _("The site and the mails it sends you are written in it.")
        if "digest" not in self.initial:
            self.initial["digest"] = self.instance.digest if self.instance.notify_your_move else self.NO_YOUR_MOVE_MAIL

    def save(self, commit=True):
        choice = self.cleaned_data["digest"]
        self.instance.notify_your_move = choice != self.NO_YOUR_MOVE_MAIL
        if choice != self.NO_YOUR_MOVE_MAIL:
            self.instance.digest = choice
        return super().save(commit)


class VacationForm(forms.Form):
    start = forms.DateField(label=_("First day"), widget=forms.DateInput(attrs={"type": "date"}))
    end = forms.DateField(label=_("Last day"), widget=forms.DateInput(attrs={"type": "date"}))

    def __init__(self, user, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user
        # The browser's date picker offers only the days a vacation may take.
        today = vacations.local_date(user)
        for name in ("start", "end"):
            self.fields[name].widget.attrs.update(min=today.isoformat(), max=vacations.latest_day(today).isoformat())

    def clean(self):
        data = super().clean()
        if "start" in data and "end" in data:
            vacations.check(self.user, data["start"], data["end"], vacations.local_date(self.user))
        return data


class DeleteAccountForm(forms.Form):
    password = forms.CharField(
        label=_("Your password"), widget=forms.PasswordInput(attrs={"autocomplete": "current-password"})
    )

    def __init__(self, user, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self):
        password = self.cleaned_data["password"]
        # Through allauth, not check_password: its lock after five wrong passwords (login_failed)
        # then holds here too, so a borrowed session cannot guess the password without limit.
        if not get_adapter().reauthenticate(self.user, password):
            raise forms.ValidationError(_("That is not your password."))
        return password


class LoginForm(AllauthLoginForm):
    """allauth's log-in, with the login (a username or an email address) no longer than an address
    may be, checked before any look-up: SQLite fails the case-insensitive look-up of a login of
    100,000 characters ("LIKE or GLOB pattern too complex")."""

    longest = 254

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        field = self.fields["login"]
        field.max_length = self.longest
        field.validators.append(MaxLengthValidator(self.longest))
        field.widget.attrs["maxlength"] = str(self.longest)

    def clean_login(self):
        """A username as the player types it at sign-up: kept in NFKC form (accounts/usernames.py),
        "ａｌｉｃｅ" typed fullwidth (as an East Asian keyboard may) is the account "alice", and
        logs in as it, unless a name taken before that rule is spelled so. An address stays as
        typed."""
        login = super().clean_login()
        normal = usernames.normalize(login)
        if normal != login and "@" not in normal and get_user_by_username(login) is None:
            return normal
        return login


class SignupForm(AllauthSignupForm):
    # Filled in by the sign-up page's script from the browser's own time zone, so that times show
    # right from the start; an unknown, missing or overlong one leaves the default (UTC) for the
    # settings, and is never a reason to refuse the sign-up (a hidden field's error says nothing).
    time_zone = forms.CharField(required=False, widget=forms.HiddenInput, strip=True)

    def clean_time_zone(self):
        zone = self.cleaned_data.get("time_zone") or ""
        return zone if zone in time_zone_names() else ""

    def validate_unique_email(self, value):
        """An address that has an account does not stop the form, as with allauth's enumeration
        prevention under mandatory verification: no account is made, and its owner is mailed that
        someone tried to sign up with it (`try_save`)."""
        users = filter_users_by_email(value)
        if users and not any(holds_address(user, value) for user in users):
            # Only an address change nobody confirmed names it: it is free (`holds_address`).
            self.account_already_exists = False
            return get_adapter().validate_unique_email(value)
        try:
            return super().validate_unique_email(value)
        except forms.ValidationError:
            self.account_already_exists = True
            return get_adapter().validate_unique_email(value)

    def try_save(self, request):
        """A new account and an address that has one both end on allauth's "we sent you a mail"
        page, without logging in, so that the sign-up page tells nobody whether an address has an
        account. The new address gets its confirmation link (following it logs the player in:
        ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION), the taken one allauth's account_already_exists mail.
        Verification stays optional: the new player may also log in with the password at once."""
        if self.account_already_exists:
            login = Login(
                user=None,
                email=self.cleaned_data["email"],
                signup=True,
                email_verification=EmailVerificationMethod.MANDATORY,
            )
            return None, flows.login.perform_login(request, login)
        user = self.save(request)
        # The sign-up's `next` (a game the player was invited to) is where the confirmation link,
        # which logs in, brings them (allauth keeps it with the pending log-in).
        return user, flows.signup.complete_signup(
            request,
            user=user,
            email_verification=EmailVerificationMethod.MANDATORY,
            redirect_url=get_next_redirect_url(request),
        )

    def save(self, request):
        user = super().save(request)
        if user is not None:
            if self.cleaned_data.get("time_zone"):
                user.time_zone = self.cleaned_data["time_zone"]
            # The language the player signed up in (the switcher's, or the browser's) becomes their
            # setting, so that the mails to come are written in it too.
            language = translation.get_language()
            if language in dict(settings.LANGUAGES):
                user.language = language
            user.save(update_fields=["time_zone", "language"])
        return user


class ResetPasswordForm(AllauthResetPasswordForm):
    """allauth's, but a reset link goes only to an address that is the account's (`holds_address`):
    allauth also mails one to an address the account asked to change to and never confirmed,
    which may be anyone's (a typo, or a stranger's typed on purpose)."""

    def clean_email(self):
        email = super().clean_email()
        self.users = [user for user in self.users if holds_address(user, email)]
        return email
