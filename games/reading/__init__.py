"""What pages read: the game page's context and the play partial's cache, the lobby's lists,
listing and keyset pages, the archive's queries, statistics and replays. Reads only; changes go
through games.play."""
