"""Deciding, composing and sending mail, one module a job: which mails a change calls for
(decisions, late_decisions), reminders, digests, invitations, composing, unsubscribe links, the
outbox and its retries, account mail, and the sweep's share (periodic). docs/mail.md lists them."""
