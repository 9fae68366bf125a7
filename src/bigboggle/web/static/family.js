// The family filter on the pages: offensive words (items `li.offensive`, marked from the core's
// `"offensive": true`, bigboggle.family) are hidden from word lists unless this browser's player
// asked to see them. One toggle before each list says how many are hidden and shows or hides
// them; the choice is remembered in localStorage (key "bigboggle:show-offensive") and applies to
// every filtered list at once, in every tab (then the document gets a "bigboggle:family" event,
// detail {show}).
import { el } from "./api.js";

const KEY = "bigboggle:show-offensive";
// The lists filtered on this page, each with its toggle (null while it has no offensive word).
const toggles = new Map();
let counter = 0;
// The choice made on this page when the browser would not store it (private mode).
let unstored = null;

// Whether this browser's player asked to see offensive words (default: no).
export function showOffensive() {
  if (unstored !== null) return unstored;
  try {
    return localStorage.getItem(KEY) === "true";
  } catch {
    return false; // storage refused (a sandboxed frame): the default
  }
}

// Remember the choice and apply it to every list filtered on this page.
export function setShowOffensive(show) {
  try {
    if (show) localStorage.setItem(KEY, "true");
    else localStorage.removeItem(KEY);
    unstored = null;
  } catch {
    unstored = Boolean(show); // not remembered; this page follows the choice until it is left
  }
  reapply(show);
}

// Every filtered list follows `show`; then the document hears of it, for a page that counts
// what it shows (the solver's "N words shown").
function reapply(show) {
  for (const list of [...toggles.keys()]) applyFamilyFilter(list, show);
  document.dispatchEvent(new CustomEvent("bigboggle:family", { detail: { show } }));
}

// Another tab of this browser changed the choice: follow it here too.
window.addEventListener("storage", (event) => {
  if (event.key === KEY || event.key === null) reapply(showOffensive());
});

function plural(n) {
  return `${n} offensive word${n === 1 ? "" : "s"}`;
}

function toggleFor(list) {
  let toggle = toggles.get(list);
  if (!toggle || !toggle.node.isConnected) {
    counter += 1;
    const id = `family-count-${counter}`;
    const count = el("span", { id, class: "family-count", "aria-live": "polite" });
    const button = el("button", { type: "button", class: "family-show", "aria-describedby": id });
    button.addEventListener("click", () => setShowOffensive(!showOffensive()));
    if (list.id) button.setAttribute("aria-controls", list.id);
    const node = el("p", { class: "family-toggle" }, count, " ", button);
    list.before(node);
    toggle = { node, count, button };
    toggles.set(list, toggle);
  }
  return toggle;
}

// Hide `list`'s offensive items (its own <li class="offensive"> children) unless the
// preference says show, and put or update the one "N offensive words hidden - Show" toggle before
// the list (none when the list has no offensive word). Call it again after the list changes.
export function applyFamilyFilter(list, show = showOffensive()) {
  if (!list) return;
  const items = [...list.children].filter((item) => item.matches("li.offensive"));
  for (const item of items) {
    // Inline display, not the hidden attribute, which other filters (rare words) also set.
    item.style.display = show ? "" : "none";
  }
  if (items.length === 0) {
    toggles.get(list)?.node.remove();
    toggles.set(list, null); // still filtered: a later call, or the choice, may need a toggle
    return;
  }
  const toggle = toggleFor(list);
  toggle.count.textContent = `${plural(items.length)} ${show ? "shown" : "hidden"}`;
  toggle.button.textContent = show ? "Hide" : "Show";
  toggle.button.setAttribute("aria-expanded", show ? "true" : "false");
}
