// The composition of a move on the map, apart from any page: which areas may be picked and why not,
// the steps planned (per form of the panel), their limits and their undo. It knows the forms only
// as plain descriptions (static/map/form.js reads them) and says why in keys that the page turns
// into translated words. Tested by itself with Node: static/map/model.test.js.

// A mode is one form of the panel that the map can fill:
//   {type: "choice", regions: [area]}: buttons that each carry a region;
//   {type: "fields", place, limit, counts: [{name, area, max}], selects: [{name, options, board,
//    radio, colour}], option, scoreboard}: numbers per area and region fields;
//   {type: "plan", sources, destinations, colours, rows}: an Intrigue's rows.
// The board: {counts: {area: {colour: n}}, own: colour, placeWhy: {area: words}}.

function copy(value) {
  return JSON.parse(JSON.stringify(value));
}

export class Composition {
  constructor(modes, board) {
    this.modes = modes;
    this.board = board;
    this.active = 0;
    this.steps = modes.map(() => []);
    this.history = [];
    this.picked = null; // a plan's group picked up: {area, colour}
  }

  get mode() { return this.modes[this.active]; }
  get planned() { return this.steps[this.active]; }

  // What survives a new panel that asks the same; `restore` takes it back.
  keep() { return { active: this.active, steps: this.steps, history: this.history }; }
  restore(kept) {
    this.active = kept.active;
    this.steps = kept.steps;
    this.history = kept.history;
  }

  switchTo(index) {
    this.active = index;
    this.picked = null;
  }

  record() { this.history.push({ active: this.active, steps: copy(this.planned) }); }

  canUndo() { return this.history.some((h) => h.active === this.active); }

  undo() {
    for (let i = this.history.length - 1; i >= 0; i--) {
      if (this.history[i].active === this.active) {
        this.steps[this.active] = this.history.splice(i, 1)[0].steps;
        this.picked = null;
        return true;
      }
    }
    return false;
  }

  clear() {
    this.record();
    this.steps[this.active] = [];
    this.picked = null;
  }

  countOf(name) {
    return this.planned.filter((s) => s.type === "count" && s.name === name).length;
  }

  selectStep(name) {
    const found = this.planned.filter((s) => s.type === "select" && s.name === name);
    return found.length ? found[found.length - 1] : null;
  }

  // The region fields asked now: with an "either" card's court option, the region to redistribute is
  // not; a mobile scoreboard's region only for the scoreboard chosen.
  activeSelects(mode = this.mode) {
    return mode.selects.filter((select) => {
      if (mode.option === "court" && select.name === "region") return false;
      if (!select.board || !select.radio) return true;
      return mode.scoreboard === select.board;
    });
  }

  countRoom(input) {
    const limit = this.mode.limit ?? Infinity;
    const max = input.max ?? Infinity;
    const total = this.planned.filter((s) => s.type === "count").length;
    return this.countOf(input.name) < max && total < limit;
  }

  // How many of a colour stand in an area once the steps so far are carried out.
  standing(area, colour) {
    let count = (this.board.counts[area] || {})[colour] || 0;
    this.planned.forEach((s) => {
      if (s.type !== "plan" || s.colour !== colour) return;
      if (s.from === area) count -= s.count;
      if (s.to === area) count += s.count;
    });
    return count;
  }

  movableColours(area) {
    const mode = this.mode;
    if (mode.type !== "plan" || mode.sources.indexOf(area) < 0) return [];
    return mode.colours.filter((colour) => this.standing(area, colour) > 0);
  }

  planTotal() {
    return this.planned.reduce((sum, s) => sum + (s.type === "plan" ? s.count : 0), 0);
  }

  // Whether an area can be picked now: null, or the key of the reason why not.
  judge(area) {
    const mode = this.mode;
    if (mode.type === "choice") return mode.regions.indexOf(area) >= 0 ? null : "notTarget";
    if (mode.type === "plan") {
      if (this.picked) {
        if (this.picked.area === area) return null;
        if (mode.destinations.indexOf(area) < 0) return "notDestination";
        if (this.planTotal() >= mode.rows) return "limit";
        return null;
      }
      return this.movableColours(area).length ? null : "notSource";
    }
    const input = mode.counts.find((i) => i.area === area);
    if (this.activeSelects().some((s) => s.options.indexOf(area) >= 0)) return null;
    if (input) return this.countRoom(input) ? null : "limit";
    return mode.place && (this.board.placeWhy || {})[area] ? "placeWhy" : "notTarget";
  }

  // A pick of an area (a caballero's colour in it, if one was clicked): null when taken, or the key
  // of what to tell the player.
  pick(area, colour, viaKey) {
    const mode = this.mode;
    const why = this.judge(area);
    if (why) return why;
    if (mode.type === "plan") return this.pickInPlan(area, colour, viaKey);
    if (mode.type === "choice") {
      this.record();
      this.steps[this.active] = [{ type: "choice", area }];
      return null;
    }
    const selects = this.activeSelects().filter((s) => s.options.indexOf(area) >= 0);
    const unset = selects.find((s) => !this.selectStep(s.name));
    const input = mode.counts.find((i) => i.area === area);
    this.record();
    if (unset) {
      this.planned.push({ type: "select", name: unset.name, area });
    } else if (input && this.countRoom(input)) {
      this.planned.push({ type: "count", name: input.name, area });
    } else {
      // Every field that could take this area has its choice: the last such choice changes.
      const target = selects[selects.length - 1];
      this.steps[this.active] = this.planned.filter((s) => !(s.type === "select" && s.name === target.name));
      this.planned.push({ type: "select", name: target.name, area });
    }
    return null;
  }

