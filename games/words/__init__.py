"""Words and pictures: the site's texts, the log's sentences, refusals, the board's drawing and
the score chart. Pure of the database: they take what they show as arguments."""
