// The map's composition model (static/map/model.js) by itself: run by `node --test tests/js/`,
// which tests/test_map_script.py runs in the Python suite.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Composition } from "../../static/map/model.js";

const BOARD = {
  counts: { aragon: { red: 2, blue: 1 }, castillo: { red: 1 }, galicia: {}, basque: { blue: 3 } },
  own: "red",
  placeWhy: { galicia: "Not next to the King." },
};

function placement(limit = 2) {
  return {
    type: "fields", place: true, limit, option: null, scoreboard: null, selects: [],
    counts: [
      { name: "to-aragon", area: "aragon", max: null },
      { name: "to-castillo", area: "castillo", max: 1 },
    ],
  };
}

function plan(rows = 3) {
  return {
    type: "plan", sources: ["aragon", "basque"], destinations: ["aragon", "basque", "galicia"],
    colours: ["red", "blue"], rows,
  };
}

test("a placement counts caballeros up to the form's limit and each field's max", () => {
  const c = new Composition([placement(2)], BOARD);
  assert.equal(c.pick("castillo"), null);
  assert.equal(c.judge("castillo"), "limit", "the Castillo takes one");
  assert.equal(c.pick("castillo"), "limit");
  assert.equal(c.pick("aragon"), null);
  assert.equal(c.judge("aragon"), "limit", "two in all");
  assert.deepEqual(c.values(0).counts, { "to-aragon": 1, "to-castillo": 1 });
  assert.deepEqual(c.changes(), { castillo: { red: 1 }, aragon: { red: 1 } });
});

test("an area no field takes says why: a placement's own reason, or not a target", () => {
  const c = new Composition([placement()], BOARD);
  assert.equal(c.judge("galicia"), "placeWhy");
  assert.equal(c.judge("basque"), "notTarget");
  assert.equal(c.pick("basque"), "notTarget");
  assert.deepEqual(c.planned, [], "a refused pick changes nothing");
  assert.equal(c.canUndo(), false);
});

test("undo takes back the last step, clear empties, and undo brings the cleared steps back", () => {
  const c = new Composition([placement(5)], BOARD);
  c.pick("aragon");
  c.pick("aragon");
  c.pick("castillo");
  assert.equal(c.undo(), true);
  assert.deepEqual(c.values(0).counts, { "to-aragon": 2, "to-castillo": 0 });
  c.clear();
  assert.deepEqual(c.planned, []);
  c.undo();
  assert.equal(c.countOf("to-aragon"), 2);
  c.undo();
  c.undo();
  assert.equal(c.undo(), false, "nothing left to undo");
  assert.deepEqual(c.planned, []);
});

test("a take-back removes the area's last caballero; the list shows a field's counts once", () => {
  const c = new Composition([placement(5)], BOARD);
  c.pick("aragon");
  c.pick("castillo");
  c.pick("aragon");
  assert.deepEqual(c.listed().map((item) => item.step.name), ["to-aragon", "to-castillo"]);
  assert.equal(c.takeBack("aragon"), true);
  assert.equal(c.countOf("to-aragon"), 1);
  assert.equal(c.takeBack("galicia"), false);
  c.remove(c.listed()[0]);
  assert.equal(c.countOf("to-aragon"), 0, "removing a listed count removes all of that field's");
  assert.equal(c.countOf("to-castillo"), 1);
});

test("region fields fill in order, the last one changes once all are set, and a lacking one is named", () => {
  const mode = {
    type: "fields", place: false, limit: null, option: null, scoreboard: null, counts: [],
    selects: [
      { name: "picks-0-region", options: ["aragon", "basque"], board: null, radio: false, colour: "blue" },
      { name: "picks-1-region", options: ["aragon", "basque"], board: null, radio: false, colour: "blue" },
    ],
  };
  const c = new Composition([mode], BOARD);
  assert.deepEqual(c.missing(), { field: "picks-0-region" });
  assert.equal(c.confirmable(), true, "a form of fields goes as it stands and says what lacks");
  c.pick("aragon");
  assert.deepEqual(c.missing(), { field: "picks-1-region" });
  c.pick("basque");
  c.pick("aragon");
  assert.deepEqual(c.values(0).selects, { "picks-0-region": "aragon", "picks-1-region": "aragon" });
  assert.equal(c.missing(), null);
  assert.deepEqual(c.changes(), { aragon: { blue: -2 } }, "each pick takes one of its colour away");
  assert.deepEqual(c.chosenAreas(), ["aragon", "aragon"]);
});

