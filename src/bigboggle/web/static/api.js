// What every page's script shares: calling the JSON API (every refusal carries {"error": "..."},
// which becomes an Error's message), the verdicts' labels, and el() to build elements safely.

export async function api(method, url, body, headers = {}) {
  const options = { method, headers: { ...headers } };
  if (body instanceof FormData) options.body = body; // the browser writes its multipart type
  else if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(url, options);
  } catch (err) {
    throw new Error("the server cannot be reached; check your connection and try again");
  }
  let data = null;
  try {
    data = await response.json();
  } catch (err) {
    data = null;
  }
  if (!response.ok) {
    const error = new Error((data && data.error) || `the server answered ${response.status}`);
    error.status = response.status;
    throw error;
  }
  return data;
}

// Text for a verdict code, as the pages show it: the scripts' one copy of Python's
// bigboggle.verdicts.VERDICT_LABELS (which the templates use); a test checks that they agree.
export const VERDICTS = {
  scored: "scored",
  crossed_off: "crossed off",
  not_a_word: "not a word",
  repeated: "repeated",
  too_short: "too short",
  not_on_board: "not on the board",
  not_in_dictionary: "not in the dictionary",
  refused: "not allowed here (family filter)",
};

// Make an element with attributes and children; text is always set as text, never as HTML.
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("data-") || key.startsWith("aria-") || key === "role" || key === "for")
      node.setAttribute(key, value === true ? "" : String(value));
    else node[key] = value;
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}
