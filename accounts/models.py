from django.contrib.auth.models import AbstractUser


class User(AbstractUser):
    """The site's own user model, in place from the first migration so it can grow later
    (notification settings, ratings) without the pain of swapping models mid-project."""
