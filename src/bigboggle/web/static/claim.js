// Hands the games this browser played as a guest to the member who has just signed up or
// logged in: the solo games' keys (localStorage "bigboggle:key:ID", kept by startgame.js) and
// the room seats' tokens ("bigboggle:room:CODE", kept by rooms.js and room.js) are posted to
// POST /api/me/claim, which makes each one whose key matches (and that no member has yet) the
// member's. The keys stay in localStorage: the member still opens those games with them.

import { api } from "./api.js";

// The server takes at most this many games and this many seats per claim (CLAIM_MAX_GAMES,
// CLAIM_MAX_SEATS in limits.py): a browser holding more sends them in several claims.
const BATCH = 500;

// What this browser holds: [{id, key}] for solo games, [token] for room seats.
export function guestHoldings(storage = localStorage) {
  const games = [];
  const seats = [];
  for (let index = 0; index < storage.length; index += 1) {
    const name = storage.key(index);
    if (!name) continue;
    const value = storage.getItem(name);
    if (!value) continue;
    if (name.startsWith("bigboggle:key:")) {
      const id = name.slice("bigboggle:key:".length);
      if (id && id.length <= 16 && value.length <= 100) games.push({ id, key: value });
    } else if (name.startsWith("bigboggle:room:")) {
      if (value.length >= 10 && value.length <= 100) seats.push(value);
    }
  }
  return { games, seats };
}

// Claim every guest game and seat of this browser for the logged-in member; resolves to the
// counts {games, seats, refused} (games and seats that became the member's; refused: wrong
// keys, or already another member's). Rejects with the server's message if a claim fails.
export async function claimGuestGames() {
  const { games, seats } = guestHoldings();
  const total = { games: 0, seats: 0, refused: 0 };
  for (let start = 0; start < Math.max(games.length, seats.length); start += BATCH) {
    const body = { games: games.slice(start, start + BATCH), seats: seats.slice(start, start + BATCH) };
    const counts = await api("POST", "/api/me/claim", body);
    total.games += counts.games;
    total.seats += counts.seats;
    total.refused += counts.refused;
  }
  return total;
}

// What the welcome says of a claim's counts: "2 games and 1 room seat you played as a guest
// are now on your profile." ("" for nothing). A room seat is not a game: a room may have had
// no round yet.
export function claimedText(claimed) {
  const count = (value) => (Array.isArray(value) ? value.length : Number(value) || 0);
  const games = count(claimed && claimed.games);
  const seats = count(claimed && claimed.seats);
  const parts = [];
  if (games > 0) parts.push(games === 1 ? "1 game" : `${games} games`);
  if (seats > 0) parts.push(seats === 1 ? "1 room seat" : `${seats} room seats`);
  if (!parts.length) return "";
  const verb = games + seats === 1 ? "is" : "are";
  return `${parts.join(" and ")} you played as a guest ${verb} now on your profile.`;
}
