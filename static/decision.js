// Moves made on the map. The decision panel's plain forms stay the move's one way to the server
// (and the whole of it without JavaScript): this script composes a move on the map, shows it there
// (ghost caballeros where they arrive, faded ones where they leave, counters, a list of the planned
// steps, each removable, the last one undoable), fills the same form fields the forms post, and
// sends nothing until its player presses Confirm. It reads what is legal from the forms themselves
// (their fields and options come from the engine's decision) and the reasons a target is not from
// the map's data attributes; every word it shows comes translated from #map-texts.
(function () {
  "use strict";
  const SVGNS = "http://www.w3.org/2000/svg";
  const COUNT_FIELD = /^(to|from)-(.+)$/;
  const SELECT_FIELD = /^(region|to|mobile-to-.+|picks-\d+-region)$/;
  const PLAN_FIELD = /^plan-(\d+)-(from|to|colour|count)$/;
  const FILLS = { red: "#c62828", yellow: "#f2c80f", blue: "#1e5bb8", green: "#2e7d32", brown: "#7b4f2c" };

  let composer = null; // the composition under way, rebuilt with every new #play
  let kept = null; // {key, mode, history, steps}: kept across a swap that leaves the decision alone
  let drag = null;
  let suppressClick = false;

  function T(name, values) {
    const element = document.getElementById("map-texts");
    let text = (element && element.dataset[name]) || "";
    Object.keys(values || {}).forEach(function (key) { text = text.split("{" + key + "}").join(values[key]); });
    return text;
  }
  function svg() { return document.querySelector("#play svg.map"); }
  function areaElement(id) { const map = svg(); return map && map.querySelector('g.area[data-area="' + id + '"]'); }
  function areaName(id) {
    const area = areaElement(id);
    if (area) return area.dataset.name;
    return id === "court" ? "Court" : id;
  }
  function ownColour() {
    const me = document.querySelector(".players .player.me");
    const match = me && me.className.match(/colour-(\w+)/);
    return match ? match[1] : null;
  }
  function parseMove(button) {
    try { return JSON.parse(button.value); } catch (error) { return null; }
  }
  function optionValues(select) {
    return Array.from(select.options).map(function (o) { return o.value; }).filter(Boolean);
  }
  function fieldLabel(field) {
    const label = field.labels && field.labels[0];
    // The label's own words, not the options of the field inside it.
    const text = label
      ? Array.from(label.childNodes).filter(function (n) { return n.nodeType === 3; }).map(function (n) { return n.textContent; }).join(" ")
      : field.getAttribute("aria-label") || field.name;
    return text.replace(/\s+/g, " ").trim().split(/[:(]/)[0].slice(0, 40);
  }

  // --- what the panel asks for -------------------------------------------------------------------

  // Each form of the panel that the map can fill becomes a mode: "fields" (numbers per area and
  // region fields), "plan" (an Intrigue's rows) or "choice" (buttons that each carry a region).
  function findModes() {
    const modes = [];
    document.querySelectorAll("#decision form").forEach(function (form) {
      const hidden = form.querySelector("input[name=move_form]");
      const label = hidden && hidden.value === "place" ? T("placement") : hidden && hidden.value === "special" ? T("special") : "";
      const plan = Array.from(form.querySelectorAll("select")).filter(function (s) { return PLAN_FIELD.test(s.name); });
      if (plan.length) {
        modes.push({ type: "plan", form: form, label: label });
        return;
      }
      const counts = Array.from(form.querySelectorAll("input")).filter(function (input) {
        return input.type === "number" && COUNT_FIELD.test(input.name) && areaElement(input.name.match(COUNT_FIELD)[2]);
      });
      const selects = Array.from(form.querySelectorAll("select")).filter(function (s) {
        return SELECT_FIELD.test(s.name) && optionValues(s).some(areaElement);
      });
      if (counts.length || selects.length) {
        selects.forEach(function (s) { if (!("mapOriginal" in s.dataset)) s.dataset.mapOriginal = s.value; });
        counts.forEach(function (i) { if (!("mapOriginal" in i.dataset)) i.dataset.mapOriginal = i.value; });
        modes.push({ type: "fields", form: form, label: label, counts: counts, selects: selects });
        return;
      }
      const buttons = Array.from(form.querySelectorAll("button[name=move]")).filter(function (button) {
        const move = parseMove(button);
        return move && move.region && areaElement(move.region);
      });
      if (buttons.length) modes.push({ type: "choice", form: form, label: label, buttons: buttons });
    });
    return modes;
  }

  function modeKey(modes) {
    return modes.map(function (mode) {
      return mode.type + ":" + Array.from(mode.form.elements).map(function (e) { return e.name + "=" + (e.name === "move" ? e.value : ""); }).join(",");
    }).join("|");
  }

  // --- the composition's state -------------------------------------------------------------------

  function mode() { return composer.modes[composer.active]; }
  function steps() { return composer.steps[composer.active]; }
  function record() { composer.history.push({ active: composer.active, steps: JSON.parse(JSON.stringify(steps())) }); }

  function countOf(name) {
    return steps().filter(function (s) { return s.type === "count" && s.name === name; }).length;
  }
  function selectStep(name) {
    const found = steps().filter(function (s) { return s.type === "select" && s.name === name; });
    return found.length ? found[found.length - 1] : null;
  }
  function activeSelects(current) {
    // "Either" cards: with the court option chosen, the region to redistribute is not asked.
    const option = current.form.querySelector("input[name=option]:checked");
    return current.selects.filter(function (select) {
      if (option && option.value === "court" && select.name === "region") return false;
      const board = select.name.match(/^mobile-to-(.+)$/);
      if (!board) return true;
      const radio = current.form.querySelector('input[name=scoreboard][value="' + board[1] + '"]');
      return !radio || radio.checked;
    });
  }
  function limitOf(current) {
    const limit = parseInt(current.form.dataset.limit, 10);
    return isNaN(limit) ? Infinity : limit;
  }
  function countRoom(current, input) {
    const max = input.max === "" ? Infinity : parseInt(input.max, 10);
    const total = steps().filter(function (s) { return s.type === "count"; }).length;
    return countOf(input.name) < max && total < limitOf(current);
  }

  // The plan: how many of a colour stand in an area once the steps so far are carried out.
  function standing(area, colour) {
    const element = areaElement(area);
    const cube = element && element.querySelector('.cube[data-colour="' + colour + '"]');
    let count = cube ? parseInt(cube.dataset.count, 10) || 0 : 0;
    steps().forEach(function (s) {
      if (s.type !== "plan" || s.colour !== colour) return;
      if (s.from === area) count -= s.count;
      if (s.to === area) count += s.count;
    });
    return count;
  }
  function planFields(current) {
    const rows = {};
    current.form.querySelectorAll("select, input").forEach(function (field) {
      const match = field.name.match(PLAN_FIELD);
      if (!match) return;
      rows[match[1]] = rows[match[1]] || {};
      rows[match[1]][match[2]] = field;
    });
    return Object.keys(rows).sort(function (a, b) { return a - b; }).map(function (k) { return rows[k]; });
  }
  function planOptions(current) {
    const first = planFields(current)[0];
    return {
      sources: optionValues(first.from),
      destinations: optionValues(first.to),
      colours: optionValues(first.colour),
      rows: planFields(current).length,
    };
  }
  function movableColours(area) {
    const options = planOptions(mode());
    if (options.sources.indexOf(area) < 0) return [];
    return options.colours.filter(function (colour) { return standing(area, colour) > 0; });
  }
  function planTotal() {
    return steps().reduce(function (sum, s) { return sum + (s.type === "plan" ? s.count : 0); }, 0);
  }

  // Whether an area can be picked now, and if not, why.
  function judge(area) {
    const current = mode();
    const element = areaElement(area);
    if (current.type === "choice") {
      return current.buttons.some(function (b) { return parseMove(b).region === area; }) ? null : T("notTarget");
    }
    if (current.type === "plan") {
      const options = planOptions(current);
      if (composer.picked) {
        if (composer.picked.area === area) return null;
        if (options.destinations.indexOf(area) < 0) return T("notDestination");
        if (planTotal() >= options.rows) return T("limit");
        return null;
      }
      return movableColours(area).length ? null : T("notSource");
    }
    const input = current.counts.find(function (i) { return i.name.match(COUNT_FIELD)[2] === area; });
    const selects = activeSelects(current).filter(function (s) { return optionValues(s).indexOf(area) >= 0; });
    if (selects.length) return null;
    if (input) return countRoom(current, input) ? null : T("limit");
    return (current.form.querySelector("input[name=move_form][value=place]") && element && element.dataset.placeWhy) || T("notTarget");
  }

  // --- picking on the map ------------------------------------------------------------------------

  function pick(area, colour, viaKey) {
    const current = mode();
    const why = judge(area);
    if (why) { say(why); return; }
    if (current.type === "choice") {
      record();
      composer.steps[composer.active] = [{ type: "choice", area: area }];
    } else if (current.type === "fields") {
      const selects = activeSelects(current).filter(function (s) { return optionValues(s).indexOf(area) >= 0; });
      const unset = selects.find(function (s) { return !selectStep(s.name); });
      const input = current.counts.find(function (i) { return i.name.match(COUNT_FIELD)[2] === area; });
      record();
      if (unset) {
        steps().push({ type: "select", name: unset.name, area: area });
      } else if (input && countRoom(current, input)) {
        steps().push({ type: "count", name: input.name, area: area });
      } else {
        // Every field that could take this area has its choice: the last such choice changes.
        const target = selects[selects.length - 1];
        composer.steps[composer.active] = steps().filter(function (s) { return !(s.type === "select" && s.name === target.name); });
        steps().push({ type: "select", name: target.name, area: area });
      }
    } else {
      pickInPlan(area, colour, viaKey);
      return;
    }
    refresh();
  }

  function pickInPlan(area, colour, viaKey) {
    const picked = composer.picked;
    if (picked && picked.area === area) {
      // Again on the group's region: let go, or with the keyboard, the next colour there.
      const colours = movableColours(area);
      const next = colours[colours.indexOf(picked.colour) + 1];
      composer.picked = viaKey && next ? { area: area, colour: next } : null;
      refresh();
      return;
    }
    if (picked) {
      record();
      const last = steps()[steps().length - 1];
      if (last && last.from === picked.area && last.to === area && last.colour === picked.colour) last.count += 1;
      else steps().push({ type: "plan", from: picked.area, to: area, colour: picked.colour, count: 1 });
      if (standing(picked.area, picked.colour) <= 0) composer.picked = null;
      refresh();
      return;
    }
    const colours = movableColours(area);
    if (colour && colours.indexOf(colour) >= 0) composer.picked = { area: area, colour: colour };
    else if (colours.length === 1 || viaKey) composer.picked = { area: area, colour: colours[0] };
    else { say(T("pickColour", { area: areaName(area) })); return; }
    refresh();
  }

  function takeBack(area) {
    const current = mode();
    if (current.type !== "fields") return;
    for (let i = steps().length - 1; i >= 0; i--) {
      if (steps()[i].type === "count" && steps()[i].area === area) {
        record();
        steps().splice(i, 1);
        refresh();
        return;
      }
    }
  }

  // --- writing the form, drawing the map ---------------------------------------------------------

  function fillForm() {
    composer.modes.forEach(function (current, index) {
      const planned = composer.steps[index];
      if (current.type === "fields") {
        current.counts.forEach(function (input) {
          input.value = planned.filter(function (s) { return s.type === "count" && s.name === input.name; }).length;
        });
        current.selects.forEach(function (select) {
          const chosen = planned.filter(function (s) { return s.type === "select" && s.name === select.name; }).pop();
          select.value = chosen ? chosen.area : select.dataset.mapOriginal;
        });
      } else if (current.type === "plan") {
        planFields(current).forEach(function (row, i) {
          const s = planned[i];
          row.from.value = s ? s.from : "";
          row.to.value = s ? s.to : "";
          row.colour.value = s ? s.colour : "";
          if (row.count) row.count.value = s ? s.count : 1;
        });
      } else {
        const chosen = planned[0];
        current.buttons.forEach(function (button) {
          button.classList.toggle("chosen", !!chosen && parseMove(button).region === chosen.area);
        });
      }
    });
  }

  // The arrivals (+) and departures (−) of each colour in each area, as the steps make them.
  function changes() {
    const current = mode();
    const own = ownColour();
    const delta = {};
    function add(area, colour, n) {
      delta[area] = delta[area] || {};
      delta[area][colour] = (delta[area][colour] || 0) + n;
    }
    steps().forEach(function (s) {
      if (s.type === "plan") { add(s.from, s.colour, -s.count); add(s.to, s.colour, s.count); }
      if (s.type === "count") add(s.area, own, s.name.indexOf("to-") === 0 ? 1 : -1);
      if (s.type === "select") {
        const pickColour = s.name.match(/^picks-(\d+)-region$/);
        if (pickColour) {
          const hidden = current.form.querySelector('input[name="picks-' + pickColour[1] + '-colour"]');
          if (hidden) add(s.area, hidden.value, -1);
        }
      }
    });
    return delta;
  }

  function svgElement(name, attributes, parent) {
    const element = document.createElementNS(SVGNS, name);
    Object.keys(attributes).forEach(function (key) { element.setAttribute(key, attributes[key]); });
    if (parent) parent.appendChild(element);
    return element;
  }

  // The box of what an area shows (its name, scoreboard, pieces), in the map's units.
  function contentBox(element) {
    let left = Infinity, top = Infinity, right = -Infinity, bottom = -Infinity;
    Array.from(element.children).forEach(function (child) {
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

  function drawMarks() {
    const map = svg();
    const old = map.querySelector("g.map-marks");
    if (old) old.remove();
    map.querySelectorAll(".cube.leaving, .area.chosen, .area.picked, .cube.picked").forEach(function (e) {
      e.classList.remove("leaving", "chosen", "picked");
    });
    const marks = svgElement("g", { class: "map-marks" }, map);
    const delta = changes();
    Object.keys(delta).forEach(function (area) {
      const element = areaElement(area);
      if (!element) return;
      const box = contentBox(element);
      const arrivals = Object.keys(delta[area]).filter(function (c) { return delta[area][c] > 0; });
      let x = box.x + box.width / 2 - (arrivals.length * 44) / 2 - (mode().type === "fields" ? 14 : 0);
      const y = box.y + box.height + 4; // the ghosts stand in a row under what the area shows
      Object.keys(delta[area]).forEach(function (colour) {
        const n = delta[area][colour];
        if (n < 0) {
          const cube = element.querySelector('.cube[data-colour="' + colour + '"]');
          if (!cube) return;
          cube.classList.add("leaving");
          const r = cube.querySelector("rect");
          const bx = parseFloat(r.getAttribute("x")) + 30, by = parseFloat(r.getAttribute("y")) - 8;
          const badge = svgElement("g", { class: "leave-badge", "data-area": area, "data-colour": colour }, marks);
          svgElement("rect", { x: bx, y: by, width: 34, height: 24, rx: 12 }, badge);
          svgElement("text", { x: bx + 17, y: by + 19 }, badge).textContent = "−" + -n;
        }
      });
      arrivals.forEach(function (colour) {
        const ghost = svgElement("g", { class: "ghost", "data-area": area, "data-colour": colour }, marks);
        svgElement("rect", { x: x, y: y, width: 40, height: 30, rx: 5, fill: FILLS[colour] || "#888" }, ghost);
        svgElement("text", { x: x + 20, y: y + 23 }, ghost).textContent = "+" + delta[area][colour];
        if (mode().type === "fields" && colour === ownColour()) {
          const minus = svgElement("g", { class: "take-back", "data-area": area, role: "button", tabindex: "0",
            "aria-label": T("takeBack", { area: areaName(area) }) }, marks);
          svgElement("circle", { class: "hit", cx: x + 54, cy: y + 15, r: 26 }, minus); // a finger's room
          svgElement("circle", { cx: x + 54, cy: y + 15, r: 15 }, minus);
          svgElement("text", { x: x + 54, y: y + 23 }, minus).textContent = "−";
          svgElement("title", {}, minus).textContent = T("takeBack", { area: areaName(area) });
        }
        x += 44;
      });
    });
    steps().forEach(function (s) {
      if (s.type === "select" || s.type === "choice") {
        const element = areaElement(s.area);
        if (element) element.classList.add("chosen");
      }
    });
    if (composer.picked) {
      const element = areaElement(composer.picked.area);
      element.classList.add("picked");
      const cube = element.querySelector('.cube[data-colour="' + composer.picked.colour + '"]');
      if (cube) cube.classList.add("picked");
    }
    // Which areas may be picked now: highlighted and focusable; the others say why.
    map.querySelectorAll("g.area").forEach(function (element) {
      const why = judge(element.dataset.area);
      element.classList.toggle("target", !why);
      element.classList.toggle("illegal", !!why);
      element.setAttribute("aria-disabled", why ? "true" : "false");
      element.setAttribute("role", "button");
      const title = element.querySelector("title");
      if (!("baseTitle" in element.dataset)) element.dataset.baseTitle = title.textContent;
      title.textContent = element.dataset.baseTitle + (why ? " — " + why : "");
      element.dataset.why = why || "";
      element.querySelectorAll(".cube").forEach(function (cube) {
        cube.classList.toggle("draggable", mode().type === "plan" && !composer.picked
          && movableColours(element.dataset.area).indexOf(cube.dataset.colour) >= 0);
      });
    });
  }

  function stepText(s) {
    if (s.type === "plan") {
      return T("stepMove", { count: s.count, colour: colourName(s.colour), from: areaName(s.from), to: areaName(s.to) });
    }
    if (s.type === "choice") return T("stepChoose", { field: T("choice"), area: areaName(s.area) });
    if (s.type === "select") {
      const select = mode().form.querySelector('[name="' + s.name + '"]');
      return T("stepChoose", { field: fieldLabel(select), area: areaName(s.area) });
    }
    return T("stepCount", { count: countOf(s.name) * (s.name.indexOf("from-") === 0 ? -1 : 1), area: areaName(s.area) });
  }
  function colourName(colour) {
    const option = mode().form.querySelector('select[name$="-colour"] option[value="' + colour + '"]');
    return option ? option.textContent.trim() : colour;
  }

  function say(text) {
    const status = composer && composer.box.querySelector(".map-status");
    if (status) status.textContent = text;
  }

  function missing() {
    const current = mode();
    if (current.type === "choice") return steps().length ? "" : T("choice");
    if (current.type === "plan") return steps().length ? "" : T("empty");
    // A region field the map has not filled is lacking: it stands on "— choose —", which the form
    // refuses (games/moves/moves_forms.py), folded away where the player would not see why.
    const unset = activeSelects(current).find(function (s) {
      return !selectStep(s.name) && optionValues(s).length > 0;
    });
    return unset ? fieldLabel(unset) : "";
  }

  function refresh() {
    fillForm();
    drawMarks();
    const box = composer.box;
    box.querySelectorAll(".map-modes button").forEach(function (button, index) {
      button.setAttribute("aria-pressed", index === composer.active ? "true" : "false");
    });
    composer.modes.forEach(function (current, index) { current.form.classList.toggle("map-active", index === composer.active); });
    const list = box.querySelector(".map-steps");
    list.textContent = "";
    const shown = [];
    steps().forEach(function (s, index) {
      if (s.type === "count" && shown.indexOf(s.name) >= 0) return;
      shown.push(s.name);
      const item = document.createElement("li");
      const text = stepText(s);
      item.appendChild(document.createTextNode(text + " "));
      const remove = document.createElement("button");
      remove.type = "button";
      remove.className = "remove-step";
      remove.textContent = "×";
      remove.title = T("remove") + ": " + text;
      remove.setAttribute("aria-label", remove.title);
      remove.addEventListener("click", function () {
        record();
        composer.steps[composer.active] = steps().filter(function (other, i) {
          return s.type === "count" ? !(other.type === "count" && other.name === s.name) : i !== index;
        });
        refresh();
      });
      item.appendChild(remove);
      list.appendChild(item);
    });
    if (!steps().length) {
      const item = document.createElement("li");
      item.className = "empty";
      item.textContent = T("empty");
      list.appendChild(item);
    }
    box.querySelector(".map-undo").disabled = !composer.history.some(function (h) { return h.active === composer.active; });
    box.querySelector(".map-clear").disabled = !steps().length;
    const lacking = missing();
    const confirm = box.querySelector(".map-confirm");
    confirm.disabled = !!lacking && mode().type !== "fields";
    confirm.dataset.lacking = lacking;
    let hint = T("pickTarget");
    if (mode().type === "plan") {
      hint = composer.picked
        ? T("pickDestination", { colour: colourName(composer.picked.colour), area: areaName(composer.picked.area) })
        : T("pickGroup");
    }
    say(hint);
    kept = { key: composer.key, active: composer.active, steps: composer.steps, history: composer.history };
  }

  function confirm() {
    const current = mode();
    const lacking = missing();
    if (lacking) { say(T("incomplete", { what: lacking })); return; }
    fillForm();
    // Sent: a later decision with the same fields starts afresh, whatever the answer.
    kept = null;
    if (current.type === "choice") {
      const button = current.buttons.find(function (b) { return parseMove(b).region === steps()[0].area; });
      button.dataset.confirmed = "1";
      button.click();
      return;
    }
    if (current.form.requestSubmit) current.form.requestSubmit();
    else current.form.submit();
  }

  function button(text, className, handler) {
    const element = document.createElement("button");
    element.type = "button";
    element.className = className;
    element.textContent = text;
    element.addEventListener("click", handler);
    return element;
  }

  // While the map composes a form's move, the form's own fields for it (and its own submit button)
  // fold away: the map and its Confirm do the same. Fields the map cannot fill stay in view, and so
  // does the submit button beside them, unless the map also makes a pick of the form (a region, a
  // target): that button would send the folded pick as it stands, unseen. A button of the composer
  // unfolds them again.
  function hidePlainFields(modes) {
    const hidden = [];
    modes.forEach(function (current) {
      if (current.type === "choice") return;
      const mapped = current.type === "plan"
        ? Array.from(current.form.elements).filter(function (e) { return PLAN_FIELD.test(e.name); })
        : current.counts.concat(current.selects);
      const others = Array.from(current.form.elements).filter(function (e) {
        return mapped.indexOf(e) < 0 && e.type !== "hidden" && e.type !== "submit" && e.tagName !== "FIELDSET";
      });
      const containers = [];
      mapped.forEach(function (field) {
        const container = field.closest("table") || field.closest("label") || field;
        if (containers.indexOf(container) < 0) containers.push(container);
      });
      if (!others.length || (current.selects || []).length) {
        current.form.querySelectorAll("button[type=submit]:not([name=move])").forEach(function (b) { containers.push(b); });
      }
      containers.forEach(function (element) { element.classList.add("map-hidden"); hidden.push(element); });
    });
    return hidden;
  }

  function build() {
    composer = null;
    const map = svg();
    if (!map) return;
    const modes = findModes();
    if (!modes.length) { kept = null; return; }
    const key = modeKey(modes);
    if (kept && kept.key !== key) kept = null;
    const box = document.createElement("div");
    box.className = "map-compose";
    box.setAttribute("role", "region");
    box.setAttribute("aria-label", T("compose"));
    if (modes.length > 1) {
      const switcher = document.createElement("div");
      switcher.className = "map-modes";
      switcher.setAttribute("role", "group");
      modes.forEach(function (current, index) {
        switcher.appendChild(button(current.label || String(index + 1), "map-mode", function () {
          composer.active = index;
          composer.picked = null;
          refresh();
        }));
      });
      box.appendChild(switcher);
    }
    const status = document.createElement("p");
    status.className = "map-status";
    status.setAttribute("aria-live", "polite");
    box.appendChild(status);
    const list = document.createElement("ol");
    list.className = "map-steps";
    box.appendChild(list);
    const actions = document.createElement("div");
    actions.className = "map-actions";
    actions.appendChild(button(T("undo"), "map-undo", function () {
      for (let i = composer.history.length - 1; i >= 0; i--) {
        if (composer.history[i].active === composer.active) {
          composer.steps[composer.active] = composer.history.splice(i, 1)[0].steps;
          composer.picked = null;
          refresh();
          return;
        }
      }
    }));
    actions.appendChild(button(T("clear"), "map-clear", function () {
      record();
      composer.steps[composer.active] = [];
      composer.picked = null;
      refresh();
    }));
    actions.appendChild(button(T("confirm"), "map-confirm primary", confirm));
    box.appendChild(actions);
    const plain = hidePlainFields(modes);
    if (plain.length) {
      const toggle = button(T("showForm"), "map-show-form", function () {
        const shown = toggle.getAttribute("aria-expanded") === "true";
        plain.forEach(function (element) { element.classList.toggle("map-hidden", shown); });
        toggle.setAttribute("aria-expanded", shown ? "false" : "true");
        toggle.textContent = shown ? T("showForm") : T("hideForm");
      });
      toggle.setAttribute("aria-expanded", "false");
      actions.appendChild(toggle);
    }
    map.parentNode.insertBefore(box, map);
    composer = { key: key, modes: modes, active: 0, steps: modes.map(function () { return []; }), history: [], picked: null, box: box };
    if (kept && kept.key === key) {
      composer.active = kept.active;
      composer.steps = kept.steps;
      composer.history = kept.history;
    }
    map.classList.add("composing");
    refresh();
  }

  // --- events ------------------------------------------------------------------------------------

  function areaOf(target) {
    const element = target.closest && target.closest("svg.map g.area");
    return element ? element.dataset.area : null;
  }

  document.addEventListener("click", function (event) {
    if (!composer) return;
    if (suppressClick) { suppressClick = false; return; }
    const minus = event.target.closest && event.target.closest("svg.map .take-back");
    if (minus) { takeBack(minus.dataset.area); return; }
    const area = areaOf(event.target);
    if (!area) return;
    const cube = event.target.closest(".cube");
    pick(area, cube ? cube.dataset.colour : null, false);
  });

  document.addEventListener("contextmenu", function (event) {
    if (!composer || mode().type !== "fields") return;
    const area = areaOf(event.target);
    if (!area || !countOf("to-" + area)) return;
    event.preventDefault();
    takeBack(area);
  });

  document.addEventListener("keydown", function (event) {
    if (!composer || (event.key !== "Enter" && event.key !== " ")) return;
    const minus = event.target.closest && event.target.closest("svg.map .take-back");
    if (minus) { event.preventDefault(); takeBack(minus.dataset.area); return; }
    if (!event.target.matches || !event.target.matches("svg.map g.area")) return;
    event.preventDefault();
    pick(event.target.dataset.area, null, true);
  });

  // Drag a group of caballeros to its destination (an Intrigue's plan), where pointers allow.
  document.addEventListener("pointerdown", function (event) {
    if (!composer || mode().type !== "plan" || composer.picked) return;
    const cube = event.target.closest && event.target.closest("svg.map .cube.draggable");
    if (!cube) return;
    drag = { area: areaOf(cube), colour: cube.dataset.colour, x: event.clientX, y: event.clientY, moved: false };
  });
  document.addEventListener("pointermove", function (event) {
    if (!drag) return;
    if (Math.abs(event.clientX - drag.x) + Math.abs(event.clientY - drag.y) > 12) {
      drag.moved = true;
      svg().classList.add("dragging");
    }
  });
  document.addEventListener("pointerup", function (event) {
    if (!drag) return;
    const started = drag;
    drag = null;
    svg().classList.remove("dragging");
    if (!started.moved) return;
    const under = document.elementFromPoint(event.clientX, event.clientY);
    const area = under && areaOf(under);
    suppressClick = true;
    setTimeout(function () { suppressClick = false; }, 0);
    if (!area || area === started.area) return;
    composer.picked = { area: started.area, colour: started.colour };
    if (judge(area)) { say(judge(area)); composer.picked = null; refresh(); return; }
    pickInPlan(area, null, false);
  });

  // A button of the panel that carries a whole decision (a bid, an action card, declining the special
  // action, going on without placing, a veto's answer) is chosen by its first click (or Enter/Space)
  // and sent only by the Confirm that then appears after its form's choices: a stray click or tap
  // sends nothing. The chosen button pressed again lets the choice go. A secret region is chosen on
  // the map and sent by the map's Confirm.
  const CONFIRMED_KINDS = ["bid", "take_card", "decline", "place", "veto", "allow"];

  function letGo(panel) {
    panel.querySelectorAll("button.chosen[name=move]").forEach(function (b) {
      b.classList.remove("chosen");
      b.setAttribute("aria-pressed", "false");
    });
    panel.querySelectorAll(".decision-confirm, .decision-hint").forEach(function (e) { e.remove(); });
  }

  function choose(chosen, move) {
    const form = chosen.form;
    letGo(chosen.closest("#decision") || form);
    chosen.classList.add("chosen");
    chosen.setAttribute("aria-pressed", "true");
    // The bid keeps its own class (and words) for the tests and styles that know it.
    const send = button("", "decision-confirm primary" + (move.type === "bid" ? " bid-confirm" : ""), function () {
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

  document.addEventListener("click", function (event) {
    const chosen = event.target.closest && event.target.closest("#decision form button[name=move]");
    if (!chosen || chosen.dataset.confirmed === "1") return;
    const move = parseMove(chosen);
    if (!move) return;
    if (CONFIRMED_KINDS.indexOf(move.type) >= 0) {
      event.preventDefault();
      if (chosen.classList.contains("chosen")) letGo(chosen.closest("#decision") || chosen.form);
      else choose(chosen, move);
      return;
    }
    if (move.region && composer && areaElement(move.region)) {
      const index = composer.modes.findIndex(function (m) { return m.type === "choice" && m.form === chosen.form; });
      if (index < 0) return;
      event.preventDefault();
      composer.active = index;
      pick(move.region, null, false);
    }
  }, true);

  // Without JavaScript a tick guards the forms above (templates/games/partials/noscript_confirm.html).
  // htmx parses what it swaps in with scripting off, so the <noscript> of a new panel comes in as real,
  // hidden, required fields that would block every send: they go as soon as they arrive.
  document.body.addEventListener("htmx:load", function () {
    document.querySelectorAll("#decision .noscript-confirm").forEach(function (e) { e.remove(); });
  });

  // After the settling: htmx puts back the server's attributes of elements with ids (the areas)
  // when it settles, which would wipe what the map marks on them during the swap.
  document.body.addEventListener("htmx:afterSettle", function (event) {
    const target = event.detail.target;
    if (target.id === "play" || (target.closest && target.closest("#play"))) build();
  });
  document.body.addEventListener("change", function (event) {
    if (composer && (event.target.name === "scoreboard" || event.target.name === "option")) refresh();
  });
  build();
})();
