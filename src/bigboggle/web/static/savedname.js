// The name this browser last played under, offered in a page's name field: only where the
// field is still empty (or holds the page's default) and nobody is in it. A name typed before
// the page's script ran (a slow connection) is kept; so is a field that has the focus, since
// whoever is in it is about to type, and a name written there lands in front of their keys
// ("Daisy" became "daisyDaisy", a name that had not played the daily board, and a second game
// started).

/** The name last played under in this browser, or "". */
export function savedName() {
  return localStorage.getItem("bigboggle:name") || "";
}

/** Put `name` (default: the saved one) into `field` if it is empty or holds `placeholder`
 * and does not have the focus. */
export function offerName(field, name = savedName(), placeholder = "") {
  if (!field || !name || document.activeElement === field) return;
  if (field.value === "" || field.value === placeholder) field.value = name;
}
