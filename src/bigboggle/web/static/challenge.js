// Asynchronous challenges in the browser: making one (the form on /challenges, and the
// "Challenge a friend" button on a finished solo game's results), the challenge's page (share
// and copy the link, play your next round, the standings with the words of the rounds you
// finished), and the way back from a challenge game's results to its standings. A team
// challenge has a team choice on the play form (fixed once you have played: the server says
// which is yours).
//
// Who you are in a challenge: this browser keeps, per challenge, your name and your games
// (localStorage "bigboggle:challenge:CODE" = {name, games: {round: id}}), and each game's key
// under "bigboggle:key:ID" as every solo game's. The key of any of your games here proves your
// seat (X-Game-Key): to play your next round, and to see the words of the rounds you finished.
import { api, el } from "./api.js";
import { linkWordsToBoard } from "./board.js";
import { applyFamilyFilter } from "./family.js";
import { offerName, savedName } from "./savedname.js";

const challengeKey = (code) => `bigboggle:challenge:${code}`;
const challengeOf = (game) => `bigboggle:challenge-of:${game}`;

function stored(code) {
  try {
    return JSON.parse(localStorage.getItem(challengeKey(code)) || "null") || { name: null, games: {} };
  } catch {
    return { name: null, games: {} };
  }
}

// The key of this browser's latest game in challenge `code` (any of them proves the seat).
function proof(code) {
  const mine = stored(code);
  const rounds = Object.keys(mine.games || {}).map(Number).sort((a, b) => b - a);
  for (const round of rounds) {
    const key = localStorage.getItem(`bigboggle:key:${mine.games[round]}`);
    if (key) return { "X-Game-Key": key };
  }
  return {};
}

function remember(code, name, round, game) {
  const mine = stored(code);
  mine.name = name;
  mine.games = { ...(mine.games || {}), [round]: game.id };
  localStorage.setItem(challengeKey(code), JSON.stringify(mine));
  localStorage.setItem(`bigboggle:key:${game.id}`, game.key);
  localStorage.setItem(challengeOf(game.id), JSON.stringify({ code, round }));
  localStorage.setItem("bigboggle:game", game.id);
  if (name) localStorage.setItem("bigboggle:name", name);
}

// Paths over each visible round's board, the family filter on its lists.
function wireResults(root) {
  for (const round of root.querySelectorAll(".challenge-round[data-visible='true']")) {
    const board = round.querySelector(".board");
    const lists = round.querySelector(".round-lists");
    if (board && lists) linkWordsToBoard(lists, board, round.querySelector(".path-caption"));
    for (const list of round.querySelectorAll("ul.family-filtered")) applyFamilyFilter(list);
    const rare = round.querySelector("input.show-rare");
    if (rare) {
      rare.addEventListener("change", () => {
        for (const item of round.querySelectorAll("ul.missed li.rare")) item.hidden = !rare.checked;
      });
    }
  }
}

// The share row: the Web Share API where the browser has it, and a copy button with feedback.
// Both buttons start hidden and appear only once they work, so nobody (a person or a test)
// clicks a button whose script has not run yet and sees nothing happen.
function wireShare() {
  const link = document.getElementById("share-link");
  const status = document.getElementById("share-status");
  const share = document.getElementById("share-button");
  const copy = document.getElementById("copy-button");
  if (!link || !copy) return;
  const title = document.title;
  if (navigator.share) {
    share.hidden = false;
    share.addEventListener("click", async () => {
      try {
        await navigator.share({ title, text: "Can you beat me at this Boggle challenge?", url: link.value });
        status.textContent = "Shared.";
      } catch (err) {
        if (err && err.name !== "AbortError") status.textContent = "Could not share; copy the link instead.";
      }
    });
  }
  copy.hidden = false;
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(link.value);
      status.textContent = "Link copied: paste it to whoever you challenge.";
    } catch {
      link.select();
      status.textContent = "Select the link and copy it (Ctrl+C or ⌘C).";
    }
    copy.textContent = "Copied";
    setTimeout(() => (copy.textContent = "Copy link"), 2000);
  });
}

