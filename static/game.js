// Keeps a game page current: a WebSocket says which version exists, and when it is newer than
// the one shown, the page fetches its own view (with its own session) and swaps it in.
(function () {
  "use strict";
  const game = document.getElementById("game");
  if (!game) return;
  let retryDelay = 500;

  function play() { return document.getElementById("play"); }
  function shownVersion() { const p = play(); return p ? parseInt(p.dataset.version, 10) : -1; }

  function refresh() {
    htmx.ajax("GET", game.dataset.playUrl, { target: "#play", swap: "outerHTML" });
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const socket = new WebSocket(scheme + location.host + game.dataset.wsPath);
    socket.onopen = function () { retryDelay = 500; };
    socket.onmessage = function (event) {
      const version = JSON.parse(event.data).version;
      const replay = document.getElementById("replay");
      if (replay) {
        // A past position stays where the reader took it; he is only told the game moved on.
        const note = document.getElementById("replay-moved-on");
        if (note && version > parseInt(replay.dataset.version, 10)) note.hidden = false;
        return;
      }
      if (version > shownVersion()) refresh();
    };
    socket.onclose = function () {
      setTimeout(connect, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 10000);
    };
  }

  // A link that asks first: with JavaScript its dialog opens here; without, the link leads to a
  // page that asks the same.
  document.addEventListener("click", function (event) {
    const link = event.target.closest("a[data-dialog]");
    const dialog = link && document.getElementById(link.dataset.dialog);
    if (!dialog || typeof dialog.showModal !== "function") return;
    event.preventDefault();
    dialog.showModal();
  });

  document.body.addEventListener("htmx:afterSwap", function (event) {
    if (event.detail.target.id !== "play") return;
    // After a new position an earlier refusal no longer applies.
    const error = document.getElementById("move-error");
    if (error) error.textContent = "";
  });
  connect();
})();
