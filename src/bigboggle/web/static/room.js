// A multiplayer room over the WebSocket protocol (see bigboggle/web/protocol.py): join or come
// back with the private token kept in this browser, play rounds on the server's clock, see results.
// One board on screen: a new round hides the last round's results (the totals stay); the board
// stays hidden through the countdown; a word that cannot be sent yet says why, where its verdict
// would go. Presence (online / away / offline) is shown per player; this page says "away" while
// its tab is hidden. Computer opponents (added by the host) are seats marked "computer" wherever
// seats are listed (a badge apart from the name, from the server's "opponents" map: no name can
// fake it); during a round everyone sees each player's word count, never the words.
import { el } from "./api.js";
import { renderBoard } from "./board.js";
import { clockAnnouncer, formatClock } from "./clock.js";
import { addScoredWord } from "./feedback.js";
import { lightTyping } from "./livepath.js";
import { renderRound } from "./roundview.js";
import { offerName } from "./savedname.js";
import { playSound, soundToggle } from "./sounds.js";
import { traceable } from "./trace.js";
import { firstEntry, plural, verdictSentence, verdictSound, wordItem } from "./words.js";

const root = document.getElementById("room");
const code = root.dataset.room;
const tokenKey = `bigboggle:room:${code}`;
const $ = (id) => document.getElementById(id);
const connection = $("connection");
const errorNode = $("room-error");

let socket = null;
let me = null;
let state = null;
let offset = 0; // server clock minus this device's clock, in seconds
let nextId = 1;
let retry = 0;
let tracer = null;
let typing = null;
let typingDue = false; // the typed path lights once the board is shown (not in the countdown)
let boardText = null;
let shownResults = 0;
let lastSeq = null; // the room's event counter as last seen: a gap means news was missed
let knownHost = null; // the host as last seen: a change is announced
let stopped = false; // the server closed this page's connection for good (removed, replaced)
let timeUpShown = false; // "Time is up" said for the round in play
let hurried = false; // the "time nearly up" sound played for the round in play
let lastPhase = null;
let presence = {};
let counts = { round: null, counts: {} }; // words entered so far in the round in play, per player
const announcer = clockAnnouncer($("clock-announce"));

// Errors after which reconnecting would not help (the server closes the socket after them).
const FINAL_ERRORS = {
  kicked: "The host removed you from this room.",
  replaced: "This room is open in another tab or window; reload this page to play here.",
  too_many_sockets: "Too many connections from your address; close some tabs and reload.",
  flooding: "This page sent too many messages and was disconnected; reload to come back.",
};
const PRESENCE_LABELS = { online: "online", away: "away", offline: "offline" };

const serverNow = () => Date.now() / 1000 + offset;
const connected = () => socket && socket.readyState === WebSocket.OPEN && me !== null;

function showError(message) {
  errorNode.textContent = message || "";
  errorNode.hidden = !message;
}

