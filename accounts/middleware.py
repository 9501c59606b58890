from django.utils import timezone, translation


class UserTimeZoneMiddleware:
    """Shows every time to a logged-in player in the time zone of their settings, and every page in
    the language of their settings when they chose one (else LocaleMiddleware's pick stands: the
    language cookie, the browser's Accept-Language, English)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.user.is_authenticated:
            timezone.activate(request.user.zone)
            if request.user.language:
                translation.activate(request.user.language)
                request.LANGUAGE_CODE = request.user.language
        else:
            timezone.deactivate()
        return self.get_response(request)
