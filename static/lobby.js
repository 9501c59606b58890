// Keeps the lobby's "my games" current: the player's socket (/ws/lobby/) only says that one of
// their games changed; the list is then fetched again over HTTP with the page's own session.
(function () {
  "use strict";
  const section = document.getElementById("my-games");
  if (!section || !section.dataset.wsPath) return;
  const path = section.dataset.wsPath;
  const url = section.dataset.url;
  let retryDelay = 500;
  let connectedBefore = false;
  let pending = null;

  function refresh() {
    // Moves often come in bursts (a turn played out on a deadline): fetch once for the burst.
    if (pending) return;
    pending = setTimeout(function () {
      pending = null;
      htmx.ajax("GET", url, { target: "#my-games", swap: "outerHTML" });
    }, 200);
  }

  // The note that live updates are paused: shown while the socket cannot connect (the server
  // refuses it when its channel layer, Redis, is away), hidden once it does.
  function paused(shown) {
    const note = document.getElementById("live-paused");
    if (note) note.hidden = !shown;
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const socket = new WebSocket(scheme + location.host + path);
    let opened = false;
    socket.onopen = function () {
      opened = true;
      paused(false);
      retryDelay = 500;
      // What changed while the socket was down was never said: look again.
      if (connectedBefore) refresh();
      connectedBefore = true;
    };
    socket.onmessage = refresh;
    socket.onclose = function () {
      if (!opened) paused(true);
      setTimeout(connect, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 10000);
    };
  }

  connect();
})();
