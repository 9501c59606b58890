"""Month and day names that the site's own catalogue spells its own way: Italian writes them in
lower case ("venerdì 27 novembre"), where Django's Italian catalogue capitalises them. The site's
catalogue comes before Django's, so these entries win on every page and in every mail; they are
marked here, with the msgids of django.utils.dates, so that makemessages keeps them. (The "M"
format's three letters are title-cased by Django itself, whatever the catalogue says.)"""

from django.utils.translation import gettext_noop, pgettext_lazy

MONTHS = (
    gettext_noop("January"), gettext_noop("February"), gettext_noop("March"), gettext_noop("April"),
    gettext_noop("May"), gettext_noop("June"), gettext_noop("July"), gettext_noop("August"),
    gettext_noop("September"), gettext_noop("October"), gettext_noop("November"), gettext_noop("December"),
)
MONTHS_ALT = (
    pgettext_lazy("alt. month", "January"), pgettext_lazy("alt. month", "February"),
    pgettext_lazy("alt. month", "March"), pgettext_lazy("alt. month", "April"),
    pgettext_lazy("alt. month", "May"), pgettext_lazy("alt. month", "June"),
    pgettext_lazy("alt. month", "July"), pgettext_lazy("alt. month", "August"),
    pgettext_lazy("alt. month", "September"), pgettext_lazy("alt. month", "October"),
    pgettext_lazy("alt. month", "November"), pgettext_lazy("alt. month", "December"),
)
WEEKDAYS = (
    gettext_noop("Monday"), gettext_noop("Tuesday"), gettext_noop("Wednesday"), gettext_noop("Thursday"),
    gettext_noop("Friday"), gettext_noop("Saturday"), gettext_noop("Sunday"),
)
WEEKDAYS_ABBR = (
    gettext_noop("Mon"), gettext_noop("Tue"), gettext_noop("Wed"), gettext_noop("Thu"), gettext_noop("Fri"),
    gettext_noop("Sat"), gettext_noop("Sun"),
)