test("a mobile scoreboard's region is asked only for the scoreboard chosen; the court option asks no region", () => {
  const mode = {
    type: "fields", place: false, limit: null, option: null, scoreboard: "8/4/0", counts: [],
    selects: [
      { name: "mobile-to-8/4/0", options: ["aragon"], board: "8/4/0", radio: true, colour: null },
      { name: "mobile-to-6/3/0", options: ["basque"], board: "6/3/0", radio: true, colour: null },
      { name: "region", options: ["galicia"], board: null, radio: false, colour: null },
    ],
  };
  const c = new Composition([mode], BOARD);
  assert.deepEqual(c.activeSelects().map((s) => s.name), ["mobile-to-8/4/0", "region"]);
  assert.equal(c.judge("basque"), "notTarget");
  mode.option = "court";
  assert.deepEqual(c.activeSelects().map((s) => s.name), ["mobile-to-8/4/0"]);
});

test("a plan picks a group, moves it step by step within its rows, and lets go", () => {
  const c = new Composition([plan(3)], BOARD);
  assert.equal(c.judge("galicia"), "notSource");
  assert.equal(c.pick("aragon"), "pickColour", "two colours there: which one?");
  assert.equal(c.pick("aragon", "blue"), null);
  assert.deepEqual(c.picked, { area: "aragon", colour: "blue" });
  assert.equal(c.pick("galicia"), null);
  assert.equal(c.picked, null, "aragon's one blue has gone");
  assert.equal(c.pick("aragon", null, true), null, "by key, the first colour there");
  assert.deepEqual(c.picked, { area: "aragon", colour: "red" });
  c.pick("galicia");
  c.pick("galicia");
  assert.deepEqual(c.values(0).plan, [
    { from: "aragon", to: "galicia", colour: "blue", count: 1 },
    { from: "aragon", to: "galicia", colour: "red", count: 2 },
  ]);
  assert.equal(c.standing("aragon", "red"), 0);
  assert.equal(c.judge("aragon"), "notSource");
  c.pick("basque");
  assert.equal(c.judge("galicia"), "limit", "three caballeros in three rows");
  assert.equal(c.pick("basque"), null, "again on the group: let go");
  assert.equal(c.picked, null);
});

test("a drop onto an area that is no destination is refused and picks nothing", () => {
  const c = new Composition([plan()], { ...BOARD, counts: { ...BOARD.counts, castillo: { red: 1 } } });
  assert.equal(c.drop("basque", "blue", "castillo"), "notDestination");
  assert.equal(c.picked, null);
  assert.equal(c.drop("basque", "blue", "aragon"), null);
  assert.deepEqual(c.changes(), { basque: { blue: -1 }, aragon: { blue: 1 } });
});

test("a choice keeps one region; each mode keeps its own steps and undo", () => {
  const choice = { type: "choice", regions: ["aragon", "basque"] };
  const c = new Composition([placement(), choice], BOARD);
  c.pick("aragon");
  c.switchTo(1);
  assert.deepEqual(c.missing(), { key: "choice" });
  assert.equal(c.confirmable(), false);
  c.pick("aragon");
  c.pick("basque");
  assert.equal(c.values(1).choice, "basque");
  assert.equal(c.judge("galicia"), "notTarget");
  c.undo();
  assert.equal(c.values(1).choice, "aragon");
  c.switchTo(0);
  assert.equal(c.countOf("to-aragon"), 1);
  const kept = c.keep();
  const again = new Composition([placement(), choice], BOARD);
  again.restore(kept);
  assert.equal(again.active, 0);
  assert.equal(again.countOf("to-aragon"), 1);
});

test("a spread's order is the order its list shows: each area where it was first planned", () => {
  // A court spread (or a redistribution: its region's select is no part of the order): the form's
  // "to-order" gets the areas as the list shows them, which is how the steps are announced.
  const spread = {
    type: "fields", place: false, limit: null, option: null, scoreboard: null,
    selects: [{ name: "region", options: ["aragon"], board: null, radio: false, colour: null }],
    counts: [
      { name: "to-galicia", area: "galicia", max: null },
      { name: "to-aragon", area: "aragon", max: null },
      { name: "to-castillo", area: "castillo", max: null },
    ],
  };
  const c = new Composition([spread], BOARD);
  assert.deepEqual(c.values(0).order, []);
  c.pick("aragon"); // the region's select first
  c.pick("castillo");
  c.pick("galicia");
  c.pick("castillo");
  c.pick("aragon");
  assert.deepEqual(c.listed().map((item) => item.step.name), ["region", "to-castillo", "to-galicia", "to-aragon"]);
  assert.deepEqual(c.values(0).order, ["castillo", "galicia", "aragon"]);
  assert.deepEqual(c.values(0).counts, { "to-galicia": 1, "to-aragon": 1, "to-castillo": 2 });
  // The Castillo's caballeros all taken back: the order goes on without it.
  c.takeBack("castillo");
  c.takeBack("castillo");
  assert.deepEqual(c.values(0).order, ["galicia", "aragon"]);
  // A placement's counts have an order too, which its form does not ask.
  const p = new Composition([placement(2)], BOARD);
  p.pick("castillo");
  p.pick("aragon");
  assert.deepEqual(p.values(0).order, ["castillo", "aragon"]);
});
