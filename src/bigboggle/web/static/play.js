// Starting a solo game: the settings become POST /api/games (startgame.js); the game page takes over.
import { api } from "./api.js";
import { showError } from "./roundform.js";
import { offerName, savedName } from "./savedname.js";
import { startGame } from "./startgame.js";

const form = document.getElementById("play-form");
const errorNode = document.getElementById("play-error");
const value = (id) => (document.getElementById(id) ? document.getElementById(id).value.trim() : "");

const current = localStorage.getItem("bigboggle:game");
if (current) {
  try {
    const key = localStorage.getItem(`bigboggle:key:${current}`) || "";
    const game = await api("GET", `/api/games/${encodeURIComponent(current)}`, undefined, { "X-Game-Key": key });
    if (game.phase === "running") {
      document.getElementById("resume-link").href = `/games/${game.id}`;
      document.getElementById("resume").hidden = false;
    }
  } catch {
    localStorage.removeItem("bigboggle:game");
  }
}
offerName(document.getElementById("player"), savedName(), "you");

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  showError(errorNode, "");
  const request = { rules: value("rules"), player: value("player") || "you", options: {} };
  // A member under their own user name sends none: the server seats them under it, and this
  // browser does not keep it as the name a guest plays under after logging out.
  const member = document.getElementById("player").dataset.member;
  if (member && request.player === member) delete request.player;
  if (value("timer")) request.options.timer = Number(value("timer"));
  if (document.getElementById("advanced").checked) request.options.advanced = true;
  if (document.getElementById("challenge").checked) request.options.challenge = true;
  if (document.getElementById("family").checked) request.options.family = true;
  if (value("dictionary")) request.dictionary = value("dictionary");
  const opponents = Number(value("opponent-count") || 0);
  if (opponents > 0) request.opponents = Array.from({ length: opponents }, () => ({ strength: value("opponent-strength") }));
  if (document.getElementById("hints").checked) request.hints = true;
  if (document.getElementById("practice").checked) request.practice = true;
  if (value("band")) request.band = value("band");
  const useBoard = document.getElementById("use-board");
  if (useBoard && useBoard.checked) request.board = document.getElementById("given-board").textContent;
  else if (value("seed")) {
    // A board code "big:12345" names the game and the seed.
    const code = value("seed").match(/^(?:([a-z0-9-]+):)?([0-9]+)$/);
    if (!code) {
      showError(errorNode, "seed: a whole number like 12345, or a board code like big:12345");
      return;
    }
    if (code[1]) request.rules = code[1];
    request.seed = Number(code[2]);
    if (!Number.isSafeInteger(request.seed)) {
      showError(errorNode, "seed: too large for this page; use a seed below 9007199254740992");
      return;
    }
  }
  const button = document.getElementById("start-button");
  button.disabled = true;
  try {
    await startGame(request);
  } catch (err) {
    showError(errorNode, err.message);
    button.disabled = false;
  }
});
