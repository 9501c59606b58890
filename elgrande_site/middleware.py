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


class RefuseUndecodableForm:
    """A form posted in another charset than UTF-8 (`charset=utf-16`) makes Django's request.POST
    raise BadRequest each time it is read; the CSRF check of the 400 page read it again, and the
    request ended in a server error. Read once here: a body that cannot be read is refused with
    400, and the request is left with an empty POST for the error page."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method == "POST":
            try:
                request.POST  # noqa: B018 -- reading it is the check
            except BadRequest:
                request._mark_post_parse_error()
                raise
        return self.get_response(request)
