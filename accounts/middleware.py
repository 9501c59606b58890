from django.utils import timezone


class UserTimeZoneMiddleware:
    """Shows every time to a logged-in player in the time zone of their settings."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.user.is_authenticated:
            timezone.activate(request.user.zone)
        else:
            timezone.deactivate()
        return self.get_response(request)
