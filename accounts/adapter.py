from allauth.account.adapter import DefaultAccountAdapter
from django import forms

DELETED_PREFIX = "deleted-"


class AccountAdapter(DefaultAccountAdapter):
    def clean_username(self, username, shallow=False):
        # Deleted accounts are renamed deleted-<id>; nobody may take such a name before them.
        if username.lower().startswith(DELETED_PREFIX):
            raise forms.ValidationError(f"A username may not start with “{DELETED_PREFIX}”.")
        return super().clean_username(username, shallow=shallow)
