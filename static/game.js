// Keeps a game page current: a WebSocket says which version exists, and when it is newer than
// the one shown, the page fetches its own view (with its own session) and swaps it in. It also
// says when the table talk has something new: the page then fetches the chat its reader may read.
// The socket (games/live/consumers.py) may bring the page's view of the new version itself, as a
// gzip frame: the spectators' view for a spectator, the reader's own for a logged-in reader (a
// seat's, rendered for this socket alone). The page swaps that in and fetches nothing. Whatever
// arrives, only a version newer than the one shown is applied. A page that has heard nothing for a while opens a
// new socket, which is told the version (a lost notice leaves it behind for a minute at most).
(function () {
  "use strict";
  const game = document.getElementById("game");
  if (!game) return;
  let retryDelay = 500;

  function play() { return document.getElementById("play"); }
  function shownVersion() { const p = play(); return p ? parseInt(p.dataset.version, 10) : -1; }

  // The newest version the socket told of. The page fetches its view one request at a time;
  // a notice that comes while a fetch is under way is not lost: when the fetch lands showing an
  // older version than the newest told of, the page fetches again (at once the first time, then
  // backing off while fetches keep failing to bring it).
  let announced = -1;
  let fetching = false;
  let refetchDelay = 0;

  function refresh() {
    if (fetching) return;
    fetching = true;
    htmx.ajax("GET", game.dataset.playUrl, { target: "#play", swap: "outerHTML" }).then(landed, landed);
  }

  function landed() {
    fetching = false;
    if (announced <= shownVersion()) {
      refetchDelay = 0;
      return;
    }
    setTimeout(refresh, refetchDelay);
    refetchDelay = Math.min(Math.max(refetchDelay * 2, 250), 10000);
  }

  // Browsers that cannot unpack gzip frames are sent notices only, and fetch.
  const takesFrames = typeof DecompressionStream === "function";

  // A frame: gzip of {"version", "play": the play partial}.
  function unpack(data) {
    const stream = new Blob([data]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(JSON.parse);
  }

  // The play partial a frame brought, swapped in as htmx would have swapped a fetched one.
  function show(notice) {
    const current = play();
    if (!current || notice.version <= shownVersion()) return;
    // The settling's delay as a fetched swap's: htmx.swap leaves it at none unless told.
    const spec = { swapStyle: "outerHTML", swapDelay: 0, settleDelay: htmx.config.defaultSettleDelay };
    htmx.swap(current, notice.play, spec, { eventInfo: { target: current, elt: current } });
  }

  // A move posted from this page without asking its socket for the view (below) is answered with
  // the page's new view (games/web/views.py `move`).
  // The notice of its version, sent when the move is stored, comes before that answer: fetching
  // the view then rendered the mover's view twice for one move. While the post is under way the
  // page only notes the versions it hears of, and keeps the newest frame it is brought; when the
  // answer lands it shows that frame if it is newer than the answer's view, else fetches if a
  // version it heard of is. A post that never lands stops holding them after MOVE_WAIT_MS.
  const MOVE_WAIT_MS = 15000;
  let movePost = null;
  let movePostedAt = 0;
  let heldFrame = null;
  let bareHeard = -1;  // the newest version told without its view while the post is under way

  function posting() { return movePost !== null && Date.now() - movePostedAt < MOVE_WAIT_MS; }

  document.body.addEventListener("htmx:beforeRequest", function (event) {
    const detail = event.detail;
    if (!detail.requestConfig || detail.requestConfig.verb !== "post" || !detail.target || detail.target.id !== "play") return;
    movePost = detail.xhr;
    movePostedAt = Date.now();
    bareHeard = -1;
  });

  // A page whose socket is open and brings its views in frames asks for no view in its move's
  // answer: a 204 with the new version, the view coming from the socket, rendered once by the
  // process holding it rather than by the POST (games/web/views.py `move`). Should it not come
  // within VIEW_WAIT_MS (a socket lost meanwhile, a render that failed), the page fetches it.
  const VIEW_WAIT_MS = 5000;

  function framesBySocket() {
    return takesFrames && socket !== null && socket.readyState === WebSocket.OPEN && !toldReplay;
  }

  document.body.addEventListener("htmx:configRequest", function (event) {
    const detail = event.detail;
    if (detail.verb !== "post" || !detail.target || detail.target.id !== "play" || !framesBySocket()) return;
    detail.headers["X-View-By-Socket"] = "1";
  });

  document.body.addEventListener("htmx:afterRequest", function (event) {
    if (movePost === null || event.detail.xhr !== movePost) return;
    movePost = null;
    if (event.detail.successful) dropReport();
    const held = heldFrame;
    heldFrame = null;
    if (held) show(held);
    const moved = event.detail.xhr.status === 204
      ? parseInt(event.detail.xhr.getResponseHeader("X-Game-Version"), 10) : NaN;
    if (!isNaN(moved)) {
      announced = Math.max(announced, moved);
      // The panel answered stays until the view comes: shown busy, it takes no second click.
      const current = play();
      if (current && shownVersion() < moved) current.setAttribute("aria-busy", "true");
      // A bare version of it (or newer) heard meanwhile: the socket brings no view of it.
      if (bareHeard >= moved && shownVersion() < bareHeard) refresh();
      else setTimeout(function () { if (!posting() && shownVersion() < moved) refresh(); }, VIEW_WAIT_MS);
      return;
    }
    if (announced > shownVersion()) refresh();
  });

  function chat() { return document.getElementById("chat"); }

  // The chat's list, unless its reader is browsing older messages.
  function refreshChat() {
    const section = chat();
    if (!section || !document.getElementById("chat-messages")) return;
    if (section.querySelector(".chat-log[data-before]")) return;
    htmx.ajax("GET", section.dataset.url, { target: "#chat-messages", swap: "innerHTML" });
  }

  // When the game starts or ends, the chat opens or closes: fetch its whole section again.
  function refreshChatSection() {
    htmx.ajax("GET", location.pathname, { target: "#chat", select: "#chat", swap: "outerHTML" });
  }

  function showLatestChat() {
    const lines = document.querySelector("#chat .chat-lines");
    if (lines && !document.querySelector("#chat .chat-log[data-before]")) lines.scrollTop = lines.scrollHeight;
  }

  function handle(notice) {
    if (notice.chat) {
      refreshChat();
      return;
    }
    const version = notice.version;
    const replay = document.getElementById("replay");
    if (replay) {
      // A past position stays where the reader took it; he is only told the game moved on.
      const note = document.getElementById("replay-moved-on");
      if (note && version > parseInt(replay.dataset.version, 10)) note.hidden = false;
      return;
    }
    announced = Math.max(announced, version);
    if (version <= shownVersion()) return;
    if (posting()) {
      // Its answer, landing later, would swap an older view over this one.
      if (notice.play !== undefined && (!heldFrame || heldFrame.version < version)) heldFrame = notice;
      if (notice.play === undefined) bareHeard = Math.max(bareHeard, version);
    } else if (notice.play !== undefined) show(notice);
    else refresh();
  }

  let connectedBefore = false;
  // The page's socket (the newest: the closing of one replaced by a check is not a reason to
  // reconnect), and when the page last heard anything or opened a socket.
  let socket = null;
  let lastHeard = Date.now();

  // The note that live updates are paused: shown while the socket cannot connect (the server
  // refuses it when its channel layer, Redis, is away), hidden once it does.
  function paused(shown) {
    const note = document.getElementById("live-paused");
    if (note) note.hidden = !shown;
  }

  // `checking`: the socket is opened again only to be told the version (see checkIfQuiet).
  function connect(checking) {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    // A page opened on a past position says so in the socket's address: told only once open, a
    // notice coming first would be rendered as its reader's view and mark unseen moves as seen.
    const startsInReplay = document.getElementById("replay") !== null;
    const query = takesFrames ? "?play=gzip&lang=" + encodeURIComponent(document.documentElement.lang) + (startsInReplay ? "&replay=1" : "") : "";
    const own = new WebSocket(scheme + location.host + game.dataset.wsPath + query);
    socket = own;
    own.binaryType = "arraybuffer";
    let opened = false;
    own.onopen = function () {
      opened = true;
      if (own === socket) {
        toldReplay = startsInReplay;
        tellWhatIsShown();
      }
      paused(false);
      retryDelay = 500;
      lastHeard = Date.now();
      // Chat notices sent while the socket was down were missed.
      if (connectedBefore && !checking) refreshChat();
      connectedBefore = true;
    };
    // A socket being replaced may still bring a notice: it is taken (only a newer version applies).
    own.onmessage = function (event) {
      lastHeard = Date.now();
      if (typeof event.data !== "string") {
        // If the frame cannot be read, the version it was for is fetched.
        unpack(event.data).then(handle, refresh);
        return;
      }
      handle(JSON.parse(event.data));
    };
    own.onclose = function () {
      if (!opened) paused(true);
      if (own !== socket) return;
      setTimeout(connect, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 10000);
    };
  }

  // While the page shows a past position it tells its socket so ("replay"; "live" once it is back):
  // the server then sends it bare versions instead of its reader's own view, whose render would
  // mark as seen the moves he has not looked at yet.
  let toldReplay = false;
  function tellWhatIsShown() {
    const inReplay = document.getElementById("replay") !== null;
    if (!socket || socket.readyState !== WebSocket.OPEN || inReplay === toldReplay) return;
    socket.send(inReplay ? "replay" : "live");
    toldReplay = inReplay;
  }
  document.body.addEventListener("htmx:afterSettle", tellWhatIsShown);

  // A notice can be lost (the server failed to send it, Redis away), and the page would stay a
  // version behind until the next one. A page that has heard nothing for QUIET_MS while it is
  // seen asks again: a new socket is told the version at once (the server's first message), and
  // the page fetches what it missed. A hidden page asks when it is shown again.
  const QUIET_MS = 45000;

  function checkIfQuiet() {
    if (document.visibilityState !== "visible" || Date.now() - lastHeard < QUIET_MS) return;
    // A socket that is not open is being reopened already, and will be told the version.
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    lastHeard = Date.now();
    const old = socket;
    connect(true);
    old.close();
  }

  setInterval(checkIfQuiet, 5000);
  document.addEventListener("visibilitychange", checkIfQuiet);

  // A link that asks first: with JavaScript its dialog opens here; without, the link leads to a
  // page that asks the same.
  document.addEventListener("click", function (event) {
    const link = event.target.closest("a[data-dialog]");
    const dialog = link && document.getElementById(link.dataset.dialog);
    if (!dialog || typeof dialog.showModal !== "function") return;
    event.preventDefault();
    dialog.showModal();
  });

  // The turn report at the page's head ("Since your last move: …") tells what the others did while
  // the reader was away, up to the page's load; the log marks each move that comes after it as new.
  // Once the reader has moved, nothing is "since his last move" any more: it goes, as a reload
  // would show. Done here rather than fetched again with each version, which cost every seat's page
  // a request per move, where the socket's frames bring the view without one.
  function dropReport() {
    const box = document.getElementById("turn-report-box");
    if (box) box.textContent = "";
  }


  document.body.addEventListener("htmx:afterSwap", function (event) {
    const target = event.detail.target;
    if (target.id === "chat-messages" || target.id === "chat") showLatestChat();
    if (target.id !== "play") return;
    // After a new position an earlier refusal, and the banners of the page's first load ("Game
    // created", "You joined"), no longer apply.
    const error = document.getElementById("move-error");
    if (error) error.textContent = "";
    const banners = document.getElementById("messages");
    if (banners) banners.remove();
    const section = chat();
    if (section && section.dataset.status !== play().dataset.status) refreshChatSection();
  });

  // A message sent: clear the field and any earlier refusal. A refused one stays, to be fixed.
  document.body.addEventListener("htmx:afterRequest", function (event) {
    const form = event.detail.elt;
    if (!form.matches || !form.matches("form.chat-form") || event.detail.xhr.status >= 300) return;
    form.reset();
    const error = document.getElementById("chat-error");
    if (error) error.textContent = "";
  });
  showLatestChat();
  connect();
})();
