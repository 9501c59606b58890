"""A seat may answer its veto questions ahead: "allow" until its player takes it back."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0018_record_identity'),
    ]

    operations = [
        migrations.AddField(
            model_name='seat',
            name='answers_ahead',
            field=models.BooleanField(default=False),
        ),
    ]
