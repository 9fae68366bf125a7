// Showing a scored round: ranking, every list with its verdicts, crossed-off words, missed words.
import { el } from "./api.js";
import { linkWordsToBoard, renderBoard } from "./board.js";
import { plural, wordItem } from "./words.js";

export function renderRound(result, { title } = {}) {
  const section = el("div", { class: "round" });
  if (title) section.append(el("h3", { text: title }));
  const competitors = result.teams ? result.teams : result.players;
  const table = el(
    "table",
    { class: "table ranking" },
    el("caption", { text: result.teams ? "Teams, best first" : "Players, best first" }),
    el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "#" }), el("th", { scope: "col", text: result.teams ? "Team" : "Player" }), el("th", { scope: "col", class: "num", text: "Points" }))),
    el(
      "tbody",
      {},
      result.ranking.map((name, i) =>
        el("tr", {}, el("td", { text: String(i + 1) }), el("th", { scope: "row", text: name }), el("td", { class: "num", text: String(competitors[name].score) })),
      ),
    ),
  );
  const crossed = new Set();
  for (const player of Object.values(result.players)) {
    for (const word of player.words) if (word.verdict === "crossed_off") crossed.add(word.word);
  }
  const unique = Object.entries(result.players)
    .map(([name, player]) => [name, player.words.filter((w) => w.verdict === "scored").map((w) => w.word)])
    .filter(([, words]) => words.length)
    .map(([name, words]) => `${name}: ${words.join(", ")}`);
  const lists = el("div", { class: "lists" });
  for (const [name, player] of Object.entries(result.players)) {
    const team = result.teams && Object.entries(result.teams).find(([, t]) => t.members.includes(name));
    lists.append(
      el(
        "div",
        { class: "list" },
        el("h4", { text: `${name}${team ? ` (${team[0]})` : ""}: ${plural(player.score, "point")}` }),
        player.min_length !== undefined ? el("p", { class: "help", text: `words of ${player.min_length}+ letters` }) : null,
        el("ul", { class: "words verdicts" }, player.words.map((word) => wordItem(word, { linked: true, compared: true }))),
      ),
    );
  }
  const missedPoints = result.missed.reduce((sum, word) => sum + word.score, 0);
  const missed = el(
    "details",
    { class: "missed" },
    el("summary", { text: `${plural(result.missed.length, "word")} nobody found (${plural(missedPoints, "point")}); the board holds ${result.max_score}` }),
    el("ul", { class: "words" }, result.missed.map((word) => wordItem(word, { linked: true, verdict: false }))),
  );
  const board = renderBoard(result.board);
  const caption = el("p", { class: "path-caption", "aria-live": "polite" });
  section.append(
    el("div", { class: "solve-layout" }, el("div", { class: "sticky" }, board, caption), el("div", {}, table,
      crossed.size ? el("p", { class: "crossed", text: `Crossed off: ${[...crossed].sort().join(", ")}` }) : el("p", { class: "crossed", text: "No words were crossed off." }),
      el("p", { class: "unique", text: unique.length
          ? `${result.teams ? "Found by one team only" : "Found by one player only"} (these score): ${unique.join("; ")}`
          : "Nobody scored a word." }),
      lists, missed)),
  );
  linkWordsToBoard(section, board.querySelector(".board"), caption);
  return section;
}
