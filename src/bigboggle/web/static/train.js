// The trainer's page: drills from the words the player missed, one at a time. A member's deck is
// the server's (GET /api/trainer, POST /api/trainer/answer); a guest's is kept here, in
// localStorage, and sent with this browser's games (their ids and keys, as claim.js reads them)
// to POST /api/trainer/guest and /api/trainer/guest/answer, which schedule it and hand it back.
// Every decision (what is due, what an answer was, when a card comes back) is the server's.

import { api, el } from "./api.js";
import { cellAt, drawPath, renderBoard } from "./board.js";
import { DECK_KEY, LEFT_OUT_KEY, guestHoldings, leftOutText } from "./claim.js";

// As many games as the server takes at once (CLAIM_MAX_GAMES in limits.py).
const MAX_GAMES = 500;

const root = document.getElementById("trainer");
const member = root.dataset.member === "1";
const $ = (id) => document.getElementById(id);
const form = $("answer-form");
const input = $("answer");
const result = $("trainer-result");
const hint = $("trainer-hint");
const next = $("trainer-next");

let state = null; // the server's last answer: {counts, drill, hint, deck?}
let pending = null; // the state to show after "Next drill"
let shownAt = 0;
let hinted = false;

function storedDeck() {
  try {
    const text = localStorage.getItem(DECK_KEY);
    return text ? JSON.parse(text) : null;
  } catch (err) {
    return null;
  }
}

function keep(answer) {
  if (!member && answer.deck) localStorage.setItem(DECK_KEY, JSON.stringify(answer.deck));
}

function showError(message) {
  const node = $("trainer-error");
  node.textContent = message ? `Sorry: ${message}.` : "";
  node.hidden = !message;
}

function countsText(counts) {
  const parts = [
    counts.cards === 1 ? "1 word in your deck" : `${counts.cards} words in your deck`,
    `${counts.due} due`,
    `${counts.new} new today`,
    `${counts.learned} learned`,
  ];
  return parts.join(" · ");
}

function laterText(counts) {
  if (!counts.cards) return "No missed words yet: play a game, and the words you miss become drills here.";
  if (counts.next_due === null || counts.next_due === undefined) return "Nothing to drill now: come back tomorrow for new words.";
  const minutes = Math.max(1, Math.round((counts.next_due * 1000 - Date.now()) / 60000));
  const when = minutes < 90 ? `in ${minutes} minute${minutes === 1 ? "" : "s"}` : minutes < 36 * 60 ? `in ${Math.round(minutes / 60)} hours` : `in ${Math.round(minutes / 1440)} days`;
  return `Nothing to drill now: the next word comes back ${when}.`;
}

function renderDrill(drill) {
  const view = $("drill-view");
  if (drill.kind === "fragment") {
    view.replaceChildren(renderBoard(drill.board, { label: "Board fragment" }));
  } else {
    const tiles = drill.grid[0];
    view.replaceChildren(
      el(
        "ol",
        { class: "tiles", "aria-label": `Tiles: ${tiles.join(" ")}` },
        tiles.map((tile) => el("li", { class: "tile", text: tile })),
      ),
    );
  }
}

function show(next_state) {
  state = next_state;
  keep(state);
  $("trainer-counts").textContent = countsText(state.counts);
  result.textContent = "";
  result.className = "trainer-result";
  hint.textContent = "";
  next.hidden = true;
  hinted = false;
  const drill = state.drill;
  $("trainer-empty").hidden = Boolean(drill);
  form.hidden = !drill;
  if (!drill) {
    $("drill-prompt").textContent = "";
    $("drill-view").replaceChildren();
    $("trainer-empty-text").textContent = laterText(state.counts);
    return;
  }
  $("drill-prompt").textContent = drill.prompt;
  renderDrill(drill);
  input.value = "";
  input.disabled = false;
  for (const button of form.querySelectorAll("button")) button.disabled = false;
  shownAt = performance.now();
  input.focus();
}

async function send(body) {
  const url = member ? "/api/trainer/answer" : "/api/trainer/guest/answer";
  return api("POST", url, member ? body : { ...body, deck: state.deck });
}

async function answer(giveUp) {
  showError("");
  const said = input.value.trim();
  if (!giveUp && !said) {
    showError("type the word first, or give up");
    input.focus();
    return;
  }
  const body = {
    card: state.drill.card,
    answer: giveUp ? "" : said,
    seconds: (performance.now() - shownAt) / 1000,
    hinted,
    gave_up: giveUp,
  };
  let answered;
  try {
    answered = await send(body);
  } catch (err) {
    showError(err.message);
    return;
  }
  const outcome = answered.result.outcome;
  result.textContent = answered.result.message;
  result.className = `trainer-result ${outcome === "right" ? "right" : outcome === "also" ? "also" : "wrong"}`;
  if (outcome === "also") {
    input.select();
    return;
  }
  keep(answered);
  if (!member) state.deck = answered.deck;
  input.disabled = true;
  for (const button of form.querySelectorAll("button")) button.disabled = true;
  const board = $("drill-view").querySelector(".board");
  if (board && answered.result.path) drawPath(board, answered.result.path);
  $("trainer-counts").textContent = countsText(answered.counts);
  pending = answered;
  next.hidden = false;
  next.focus();
}

function showHint() {
  if (!state || !state.hint) return;
  hinted = true;
  const { first, start } = state.hint;
  hint.textContent = `Hint: it starts with ${first}.`;
  const board = $("drill-view").querySelector(".board");
  if (board && start) cellAt(board, start[0], start[1]).classList.add("path-first");
  input.focus();
}

// A member whose account's deck was full at log-in: the guest words that did not fit stayed in
// this browser (claim.js), and are said so here.
function showLeftOut() {
  const leftOut = Number(localStorage.getItem(LEFT_OUT_KEY)) || 0;
  const node = $("trainer-left-out");
  if (!node || leftOut <= 0 || localStorage.getItem(DECK_KEY) === null) return;
  node.textContent = leftOutText(leftOut);
  node.hidden = false;
}

async function load() {
  try {
    if (member) {
      show(await api("GET", "/api/trainer"));
      showLeftOut();
    } else {
      const games = guestHoldings().games.slice(0, MAX_GAMES);
      let deck = storedDeck();
      let answer;
      try {
        answer = await api("POST", "/api/trainer/guest", { deck, games });
      } catch (err) {
        if (err.status !== 400 || deck === null) throw err;
        // A deck this browser kept that the server cannot read: start a fresh one.
        deck = null;
        answer = await api("POST", "/api/trainer/guest", { deck, games });
      }
      show(answer);
    }
  } catch (err) {
    $("trainer-counts").textContent = "";
    showError(err.message);
  }
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  answer(false);
});
$("answer-give-up").addEventListener("click", () => answer(true));
$("answer-hint").addEventListener("click", showHint);
next.addEventListener("click", () => {
  if (pending) show(pending);
  pending = null;
});

load();