// The join form, its name field focused: typing a name is the next step.
function askName() {
  $("join-form").hidden = false;
  $("name").focus();
}

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) {
    socket.send(JSON.stringify({ v: 1, id: nextId++, ...message }));
    return true;
  }
  showError("Not connected; reconnecting…");
  return false;
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws`);
  connection.textContent = "Connecting…";
  connection.dataset.state = "connecting";
  socket.addEventListener("open", () => {
    retry = 0;
    connection.textContent = "Connected";
    connection.dataset.state = "open";
    const token = localStorage.getItem(tokenKey);
    if (token) send({ type: "join", room: code, token });
    else askName();
  });
  socket.addEventListener("message", (event) => receive(JSON.parse(event.data)));
  socket.addEventListener("close", () => {
    connection.dataset.state = "closed";
    me = null;
    if (stopped) {
      connection.textContent = "Disconnected";
      return;
    }
    connection.textContent = "Connection lost; reconnecting…";
    retry = Math.min(retry + 1, 5);
    setTimeout(connect, 500 * 2 ** retry);
  });
}

function receive(message) {
  if (typeof message.seq === "number") {
    if (message.type !== "state" && lastSeq !== null && message.seq > lastSeq + 1) send({ type: "state" });
    lastSeq = Math.max(lastSeq ?? 0, message.seq);
  }
  switch (message.type) {
    case "welcome":
      me = message.player;
      if (message.token) localStorage.setItem(tokenKey, message.token);
      localStorage.setItem("bigboggle:name", me);
      $("join-form").hidden = true;
      showError("");
      if (document.visibilityState === "hidden") send({ type: "presence", state: "away" });
      break;
    case "state":
      render(message.state);
      break;
    case "presence":
      showPresence(message.presence);
      break;
    case "counts":
      takeCounts(message.round, message.counts);
      showPresence(presence);
      break;
    case "verdict":
      showVerdict(message.result);
      break;
    case "results":
      showResults(message.round, message);
      break;
    case "error":
      if (FINAL_ERRORS[message.code]) {
        stopped = true;
        if (message.code === "kicked") localStorage.removeItem(tokenKey);
        showError(`${FINAL_ERRORS[message.code]} (${message.message})`);
        $("host-panel").hidden = true;
        return;
      }
      if (message.code === "not_found" && localStorage.getItem(tokenKey) && !me) {
        localStorage.removeItem(tokenKey); // a token from an old database: join afresh
        askName();
      }
      if (message.code === "rate_limited") return;
      if (state && state.round) sayVerdict(message.message, "refused");
      else showError(message.message);
      break;
    default:
      break;
  }
}

// -- the room as a whole ---------------------------------------------------------------------

function render(next) {
  state = next;
  offset = next.now - Date.now() / 1000;
  if (next.round) takeCounts(next.round.number, next.round.counts);
  $("lobby").hidden = false;
  announceHost(next);
  showPresence(next.presence || {});
  showSettingsSummary(next);
  const running = next.round;
  if (running) showRound(running);
  else {
    $("play").hidden = true;
    if (typing) typing.clear();
  }
  if (next.last && next.last.number !== shownResults) showResults(next.last, next);
  else showTotals(next);
  if (running || (!next.last && !next.over)) hideResults();
  else if (next.over) $("results").hidden = false;
  showControls(next);
  showPhase();
}

function isHost() {
  return state && state.you === state.host;
}

// lobby | countdown | playing | scoring | results | over
function phaseOf(view) {
  if (!view) return "lobby";
  const round = view.round;
  if (round) {
    const now = serverNow();
    if (now < round.starts_at) return "countdown";
    if (round.scoring || now >= round.deadline) return "scoring";
    return "playing";
  }
  if (view.over) return "over";
  return view.last ? "results" : "lobby";
}

function bannerText(phase, view) {
  const round = view.round;
  const host = view.host === view.you ? "you" : view.host;
  switch (phase) {
    case "countdown":
      return `Round ${round.number} is about to start: get ready.`;
    case "playing":
      return round.playing ? `Round ${round.number} is on: find words!` : `Round ${round.number} is on; you play the next one.`;
    case "scoring":
      return `Time is up: round ${round.number} is being scored…`;
    case "results":
      return host === "you"
        ? `Results of round ${view.last.number}. Start the next round when everyone is ready.`
        : `Results of round ${view.last.number}. Waiting for ${host} to start the next round.`;
    case "over":
      return view.winner ? `Game over: ${view.winner} wins.` : view.standings.length > 1 ? "Game over: a tie." : "Game over.";
    default:
      return host === "you" ? "Lobby: start a round when everyone is here." : `Lobby: waiting for ${host} to start a round.`;
  }
}

function showPhase() {
  if (!state) return;
  const phase = phaseOf(state);
  const banner = $("room-banner");
  banner.hidden = false;
  banner.dataset.phase = phase;
  const text = bannerText(phase, state);
  if (banner.textContent !== text) banner.textContent = text;
  if (phase !== lastPhase) {
    lastPhase = phase;
    showControls(state);
  }
}

function showControls(view) {
  const host = isHost();
  const phase = phaseOf(view);
  const between = !view.round;
  $("host-panel").hidden = !host || stopped;
  $("start-round").hidden = !between || view.over;
  $("start-round").textContent = view.last ? "Next round" : "Start a round";
  $("rematch").hidden = !view.over;
  $("end-game").hidden = view.over;
  $("settings-panel").hidden = !between || view.over;
  if (host && between && !view.over) fillSettings(view);
  const opponents = view.opponents || {};
  const kickable = view.players.filter((name) => name !== view.you && !Object.hasOwn(opponents, name));
  $("kick-area").hidden = !host || view.over || !kickable.length;
  if (host) {
    $("kick-list").replaceChildren(
      ...kickable.map((name) =>
        el("li", {}, el("button", { type: "button", class: "kick", "data-player": name, "aria-label": `Remove ${name} from the room`, text: `Remove ${name}` })),
      ),
    );
  }
  showOpponentControls(view, host);
  const waiting = $("waiting");
  const who = view.host;
  let text = "";
  if (!host && between) {
    if (view.over) text = `Waiting for ${who} to start a rematch.`;
    else if (view.last) text = `Waiting for ${who} to start the next round.`;
    else text = `Waiting for ${who} to start a round.`;
  }
  waiting.hidden = !text;
  if (waiting.textContent !== text) waiting.textContent = text;
  if (phase === "playing" && $("word") !== document.activeElement && !$("word").disabled) $("word").focus();
}

/** A rules preset's title ("Big Boggle (5x5, Deluxe dice)"), as the Game menu shows it: the
 * settings hold its internal name ("big"), which reads as nothing to a player. */
function presetTitle(name) {
  const option = [...$("s-rules").options].find((o) => o.value === name);
  return option ? option.textContent : name;
}

function showSettingsSummary(view) {
  const s = view.settings;
  const ends = s.target ? `first to ${plural(s.target, "point")}` : s.rounds ? plural(s.rounds, "round") : "no set end";
  const options = [
    s.options.advanced ? "advanced" : "",
    s.options.challenge ? "challenge cube" : "",
    s.options.family ? "family filter" : "",
    s.options.duplicates === "keep" ? "duplicates kept" : "",
    s.teams ? `teams: ${Object.entries(s.teams).map(([t, m]) => `${t} (${m.join(", ")})`).join("; ")}` : "",
    Object.keys(s.handicaps).length ? `3-letter words for ${Object.keys(s.handicaps).join(", ")}` : "",
  ].filter(Boolean);
  $("settings-summary").textContent =
    `${presetTitle(s.rules)}, ${s.timer ? `${s.timer} s` : "the game's timer"}, ${ends}${options.length ? `; ${options.join("; ")}` : ""}. ` +
    `${(view.rated ?? s.rated !== false) ? "Rated game" : "Not rated"}. ${plural(view.rounds_played, "round")} played.`;
}

// The counts of the round in play: they only grow, and news may come in any order.
function takeCounts(round, next) {
  if (counts.round !== round) counts = { round, counts: {} };
  for (const [name, n] of Object.entries(next || {})) counts.counts[name] = Math.max(counts.counts[name] || 0, n);
}

function showPresence(next) {
  presence = next || {};
  if (!state) return;
  const opponents = state.opponents || {};
  const round = state.round && counts.round === state.round.number ? counts.counts : null;
  $("players").replaceChildren(
    ...state.players.map((name) => {
      const strength = Object.hasOwn(opponents, name) ? opponents[name] : null;
      const where = strength ? "computer" : presence[name] || "offline";
      const count = round && Object.hasOwn(round, name) ? el("span", { class: "word-count", text: plural(round[name], "word") }) : "";
      return el(
        "li",
        { "data-player": name, "data-presence": where },
        strength ? "" : el("span", { class: `presence-dot p-${where}`, "aria-hidden": "true" }),
        el("span", { class: "name", text: name }),
        memberBadge(state.members && state.members[name]),
        opponentBadge(strength),
        name === state.host ? el("span", { class: "tag", text: "host" }) : "",
        name === state.you ? el("span", { class: "tag", text: "you" }) : "",
        count,
        el("span", { class: `presence p-${where}`, text: strength ? "on the clock" : PRESENCE_LABELS[where] || where }),
      );
    }),
  );
}

const strengthLabel = (strength) => strength.charAt(0).toUpperCase() + strength.slice(1);

// A computer opponent's seat (the server's "opponents" map says which): a "computer" badge with
// its strength, apart from the name.
function opponentBadge(strength) {
  if (!strength) return "";
  return el("span", { class: "opponent-badge", title: `A computer opponent (${strengthLabel(strength)})`, text: `computer: ${strengthLabel(strength)}` });
}

// The host's opponents: add one by strength (not once the game is over), remove one at any time.
function showOpponentControls(view, host) {
  const opponents = Object.entries(view.opponents || {});
  $("opponent-area").hidden = !host || view.over;
  $("opponent-form").hidden = view.over;
  if (!host) return;
  $("opponent-list").replaceChildren(
    ...opponents.map(([name, strength]) =>
      el("li", {}, el("button", { type: "button", class: "remove-opponent", "data-seat": name, "aria-label": `Remove ${name} (computer opponent, ${strengthLabel(strength)})`, text: `Remove ${name}` })),
    ),
  );
}

// A round's results with each opponent's list marked as such (the round says which, by its
// players' "opponent"); the lists come in the players' order.
function markOpponents(section, round) {
  const lists = section.querySelectorAll(".lists .list h4");
  Object.entries(round.players || {}).forEach(([, player], i) => {
    if (player.opponent && lists[i]) lists[i].append(" ", opponentBadge(player.opponent));
  });
}

// A member's seat (the server marks only a seat under the member's own user name): a
// "member" badge linking to their profile, drawn apart from the name, so a guest's name (which
// may hold no symbol) is never taken for a member's.
function memberBadge(username) {
  if (!username) return "";
  return el("a", {
    class: "member-badge",
    href: `/players/${encodeURIComponent(username)}`,
    title: `${username}'s profile`,
    text: "member",
  });
}

