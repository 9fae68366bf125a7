// Starting today's daily board under a name (each name counts once a day).
import { api } from "./api.js";
import { showError } from "./roundform.js";

const form = document.getElementById("daily-form");
if (form) {
  const nameField = document.getElementById("player");
  nameField.value = localStorage.getItem("bigboggle:name") || "";
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const errorNode = document.getElementById("daily-error");
    showError(errorNode, "");
    const player = nameField.value.trim();
    if (!player) {
      showError(errorNode, "name: the leaderboard needs a name");
      nameField.focus();
      return;
    }
    try {
      const game = await api("POST", "/api/games", { rules: form.dataset.rules, player, daily: true });
      localStorage.setItem("bigboggle:game", game.id);
    localStorage.setItem(`bigboggle:key:${game.id}`, game.key);
      localStorage.setItem("bigboggle:name", player);
      location.href = `/games/${game.id}`;
    } catch (err) {
      showError(errorNode, err.message);
    }
  });
}
