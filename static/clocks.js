// The page's clocks and turn marks, kept true across htmx swaps. The server renders each one
// first (the countdown's text, the title's prefix, the favicon); this script then counts every
// <time class="countdown"> down by the seconds the server said were left (data-left), so a wrong
// clock on the player's machine does not matter, and follows [data-your-move] after each swap.
(function () {
  "use strict";
  // The words, in the page's language: base.html renders them into #clock-texts.
  const source = document.getElementById("clock-texts");
  const TEXTS = source ? JSON.parse(source.textContent) : {};
  const PREFIX = TEXTS.prefix || "● Your move – ";

  // Fills a pattern of games/clocks.py's left_patterns: %(name)d, or %(name)02d for two digits.
  function fill(pattern, values) {
    return pattern.replace(/%\((\w+)\)(02)?d/g, function (_all, name, two) {
      const n = values[name];
      return two && n < 10 ? "0" + n : String(n);
    });
  }

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
    if (seconds <= 0) return TEXTS.up || "time is up";
    const values = {
      days: Math.floor(seconds / 86400),
      hours: Math.floor((seconds % 86400) / 3600),
      minutes: Math.floor((seconds % 3600) / 60),
      seconds: seconds % 60,
    };
    if (values.days) return fill(TEXTS.days || "%(days)d d %(hours)d h left", values);
    if (values.hours) return fill(TEXTS.hours || "%(hours)d h %(minutes)02d min left", values);
    return fill(TEXTS.minutes || "%(minutes)d min %(seconds)02d s left", values);
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

  // At the swap itself, in the same task, so that nothing ever shows the new position under the
  // old title: htmx settles a moment (20 ms) after it swaps. Again once settled, as htmx sets the
  // title of a response that has one (a whole page fetched for a section) after the swap.
  document.body.addEventListener("htmx:afterSwap", function () { markTurn(); tick(); });
  document.body.addEventListener("htmx:afterSettle", function () { markTurn(); tick(); });
  markTurn();
  tick();
  setInterval(tick, 1000);
})();