function announceHost(next) {
  if (knownHost !== null && knownHost !== next.host) {
    const note = $("host-note");
    note.hidden = false;
    note.textContent =
      next.host === next.you
        ? `You are the host now (${knownHost} was away).`
        : `${next.host} is the host now.`;
  }
  knownHost = next.host;
}

// -- a round in play -------------------------------------------------------------------------

function showRound(round) {
  $("play").hidden = false;
  $("round-number").textContent = round.number;
  if (boardText !== round.board) {
    boardText = round.board;
    if (typing) typing.stop();
    typing = null;
    $("board-slot").replaceChildren(renderBoard(round.board, { interactive: true }));
    const board = $("board-slot").querySelector(".board");
    tracer = traceable(board, {
      onChange: (text) => {
        if (typing) typing.clear();
        $("word").value = text;
      },
      onSubmit: (word) => {
        $("word").value = "";
        submit(word);
      },
    });
    typingDue = true;
    $("my-words").replaceChildren();
    $("verdict").textContent = round.playing ? "" : "You joined during this round: play the next one.";
    $("verdict").className = "verdict-line";
    announcer.reset();
    timeUpShown = false;
    hurried = false;
  }
  $("my-words").replaceChildren(...round.words.slice().reverse().map((word) => wordItem(word)));
  showScore(round.words);
  $("word").disabled = !round.playing;
  tick();
}

