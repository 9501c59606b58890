"""The site's pages: every view module (play, lobby, archive, chat, mail links, records, replays,
rules) and the site's plain forms. Views read through games.reading and change games through
games.play; nothing below imports them."""
