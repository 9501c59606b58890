// The composition drawn on the map: ghost caballeros where they arrive, faded ones where they leave,
// the take-back badges, the areas chosen, and which areas may be picked now (the others say why).
// Colours come from the palette in static/board.css: a mark carries its colour as data-colour.

import { areaElement, svg } from "./form.js";

const SVGNS = "http://www.w3.org/2000/svg";
const FINGER = 44; // the least size of a target, in CSS px
const GHOST_W = 40, GHOST_H = 30, GHOST_GAP = 4;

function svgElement(name, attributes, parent) {
  const element = document.createElementNS(SVGNS, name);
  Object.keys(attributes).forEach((key) => element.setAttribute(key, attributes[key]));
  if (parent) parent.appendChild(element);
  return element;
}

// The box of what an area shows (its name, scoreboard, pieces), in the map's units.
function contentBox(element) {
  let left = Infinity, top = Infinity, right = -Infinity, bottom = -Infinity;
  Array.from(element.children).forEach((child) => {
    if (child.tagName === "title" || child.tagName === "polygon") return;
    const b = child.getBBox();
    if (!b.width && !b.height) return;
    // A translated group (the King) has its box in its own units: move it into the map's.
    const moved = child.transform && child.transform.baseVal.consolidate();
    const dx = moved ? moved.matrix.e : 0, dy = moved ? moved.matrix.f : 0;
    left = Math.min(left, b.x + dx); top = Math.min(top, b.y + dy);
    right = Math.max(right, b.x + dx + b.width); bottom = Math.max(bottom, b.y + dy + b.height);
  });
  if (left === Infinity) return element.querySelector("polygon.shape").getBBox();
  return { x: left, y: top, width: right - left, height: bottom - top };
}

// How many of the map's units make `px` CSS pixels at the map's present size.
function units(map, px) {
  const width = map.getBoundingClientRect().width;
  return width ? px * map.viewBox.baseVal.width / width : px;
}

export function drawMarks(composition, T, areaName) {
  const map = svg();
  const old = map.querySelector("g.map-marks");
  if (old) old.remove();
  map.querySelectorAll(".cube.leaving, .area.chosen, .area.picked, .cube.picked").forEach((e) => {
    e.classList.remove("leaving", "chosen", "picked");
  });
  const marks = svgElement("g", { class: "map-marks" }, map);
  const fields = composition.mode.type === "fields";
  const own = composition.board.own;
  // A take-back badge is a finger's size on the screen, whatever the map's scale.
  const hit = Math.max(26, units(map, FINGER) / 2);
  const delta = composition.changes();
  Object.keys(delta).forEach((area) => {
    const element = areaElement(area);
    if (!element) return;
    const box = contentBox(element);
    const arrivals = Object.keys(delta[area]).filter((c) => delta[area][c] > 0);
    const badged = fields && arrivals.indexOf(own) >= 0;
    // The ghosts stand in a row under what the area shows; the take-back badge right of the row.
    const row = arrivals.length * (GHOST_W + GHOST_GAP) + (badged ? 2 * hit : 0);
    let x = box.x + box.width / 2 - row / 2;
    const y = box.y + box.height + GHOST_GAP;
    Object.keys(delta[area]).forEach((colour) => {
      const n = delta[area][colour];
      if (n >= 0) return;
      const cube = element.querySelector('.cube[data-colour="' + colour + '"]');
      if (!cube) return;
      cube.classList.add("leaving");
      const r = cube.querySelector("rect");
      const bx = parseFloat(r.getAttribute("x")) + 30, by = parseFloat(r.getAttribute("y")) - 8;
      const badge = svgElement("g", { class: "leave-badge", "data-area": area, "data-colour": colour }, marks);
      svgElement("rect", { x: bx, y: by, width: 34, height: 24, rx: 12 }, badge);
      svgElement("text", { x: bx + 17, y: by + 19 }, badge).textContent = "−" + -n;
    });
    arrivals.forEach((colour) => {
      const ghost = svgElement("g", { class: "ghost", "data-area": area, "data-colour": colour }, marks);
      svgElement("rect", { x, y, width: GHOST_W, height: GHOST_H, rx: 5 }, ghost);
      svgElement("text", { x: x + GHOST_W / 2, y: y + 23 }, ghost).textContent = "+" + delta[area][colour];
      x += GHOST_W + GHOST_GAP;
      if (!(fields && colour === own)) return;
      // Beside the count it takes back from, never over the area's middle.
      const words = T("takeBack", { area: areaName(area) });
      const minus = svgElement("g", { class: "take-back", "data-area": area, role: "button", tabindex: "0",
        "aria-label": words }, marks);
      const cx = x + hit - GHOST_GAP, cy = y + GHOST_H / 2;
      svgElement("rect", { class: "hit", x: cx - hit, y: cy - hit, width: 2 * hit, height: 2 * hit }, minus);
      svgElement("circle", { cx, cy, r: 15 }, minus);
      svgElement("text", { x: cx, y: cy + 8 }, minus).textContent = "−";
      svgElement("title", {}, minus).textContent = words;
      x += 2 * hit;
    });
  });
  composition.chosenAreas().forEach((area) => {
    const element = areaElement(area);
    if (element) element.classList.add("chosen");
  });
  const picked = composition.picked;
  if (picked) {
    const element = areaElement(picked.area);
    element.classList.add("picked");
    const cube = element.querySelector('.cube[data-colour="' + picked.colour + '"]');
    if (cube) cube.classList.add("picked");
  }
  // Which areas may be picked now: highlighted; the others say why (in their title too).
  map.querySelectorAll("g.area").forEach((element) => {
    const key = composition.judge(element.dataset.area);
    const why = key === "placeWhy" ? element.dataset.placeWhy : key ? T(key) : "";
    element.classList.toggle("target", !why);
    element.classList.toggle("illegal", !!why);
    element.setAttribute("aria-disabled", why ? "true" : "false");
    element.setAttribute("role", "button");
    const title = element.querySelector("title");
    if (!("baseTitle" in element.dataset)) element.dataset.baseTitle = title.textContent;
    title.textContent = element.dataset.baseTitle + (why ? " — " + why : "");
    element.dataset.why = why;
    const movable = composition.mode.type === "plan" && !picked ? composition.movableColours(element.dataset.area) : [];
    element.querySelectorAll(".cube").forEach((cube) => {
      cube.classList.toggle("draggable", movable.indexOf(cube.dataset.colour) >= 0);
    });
  });
}
