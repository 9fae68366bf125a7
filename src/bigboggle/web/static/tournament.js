// A tournament's page: every round's results, and the form that adds the next round.
import { api } from "./api.js";
import { renderRound } from "./roundview.js";
import { setupRoundForm, showError } from "./roundform.js";

const data = JSON.parse(document.getElementById("tournament-data").textContent);
const rounds = document.getElementById("rounds");
data.played.slice().reverse().forEach((result) => {
  const details = document.createElement("details");
  const summary = document.createElement("summary");
  const leader = result.ranking[0];
  summary.textContent = `Round ${result.number}: ${result.board}` + (leader ? ` — best: ${leader}` : "");
  details.append(summary, renderRound(result));
  if (result.number === data.played.length) details.open = true;
  rounds.append(details);
});
if (!data.played.length) rounds.textContent = "No rounds yet.";

if (document.getElementById("round-form")) {
  const teamPlay = () => Boolean(document.getElementById("team-play-fixed").value);
  const stored = sessionStorage.getItem(`tournament-players:${data.id}`);
  let players = stored ? JSON.parse(stored) : ["", ""];
  const last = data.played[data.played.length - 1];
  if (last) {
    players = Object.entries(last.players).map(([name, player]) => {
      const team = last.teams && Object.entries(last.teams).find(([, t]) => t.members.includes(name));
      return { name, team: team ? team[0] : "", min: player.min_length === 3 ? "3" : "" };
    });
  }
  const round = setupRoundForm({ teamPlay, players });
  const errorNode = document.getElementById("round-error");
  round.form.addEventListener("submit", async (event) => {
    event.preventDefault();
    showError(errorNode, "");
    try {
      await api("POST", `/api/tournaments/${encodeURIComponent(data.id)}/rounds`, round.read());
      location.reload();
    } catch (err) {
      showError(errorNode, err.message);
    }
  });
}