  pickInPlan(area, colour, viaKey) {
    const picked = this.picked;
    if (picked && picked.area === area) {
      // Again on the group's region: let go, or with the keyboard, the next colour there.
      const colours = this.movableColours(area);
      const next = colours[colours.indexOf(picked.colour) + 1];
      this.picked = viaKey && next ? { area, colour: next } : null;
      return null;
    }
    if (picked) {
      this.record();
      const last = this.planned[this.planned.length - 1];
      if (last && last.from === picked.area && last.to === area && last.colour === picked.colour) last.count += 1;
      else this.planned.push({ type: "plan", from: picked.area, to: area, colour: picked.colour, count: 1 });
      if (this.standing(picked.area, picked.colour) <= 0) this.picked = null;
      return null;
    }
    const colours = this.movableColours(area);
    if (colour && colours.indexOf(colour) >= 0) this.picked = { area, colour };
    else if (colours.length === 1 || viaKey) this.picked = { area, colour: colours[0] };
    else return "pickColour";
    return null;
  }

  // A group dragged from one area to another (a plan's step): null when taken, or why not.
  drop(from, colour, to) {
    this.picked = { area: from, colour };
    const why = this.judge(to);
    if (why) {
      this.picked = null;
      return why;
    }
    return this.pickInPlan(to, null, false);
  }

  // The last caballero added to an area taken back: whether there was one.
  takeBack(area) {
    if (this.mode.type !== "fields") return false;
    for (let i = this.planned.length - 1; i >= 0; i--) {
      if (this.planned[i].type === "count" && this.planned[i].area === area) {
        this.record();
        this.planned.splice(i, 1);
        return true;
      }
    }
    return false;
  }

  // The steps as the list shows them: the counts of one field together, each with its index.
  listed() {
    const shown = [];
    const items = [];
    this.planned.forEach((step, index) => {
      if (step.type === "count" && shown.indexOf(step.name) >= 0) return;
      shown.push(step.name);
      items.push({ step, index });
    });
    return items;
  }

  remove(item) {
    this.record();
    const { step, index } = item;
    this.steps[this.active] = this.planned.filter((other, i) =>
      step.type === "count" ? !(other.type === "count" && other.name === step.name) : i !== index);
  }

  // The arrivals (+) and departures (−) of each colour in each area, as the steps make them.
  changes() {
    const mode = this.mode;
    const delta = {};
    const add = (area, colour, n) => {
      delta[area] = delta[area] || {};
      delta[area][colour] = (delta[area][colour] || 0) + n;
    };
    this.planned.forEach((s) => {
      if (s.type === "plan") {
        add(s.from, s.colour, -s.count);
        add(s.to, s.colour, s.count);
      }
      if (s.type === "count") add(s.area, this.board.own, s.name.indexOf("to-") === 0 ? 1 : -1);
      if (s.type === "select") {
        const select = mode.selects && mode.selects.find((field) => field.name === s.name);
        if (select && select.colour) add(s.area, select.colour, -1);
      }
    });
    return delta;
  }

  // What the move still lacks: null, {key} or {field: name} (a region field left on "— choose —",
  // which the form refuses).
  missing() {
    const mode = this.mode;
    if (mode.type === "choice") return this.planned.length ? null : { key: "choice" };
    if (mode.type === "plan") return this.planned.length ? null : { key: "empty" };
    const unset = this.activeSelects().find((s) => !this.selectStep(s.name) && s.options.length > 0);
    return unset ? { field: unset.name } : null;
  }

  // Whether Confirm may be pressed: a form of numbers goes as it stands (the form says what lacks).
  confirmable() {
    return !this.missing() || this.mode.type === "fields";
  }

  // The values of a mode's fields as its steps make them: {counts: {name: n}, order: [area],
  // selects: {name: area or null}, plan: [{from, to, colour, count}], choice: area or null}.
  // `order`: the areas of the "to-" counts in the order the list shows them (`listed`: each field's
  // counts where it was first planned), the order a redistribution or a court spread is announced
  // and carried out in (the form's "to-order").
  values(index) {
    const mode = this.modes[index];
    const planned = this.steps[index];
    const values = { counts: {}, order: [], selects: {}, plan: [], choice: null };
    if (mode.type === "fields") {
      mode.counts.forEach((input) => {
        values.counts[input.name] = planned.filter((s) => s.type === "count" && s.name === input.name).length;
      });
      planned.forEach((s) => {
        if (s.type !== "count" || s.name.indexOf("to-") !== 0 || values.order.indexOf(s.area) >= 0) return;
        if (mode.counts.some((input) => input.name === s.name)) values.order.push(s.area);
      });
      mode.selects.forEach((select) => {
        const chosen = planned.filter((s) => s.type === "select" && s.name === select.name).pop();
        values.selects[select.name] = chosen ? chosen.area : null;
      });
    } else if (mode.type === "plan") {
      values.plan = planned.map((s) => ({ from: s.from, to: s.to, colour: s.colour, count: s.count }));
    } else {
      values.choice = planned.length ? planned[0].area : null;
    }
    return values;
  }

  // The areas chosen by a region field or a choice: marked on the map.
  chosenAreas() {
    return this.planned.filter((s) => s.type === "select" || s.type === "choice").map((s) => s.area);
  }
}
