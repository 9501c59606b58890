// The decision panel's small helpers: clicking an area on the map fills the panel's current field.
// Forms declare what a click means with data-map: "count" adds one caballero to that area's
// number field, "select" sets the region field last used (or the first), "button" picks the
// matching choice button. Plain form fields stay the way to do everything without a mouse.
(function () {
  "use strict";
  let activeForm = null;
  let activeSelect = null;

  function panelForms() {
    return Array.from(document.querySelectorAll("#decision form[data-map]"));
  }

  document.addEventListener("focusin", function (event) {
    const form = event.target.closest("#decision form[data-map]");
    if (!form) return;
    activeForm = form;
    if (event.target.matches("select[data-area-select]")) activeSelect = event.target;
  });

  function currentForm() {
    if (activeForm && document.body.contains(activeForm)) return activeForm;
    return panelForms()[0] || null;
  }

  function total(form) {
    return Array.from(form.querySelectorAll("input[data-area-count]"))
      .reduce(function (sum, input) { return sum + (parseInt(input.value, 10) || 0); }, 0);
  }

  function flash(element) {
    element.classList.add("filled");
    setTimeout(function () { element.classList.remove("filled"); }, 600);
  }

  function fill(form, area) {
    const mode = form.dataset.map;
    if (mode === "count") {
      const input = form.querySelector('input[data-area-count="' + area + '"]');
      if (!input) return false;
      const limit = parseInt(form.dataset.limit, 10);
      const max = input.max === "" ? Infinity : parseInt(input.max, 10);
      const value = parseInt(input.value, 10) || 0;
      if (value >= max || (!isNaN(limit) && total(form) >= limit)) return false;
      input.value = value + 1;
      flash(input);
      return true;
    }
    if (mode === "button") {
      const button = form.querySelector('button[data-area-button="' + area + '"]');
      if (!button) return false;
      form.querySelectorAll("button.chosen").forEach(function (b) { b.classList.remove("chosen"); });
      button.classList.add("chosen");
      button.focus();
      return true;
    }
    let select = activeSelect && form.contains(activeSelect) ? activeSelect : null;
    const selects = Array.from(form.querySelectorAll("select[data-area-select]"));
    if (!select) select = selects.find(function (s) { return !s.value; }) || selects[0];
    if (!select || !select.querySelector('option[value="' + area + '"]')) return false;
    select.value = area;
    flash(select);
    // Move on to the next empty region field, so a plan can be clicked row after row.
    const next = selects.slice(selects.indexOf(select) + 1).find(function (s) { return !s.value; });
    activeSelect = next || select;
    return true;
  }

  document.addEventListener("click", function (event) {
    const area = event.target.closest("svg.map [data-area]");
    if (!area) return;
    const form = currentForm();
    if (form) fill(form, area.dataset.area);
  });
})();
