// The site's header on a phone: the links and languages fold behind the "Menu" button (a disclosure:
// aria-expanded on the button, Escape closes it and gives the focus back). Without this script, or
// on a wide window (static/phone.css), they all show.
(function () {
  "use strict";
  const header = document.querySelector(".site-header");
  const button = header && header.querySelector(".menu-toggle");
  if (!button) return;
  const menu = document.getElementById(button.getAttribute("aria-controls"));

  function set(open) {
    button.setAttribute("aria-expanded", open ? "true" : "false");
    header.classList.toggle("menu-open", open);
  }

  button.hidden = false;
  header.classList.add("menu-folds");
  button.addEventListener("click", function () {
    set(button.getAttribute("aria-expanded") !== "true");
  });
  header.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && header.classList.contains("menu-open")) {
      set(false);
      button.focus();
    }
  });
  // A tap or a focus outside the open menu closes it.
  document.addEventListener("click", function (event) {
    if (!header.contains(event.target)) set(false);
  });
  menu.addEventListener("focusout", function (event) {
    if (event.relatedTarget && !header.contains(event.relatedTarget)) set(false);
  });
})();
