"""Requests refused before any view sees them."""

from django.core.exceptions import BadRequest


class RefuseNulInPath:
    """An address with %00 in it hands a NUL to whichever view its <str:...> part reaches (a
    player's name, an invitation token, allauth's keys), and PostgreSQL refuses to compare text
    holding one: the lookup failed with a server error. No address of the site has one, so the
    request is refused with 400 at once."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "\x00" in request.path:
            raise BadRequest("A NUL character in the address.")
        return self.get_response(request)
