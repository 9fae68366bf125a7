// Starting today's daily board under a name (each name counts once a day).
import { showError } from "./roundform.js";
import { startGame } from "./startgame.js";

const form = document.getElementById("daily-form");
if (form) {
  // A member plays under their user name: the page shows no name field, and the server
  // takes the member's name whatever is sent.
  const nameField = document.getElementById("player");
  if (nameField) nameField.value = localStorage.getItem("bigboggle:name") || "";
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const errorNode = document.getElementById("daily-error");
    showError(errorNode, "");
    if (!nameField) {
      try {
        await startGame({ rules: form.dataset.rules, daily: true });
      } catch (err) {
        showError(errorNode, err.message);
      }
      return;
    }
    const player = nameField.value.trim();
    if (!player) {
      showError(errorNode, "name: the leaderboard needs a name");
      nameField.focus();
      return;
    }
    try {
      await startGame({ rules: form.dataset.rules, player, daily: true });
    } catch (err) {
      showError(errorNode, err.message);
    }
  });
}