// Why a word cannot be sent now, or "" if it can.
function notNow() {
  if (!connected()) return "Not connected: reconnecting… Your word is not sent yet.";
  const round = state && state.round;
  if (!round) return "No round is running.";
  if (!round.playing) return "You joined during this round: play the next one.";
  const now = serverNow();
  if (now < round.starts_at) {
    const left = Math.ceil(round.starts_at - now);
    return `Not yet: the round starts in ${plural(left, "second")}. Your word is kept; press Enter once the board appears.`;
  }
  if (round.scoring || now >= round.deadline) return "Time is up: the round is being scored, so no more words.";
  return "";
}

function sayVerdict(text, kind) {
  $("verdict").textContent = text;
  $("verdict").className = `verdict-line v-${kind}`;
}

function submit(word) {
  word = word.trim();
  if (!word) return false;
  const why = notNow();
  if (why) {
    sayVerdict(why, "not-now");
    return false;
  }
  send({ type: "submit", word });
  return true;
}

function showScore(words) {
  const scored = words.filter((w) => w.verdict === "scored");
  const points = scored.reduce((sum, w) => sum + w.score, 0);
  $("score-line").textContent = `Your score: ${plural(points, "point")} so far (${plural(scored.length, "word")}).`;
}

function showVerdict(result) {
  const first = state && state.round ? firstEntry(state.round.words, result) : null;
  sayVerdict(verdictSentence(result, "", first), result.verdict);
  playSound(verdictSound(result, first));
  if (state && state.round && result.verdict !== "repeated") {
    state.round.words.push(result);
    showScore(state.round.words);
  }
  if (result.verdict === "scored") addScoredWord($("my-words"), wordItem(result), result.score);
  else if (result.verdict !== "repeated") $("my-words").prepend(wordItem(result));
}

