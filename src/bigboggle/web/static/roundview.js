// Showing a scored round: ranking, every list with its verdicts, crossed-off words, missed words;
// in team play, how the members' points make the team's (a word two members found counts once).
import { el } from "./api.js";
import { linkWordsToBoard, renderBoard } from "./board.js";
import { applyFamilyFilter, familyText } from "./family.js";
import { plural, wordItem } from "./words.js";

// Team play, from the score JSON: for each team (teams[t].members, .score, .words: its distinct
// scored words) the members' points (players[m].score) and the words several members scored
// (each member's list counts them, the team once): members' points - shared = team points.
export function teamSums(result) {
  const sums = new Map();
  for (const [team, info] of Object.entries(result.teams || {})) {
    const holders = new Map();
    for (const member of info.members) {
      for (const word of (result.players[member] || { words: [] }).words) {
        if (word.verdict !== "scored") continue;
        if (!holders.has(word.word)) holders.set(word.word, []);
        holders.get(word.word).push({ member, score: word.score });
      }
    }
    const shared = [...holders]
      .filter(([, found]) => found.length > 1)
      .map(([word, found]) => {
        const once = Math.max(...found.map((f) => f.score));
        return { word, members: found.map((f) => f.member), once, extra: found.reduce((sum, f) => sum + f.score, 0) - once };
      });
    // Each shared word by its word, for the members' lists (a search per word was quadratic).
    const sharedByWord = new Map(shared.map((s) => [s.word, s]));
    const members = info.members.map((member) => ({ member, score: result.players[member] ? result.players[member].score : 0 }));
    const membersTotal = members.reduce((sum, m) => sum + m.score, 0);
    const extra = shared.reduce((sum, s) => sum + s.extra, 0);
    sums.set(team, { team, members, membersTotal, shared, sharedByWord, extra, score: info.score });
  }
  return sums;
}

// The table that adds the members' points up to each team's.
function teamSumsTable(result, sums) {
  const rows = result.ranking.map((team) => {
    const sum = sums.get(team);
    const parts = sum.members.map((m) => `${m.member} ${m.score}`).join(" + ");
    const shared = sum.shared.length
      ? `− ${sum.extra}: ${sum.shared.map((s) => `${s.word} (${s.members.join(" and ")})`).join(", ")}`
      : "none";
    return el(
      "tr",
      { "data-team": team },
      el("th", { scope: "row", text: team }),
      el("td", { class: "members-points", text: sum.members.length > 1 ? `${parts} = ${sum.membersTotal}` : parts }),
      el("td", { class: "shared-points", text: shared }),
      el("td", { class: "num team-points", text: String(sum.score) }),
    );
  });
  return el(
    "table",
    { class: "table team-sums" },
    el("caption", { text: "How the team points add up: a word several members scored counts once for their team" }),
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        el("th", { scope: "col", text: "Team" }),
        el("th", { scope: "col", text: "Members' points" }),
        el("th", { scope: "col", text: "Shared words" }),
        el("th", { scope: "col", class: "num", text: "Team points" }),
      ),
    ),
    el("tbody", {}, rows),
  );
}

// A member's word item, marked when a teammate scored the word too.
function memberWordItem(word, name, team, sum) {
  const item = wordItem(word, { linked: true, compared: true });
  const shared = word.verdict === "scored" && sum && sum.sharedByWord.get(word.word);
  if (shared) {
    const others = shared.members.filter((member) => member !== name);
    item.classList.add("shared");
    item.append(el("span", { class: "shared-note", text: `shared with ${others.join(" and ")} - counts once for ${team}` }));
  }
  return item;
}

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
      // A room's round says each place (tied competitors share one): `places`, else 1, 2, 3...
      result.ranking.map((name, i) =>
        el("tr", {}, el("td", { text: String((result.places || {})[name] ?? i + 1) }), el("th", { scope: "row", text: name }), el("td", { class: "num", text: String(competitors[name].score) })),
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
  const sums = result.teams ? teamSums(result) : null;
  const lists = el("div", { class: "lists" });
  for (const [name, player] of Object.entries(result.players)) {
    const team = result.teams && Object.entries(result.teams).find(([, t]) => t.members.includes(name));
    const sum = team ? sums.get(team[0]) : null;
    const sharedCount = sum ? sum.shared.filter((s) => s.members.includes(name)).length : 0;
    const heading = `${name}${team ? ` (${team[0]})` : ""}: ${plural(player.score, "point")}` +
      (sharedCount ? `, ${plural(sharedCount, "word")} shared with a teammate` : "");
    lists.append(
      el(
        "div",
        { class: "list" },
        el("h4", { text: heading }),
        player.min_length !== undefined ? el("p", { class: "help", text: `words of ${player.min_length}+ letters` }) : null,
        player.words.length
          ? el("ul", { class: "words verdicts" }, player.words.map((word) => memberWordItem(word, name, team && team[0], sum)))
          : el("p", { class: "help no-words", text: "No words entered." }),
      ),
    );
  }
  // The count says what the list shows: offensive words only once this browser shows them.
  const missedSummary = (words) =>
    `${plural(words.length, "word")} nobody found (${plural(words.reduce((sum, word) => sum + word.score, 0), "point")}); the board holds ${result.max_score}`;
  const missedList = el("ul", { class: "words family-filtered" }, result.missed.map((word) => wordItem(word, { linked: true, verdict: false })));
  const missed = el(
    "details",
    { class: "missed" },
    el("summary", {}, familyText(missedSummary(result.missed.filter((word) => !word.offensive)), missedSummary(result.missed))),
    missedList,
  );
  applyFamilyFilter(missedList); // offensive words hidden unless this browser asked to see them
  const board = renderBoard(result.board);
  const caption = el("p", { class: "path-caption", "aria-live": "polite" });
  section.append(
    el("div", { class: "solve-layout" }, el("div", { class: "sticky" }, board, caption), el("div", {}, table,
      sums ? teamSumsTable(result, sums) : null,
      crossed.size ? el("p", { class: "crossed", text: `Crossed off: ${[...crossed].sort().join(", ")}` }) : el("p", { class: "crossed", text: "No words were crossed off." }),
      el("p", { class: "unique", text: unique.length
          ? `${result.teams ? "Found by one team only" : "Found by one player only"} (these score): ${unique.join("; ")}`
          : "Nobody scored a word." }),
      lists, missed)),
  );
  linkWordsToBoard(section, board.querySelector(".board"), caption);
  return section;
}
