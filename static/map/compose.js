// The composer's box above the map: the modes to switch between, what to do next, the list of
// planned steps (each removable), Undo, Clear, Confirm and the plain fields' toggle. It holds the
// composition under way (rebuilt with every new #play) and keeps it across a swap that leaves the
// decision alone.

import { Composition } from "./model.js";
import { drawMarks } from "./draw.js";
import {
  areaElement, fieldLabel, fillForms, findModes, hidePlainFields, modeKey, parseMove, readBoard, readConditions, svg,
} from "./form.js";

// Every word shown comes translated from #map-texts, with {name} placeholders.
export function T(name, values) {
  const element = document.getElementById("map-texts");
  let text = (element && element.dataset[name]) || "";
  Object.keys(values || {}).forEach((key) => { text = text.split("{" + key + "}").join(values[key]); });
  return text;
}

export function areaName(id) {
  const area = areaElement(id);
  if (area) return area.dataset.name;
  return id === "court" ? "Court" : id;
}

function button(text, className, handler) {
  const element = document.createElement("button");
  element.type = "button";
  element.className = className;
  element.textContent = text;
  element.addEventListener("click", handler);
  return element;
}

export class Composer {
  constructor() {
    this.composition = null;
    this.box = null;
    this.kept = null; // {key, ...composition.keep()}
  }

  get active() { return !!this.composition; }

  build() {
    this.composition = null;
    document.documentElement.style.scrollPaddingBottom = "";
    const map = svg();
    if (!map) return;
    const modes = findModes(T);
    if (!modes.length) { this.kept = null; return; }
    const key = modeKey(modes);
    const composition = new Composition(modes, readBoard());
    if (this.kept && this.kept.key === key) composition.restore(this.kept);
    else this.kept = null;
    this.box = this.makeBox(modes);
    // After the map, sticky at the window's foot (static/board.css): it covers no part of the map's top.
    map.after(this.box);
    this.key = key;
    this.composition = composition;
    map.classList.add("composing");
    this.refresh();
  }

