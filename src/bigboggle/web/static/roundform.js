// The paper round's form: players with their lists, handicaps and teams, read into the API's JSON;
// beside the lists, the board as entered, so that it stays in view while the words are typed.
import { el } from "./api.js";
import { renderBoard } from "./board.js";
import { mountGridEditor } from "./gridinput.js";

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
      const first = container.querySelector(".player-name");
      if (first) first.focus();
    });
    node.setAttribute("role", "group");
    node.setAttribute("aria-label", `Player ${counter}`);
    container.append(node);
    showTeams();
    return node;
  };
  for (const player of players) {
    if (typeof player === "string") addPlayer(player);
    else addPlayer(player.name, player);
  }
  // A round has players: two rows to fill in when none (or one) were carried over.
  while (container.querySelectorAll(".player").length < 2) addPlayer();
  document.getElementById("add-player").addEventListener("click", () => addPlayer().querySelector(".player-name").focus());

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

export function showError(node, message) {
  node.textContent = message;
  node.hidden = !message;
}
