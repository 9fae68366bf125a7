// A solo game's page: the countdown from the server's deadline, word entry (typed, with the
// path lit as it is typed, or traced), verdicts as they come with their sounds, the score, words
// found and the board's points; once over, the results' paths, the rarer missed words, and the
// next game one click away.
import { api } from "./api.js";
import { linkWordsToBoard } from "./board.js";
import { clockAnnouncer, formatClock } from "./clock.js";
import { applyFamilyFilter } from "./family.js";
import { addScoredWord, boardMeter } from "./feedback.js";
import { hintsPanel } from "./hints.js";
import { lightTyping } from "./livepath.js";
import { opponentCounts } from "./opponents.js";
import { playSound, soundToggle } from "./sounds.js";
import { startGame } from "./startgame.js";
import { traceable } from "./trace.js";
import { firstEntry, verdictSentence, verdictSound, wordItem } from "./words.js";

// On a phone the game takes the screen: the board, the field and the verdict in view at once,
// the board sized to the height left when the on-screen keyboard is up (play.css reads
// --view-height), and the game brought back into view when that height changes.
function fitToScreen(game) {
  const phone = window.matchMedia("(max-width: 40rem)");
  // The results replace this page by a reload: they open at their top, not where play left off.
  history.scrollRestoration = "manual";
  let viewHeight = null;
  const fit = () => {
    const view = window.visualViewport;
    // The height unzoomed: a pinch zoom changes the visual viewport but is not a keyboard.
    const height = Math.round(view ? view.height * view.scale : window.innerHeight);
    if (height === viewHeight) return;
    viewHeight = height;
    game.style.setProperty("--view-height", `${height}px`);
    if (phone.matches) game.scrollIntoView({ block: "start" });
  };
  fit();
  if (window.visualViewport) window.visualViewport.addEventListener("resize", fit);
  // The pinned zone's height (it changes with the board's size, a wrapped verdict, the
  // keyboard): what play.css keeps clear above the words' column when it scrolls to one.
  const zone = game.querySelector(".play-zone");
  if (zone && window.ResizeObserver) {
    new ResizeObserver(() => game.style.setProperty("--play-zone-height", `${Math.ceil(zone.getBoundingClientRect().height)}px`)).observe(zone);
  }
}

