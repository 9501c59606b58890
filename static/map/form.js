// The decision panel's plain forms, read as the modes of the composition (static/map/model.js) and
// filled with what it plans. The forms stay the move's one way to the server: their fields and
// options come from the engine's decision, so what the map offers is what they accept.

export const COUNT_FIELD = /^(to|from)-(.+)$/;
const SELECT_FIELD = /^(region|to|mobile-to-.+|picks-\d+-region)$/;
export const PLAN_FIELD = /^plan-(\d+)-(from|to|colour|count)$/;
// The hidden field of a redistribution's or a court spread's form naming its areas' order
// (games/moves/moves_forms.py ORDER_FIELD).
export const ORDER_FIELD = "to-order";

export function svg() { return document.querySelector("#play svg.map"); }

export function areaElement(id) {
  const map = svg();
  return map && map.querySelector('g.area[data-area="' + id + '"]');
}

export function parseMove(button) {
  try { return JSON.parse(button.value); } catch (error) { return null; }
}

function optionValues(select) {
  return Array.from(select.options).map((o) => o.value).filter(Boolean);
}

function number(value) {
  const parsed = parseInt(value, 10);
  return isNaN(parsed) ? null : parsed;
}

function planRows(form) {
  const rows = {};
  form.querySelectorAll("select, input").forEach((field) => {
    const match = field.name.match(PLAN_FIELD);
    if (!match) return;
    rows[match[1]] = rows[match[1]] || {};
    rows[match[1]][match[2]] = field;
  });
  return Object.keys(rows).sort((a, b) => a - b).map((k) => rows[k]);
}

// What the map shows of the board: each colour's caballeros in each area, the seat's colour, and
// why an area takes no caballero in a placement.
export function readBoard(texts) {
  const counts = {};
  const placeWhy = {};
  document.querySelectorAll("#play svg.map g.area").forEach((area) => {
    counts[area.dataset.area] = {};
    area.querySelectorAll(".cube").forEach((cube) => {
      counts[area.dataset.area][cube.dataset.colour] = parseInt(cube.dataset.count, 10) || 0;
    });
    if (area.dataset.placeWhy) placeWhy[area.dataset.area] = area.dataset.placeWhy;
  });
  const me = document.querySelector(".players .player.me");
  const match = me && me.className.match(/colour-(\w+)/);
  return { counts, placeWhy, own: match ? match[1] : null, texts };
}

// Each form of the panel that the map can fill, as a mode with the form and its fields beside it.
export function findModes(T) {
  const modes = [];
  document.querySelectorAll("#decision form").forEach((form) => {
    const hidden = form.querySelector("input[name=move_form]");
    const kind = hidden && hidden.value;
    const label = kind === "place" ? T("placement") : kind === "special" ? T("special") : "";
    const rows = planRows(form);
    if (rows.length) {
      modes.push({
        type: "plan", form, label, fields: rows,
        sources: optionValues(rows[0].from), destinations: optionValues(rows[0].to),
        colours: optionValues(rows[0].colour), rows: rows.length,
      });
      return;
    }
    const counts = Array.from(form.querySelectorAll("input")).filter((input) =>
      input.type === "number" && COUNT_FIELD.test(input.name) && areaElement(input.name.match(COUNT_FIELD)[2]));
    const selects = Array.from(form.querySelectorAll("select")).filter((s) =>
      SELECT_FIELD.test(s.name) && optionValues(s).some(areaElement));
    if (counts.length || selects.length) {
      selects.forEach((s) => { if (!("mapOriginal" in s.dataset)) s.dataset.mapOriginal = s.value; });
      counts.forEach((i) => { if (!("mapOriginal" in i.dataset)) i.dataset.mapOriginal = i.value; });
      const mode = {
        type: "fields", form, label, place: kind === "place", limit: number(form.dataset.limit),
        inputs: counts, elements: selects, order: form.querySelector("input[type=hidden][name=" + ORDER_FIELD + "]"),
        counts: counts.map((input) => ({
          name: input.name, area: input.name.match(COUNT_FIELD)[2], max: input.max === "" ? null : number(input.max),
        })),
        selects: selects.map((select) => {
          const board = select.name.match(/^mobile-to-(.+)$/);
          const pick = select.name.match(/^picks-(\d+)-region$/);
          const colour = pick && form.querySelector('input[name="picks-' + pick[1] + '-colour"]');
          return {
            name: select.name, options: optionValues(select), board: board ? board[1] : null,
            radio: !!(board && form.querySelector('input[name=scoreboard][value="' + board[1] + '"]')),
            colour: colour ? colour.value : null,
          };
        }),
      };
      readConditions(mode);
      modes.push(mode);
      return;
    }
    const buttons = Array.from(form.querySelectorAll("button[name=move]")).filter((button) => {
      const move = parseMove(button);
      return move && move.region && areaElement(move.region);
    });
    if (buttons.length) modes.push({ type: "choice", form, label, buttons, regions: buttons.map((b) => parseMove(b).region) });
  });
  return modes;
}