// The countdown is over: the typed path may light on the board now, and a word kept during the
// countdown may be sent.
function boardShown() {
  typingDue = false;
  const input = $("word");
  typing = lightTyping($("board-slot").querySelector(".board"), input);
  if ($("verdict").classList.contains("v-not-now")) {
    sayVerdict(input.value.trim() ? "The board is here: press Enter to send your word." : "", "go");
  }
  if (input.value) input.dispatchEvent(new Event("input"));
}

function tick() {
  showPhase();
  if (!state || !state.round) return;
  const round = state.round;
  const now = serverNow();
  const clock = $("clock");
  const waiting = now < round.starts_at;
  $("countdown").hidden = !waiting;
  $("board-slot").hidden = waiting;
  if (waiting) {
    const left = String(Math.ceil(round.starts_at - now));
    if ($("countdown-number").textContent !== left) $("countdown-number").textContent = left;
    clock.textContent = "";
    return;
  }
  if (typingDue) boardShown();
  const left = Math.max(0, round.deadline - now);
  clock.textContent = formatClock(left);
  announcer.update(left);
  if (left <= 10 && left > 0 && !hurried && round.playing) {
    hurried = true;
    playSound("hurry");
  }
  if (left <= 0 && !timeUpShown) {
    timeUpShown = true;
    sayVerdict("Time is up. Scoring…", "not-now");
    if (tracer) tracer.clear();
    if (typing) typing.clear();
    // The server scores the round at the deadline; ask again in case this news was missed.
    setTimeout(() => send({ type: "state" }), 1500);
  }
}
setInterval(tick, 250);

// -- results and totals ----------------------------------------------------------------------

function hideResults() {
  $("results").hidden = true;
  $("round-result").replaceChildren(); // one board on screen: the old round's goes
  $("winner").hidden = true;
}

function showTotals(view) {
  const body = $("totals").querySelector("tbody");
  const opponents = view.opponents || (state && state.opponents) || {};
  body.replaceChildren(
    ...view.standings.map((name, i) =>
      el(
        "tr",
        {},
        el("td", { text: String((view.places || {})[name] ?? i + 1) }),
        el("th", { scope: "row" }, name, Object.hasOwn(opponents, name) ? [" ", opponentBadge(opponents[name])] : ""),
        el("td", { class: "num", text: String(view.totals[name]) }),
      ),
    ),
  );
  $("standings").hidden = !view.standings.length;
  const winner = $("winner");
  if (view.over) {
    winner.hidden = false;
    winner.textContent = view.winner
      ? `${view.winner} wins the game.`
      : view.standings.length
        ? "The game ends in a tie."
        : "The game is over.";
  } else winner.hidden = true;
}

function showResults(round, view) {
  shownResults = round.number;
  if (state && state.round && state.round.number > round.number) return; // a newer round is on
  $("results").hidden = false;
  $("results-heading").textContent = `Results of round ${round.number}`;
  const shown = round.reason ? el("p", { text: round.reason }) : renderRound(round);
  if (!round.reason) markOpponents(shown, round);
  $("round-result").replaceChildren(shown);
  showTotals(view);
  $("play").hidden = true;
  $("results-heading").focus();
}

// -- the page's controls ---------------------------------------------------------------------

$("join-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const name = $("name").value.trim();
  if (name) send({ type: "join", room: code, name });
  else {
    showError("Type a name to join: it cannot be only spaces.");
    $("name").focus();
  }
});
offerName($("name"));
$("word-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const word = $("word").value;
  if (!submit(word)) return; // kept in the box, with the reason beside it
  $("word").value = "";
  if (tracer) tracer.clear();
  if (typing) typing.clear();
});
$("start-round").addEventListener("click", () => send({ type: "start" }));
$("rematch").addEventListener("click", () => send({ type: "rematch" }));
$("end-game").addEventListener("click", () => {
  const running = state && state.round ? " The round in play is scored as it stands." : "";
  if (confirm(`End the game for everyone now?${running}`)) send({ type: "end" });
});
$("kick-list").addEventListener("click", (event) => {
  const button = event.target.closest("button.kick");
  if (!button) return;
  const player = button.dataset.player;
  if (confirm(`Remove ${player} from the room? They cannot come back under that name.`)) send({ type: "kick", player });
});
$("opponent-form").addEventListener("submit", (event) => {
  event.preventDefault();
  send({ type: "add_opponent", strength: $("opponent-strength").value });
});
$("opponent-list").addEventListener("click", (event) => {
  const button = event.target.closest("button.remove-opponent");
  if (button) send({ type: "remove_opponent", seat: button.dataset.seat });
});
soundToggle($("sound-toggle"));

