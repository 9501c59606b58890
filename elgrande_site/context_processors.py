"""What every page may name about the site itself."""

from django.conf import settings


def site(request):
    return {"CONTACT_EMAIL": settings.CONTACT_EMAIL}
