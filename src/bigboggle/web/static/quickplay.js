// One-click solo play: the home page's "Play now" starts a game with the default settings (Big
// Boggle, its own timer and dictionary, the name this browser used last) the way /play does,
// keeping the game's key in localStorage as play.js does, and opens the game. Without
// scripts the button's form simply opens /play.
import { api } from "./api.js";

// Start a solo game from `request` (the POST /api/games body) and remember it in this browser
// (bigboggle:game, its key, the player's name) as the play page does; returns the game.
export async function startSoloGame(request) {
  const game = await api("POST", "/api/games", request);
  localStorage.setItem("bigboggle:game", game.id);
  localStorage.setItem(`bigboggle:key:${game.id}`, game.key);
  localStorage.setItem("bigboggle:name", request.player);
  return game;
}

const form = document.getElementById("quick-play");
if (form) {
  const errorNode = document.getElementById("quick-play-error");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = form.querySelector("button");
    button.disabled = true;
    errorNode.hidden = true;
    try {
      const player = localStorage.getItem("bigboggle:name") || "you";
      const game = await startSoloGame({ rules: "big", player, options: {} });
      location.href = `/games/${encodeURIComponent(game.id)}`;
    } catch (err) {
      errorNode.textContent = `The game did not start: ${err.message}`;
      errorNode.hidden = false;
      button.disabled = false;
    }
  });
}
