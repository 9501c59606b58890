"""Deciding, composing and sending mail: which mails a change implies, reminders, digests,
invitations, unsubscribe links, the outbox and its retries."""
