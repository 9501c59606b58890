// Moves made on the map, and no decision on one click. The decision panel's plain forms stay the
// move's one way to the server (and the whole of it without JavaScript): the map composes a move,
// shows it, fills the same fields the forms post, and sends nothing until its player presses
// Confirm. The pure composition is static/map/model.js; reading and filling the forms,
// static/map/form.js; the marks on the map, static/map/draw.js; the composer's box,
// static/map/compose.js. This module only listens. Every word shown comes from #map-texts.

import { Composer, T } from "./map/compose.js";
import { areaElement, parseMove, svg } from "./map/form.js";

const composer = new Composer();
let drag = null;
let suppressClick = false;

function areaOf(target) {
  const element = target.closest && target.closest("svg.map g.area");
  return element ? element.dataset.area : null;
}

document.addEventListener("click", (event) => {
  if (!composer.active) return;
  if (suppressClick) { suppressClick = false; return; }
  const minus = event.target.closest && event.target.closest("svg.map .take-back");
  if (minus) { composer.takeBack(minus.dataset.area); return; }
  const area = areaOf(event.target);
  if (!area) return;
  const cube = event.target.closest(".cube");
  composer.pick(area, cube ? cube.dataset.colour : null, false);
});

document.addEventListener("contextmenu", (event) => {
  if (!composer.active || composer.composition.mode.type !== "fields") return;
  const area = areaOf(event.target);
  if (!area || !composer.composition.countOf("to-" + area)) return;
  event.preventDefault();
  composer.takeBack(area);
});

// The keyboard: Enter or Space on a focused area picks it (on a plan's group again, the next
// colour there), on a take-back badge takes back.
document.addEventListener("keydown", (event) => {
  if (!composer.active || (event.key !== "Enter" && event.key !== " ")) return;
  const minus = event.target.closest && event.target.closest("svg.map .take-back");
  if (minus) {
    event.preventDefault();
    const area = minus.dataset.area;
    composer.takeBack(area);
    // The badge is drawn anew: the focus goes to the new one, or back to its area.
    const again = document.querySelector('svg.map .take-back[data-area="' + area + '"]');
    (again || areaElement(area)).focus();
    return;
  }
  if (!event.target.matches || !event.target.matches("svg.map g.area")) return;
  event.preventDefault();
  composer.pick(event.target.dataset.area, null, true);
});

// Drag a group of caballeros to its destination (an Intrigue's plan), where pointers allow.
document.addEventListener("pointerdown", (event) => {
  if (!composer.active || composer.composition.mode.type !== "plan" || composer.composition.picked) return;
  const cube = event.target.closest && event.target.closest("svg.map .cube.draggable");
  if (!cube) return;
  drag = { area: areaOf(cube), colour: cube.dataset.colour, x: event.clientX, y: event.clientY, moved: false };
});
document.addEventListener("pointermove", (event) => {
  if (!drag) return;
  if (Math.abs(event.clientX - drag.x) + Math.abs(event.clientY - drag.y) > 12) {
    drag.moved = true;
    svg().classList.add("dragging");
  }
});
document.addEventListener("pointerup", (event) => {
  if (!drag) return;
  const started = drag;
  drag = null;
  svg().classList.remove("dragging");
  if (!started.moved) return;
  const under = document.elementFromPoint(event.clientX, event.clientY);
  const area = under && areaOf(under);
  suppressClick = true;
  setTimeout(() => { suppressClick = false; }, 0);
  if (!area || area === started.area) return;
  composer.drop(started.area, started.colour, area);
});

// A button of the panel that carries a whole decision (a bid, an action card, declining the special
// action, going on without placing, a veto's answer) is chosen by its first click (or Enter/Space)
// and sent only by the Confirm that then appears after its form's choices: a stray click or tap
// sends nothing. The chosen button pressed again lets the choice go. A secret region is chosen on
// the map and sent by the map's Confirm.
// "special": only the button of a special action with nothing to choose sends a whole special move
// (templates/games/partials/decision.html); the others send their form's fields.
const CONFIRMED_KINDS = ["bid", "take_card", "decline", "place", "veto", "allow", "special"];

function letGo(panel) {
  panel.querySelectorAll("button.chosen[name=move]").forEach((b) => {
    b.classList.remove("chosen");
    b.setAttribute("aria-pressed", "false");
  });
  panel.querySelectorAll(".decision-confirm, .decision-hint").forEach((e) => e.remove());
}

function choose(chosen, move) {
  const form = chosen.form;
  letGo(chosen.closest("#decision") || form);
  chosen.classList.add("chosen");
  chosen.setAttribute("aria-pressed", "true");
  // The bid keeps its own class (and words) for the tests and styles that know it.
  const send = document.createElement("button");
  send.type = "button";
  send.className = "decision-confirm primary" + (move.type === "bid" ? " bid-confirm" : "");
  send.addEventListener("click", () => {
    const picked = form.querySelector("button.chosen[name=move]");
    if (!picked) return;
    picked.dataset.confirmed = "1";
    picked.click();
  });
  const title = chosen.querySelector("strong");
  const what = (title ? title.textContent : chosen.textContent).replace(/\s+/g, " ").trim();
  send.textContent = move.type === "bid" ? T("bidConfirm", { card: move.card }) : T("choiceConfirm", { choice: what });
  const hint = document.createElement("p");
  hint.className = "hint decision-hint" + (move.type === "bid" ? " bid-hint" : "");
  hint.setAttribute("aria-live", "polite");
  hint.textContent = move.type === "bid" ? T("bidHint") : T("choiceHint");
  form.appendChild(send);
  form.appendChild(hint);
}

document.addEventListener("click", (event) => {
  const chosen = event.target.closest && event.target.closest("#decision form button[name=move]");
  if (!chosen || chosen.dataset.confirmed === "1") return;
  const move = parseMove(chosen);
  if (!move) return;
  // A form marked data-confirm-every (the panel's catch-all for a decision it has no form of its own
  // for) asks for the Confirm whatever the move.
  if (CONFIRMED_KINDS.indexOf(move.type) >= 0 || (chosen.form && "confirmEvery" in chosen.form.dataset)) {
    event.preventDefault();
    if (chosen.classList.contains("chosen")) letGo(chosen.closest("#decision") || chosen.form);
    else choose(chosen, move);
    return;
  }
  if (move.region && composer.active && areaElement(move.region) && composer.pickButton(chosen, move)) {
    event.preventDefault();
  }
}, true);

// Without JavaScript a tick guards the forms above (templates/games/partials/noscript_confirm.html).
// htmx parses what it swaps in with scripting off, so the <noscript> of a new panel comes in as real,
// hidden, required fields that would block every send: they go as soon as they arrive.
document.body.addEventListener("htmx:load", () => {
  document.querySelectorAll("#decision .noscript-confirm").forEach((e) => e.remove());
});

// After the settling: htmx puts back the server's attributes of elements with ids (the areas)
// when it settles, which would wipe what the map marks on them during the swap.
document.body.addEventListener("htmx:afterSettle", (event) => {
  const target = event.detail.target;
  if (target.id === "play" || (target.closest && target.closest("#play"))) composer.build();
});
document.body.addEventListener("change", (event) => {
  if (composer.active && (event.target.name === "scoreboard" || event.target.name === "option")) composer.refresh();
});
composer.build();
