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

// "lines: scored, 2 points" (with `after` after the points), the answer to a word just entered.
export function verdictSentence(result, after = "") {
  const text = VERDICTS[result.verdict] || result.verdict;
  const points = result.verdict === "scored" ? `, ${plural(result.score, "point")}${after}` : "";
  return `${result.entry || result.word}: ${text}${points}`;
}