async function refreshStandings(code, headers) {
  const response = await fetch(`/challenges/${encodeURIComponent(code)}/standings`, { headers });
  if (!response.ok) return;
  const holder = document.getElementById("challenge-results");
  const part = document.createElement("div");
  part.innerHTML = await response.text(); // the server's own template, escaped by Jinja
  const fresh = part.querySelector("#challenge-results");
  if (holder && fresh) {
    holder.replaceWith(fresh);
    wireResults(fresh);
  }
}

function showPlayState(state) {
  const line = document.getElementById("play-state");
  const button = document.getElementById("play-button");
  const name = document.getElementById("player");
  const team = document.getElementById("team");
  if (!line || !button) return;
  if (state.you) {
    if (name) {
      name.value = state.you.name;
      name.readOnly = true;
    }
    if (team && state.you.team) {
      team.value = state.you.team;
      team.disabled = true; // a player's team is fixed after their first round
    }
    if (state.you.next_round && state.can_play) {
      line.textContent = `Your next round: round ${state.you.next_round} of ${state.rounds}.`;
      button.textContent = `Play round ${state.you.next_round}`;
      button.disabled = false;
    } else {
      line.textContent = state.why_not || "";
      button.disabled = true;
      // Nothing to play now: the name field and a dead button would only be in the way.
      if (!state.you.playing) document.getElementById("play-form").hidden = true;
    }
  } else if (!state.can_play) {
    line.textContent = state.why_not || "";
    button.disabled = true;
  }
}

async function challengePage(root) {
  const code = root.dataset.code;
  wireShare();
  wireResults(root);
  const headers = proof(code);
  const nameField = document.getElementById("player");
  offerName(nameField, stored(code).name || savedName());
  // Wired before anything is fetched: a press meanwhile plays (it never reloads the page).
  const form = document.getElementById("play-form");
  if (form) form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const errorNode = document.getElementById("play-error");
    const button = document.getElementById("play-button");
    errorNode.hidden = true;
    button.disabled = true;
    const player = nameField.value.trim();
    const body = { player };
    const team = document.getElementById("team");
    if (team && team.value) body.team = team.value;
    try {
      const game = await api("POST", `/api/challenges/${encodeURIComponent(code)}/play`, body, proof(code));
      remember(code, game.player, game.round, game);
      location.href = `/games/${encodeURIComponent(game.id)}`;
    } catch (err) {
      errorNode.textContent = err.message;
      errorNode.hidden = false;
      button.disabled = false;
    }
  });
  if (headers["X-Game-Key"]) {
    try {
      showPlayState(await api("GET", `/api/challenges/${encodeURIComponent(code)}`, undefined, headers));
    } catch {
      /* the page as the server drew it stays */
    }
    await untilYourRoundsCount(code, headers);
    await refreshStandings(code, headers);
  }
}

// Whether the standings `results` list you among the players of every round you finished (the
// terminal's counts_round): a busy server counts a round a moment after its finish.
function countsYourRounds(results) {
  const you = results && results.you;
  if (!you || !Array.isArray(you.finished)) return true;
  const rounds = Array.isArray(results.round_results) ? results.round_results : [];
  return you.finished.every((number) => {
    const shown = rounds.find((round) => round && round.number === number);
    return Boolean(shown && Array.isArray(shown.players) && shown.players.some((row) => row && row.name === you.name));
  });
}