// The radios a mode's region fields depend on: an "either" card's option, a mobile scoreboard.
export function readConditions(mode) {
  if (mode.type !== "fields") return;
  const option = mode.form.querySelector("input[name=option]:checked");
  const scoreboard = mode.form.querySelector("input[name=scoreboard]:checked");
  mode.option = option ? option.value : null;
  mode.scoreboard = scoreboard ? scoreboard.value : null;
}

// Two panels ask the same when their forms have the same fields (and the same buttons' moves).
export function modeKey(modes) {
  return modes.map((mode) => mode.type + ":" + Array.from(mode.form.elements)
    .map((e) => e.name + "=" + (e.name === "move" ? e.value : "")).join(",")).join("|");
}

// The composition's values written into the forms' fields (a choice marks its button).
export function fillForms(composition) {
  composition.modes.forEach((mode, index) => {
    const values = composition.values(index);
    if (mode.type === "fields") {
      mode.inputs.forEach((input) => { input.value = values.counts[input.name]; });
      // The order the plan's list shows is the order announced to a veto holder and carried out.
      if (mode.order) mode.order.value = values.order.join(",");
      mode.elements.forEach((select) => {
        const chosen = values.selects[select.name];
        select.value = chosen || select.dataset.mapOriginal;
      });
    } else if (mode.type === "plan") {
      mode.fields.forEach((row, i) => {
        const s = values.plan[i];
        row.from.value = s ? s.from : "";
        row.to.value = s ? s.to : "";
        row.colour.value = s ? s.colour : "";
        if (row.count) row.count.value = s ? s.count : 1;
      });
    } else {
      mode.buttons.forEach((button) => {
        button.classList.toggle("chosen", !!values.choice && parseMove(button).region === values.choice);
      });
    }
  });
}

// A field's label in the label's own words, not the options of the field inside it.
export function fieldLabel(field) {
  const label = field.labels && field.labels[0];
  const text = label
    ? Array.from(label.childNodes).filter((n) => n.nodeType === 3).map((n) => n.textContent).join(" ")
    : field.getAttribute("aria-label") || field.name;
  return text.replace(/\s+/g, " ").trim().split(/[:(]/)[0].slice(0, 40);
}

// While the map composes a form's move, the form's own fields for it (and its own submit button)
// fold away: the map and its Confirm do the same. Fields the map cannot fill stay in view, and so
// does the submit button beside them, unless the map also makes a pick of the form (a region, a
// target): that button would send the folded pick as it stands, unseen.
export function hidePlainFields(modes) {
  const hidden = [];
  modes.forEach((mode) => {
    if (mode.type === "choice") return;
    const mapped = mode.type === "plan"
      ? Array.from(mode.form.elements).filter((e) => PLAN_FIELD.test(e.name))
      : mode.inputs.concat(mode.elements);
    const others = Array.from(mode.form.elements).filter((e) =>
      mapped.indexOf(e) < 0 && e.type !== "hidden" && e.type !== "submit" && e.tagName !== "FIELDSET");
    const containers = [];
    mapped.forEach((field) => {
      const container = field.closest("table") || field.closest("label") || field;
      if (containers.indexOf(container) < 0) containers.push(container);
    });
    // The rows' own instructions go with the rows: the map's box says what to do instead.
    if (mode.type === "plan") mode.form.querySelectorAll(".plan-rows-hint").forEach((hint) => containers.push(hint));
    if (!others.length || (mode.elements || []).length) {
      mode.form.querySelectorAll("button[type=submit]:not([name=move])").forEach((b) => { containers.push(b); });
    }
    containers.forEach((element) => { element.classList.add("map-hidden"); hidden.push(element); });
  });
  return hidden;
}
