// One-click solo play: the home page's "Play now" starts a game with the default settings (Big
// Boggle, its own timer and dictionary, the name this browser used last) through startgame.js,
// as /play does, and opens it. Without scripts the button's form simply opens /play.
import { startGame } from "./startgame.js";

const form = document.getElementById("quick-play");
if (form) {
  const errorNode = document.getElementById("quick-play-error");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = form.querySelector("button");
    button.disabled = true;
    errorNode.hidden = true;
    try {
      // A member plays under their user name (the server's choice when no name is sent, and
      // not kept as this browser's name for a guest); a guest under this browser's last.
      const player = form.dataset.member ? undefined : localStorage.getItem("bigboggle:name") || "you";
      await startGame({ rules: "big", player, options: {} });
    } catch (err) {
      errorNode.textContent = `The game did not start: ${err.message}`;
      errorNode.hidden = false;
      button.disabled = false;
    }
  });
}