document.addEventListener("visibilitychange", () => {
  if (connected()) send({ type: "presence", state: document.visibilityState === "hidden" ? "away" : "online" });
});

// The share link: absolute, copied with one click (or selected to copy by hand), shared through
// the phone's share sheet where the browser has one.
const shareLink = $("share-link");
const COPIED_SHOWN_MS = 4000;
let copiedTimer = null;
shareLink.value = new URL(`/rooms/${code}`, location.origin).href;
shareLink.addEventListener("focus", () => shareLink.select());
$("copy-link").addEventListener("click", async () => {
  const status = $("copy-status");
  try {
    await navigator.clipboard.writeText(shareLink.value);
    status.textContent = "Copied the link.";
    // Said once: it goes after a few seconds (the link stays copied).
    clearTimeout(copiedTimer);
    copiedTimer = setTimeout(() => {
      status.textContent = "";
    }, COPIED_SHOWN_MS);
  } catch {
    shareLink.focus();
    shareLink.select();
    status.textContent = "Copying is not allowed here: the link is selected, copy it with Ctrl+C (or ⌘C).";
  }
});
if (typeof navigator.share === "function") {
  const share = $("share-button");
  share.hidden = false;
  share.addEventListener("click", () => {
    navigator.share({ title: `Big Boggle room ${code}`, text: "Play Big Boggle with me:", url: shareLink.value }).catch(() => {});
  });
}

function fillSettings(view) {
  const form = $("settings-form");
  if (form.contains(document.activeElement)) return; // the host is editing
  const s = view.settings;
  $("s-rules").value = s.rules;
  $("s-timer").value = s.timer || "";
  $("s-dictionary").value = s.dictionary || "";
  $("s-duplicates").value = s.options.duplicates || "cancel";
  $("s-advanced").checked = Boolean(s.options.advanced);
  $("s-challenge").checked = Boolean(s.options.challenge);
  $("s-family").checked = Boolean(s.options.family);
  $("s-teams").checked = Boolean(s.teams);
  $("s-rated").checked = s.rated !== false; // rated unless the host said not
  $("s-target").value = s.target || "";
  $("s-rounds").value = s.rounds || "";
  const teamOf = Object.create(null);
  for (const [team, members] of Object.entries(s.teams || {})) for (const m of members) teamOf[m] = team;
  $("s-players").replaceChildren(
    ...view.players.map((name, i) =>
      el(
        "div",
        { class: "row", role: "group", "aria-label": name },
        el("span", { class: "w", text: name }),
        el("label", {}, "Team ", el("input", { class: "p-team", value: teamOf[name] || "", maxLength: 40, "data-player": name, id: `p-team-${i}` })),
        el("label", {}, el("input", { type: "checkbox", class: "p-handicap", checked: Object.hasOwn(s.handicaps, name), "data-player": name, id: `p-hc-${i}` }), " 3-letter words"),
      ),
    ),
  );
}

$("settings-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const number = (id) => ($(id).value ? Number($(id).value) : null);
  const options = {};
  if ($("s-advanced").checked) options.advanced = true;
  if ($("s-challenge").checked) options.challenge = true;
  if ($("s-family").checked) options.family = true;
  if ($("s-duplicates").value !== "cancel") options.duplicates = $("s-duplicates").value;
  const handicaps = Object.create(null);
  for (const box of document.querySelectorAll(".p-handicap")) if (box.checked) handicaps[box.dataset.player] = 3;
  let teams = null;
  if ($("s-teams").checked) {
    teams = Object.create(null);
    for (const input of document.querySelectorAll(".p-team")) {
      const team = input.value.trim() || "no team";
      (teams[team] ||= []).push(input.dataset.player);
    }
  }
  send({
    type: "configure",
    settings: {
      rules: $("s-rules").value,
      options,
      timer: number("s-timer"),
      dictionary: $("s-dictionary").value || null,
      target: number("s-target"),
      rounds: number("s-rounds"),
      max_players: state ? state.settings.max_players : 12,
      handicaps,
      teams,
      rated: $("s-rated").checked,
    },
  });
  document.activeElement.blur();
});

connect();
