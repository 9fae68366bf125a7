// The paper round's form: players with their lists, handicaps and teams, read into the API's JSON.
import { mountGridEditor } from "./gridinput.js";

export function setupRoundForm({ teamPlay, players = ["", ""], sizeFor = () => [5, 5] }) {
  const form = document.getElementById("round-form");
  const container = document.getElementById("players");
  const template = document.getElementById("player-template");
  const boardField = document.getElementById("board");
  const editor = mountGridEditor(document.getElementById("grid-editor"), boardField, sizeFor);
  let counter = 0;

  const showTeams = () => {
    for (const field of form.querySelectorAll(".team-field")) field.hidden = !teamPlay();
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
