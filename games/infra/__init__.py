"""Plumbing under everything else: the embedded worker threads, the queue seam in front of Celery,
the plain SQL row helpers, the JSON codec, and who has a game open (presence)."""
