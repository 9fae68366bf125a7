// Starting a solo game from any page (the Play page, the daily board, a game's results): the
// request becomes POST /api/games, and this browser keeps the game's private key (needed to play
// it and see its words) before the game's page takes over.
import { api } from "./api.js";

// Start the game `request` asks for (POST /api/games's body), remember it as this browser's
// game in progress with its key, and the player's name, then open its page. Throws the API's
// refusal (an Error whose message names the field at fault) for the caller to show.
export async function startGame(request) {
  const game = await api("POST", "/api/games", request);
  localStorage.setItem("bigboggle:game", game.id);
  localStorage.setItem(`bigboggle:key:${game.id}`, game.key);
  if (request.player) localStorage.setItem("bigboggle:name", request.player);
  location.href = `/games/${encodeURIComponent(game.id)}`;
  return game;
}