// Waits (asking again after 0.5, 1, 2 and 4 seconds) until the standings count the rounds you
// finished, so that those drawn next have your row; gives up quietly after that.
async function untilYourRoundsCount(code, headers) {
  for (let attempt = 0, wait = 500; attempt < 5; attempt += 1, wait *= 2) {
    try {
      const results = await api("GET", `/api/challenges/${encodeURIComponent(code)}/results`, undefined, headers);
      if (countsYourRounds(results)) return;
    } catch {
      return; // the standings as the server draws them will do
    }
    if (attempt < 4) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

// The form on /challenges: a fresh challenge, then its page.
function makeForm(form) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const errorNode = document.getElementById("make-error");
    const button = document.getElementById("make-button");
    errorNode.hidden = true;
    button.disabled = true;
    const value = (id) => document.getElementById(id).value;
    const checked = (id) => document.getElementById(id).checked;
    const options = {};
    for (const name of ["advanced", "challenge", "family"]) if (checked(name)) options[name] = true;
    const request = { rules: value("rules"), rounds: Number(value("rounds")), hours: Number(value("hours")) };
    if (value("timer")) request.timer = Number(value("timer"));
    if (Object.keys(options).length) request.options = options;
    if (checked("keep")) request.duplicates = "keep";
    const teams = value("teams")
      .split(",")
      .map((name) => name.trim())
      .filter(Boolean);
    if (teams.length) request.teams = teams;
    try {
      const made = await api("POST", "/api/challenges", request);
      location.href = made.url;
    } catch (err) {
      errorNode.textContent = err.message;
      errorNode.hidden = false;
      button.disabled = false;
    }
  });
}

// On a finished solo game's results: back to its challenge, or make one of it.
export function gameResults() {
  const results = document.querySelector("section.results");
  if (!results) return;
  const id = location.pathname.split("/").pop();
  let from = null;
  try {
    from = JSON.parse(localStorage.getItem(challengeOf(id)) || "null");
  } catch {
    from = null;
  }
  const box = el("div", { class: "challenge-link", role: "group", "aria-label": "Challenge" });
  if (from) {
    box.append(
      el("p", {}, `This was round ${from.round} of a challenge. `, el("a", { href: `/challenges/${from.code}`, id: "back-to-challenge", text: "See the standings" }), "."),
    );
  } else {
    const key = localStorage.getItem(`bigboggle:key:${id}`);
    if (!key) return; // only the game's player may make a challenge of it
    const button = el("button", { type: "button", id: "make-challenge", text: "Challenge a friend to this board" });
    // A match: this board is round 1, the rest fresh shakes of the same game.
    const rounds = el("select", { id: "challenge-rounds" });
    for (const count of [1, 2, 3, 5]) {
      rounds.append(el("option", { value: String(count), text: count === 1 ? "1 round (this board)" : `${count} rounds (this board first)` }));
    }
    const roundsField = el("label", { for: "challenge-rounds", text: "Rounds " });
    const help = el("p", { class: "help", text: "Anyone with the link plays this board by the same rules and timer; your score is the one to beat." });
    const errorNode = el("p", { class: "error", role: "alert", hidden: true });
    button.addEventListener("click", async () => {
      button.disabled = true;
      errorNode.hidden = true;
      try {
        const made = await api("POST", "/api/challenges", { from_game: id, rounds: Number(rounds.value) }, { "X-Game-Key": key });
        const mine = stored(made.code);
        mine.name = made.you ? made.you.name : mine.name;
        mine.games = { ...(mine.games || {}), 1: id };
        localStorage.setItem(challengeKey(made.code), JSON.stringify(mine));
        localStorage.setItem(challengeOf(id), JSON.stringify({ code: made.code, round: 1 }));
        location.href = made.url;
      } catch (err) {
        errorNode.textContent = err.message;
        errorNode.hidden = false;
        button.disabled = false;
      }
    });
    box.append(el("div", { class: "row" }, roundsField, rounds, button), help, errorNode);
  }
  const next = results.querySelector(".next-game");
  if (next) next.after(box);
  else results.append(box);
}

const page = document.getElementById("challenge");
if (page) challengePage(page);
const form = document.getElementById("challenge-form");
if (form) makeForm(form);
if (!page && !form) {
  gameResults();
  // A sealed round's results unsealed for its player (game.js): the way back again.
  document.addEventListener("bigboggle:results", gameResults);
}
