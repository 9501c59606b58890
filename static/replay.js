// The replay's keys and slider: ← → step one move, Page Up / Page Down go to the start of the previous
// or next round, Home / End to the setup and the last position. Each asks the server for the
// position's replay area (the links' own htmx requests do the same on a click); the server's
// HX-Push-Url gives each position its address. When keys come faster than the answers, only the
// answer for the position last asked for is shown.
(function () {
  "use strict";
  let wanted = null;

  function replay() { return document.getElementById("replay"); }

  function shown() { const r = replay(); return r ? parseInt(r.dataset.at, 10) : null; }

  function go(position) {
    const r = replay();
    const last = parseInt(r.dataset.last, 10);
    position = Math.max(0, Math.min(last, position));
    if (position === (wanted === null ? shown() : wanted)) return;
    wanted = position;
    htmx.ajax("GET", r.dataset.partialUrl + "?at=" + position, { target: "#replay", swap: "outerHTML" });
  }

  function roundStart(from, forward) {
    const starts = replay().dataset.roundStarts.split(",").map(Number);
    if (forward) {
      const later = starts.filter(function (s) { return s > from; });
      return later.length ? later[0] : null;
    }
    const earlier = starts.filter(function (s) { return s < from; });
    return earlier.length ? earlier[earlier.length - 1] : null;
  }

  document.addEventListener("keydown", function (event) {
    const r = replay();
    if (!r || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    if (event.target.closest && event.target.closest("input, select, textarea, button, [contenteditable]")) return;
    const from = wanted === null ? shown() : wanted;
    let to = null;
    if (event.key === "ArrowLeft") to = from - 1;
    else if (event.key === "ArrowRight") to = from + 1;
    else if (event.key === "Home") to = 0;
    else if (event.key === "End") to = parseInt(r.dataset.last, 10);
    else if (event.key === "PageUp") to = roundStart(from, false);
    else if (event.key === "PageDown") to = roundStart(from, true);
    else return;
    event.preventDefault();
    if (to !== null) go(to);
  });

  // A click on a link or a move of the slider asks for its position: the one to show.
  document.body.addEventListener("htmx:beforeRequest", function (event) {
    const source = event.detail.elt;
    if (!source || !source.closest || !source.closest("#replay")) return;
    if (source.dataset && source.dataset.at !== undefined) wanted = parseInt(source.dataset.at, 10);
    else if (source.matches && source.matches("form.replay-slider")) wanted = parseInt(source.elements.at.value, 10);
  });

  document.body.addEventListener("htmx:beforeSwap", function (event) {
    if (!event.detail.target || event.detail.target.id !== "replay") return;
    const answered = event.detail.xhr.getResponseHeader("X-Replay-Position");
    if (wanted !== null && answered !== null && parseInt(answered, 10) !== wanted) event.detail.shouldSwap = false;
  });

  document.body.addEventListener("htmx:afterSettle", function () {
    if (wanted !== null && wanted === shown()) wanted = null;
  });

  // While the slider is dragged, say where it is.
  document.addEventListener("input", function (event) {
    if (event.target.id !== "replay-at") return;
    const out = document.getElementById("replay-at-shown");
    if (out) out.textContent = event.target.value;
  });
})();
