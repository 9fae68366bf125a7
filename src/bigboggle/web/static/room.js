// A multiplayer room over the WebSocket protocol (see bigboggle/web/protocol.py): join or come
// back with the private token kept in this browser, play rounds on the server's clock, see results.
import { el } from "./api.js";
import { renderBoard } from "./board.js";
import { clockAnnouncer, formatClock } from "./clock.js";
import { renderRound } from "./roundview.js";
import { traceable } from "./trace.js";
import { verdictSentence, wordItem } from "./words.js";

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
let boardText = null;
let shownResults = 0;
let lastSeq = null; // the room's event counter as last seen: a gap means news was missed
let knownHost = null; // the host as last seen: a change is announced
let stopped = false; // the server closed this page's connection for good (removed, replaced)
let timeUpShown = false; // "Time is up" said for the round in play
const announcer = clockAnnouncer($("clock-announce"));

// Errors after which reconnecting would not help (the server closes the socket after them).
const FINAL_ERRORS = {
  kicked: "The host removed you from this room.",
  replaced: "This room is open in another tab or window; reload this page to play here.",
  too_many_sockets: "Too many connections from your address; close some tabs and reload.",
  flooding: "This page sent too many messages and was disconnected; reload to come back.",
};

const serverNow = () => Date.now() / 1000 + offset;

