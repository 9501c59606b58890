"""Users from before allauth get an EmailAddress row for the address they signed up with,
unverified: nobody ever confirmed it, so they are asked to, as new players are."""

from django.db import migrations


def create_email_addresses(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    EmailAddress = apps.get_model("account", "EmailAddress")
    have = set(EmailAddress.objects.values_list("user_id", flat=True))
    EmailAddress.objects.bulk_create(
        EmailAddress(user_id=user_id, email=email.lower(), verified=False, primary=True)
        for user_id, email in User.objects.exclude(email="").values_list("pk", "email").iterator()
        if user_id not in have
    )


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_settings_and_vacations"),
        ("account", "0009_emailaddress_unique_primary_email"),
    ]

    operations = [migrations.RunPython(create_email_addresses, migrations.RunPython.noop)]
