// A tournament's page: every round's results for everyone; for the browser that holds the
// tournament's key (the one that started it), the form that adds the next round, and renaming
// and deleting. Without the key the page stays read-only: the server would refuse the writes.
import { api } from "./api.js";
import { renderRound } from "./roundview.js";
import { readableError, setupRoundForm, showError } from "./roundform.js";

const data = JSON.parse(document.getElementById("tournament-data").textContent);
const rounds = document.getElementById("rounds");
data.played.slice().reverse().forEach((result) => {
  const details = document.createElement("details");
  const summary = document.createElement("summary");
  summary.textContent = `Round ${result.number}: ${result.board}` + bestOf(result);
  if (result.unscored) {
    // A round an older bigboggle stored that cannot be scored today: it counts no points.
    const note = document.createElement("p");
    note.textContent = result.unscored;
    details.append(summary, note);
  } else {
    details.append(summary, renderRound(result));
  }
  if (result.number === data.played.length) details.open = true;
  rounds.append(details);
});
if (!data.played.length) rounds.textContent = "No rounds yet.";

// " — best: ann" or, when several share the top score, " — best: ann and bob (tied)": a
// round's tie is not broken, so everyone on the top score is named.
function bestOf(result) {
  if (!result.ranking || !result.ranking.length) return "";
  const competitors = result.teams || result.players;
  const top = competitors[result.ranking[0]].score;
  const best = result.ranking.filter((name) => competitors[name].score === top);
  if (best.length === 1) return ` — best: ${best[0]}`;
  return ` — best: ${best.slice(0, -1).join(", ")} and ${best[best.length - 1]} (tied)`;
}

// The key POST /api/tournaments answered, kept by score.js when this browser started it.
const keyName = (id) => `bigboggle:tournament-key:${id}`;
const key = data.has_owner ? localStorage.getItem(keyName(data.id)) : null;
const withKey = { "X-Tournament-Key": key || "" };
const url = `/api/tournaments/${encodeURIComponent(data.id)}`;

if (key) {
  document.getElementById("read-only").hidden = true;
  document.getElementById("owner-tools").hidden = false;
  const nextRound = document.getElementById("next-round");
  if (nextRound) nextRound.hidden = false;
  setupOwnerTools();
}

if (key && document.getElementById("round-form")) {
  const teamPlay = () => Boolean(document.getElementById("team-play-fixed").value);
  const stored = sessionStorage.getItem(`tournament-players:${data.id}`);
  // The players named on the scorekeeper (none if it was empty: the form then has two rows).
  let players = stored ? JSON.parse(stored) : [];
  const last = data.played.filter((result) => !result.unscored).pop();
  if (last) {
    players = Object.entries(last.players).map(([name, player]) => {
      const team = last.teams && Object.entries(last.teams).find(([, t]) => t.members.includes(name));
      return { name, team: team ? team[0] : "", min: player.min_length === 3 ? "3" : "" };
    });
  }
  const { rows, cols } = document.getElementById("next-round").dataset;
  const round = setupRoundForm({ teamPlay, players, sizeFor: () => [Number(rows) || 5, Number(cols) || 5] });
  const errorNode = document.getElementById("round-error");
  round.form.addEventListener("submit", async (event) => {
    event.preventDefault();
    showError(errorNode, "");
    try {
      await api("POST", `${url}/rounds`, round.read(), withKey);
      location.reload();
    } catch (err) {
      showError(errorNode, readableError(err.message));
    }
  });
}

function setupOwnerTools() {
  const errorNode = document.getElementById("owner-error");
  document.getElementById("rename-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    showError(errorNode, "");
    try {
      await api("PATCH", url, { name: document.getElementById("new-name").value.trim() }, withKey);
      location.reload();
    } catch (err) {
      showError(errorNode, err.message);
    }
  });
  document.getElementById("delete-button").addEventListener("click", async () => {
    if (!confirm(`Delete "${data.name}" and all its rounds for good?`)) return;
    showError(errorNode, "");
    try {
      await api("DELETE", url, undefined, withKey);
      localStorage.removeItem(keyName(data.id));
      location.href = "/score";
    } catch (err) {
      showError(errorNode, err.message);
    }
  });
}
