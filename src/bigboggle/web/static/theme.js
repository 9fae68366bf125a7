// The colour theme: "light", "dark" or "auto" (the system's prefers-color-scheme), chosen with
// the header's button and remembered per browser in localStorage "bigboggle:theme". This is a
// classic script loaded (blocking, it is tiny) from <head>, so the stored choice is on <html>
// before the first paint and a dark page never flashes white; the Content-Security-Policy
// allows no inline script. style.css reads html[data-theme]; with "auto" the attribute is absent.
(function () {
  "use strict";
  var KEY = "bigboggle:theme";
  var CHOICES = ["auto", "light", "dark"];
  var root = document.documentElement;
  var system = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;

  function stored() {
    try {
      var value = localStorage.getItem(KEY);
      return CHOICES.indexOf(value) >= 0 ? value : "auto";
    } catch (err) {
      return "auto"; // storage refused (privacy settings): the system's theme
    }
  }

  function remember(choice) {
    try {
      localStorage.setItem(KEY, choice);
    } catch (err) {
      // not remembered, still applied
    }
  }

  function systemTheme() {
    return system && system.matches ? "dark" : "light";
  }

  function apply(choice) {
    if (choice === "auto") root.removeAttribute("data-theme");
    else root.setAttribute("data-theme", choice);
  }

  // From "auto" the first press shows the other theme than the system's (a visible change),
  // the next the system's own, then "auto" again.
  function next(choice) {
    var other = systemTheme() === "dark" ? "light" : "dark";
    if (choice === "auto") return other;
    if (choice === other) return other === "dark" ? "light" : "dark";
    return "auto";
  }

  var ICONS = { auto: "\u25d0", light: "\u2600", dark: "\u263e" };

  function show(button, choice) {
    var shown = choice === "auto" ? systemTheme() : choice;
    button.querySelector(".theme-icon").textContent = ICONS[choice];
    button.querySelector(".theme-name").textContent = choice;
    button.setAttribute("data-choice", choice);
    button.title = choice === "auto" ? "The system's theme (now " + shown + "); press for " + next(choice) : "Press for " + next(choice);
  }

  function wire() {
    var button = document.getElementById("theme-toggle");
    if (!button) return;
    show(button, stored());
    button.hidden = false;
    button.addEventListener("click", function () {
      var choice = next(stored());
      remember(choice);
      apply(choice);
      show(button, choice);
    });
    if (system && system.addEventListener) {
      system.addEventListener("change", function () {
        show(button, stored());
      });
    }
  }

  apply(stored());
  // The family filter (family.js): offensive words show from the first paint only where this
  // browser asked to see them (style.css hides a filtered list's li.offensive unless html.show-offensive).
  try {
    if (localStorage.getItem("bigboggle:show-offensive") === "true") root.classList.add("show-offensive");
  } catch (err) {
    // storage refused: the default, hidden
  }
  // Scripts run here: style.css may keep room for what they will draw (no layout shift).
  root.classList.add("js");
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wire);
  else wire();
})();
