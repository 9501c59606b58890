// What was said at the table since the reader's last visit, marked "New" in the chat, as the log
// marks the moves (templates/games/partials/log.html). The page remembers, in this browser's
// localStorage, the newest message it has shown its reader in this game (#chat's data-seen-key);
// the messages after that one, but the reader's own, are new for this whole visit. A first visit
// marks nothing. Only message numbers are kept, nothing of what was said.
(function () {
  "use strict";
  let since = null; // the newest message shown before this visit

  function stored(key) {
    try { return localStorage.getItem(key); } catch (error) { return null; }
  }

  function mark() {
    const section = document.getElementById("chat");
    if (!section || !section.dataset.seenKey) return;
    const lines = Array.from(section.querySelectorAll(".chat-lines li[data-id]"));
    const newest = lines.reduce((most, line) => Math.max(most, parseInt(line.dataset.id, 10) || 0), 0);
    const key = section.dataset.seenKey;
    if (since === null) {
      const before = stored(key);
      since = before === null ? newest : parseInt(before, 10) || 0;
    }
    lines.forEach((line) => {
      const fresh = parseInt(line.dataset.id, 10) > since && !("mine" in line.dataset);
      line.classList.toggle("new", fresh);
      if (fresh) line.dataset.newWord = section.dataset.newWord;
    });
    if (newest > (parseInt(stored(key), 10) || 0)) {
      try { localStorage.setItem(key, String(newest)); } catch (error) { /* private mode: no memory */ }
    }
  }

  mark();
  document.body.addEventListener("htmx:afterSettle", (event) => {
    const target = event.detail.target;
    if (target.id === "chat" || (target.closest && target.closest("#chat"))) mark();
  });
})();
