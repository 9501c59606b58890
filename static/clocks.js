// The page's clocks and turn marks, kept true across htmx swaps. The server renders each one
// first (the countdown's text, the title's prefix, the favicon); this script then counts every
// <time class="countdown"> down by the seconds the server said were left (data-left), so a wrong
// clock on the player's machine does not matter, and follows [data-your-move] after each swap.
(function () {
  "use strict";
  const PREFIX = "● Your move – ";

  function yourMove() { return document.querySelector("[data-your-move='1']") !== null; }

  function markTurn() {
    const mine = yourMove();
    const base = document.title.startsWith(PREFIX) ? document.title.slice(PREFIX.length) : document.title;
    const title = (mine ? PREFIX : "") + base;
    if (document.title !== title) document.title = title;
    const icon = document.getElementById("favicon");
    if (!icon) return;
    const href = mine ? icon.dataset.iconYourMove : icon.dataset.iconIdle;
    if (icon.getAttribute("href") !== href) icon.setAttribute("href", href);
  }

  // Says the time left as games/clocks.py's time_left_text does.
  function leftText(seconds) {
    if (seconds <= 0) return "time is up";
    const days = Math.floor(seconds / 86400);
    const hours = Math.floor((seconds % 86400) / 3600);
    const minutes = Math.floor((seconds % 3600) / 60);
    const secs = seconds % 60;
    const two = function (n) { return (n < 10 ? "0" : "") + n; };
    if (days) return days + " d " + hours + " h left";
    if (hours) return hours + " h " + two(minutes) + " min left";
    return minutes + " min " + two(secs) + " s left";
  }

  function tick() {
    const now = performance.now();
    document.querySelectorAll("time.countdown[data-left]").forEach(function (clock) {
      // An element swapped in is new: its end is reckoned from when this script first sees it.
      if (!clock.dataset.ends) clock.dataset.ends = String(now + 1000 * parseInt(clock.dataset.left, 10));
      const text = leftText(Math.max(0, Math.ceil((parseFloat(clock.dataset.ends) - now) / 1000)));
      if (clock.textContent !== text) clock.textContent = text;
    });
  }

  document.body.addEventListener("htmx:afterSettle", function () { markTurn(); tick(); });
  markTurn();
  tick();
  setInterval(tick, 1000);
})();
