// The paper round's form: players with their lists, handicaps and teams, read into the API's JSON;
// beside the lists, the board as entered, so that it stays in view while the words are typed.
import { el } from "./api.js";
import { renderBoard } from "./board.js";
import { mountGridEditor } from "./gridinput.js";
import { mountPhotoReader } from "./photo.js";

// The board entered so far, drawn small beside the players' lists ("_" is a cell not typed yet).
function showPeek(node, text) {
  if (!node) return;
  node.hidden = !text.trim();
  if (node.hidden) node.replaceChildren();
  else node.replaceChildren(el("p", { class: "peek-title", text: "The board" }), renderBoard(text, { label: "The board entered above" }));
}

export function setupRoundForm({ teamPlay, players = ["", ""], sizeFor = () => [5, 5] }) {
  const form = document.getElementById("round-form");
  const container = document.getElementById("players");
  const template = document.getElementById("player-template");
  const boardField = document.getElementById("board");
  const peek = document.getElementById("board-peek");
  const teamsNote = document.getElementById("teams-note");
  const editor = mountGridEditor(document.getElementById("grid-editor"), boardField, sizeFor, {
    onChange: (text) => showPeek(peek, text),
  });
  // A photo of the tray, where the server reads them: by the form's rules, or the game's own.
  const photoReader = document.getElementById("photo-reader");
  if (photoReader) {
    const rulesField = document.getElementById("rules") || { value: photoReader.dataset.rules || "big" };
    mountPhotoReader(photoReader, { boardField, rulesField, editor });
  }
  let counter = 0;

  // The Team fields count only in team play: without it they are hidden and disabled, and if
  // teams were typed before team play was turned off, the form says that they are not used.
  const showTeams = () => {
    const on = teamPlay();
    for (const field of form.querySelectorAll(".team-field")) {
      field.hidden = !on;
      field.querySelector("input").disabled = !on;
    }
    if (!teamsNote) return;
    const typed = [...new Set([...form.querySelectorAll(".player-team")].map((input) => input.value.trim()).filter(Boolean))];
    teamsNote.textContent = !on && typed.length
      ? `Team play is off, so the teams typed (${typed.join(", ")}) are not used: each player scores alone. Turn team play on to score by teams.`
      : "";
    teamsNote.hidden = !teamsNote.textContent;
  };
  // The server's limit on players (bigboggle.limits.MAX_PLAYERS, rendered into the page): at it,
  // Add a player is disabled and a note says why.
  const addButton = document.getElementById("add-player");
  const limitNote = document.getElementById("players-limit");
  const maxPlayers = Number(container.dataset.maxPlayers) || Infinity;
  const showLimit = () => {
    const full = container.querySelectorAll(".player").length >= maxPlayers;
    addButton.disabled = full;
    if (limitNote) limitNote.hidden = !full;
  };
  const addPlayer = (name = "", details = {}) => {
    const node = template.content.firstElementChild.cloneNode(true);
    counter += 1;
    for (const label of node.querySelectorAll("label")) {
      const control = label.querySelector("input, select, textarea");
      control.id = `${control.className}-${counter}`;
    }
    node.querySelector(".player-name").value = name;
    node.querySelector(".player-team").value = details.team || "";
    node.querySelector(".player-min").value = details.min || "";
    node.querySelector(".remove-player").addEventListener("click", () => {
      node.remove();
      showLimit();
      const first = container.querySelector(".player-name");
      if (first) first.focus();
    });
    node.setAttribute("role", "group");
    node.setAttribute("aria-label", `Player ${counter}`);
    container.append(node);
    showTeams();
    showLimit();
    return node;
  };
  for (const player of players) {
    if (typeof player === "string") addPlayer(player);
    else addPlayer(player.name, player);
  }
  // A round has players: two rows to fill in when none (or one) were carried over.
  while (container.querySelectorAll(".player").length < 2) addPlayer();
  addButton.addEventListener("click", () => {
    if (container.querySelectorAll(".player").length >= maxPlayers) return;
    const node = addPlayer();
    // At the limit the button is disabled: the new row's name is next, or the note says why.
    node.querySelector(".player-name").focus();
  });

  const read = () => {
    const board = boardField.value.trim();
    if (!board) throw new Error("board: enter the board (type it or use the grid)");
    // Objects without a prototype: a player or team may be called "constructor".
    const data = { board, players: Object.create(null) };
    const minimums = Object.create(null);
    const teams = Object.create(null);
    const nodes = [...container.querySelectorAll(".player")];
    if (!nodes.length) throw new Error("players: add at least one player");
    nodes.forEach((node, i) => {
      const name = node.querySelector(".player-name").value.trim();
      if (!name) throw new Error(`player ${i + 1}: give a name`);
      if (Object.hasOwn(data.players, name)) throw new Error(`player ${i + 1}: the name ${JSON.stringify(name)} is used twice`);
      data.players[name] = node.querySelector(".player-words").value.split(/[\s,;]+/).filter(Boolean);
      const min = node.querySelector(".player-min").value;
      if (min) minimums[name] = Number(min);
      if (teamPlay()) {
        const team = node.querySelector(".player-team").value.trim();
        if (!team) throw new Error(`player ${name}: give a team (team play is on)`);
        (teams[team] ||= []).push(name);
      }
    });
    if (Object.keys(minimums).length) data.min_length = minimums;
    if (teamPlay()) data.teams = teams;
    return data;
  };
  return { form, read, showTeams, editor };
}

// An API error as the form's reader says it: the API names the JSON path at fault, 0-based
// ("players.ann[7]: …", "min_length.kid: …"); the page names the player and counts from 1
// ("ann's word 8: …"). The API's own words after the path are kept as they are.
export function readableError(message) {
  const text = String(message);
  const word = /^players\.(.+?)\[(\d+)\]: ?/.exec(text);
  if (word) return `${word[1]}'s word ${Number(word[2]) + 1}: ${text.slice(word[0].length)}`;
  const list = /^players\.(.+?): ?/.exec(text);
  if (list) return `${list[1]}'s list: ${text.slice(list[0].length)}`;
  const minimum = /^min_length\.(.+?): ?/.exec(text);
  if (minimum) return `${minimum[1]}'s shortest word: ${text.slice(minimum[0].length)}`;
  return text;
}

export function showError(node, message) {
  node.textContent = message;
  node.hidden = !message;
}
