"""Each user's username skeletons (accounts/usernames.py), so that a new name is refused when it
looks like one taken; the existing users get theirs here."""

from django.db import migrations, models

FIELDS = ["username_skeleton", "username_lower_skeleton"]


def fill_skeletons(apps, schema_editor):
    from accounts.usernames import lower_skeleton, skeleton

    User = apps.get_model("accounts", "User")
    users = []
    for pk, username in User.objects.values_list("pk", "username").iterator():
        users.append(
            User(pk=pk, username_skeleton=skeleton(username), username_lower_skeleton=lower_skeleton(username))
        )
        if len(users) == 1000:
            User.objects.bulk_update(users, FIELDS)
            users = []
    User.objects.bulk_update(users, FIELDS)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0005_language"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="username_skeleton",
            field=models.CharField(blank=True, db_index=True, default="", editable=False, max_length=300),
        ),
        migrations.AddField(
            model_name="user",
            name="username_lower_skeleton",
            field=models.CharField(blank=True, db_index=True, default="", editable=False, max_length=300),
        ),
        migrations.RunPython(fill_skeletons, migrations.RunPython.noop),
    ]
