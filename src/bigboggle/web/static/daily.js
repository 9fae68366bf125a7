// Starting today's daily board under a name (each name counts once a day).
import { showError } from "./roundform.js";
import { offerName } from "./savedname.js";
import { startGame } from "./startgame.js";

const form = document.getElementById("daily-form");
if (form) {
  // A member plays under their user name: the page shows no name field, and the server
  // takes the member's name whatever is sent.
  const nameField = document.getElementById("player");
  const button = document.getElementById("daily-start");
  // The name last played under, offered only in a field nobody is in (see savedname.js).
  offerName(nameField);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const errorNode = document.getElementById("daily-error");
    showError(errorNode, "");
    const request = { rules: form.dataset.rules, daily: true };
    if (nameField) {
      const player = nameField.value.trim();
      if (!player) {
        showError(errorNode, "name: the leaderboard needs a name");
        nameField.focus();
        return;
      }
      request.player = player;
    }
    // One start at a time: a second press while the first is on its way would be refused as
    // the name's second game of the day (by the first one), and say so as the page moves on.
    button.disabled = true;
    try {
      await startGame(request); // on success the game's page takes over
    } catch (err) {
      showError(errorNode, err.message);
      button.disabled = false;
    }
  });
  // The button comes disabled (daily.html): only now does pressing it start a game, rather
  // than reload the page, so only now can it be pressed, by a person on a slow connection or
  // a test that clicks as soon as the page's HTML is in.
  button.disabled = false;
  // Back from the game's page, the browser may show this page as it was left: pressed.
  window.addEventListener("pageshow", (event) => {
    if (event.persisted) button.disabled = false;
  });
}
