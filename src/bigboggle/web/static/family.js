// The family filter on the pages: offensive words (items `li.offensive`, marked from the core's
// `"offensive": true`, bigboggle.family) are hidden from word lists unless this browser's player
// asked to see them. The hiding is style.css's: the `li.offensive` of a list with the class
// "family-filtered" (set by the server's templates, or here) is hidden unless the root element
// has the class "show-offensive", which theme.js (a blocking script) sets before the first paint
// from localStorage "bigboggle:show-offensive"; without scripts the words stay hidden. This module
// puts one toggle before each list that holds offensive words ("N offensive words hidden - Show"),
// which flips the root class and remembers the choice; it applies to every list at once, in every
// tab (then the document gets a "bigboggle:family" event, detail {show}).
import { el } from "./api.js";

const KEY = "bigboggle:show-offensive";
const SHOWN_CLASS = "show-offensive";
const root = document.documentElement;
// The lists filtered on this page, each with its toggle (null while it has no offensive word).
// A list a re-render removed is dropped when the choice changes (forget), so replaced lists are
// neither kept nor updated. (Not on each applyFamilyFilter: a list is often filtered before its
// page part is put in the document.)
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
  reapply(Boolean(show));
}

// How many lists this page filters now (replaced ones are forgotten; the browser tests check it).
export function filteredLists() {
  forget();
  return toggles.size;
}

// Text that depends on the filter: `hidden` while offensive words are hidden, `shown` once they
// are shown (two spans, one of them hidden by style.css from the first paint), or plain text when
// both are the same. For counts that must match what the list shows ("Missed words (12)").
export function familyText(hidden, shown) {
  if (hidden === shown) return document.createTextNode(hidden);
  return el(
    "span",
    {},
    el("span", { class: "if-offensive-hidden", text: hidden }),
    el("span", { class: "if-offensive-shown", text: shown }),
  );
}

// The texts the server wrote for both states, where markup cannot hold two spans (an <option>'s):
// each element with data-if-offensive-hidden and data-if-offensive-shown shows the one for `show`.
function swapTexts(show) {
  for (const node of document.querySelectorAll("[data-if-offensive-hidden][data-if-offensive-shown]")) {
    node.textContent = show ? node.dataset.ifOffensiveShown : node.dataset.ifOffensiveHidden;
  }
}

// Drop the lists that are no longer in the document (a re-render replaced them), with their toggles.
function forget() {
  for (const [list, toggle] of toggles) {
    if (list.isConnected) continue;
    toggle?.node.remove();
    toggles.delete(list);
  }
}

// Every filtered list follows `show`; then the document hears of it, for a page that counts
// what it shows (the solver's "N words shown").
function reapply(show) {
  root.classList.toggle(SHOWN_CLASS, show);
  swapTexts(show);
  forget();
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
  if (!toggle || toggle.node.parentNode !== list.parentNode) {
    toggle?.node.remove();
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

// Filter `list`'s offensive items (its own <li class="offensive"> children; the list gets the class
// "family-filtered", which the server's templates give it for a page without scripts): hidden by
// style.css unless the preference says show (the root class follows `show`), and the one
// "N offensive words hidden - Show" toggle is put or updated before the list (none when the list
// has no offensive word). Call it again after the list changes.
export function applyFamilyFilter(list, show = showOffensive()) {
  if (!list) return;
  root.classList.toggle(SHOWN_CLASS, show);
  swapTexts(show);
  list.classList.add("family-filtered");
  const count = [...list.children].filter((item) => item.matches("li.offensive")).length;
  if (count === 0) {
    toggles.get(list)?.node.remove();
    toggles.set(list, null); // still filtered: a later call, or the choice, may need a toggle
    return;
  }
  const toggle = toggleFor(list);
  toggle.count.textContent = `${plural(count)} ${show ? "shown" : "hidden"}`;
  toggle.button.textContent = show ? "Hide" : "Show";
  toggle.button.setAttribute("aria-expanded", show ? "true" : "false");
}
