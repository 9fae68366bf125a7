// One word of a list as every page shows it (the word, its verdict, its points, and a button
// that shows its path on the board when it has one), and the line that answers a submitted word.
import { el, VERDICTS } from "./api.js";
import { pathText } from "./board.js";

// "1 point", "2 points".
export function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

// The list item for a word's result ({word, entry?, verdict, score, path?, offensive?}), shown as
// typed; an offensive word's item has class "offensive" (family.js's applyFamilyFilter hides it).
// Options, for the lists of a scored round:
// - `linked`: a word with a path is a button (linkWordsToBoard in board.js shows the path);
// - `compared`: the compared form beside what was typed when they differ ("Colour (colour)");
// - `verdict: false`: no verdict and no points (the words nobody found).
export function wordItem(result, { linked = false, compared = false, verdict = true } = {}) {
  const typed = result.entry || result.word;
  const label = compared && result.entry && result.entry !== result.word ? `${result.entry} (${result.word})` : typed;
  const shown = verdict ? result.verdict : null;
  const content = [
    el("span", { class: "w", text: label }),
    shown ? el("span", { class: `verdict v-${shown}`, text: VERDICTS[shown] || shown }) : null,
    el("span", { class: "pts", text: shown === "scored" ? String(result.score) : "" }),
  ];
  const item = result.offensive ? { class: "offensive" } : {};
  if (linked && result.path) {
    return el("li", item, el("button", { type: "button", class: "word", "data-path": pathText(result.path) }, content));
  }
  return el("li", item, el("div", { class: "word" }, content));
}

// The earlier result, among a player's `results`, of the word that `result` repeats (the same
// compared form), or null: what a "repeated" verdict refers to.
export function firstEntry(results, result) {
  return results.find((earlier) => earlier.word === result.word && earlier.verdict !== "repeated") || null;
}

// "lines: scored, 2 points" (with `after` after the points), the answer to a word just entered.
// A repeat says what its first entry was (`first`, from firstEntry): "lines: already found", or
// "zzzz: entered already (not on the board)" - "repeated" alone reads as if it had been found.
export function verdictSentence(result, after = "", first = null) {
  const typed = result.entry || result.word;
  if (result.verdict === "repeated") {
    if (!first) return `${typed}: entered already`;
    if (first.verdict === "scored") return `${typed}: already found`;
    return `${typed}: entered already (${VERDICTS[first.verdict] || first.verdict})`;
  }
  const text = VERDICTS[result.verdict] || result.verdict;
  const points = result.verdict === "scored" ? `, ${plural(result.score, "point")}${after}` : "";
  return `${typed}: ${text}${points}`;
}

// The sound of a verdict (sounds.js's kinds): a repeat of a word that did not score is
// "invalid", as its first entry was.
export function verdictSound(result, first = null) {
  if (result.verdict === "scored") return "scored";
  if (result.verdict === "repeated") return first && first.verdict !== "scored" ? "invalid" : "repeated";
  return "invalid";
}