  makeBox(modes) {
    const box = document.createElement("div");
    box.className = "map-compose";
    box.setAttribute("role", "region");
    box.setAttribute("aria-label", T("compose"));
    if (modes.length > 1) {
      const switcher = document.createElement("div");
      switcher.className = "map-modes";
      switcher.setAttribute("role", "group");
      modes.forEach((mode, index) => {
        switcher.appendChild(button(mode.label || String(index + 1), "map-mode", () => {
          this.composition.switchTo(index);
          this.refresh();
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
    actions.appendChild(button(T("undo"), "map-undo", () => { if (this.composition.undo()) this.refresh(); }));
    actions.appendChild(button(T("clear"), "map-clear", () => { this.composition.clear(); this.refresh(); }));
    actions.appendChild(button(T("confirm"), "map-confirm primary", () => this.confirm()));
    box.appendChild(actions);
    const plain = hidePlainFields(modes);
    if (plain.length) {
      const toggle = button(T("showForm"), "map-show-form", () => {
        const shown = toggle.getAttribute("aria-expanded") === "true";
        plain.forEach((element) => element.classList.toggle("map-hidden", shown));
        toggle.setAttribute("aria-expanded", shown ? "false" : "true");
        toggle.textContent = shown ? T("showForm") : T("hideForm");
      });
      toggle.setAttribute("aria-expanded", "false");
      actions.appendChild(toggle);
    }
    return box;
  }

  say(text) {
    const status = this.box && this.box.querySelector(".map-status");
    if (status) status.textContent = text;
  }

  // A key of the model's (the reason an area cannot be picked, a question) in words.
  tell(key, area) {
    if (key === "placeWhy") this.say(areaElement(area).dataset.placeWhy);
    else this.say(T(key, { area: areaName(area) }));
  }

  pick(area, colour, viaKey) {
    const said = this.composition.pick(area, colour, viaKey);
    if (said) this.tell(said, area);
    else this.refresh();
  }

  takeBack(area) {
    if (this.composition.takeBack(area)) this.refresh();
  }

  drop(from, colour, to) {
    const said = this.composition.drop(from, colour, to);
    if (said) {
      this.tell(said, to);
      if (said !== "pickColour") this.refresh(true);
    } else {
      this.refresh();
    }
  }

  colourName(colour) {
    const option = this.composition.mode.form.querySelector('select[name$="-colour"] option[value="' + colour + '"]');
    return option ? option.textContent.trim() : colour;
  }

  stepText(s) {
    if (s.type === "plan") {
      return T("stepMove", { count: s.count, colour: this.colourName(s.colour), from: areaName(s.from), to: areaName(s.to) });
    }
    if (s.type === "choice") return T("stepChoose", { field: T("choice"), area: areaName(s.area) });
    if (s.type === "select") {
      const select = this.composition.mode.form.querySelector('[name="' + s.name + '"]');
      return T("stepChoose", { field: fieldLabel(select), area: areaName(s.area) });
    }
    const sign = s.name.indexOf("from-") === 0 ? -1 : 1;
    return T("stepCount", { count: this.composition.countOf(s.name) * sign, area: areaName(s.area) });
  }

  lacking() {
    const missing = this.composition.missing();
    if (!missing) return "";
    if (missing.key) return T(missing.key);
    return fieldLabel(this.composition.mode.form.querySelector('[name="' + missing.field + '"]'));
  }

  // Everything drawn again from the composition; `keepWords` leaves the status as it is.
  refresh(keepWords) {
    const composition = this.composition;
    composition.modes.forEach(readConditions);
    fillForms(composition);
    drawMarks(composition, T, areaName);
    const box = this.box;
    box.querySelectorAll(".map-modes button").forEach((b, index) => {
      b.setAttribute("aria-pressed", index === composition.active ? "true" : "false");
    });
    composition.modes.forEach((mode, index) => mode.form.classList.toggle("map-active", index === composition.active));
    const list = box.querySelector(".map-steps");
    list.textContent = "";
    composition.listed().forEach((item) => {
      const entry = document.createElement("li");
      const text = this.stepText(item.step);
      entry.appendChild(document.createTextNode(text + " "));
      const remove = button("×", "remove-step", () => { composition.remove(item); this.refresh(); });
      remove.title = T("remove") + ": " + text;
      remove.setAttribute("aria-label", remove.title);
      entry.appendChild(remove);
      list.appendChild(entry);
    });
    if (!composition.planned.length) {
      const entry = document.createElement("li");
      entry.className = "empty";
      entry.textContent = T("empty");
      list.appendChild(entry);
    }
    box.querySelector(".map-undo").disabled = !composition.canUndo();
    box.querySelector(".map-clear").disabled = !composition.planned.length;
    const confirm = box.querySelector(".map-confirm");
    confirm.disabled = !composition.confirmable();
    delete confirm.dataset.armed;
    delete confirm.dataset.armedOther;
    confirm.dataset.lacking = this.lacking();
    if (!keepWords) {
      let hint = T("pickTarget");
      if (composition.mode.type === "plan") {
        const picked = composition.picked;
        hint = picked
          ? T("pickDestination", { colour: this.colourName(picked.colour), area: areaName(picked.area) })
          : T("pickGroup");
      }
      this.say(hint);
    }
    this.kept = { key: this.key, ...composition.keep() };
    // What scrolls into view (a focused area, a found one) stops above the box at the window's foot.
    document.documentElement.style.scrollPaddingBottom = box.getBoundingClientRect().height + 8 + "px";
  }

  confirm() {
    const composition = this.composition;
    const mode = composition.mode;
    const lacking = this.lacking();
    if (lacking) { this.say(T("incomplete", { what: lacking })); return; }
    // A placement with nothing planned gives up the whole placement: a lone tap on Confirm (the box
    // sticks at the window's foot, under the thumb) asks once more before it sends that.
    const button = this.box.querySelector(".map-confirm");
    if (mode.type === "fields" && mode.place && !composition.planned.length && button.dataset.armed !== "1") {
      button.dataset.armed = "1";
      this.say(T("confirmNothing"));
      return;
    }
    // Confirm sends the mode shown alone: steps planned in another (a placement planned, then the
    // special action's tab opened and confirmed) would be dropped without a word. Asked once first.
    const other = composition.modes.find((m, index) => index !== composition.active && composition.steps[index].length);
    if (other && button.dataset.armedOther !== "1") {
      button.dataset.armedOther = "1";
      this.say(T("otherPlanned", { mode: other.label }));
      return;
    }
    fillForms(composition);
    // The placement of none, asked twice above, goes with the form's own tick for it (the server
    // refuses a placement of all zeros without it).
    const none = mode.form.querySelector("input[name=place_none]");
    if (none) none.checked = mode.type === "fields" && !!mode.place && !composition.planned.length;
    // Sent: a later decision with the same fields starts afresh, whatever the answer.
    this.kept = null;
    if (mode.type === "choice") {
      const chosen = composition.values(composition.active).choice;
      const sent = mode.buttons.find((b) => parseMove(b).region === chosen);
      sent.dataset.confirmed = "1";
      sent.click();
      return;
    }
    if (mode.form.requestSubmit) mode.form.requestSubmit();
    else mode.form.submit();
  }

  // A region button of the panel clicked: the map picks its region instead (then Confirm sends).
  pickButton(chosen, move) {
    const index = this.composition.modes.findIndex((m) => m.type === "choice" && m.form === chosen.form);
    if (index < 0) return false;
    this.composition.active = index;
    this.pick(move.region, null, false);
    return true;
  }
}