function showError(message) {
  errorNode.textContent = message || "";
  errorNode.hidden = !message;
}

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) {
    socket.send(JSON.stringify({ v: 1, id: nextId++, ...message }));
    return true;
  }
  showError("not connected; reconnecting…");
  return false;
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws`);
  connection.textContent = "Connecting…";
  socket.addEventListener("open", () => {
    retry = 0;
    connection.textContent = "Connected.";
    const token = localStorage.getItem(tokenKey);
    if (token) send({ type: "join", room: code, token });
    else $("join-form").hidden = false;
  });
  socket.addEventListener("message", (event) => receive(JSON.parse(event.data)));
  socket.addEventListener("close", () => {
    if (stopped) {
      connection.textContent = "Disconnected.";
      return;
    }
    connection.textContent = "Connection lost; reconnecting…";
    me = null;
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
      break;
    case "state":
      render(message.state);
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
        $("host-end").hidden = true;
        $("host-controls").hidden = true;
        return;
      }
      if (message.code === "not_found" && localStorage.getItem(tokenKey) && !me) {
        localStorage.removeItem(tokenKey); // a token from an old database: join afresh
        $("join-form").hidden = false;
      }
      if (message.code === "rate_limited") return;
      showError(message.message);
      $("verdict").textContent = message.message;
      break;
    default:
      break;
  }
}

function render(next) {
  state = next;
  offset = next.now - Date.now() / 1000;
  $("lobby").hidden = false;
  const isHost = next.you === next.host;
  announceHost(next);
  const players = $("players");
  players.replaceChildren(
    ...next.players.map((name) =>
      el(
        "li",
        {},
        name,
        name === next.host ? " (host)" : "",
        name === next.you ? " — you" : "",
        isHost && name !== next.you && !next.over
          ? el("button", { type: "button", class: "kick", "data-player": name, "aria-label": `Remove ${name} from the room`, text: "Remove" })
          : "",
      ),
    ),
  );
  const s = next.settings;
  const ends = s.target ? `first to ${s.target} points` : s.rounds ? `${s.rounds} rounds` : "no set end";
  const options = [
    s.options.advanced ? "advanced" : "",
    s.options.challenge ? "challenge cube" : "",
    s.options.duplicates === "keep" ? "duplicates kept" : "",
    s.teams ? `teams: ${Object.entries(s.teams).map(([t, m]) => `${t} (${m.join(", ")})`).join("; ")}` : "",
    Object.keys(s.handicaps).length ? `3-letter words for ${Object.keys(s.handicaps).join(", ")}` : "",
  ].filter(Boolean);
  $("settings-summary").textContent =
    `${s.rules}, ${s.timer ? `${s.timer} s` : "the game's timer"}, ${ends}${options.length ? `; ${options.join("; ")}` : ""}. ` +
    `${next.rounds_played} round${next.rounds_played === 1 ? "" : "s"} played.`;
  const running = next.round;
  $("host-controls").hidden = !isHost || next.over || Boolean(running);
  $("host-end").hidden = !isHost || next.over;
  $("waiting").hidden = isHost || next.over || Boolean(next.round);
  if (isHost) fillSettings(next);
  $("start-round").disabled = Boolean(running);
  if (running) showRound(running);
  else $("play").hidden = true;
  if (next.last && next.last.number !== shownResults) showResults(next.last, next);
  else if (next.last) showTotals(next);
  else if (next.over) {
    $("results").hidden = false; // ended by the host before any round was scored
    showTotals(next);
  }
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

function showRound(round) {
  $("play").hidden = false;
  $("round-number").textContent = round.number;
  if (boardText !== round.board) {
    boardText = round.board;
    $("board-slot").replaceChildren(renderBoard(round.board, { interactive: true }));
    tracer = traceable($("board-slot").querySelector(".board"), {
      onChange: (text) => ($("word").value = text),
      onSubmit: (word) => {
        $("word").value = "";
        submit(word);
      },
    });
    $("my-words").replaceChildren();
    $("verdict").textContent = round.playing
      ? `Round ${round.number}: the board is here. Type words and press Enter, or trace them.`
      : "You joined during this round: play the next one.";
    announcer.reset();
    timeUpShown = false;
    if (round.playing) $("word").focus();
  }
  $("my-words").replaceChildren(...round.words.slice().reverse().map((word) => wordItem(word)));
  $("word").disabled = !round.playing;
}

function submit(word) {
  word = word.trim();
  if (!word) return;
  send({ type: "submit", word });
}

function showVerdict(result) {
  $("verdict").textContent = verdictSentence(result, " so far");
  $("verdict").className = `verdict-line v-${result.verdict}`;
  if (result.verdict !== "repeated") $("my-words").prepend(wordItem(result));
}

function showTotals(view) {
  const body = $("totals").querySelector("tbody");
  body.replaceChildren(
    ...view.standings.map((name, i) =>
      el("tr", {}, el("td", { text: String(i + 1) }), el("th", { scope: "row", text: name }), el("td", { class: "num", text: String(view.totals[name]) })),
    ),
  );
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
  $("results").hidden = false;
  $("results-heading").textContent = `Results of round ${round.number}`;
  $("round-result").replaceChildren(renderRound(round));
  showTotals(view);
  if (!state || !state.round) $("play").hidden = true;
  $("results-heading").focus();
}

function tick() {
  if (!state || !state.round) return;
  const round = state.round;
  const now = serverNow();
  const clock = $("clock");
  const form = $("word-form");
  if (now < round.starts_at) {
    clock.textContent = `Starts in ${Math.ceil(round.starts_at - now)}`;
    form.querySelector("button").disabled = true;
    return;
  }
  form.querySelector("button").disabled = false;
  const left = Math.max(0, round.deadline - now);
  clock.textContent = formatClock(left);
  announcer.update(left);
  if (left <= 0 && !timeUpShown) {
    timeUpShown = true;
    $("verdict").textContent = "Time is up. Scoring…";
    if (tracer) tracer.clear();
    // The server scores the round at the deadline; ask again in case this news was missed.
    setTimeout(() => send({ type: "state" }), 1500);
  }
}
setInterval(tick, 250);

$("join-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const name = $("name").value.trim();
  if (name) send({ type: "join", room: code, name });
});
$("name").value = localStorage.getItem("bigboggle:name") || "";
$("word-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const word = $("word").value;
  $("word").value = "";
  if (tracer) tracer.clear();
  submit(word);
});
$("start-round").addEventListener("click", () => send({ type: "start" }));
$("end-game").addEventListener("click", () => {
  const running = state && state.round ? " The round in play is scored as it stands." : "";
  if (confirm(`End the game for everyone now?${running}`)) send({ type: "end" });
});
$("players").addEventListener("click", (event) => {
  const button = event.target.closest("button.kick");
  if (!button) return;
  const player = button.dataset.player;
  if (confirm(`Remove ${player} from the room? They cannot come back under that name.`)) send({ type: "kick", player });
});

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
  $("s-teams").checked = Boolean(s.teams);
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
    },
  });
  document.activeElement.blur();
});

connect();
