// The scorekeeper: score one paper round, or start a tournament with the chosen rules.
import { api } from "./api.js";
import { renderRound } from "./roundview.js";
import { chosenSize } from "./gridinput.js";
import { readableError, setupRoundForm, showError } from "./roundform.js";

const teamBox = document.getElementById("team-play");
const rulesField = document.getElementById("rules");
const round = setupRoundForm({ teamPlay: () => teamBox.checked, sizeFor: () => chosenSize(rulesField) });
teamBox.addEventListener("change", round.showTeams);
// Another game's board size, while the grid is still empty (a board typed in is never cut).
rulesField.addEventListener("change", () => {
  if (!document.getElementById("board").value.trim()) round.editor.resize();
});
const errorNode = document.getElementById("round-error");
const output = document.getElementById("round-result");

function rulesChoice() {
  const options = {};
  if (document.getElementById("advanced").checked) options.advanced = true;
  if (teamBox.checked) options.teams = true;
  const duplicates = document.getElementById("duplicates").value;
  if (duplicates !== "cancel") options.duplicates = duplicates;
  const choice = { rules: rulesField.value, options };
  const dictionary = document.getElementById("dictionary").value;
  if (dictionary) choice.dictionary = dictionary;
  return choice;
}

round.form.addEventListener("submit", async (event) => {
  event.preventDefault();
  showError(errorNode, "");
  try {
    const result = await api("POST", "/api/score", { ...round.read(), ...rulesChoice() });
    output.replaceChildren(renderRound(result, { title: "Results" }));
    output.querySelector("h3").setAttribute("tabindex", "-1");
    output.querySelector("h3").focus();
  } catch (err) {
    showError(errorNode, readableError(err.message));
  }
});

const tournamentForm = document.getElementById("tournament-form");
tournamentForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const tournamentError = document.getElementById("tournament-error");
  showError(tournamentError, "");
  const [kind, value] = document.getElementById("t-end").value.split(":");
  try {
    const created = await api("POST", "/api/tournaments", {
      name: document.getElementById("t-name").value.trim(),
      ...rulesChoice(),
      [kind]: Number(value),
    });
    const names = [...document.querySelectorAll(".player")].map((node) => ({
      name: node.querySelector(".player-name").value.trim(),
      team: teamBox.checked ? node.querySelector(".player-team").value.trim() : "",
      min: node.querySelector(".player-min").value,
    })).filter((player) => player.name);
    sessionStorage.setItem(`tournament-players:${created.id}`, JSON.stringify(names));
    // The owner's key: only this browser may add rounds, rename or delete the tournament.
    localStorage.setItem(`bigboggle:tournament-key:${created.id}`, created.key);
    location.href = `/tournaments/${created.id}`;
  } catch (err) {
    showError(tournamentError, err.message);
  }
});