// The running game: the clock, the words, the feedback.
function playGame(game) {
  const data = JSON.parse(document.getElementById("game-data").textContent);
  const id = data.id;
  // The key this browser got when it started the game: needed to play it and see its words.
  const key = localStorage.getItem(`bigboggle:key:${id}`);
  const withKey = { "X-Game-Key": key || "" };
  // The server's clock is the authority: show its deadline, corrected for this device's clock.
  const offset = data.now - Date.now() / 1000;
  const serverNow = () => Date.now() / 1000 + offset;
  const clock = document.getElementById("clock");
  const announcer = clockAnnouncer(document.getElementById("clock-announce"));
  const input = document.getElementById("word");
  const verdict = document.getElementById("verdict");
  const list = document.getElementById("my-words");
  const scoreNode = document.getElementById("score-so-far");
  const foundNode = document.getElementById("words-found");
  const board = game.querySelector(".board");
  const meter = boardMeter(document.getElementById("board-meter"));
  const maxScore = data.max_score ?? 0;
  let found = 0;
  let entered = []; // this player's results so far: what a repeat repeats
  let ending = false;
  let hurried = false;
  let points = data.score_so_far ?? 0;
  let hintCost = 0; // what the hints used cost: taken off the score at the end (never below 0)
  soundToggle(document.getElementById("sound-toggle"));

  const showTotals = (score) => {
    points = score;
    scoreNode.textContent = Math.max(0, score - hintCost);
    foundNode.textContent = found;
    meter.update(score, maxScore);
  };
  showTotals(points);
  const costNode = document.getElementById("hint-cost");
  const showCost = (cost) => {
    hintCost = cost;
    if (costNode) {
      costNode.textContent = `−${cost}`;
      document.getElementById("hint-cost-stat").hidden = cost === 0;
    }
    showTotals(points);
  };
  // Computer opponents: their counts from their entry times, on the server's clock.
  const countsNode = document.getElementById("opponent-counts");
  const counts = countsNode && data.opponents ? opponentCounts(countsNode, data.opponents) : null;
  const hintsNode = document.getElementById("hints-panel");
  // The page was drawn without the words and hints used (they are private): they come with the
  // key. A word or hint asked for before they arrive waits for them, or their answer (the game
  // as it was before) would wipe its verdict from the list and reset the counts.
  const firstRead = key ? api("GET", `/api/games/${encodeURIComponent(id)}`, undefined, withKey).catch(() => null) : Promise.resolve(null);
  const hints = hintsNode && key ? hintsPanel(hintsNode, { id, headers: withKey, board, onCost: showCost, ready: firstRead }) : null;
  if (hintsNode && !key) hintsNode.hidden = true;

  const end = async () => {
    if (ending) return;
    ending = true;
    input.disabled = true;
    if (hints) hints.disable();
    verdict.textContent = "Time is up. Scoring…";
    // The player's own request (with the key) scores the game; anyone's sees "scoring" until
    // it is (the server's timer scores it at the deadline too).
    for (let attempt = 0; attempt < 20; attempt++) {
      try {
        const state = await api("GET", `/api/games/${encodeURIComponent(id)}`, undefined, withKey);
        if (state.phase === "ended") {
          location.reload();
          return;
        }
        const wait = state.phase === "scoring" ? 1000 : Math.max(200, state.time_left * 1000);
        await new Promise((resolve) => setTimeout(resolve, wait));
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
    verdict.textContent = "Time is up. The results are not in yet: reload the page in a moment.";
  };

  const tick = () => {
    const left = data.deadline - serverNow();
    clock.textContent = formatClock(left);
    announcer.update(left);
    game.classList.toggle("hurry", left <= 10);
    if (counts) counts.update(Math.min(serverNow(), data.deadline) - data.started_at);
    if (left <= 10 && left > 0 && !hurried && key) {
      hurried = true;
      playSound("hurry");
    }
    if (left <= 0) end();
  };
  tick();
  setInterval(tick, 250);

  const loaded = firstRead.then((game) => {
    if (!game) return;
    entered = game.words.slice();
    list.replaceChildren(...game.words.slice().reverse().map((result) => wordItem(result)));
    found = game.words.filter((result) => result.verdict === "scored").length;
    if (hints && game.hints) hints.load(game.hints);
    showTotals(game.score_so_far);
  });

  const submit = async (word) => {
    word = word.trim();
    if (!word || ending) return;
    await loaded;
    if (ending) return;
    try {
      const answer = await api("POST", `/api/games/${encodeURIComponent(id)}/words`, { word }, withKey);
      const result = answer.result;
      const first = firstEntry(entered, result);
      verdict.textContent = verdictSentence(result, "", first);
      verdict.className = `verdict-line v-${result.verdict}`;
      playSound(verdictSound(result, first));
      if (result.verdict !== "repeated") entered.push(result);
      if (result.verdict === "scored") {
        found += 1;
        addScoredWord(list, wordItem(result), result.score);
      } else if (result.verdict !== "repeated") list.prepend(wordItem(result));
      showTotals(answer.score_so_far);
    } catch (err) {
      verdict.textContent = err.message;
      verdict.className = "verdict-line error";
      if (err.status === 409) end();
    }
  };

  const tracer = traceable(board, {
    onChange: (text) => {
      lit.clear();
      input.value = text;
    },
    onSubmit: (word) => {
      input.value = "";
      submit(word);
    },
  });
  // Typing takes over from a trace begun on the board; the typed word's path then lights up.
  input.addEventListener("input", () => {
    if (tracer.tracing) tracer.clear();
  });
  const lit = lightTyping(board, input);
  document.getElementById("word-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const word = input.value;
    input.value = "";
    lit.clear();
    submit(word);
  });
  document.getElementById("end-button").addEventListener("click", async () => {
    if (!confirm("End the game now? Your score is final.")) return;
    try {
      await api("POST", `/api/games/${encodeURIComponent(id)}/finish`, undefined, withKey);
    } finally {
      location.reload();
    }
  });
  fitToScreen(game);
  if (!key) {
    input.disabled = true;
    document.getElementById("end-button").hidden = true;
    verdict.textContent = "This game is another player's: you can watch the clock, not play.";
  }
}

// What "Play again" and "Same board again" ask for: the finished game's settings, with a new
// board (a fresh shake of the same preset) or the same one (its seed, or the board itself).
// A daily game's next game is an ordinary one: the daily board counts once a day.
function nextRequest(settings, sameBoard) {
  const request = { rules: settings.rules, dictionary: settings.dictionary, player: settings.player };
  const options = Object.fromEntries(Object.entries(settings.options || {}).filter(([, value]) => value !== null));
  if (Object.keys(options).length) request.options = options;
  if (sameBoard) {
    if (settings.seed !== null && settings.seed !== undefined) request.seed = settings.seed;
    else request.board = settings.board;
  }
  if (settings.opponents && settings.opponents.length) request.opponents = settings.opponents.map((strength) => ({ strength }));
  if (settings.practice) request.practice = true;
  if (settings.hints) request.hints = true;
  return request;
}

// The results: paths on hover, the rarer (and, if asked, offensive) missed words on request,
// the next game in one click.
function showResults() {
  const board = document.querySelector(".board");
  const lists = document.getElementById("result-lists");
  if (board && lists) linkWordsToBoard(lists, board, document.getElementById("path-caption"));
  // Offensive words are not shown among the missed ones unless this browser asked (family.js).
  applyFamilyFilter(document.getElementById("missed-words"));
  // Computer opponents' lists too: an opponent may write an offensive word a player would not see.
  for (const list of document.querySelectorAll(".opponent-words")) applyFamilyFilter(list);
  const rare = document.getElementById("show-rare");
  if (rare) {
    rare.addEventListener("change", () => {
      for (const item of document.querySelectorAll("#missed-words li.rare")) item.hidden = !rare.checked;
    });
  }
  const settings = document.getElementById("next-game-data");
  if (settings) {
    const wanted = JSON.parse(settings.textContent);
    for (const group of document.querySelectorAll(".next-game")) {
      group.addEventListener("click", async (event) => {
        const button = event.target.closest("button[data-next]");
        if (!button) return;
        const errorNode = group.querySelector(".error");
        errorNode.hidden = true;
        for (const other of document.querySelectorAll(".next-game button")) other.disabled = true;
        try {
          await startGame(nextRequest(wanted, button.dataset.next === "same"));
        } catch (err) {
          errorNode.textContent = err.message;
          errorNode.hidden = false;
          for (const other of document.querySelectorAll(".next-game button")) other.disabled = false;
        }
      });
    }
  }
  const heading = document.getElementById("score-heading");
  if (heading) heading.focus();
  if (localStorage.getItem("bigboggle:game") === document.location.pathname.split("/").pop()) {
    localStorage.removeItem("bigboggle:game");
  }
}

// A private game (a challenge's round) comes sealed to anyone but its player, running or over.
// Its player's browser holds its key: the page is fetched again with it (X-Game-Key), whole,
// and put in place of the sealed one: a running game is then played; results get a
// "bigboggle:results" event on the document (for challenge.js's way back to the standings).
// Resolves to whether it was.
async function unseal() {
  const id = document.location.pathname.split("/").pop();
  const sealed = document.querySelector("section.sealed-results, section.sealed-game");
  const key = sealed && localStorage.getItem(`bigboggle:key:${id}`);
  if (!key) return false;
  let text;
  try {
    const response = await fetch(document.location.pathname, { headers: { "X-Game-Key": key } });
    if (!response.ok) return false;
    text = await response.text();
  } catch {
    return false;
  }
  const whole = new DOMParser().parseFromString(text, "text/html");
  const main = whole.getElementById("main");
  if (!main || main.querySelector("section.sealed-results, section.sealed-game")) return false;
  const running = Boolean(main.querySelector("#game"));
  if (!running && !main.querySelector("section.results")) return false;
  document.getElementById("main").replaceChildren(...[...main.childNodes].map((node) => document.importNode(node, true)));
  document.title = whole.title;
  if (running) {
    playGame(document.getElementById("game"));
    return true;
  }
  showResults();
  document.dispatchEvent(new CustomEvent("bigboggle:results"));
  return true;
}

const game = document.getElementById("game");
if (game) playGame(game);
else {
  showResults();
  unseal();
}
