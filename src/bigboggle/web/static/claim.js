// Hands the games this browser played as a guest to the member who has just signed up or
// logged in: the solo games' keys (localStorage "bigboggle:key:ID", kept by startgame.js) and
// the room seats' tokens ("bigboggle:room:CODE", kept by rooms.js and room.js) are posted to
// POST /api/me/claim, which makes each one whose key matches (and that no member has yet) the
// member's. The keys stay in localStorage: the member still opens those games with them.
// The guest's trainer deck ("bigboggle:trainer-deck", kept by train.js) goes with the first
// claim (trainer_deck), is merged into the member's deck, and is dropped here once the server
// says it holds it all: from then on the member's deck is the account's. Words that did not fit
// (the account's deck is full: the answer's left_out) stay in this browser, and are said so.

import { api } from "./api.js";

// The server takes at most this many games and this many seats per claim (CLAIM_MAX_GAMES,
// CLAIM_MAX_SEATS in limits.py): a browser holding more sends them in several claims.
const BATCH = 500;
// Where train.js keeps a guest's deck, and the most the server reads of one
// (TRAINER_DECK_BYTES in limits.py).
export const DECK_KEY = "bigboggle:trainer-deck";
const DECK_BYTES = 327680;
// How many of that deck's words did not fit in the account's full deck at the last claim (the
// member's /train says so while the browser still holds the deck).
export const LEFT_OUT_KEY = "bigboggle:trainer-left-out";

// This browser's guest trainer deck as train.js keeps it, or null (none, or not JSON).
export function guestDeck(storage = localStorage) {
  try {
    const text = storage.getItem(DECK_KEY);
    return text && text.length <= DECK_BYTES ? JSON.parse(text) : null;
  } catch (err) {
    return null;
  }
}

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

// One claim; a trainer deck the server cannot read (400 naming trainer_deck: train.js would
// start afresh too) is dropped and the claim sent again without it, so the games still go.
async function claimOnce(body, storage) {
  try {
    return await api("POST", "/api/me/claim", body);
  } catch (err) {
    if (!body.trainer_deck || err.status !== 400 || !err.message.startsWith("trainer_deck")) throw err;
    storage.removeItem(DECK_KEY);
    const { trainer_deck: dropped, ...rest } = body;
    return api("POST", "/api/me/claim", rest);
  }
}

// Claim every guest game and seat of this browser, and its trainer deck, for the logged-in
// member; resolves to the counts {games, seats, refused, cards, left_out} (games and seats
// that became the member's; refused: wrong keys, or already another member's; cards: the
// trainer cards now in the member's deck; left_out: those that did not fit, the account's deck
// being full, and are still in this browser). Rejects with the server's message if a claim
// fails.
export async function claimGuestGames(storage = localStorage) {
  const { games, seats } = guestHoldings(storage);
  const deck = guestDeck(storage);
  const total = { games: 0, seats: 0, refused: 0, cards: 0, left_out: 0 };
  const claims = Math.max(games.length, seats.length, deck ? 1 : 0);
  for (let start = 0; start < claims; start += BATCH) {
    const body = { games: games.slice(start, start + BATCH), seats: seats.slice(start, start + BATCH) };
    if (deck && start === 0) body.trainer_deck = deck;
    const counts = await claimOnce(body, storage);
    if (typeof counts.cards === "number") {
      total.cards = counts.cards;
      // A count the answer lacks (an older server) is not "nothing left out": the copy stays
      // unless the answer says 0, and nothing is said of it.
      total.left_out = typeof counts.left_out === "number" ? counts.left_out : null;
      // The member's deck holds it all now: this browser's copy would only drift apart. If
      // some words did not fit (the account's deck is full), the copy stays, or they are lost.
      if (total.left_out === 0) {
        storage.removeItem(DECK_KEY);
        storage.removeItem(LEFT_OUT_KEY);
      } else if (total.left_out !== null) {
        storage.setItem(LEFT_OUT_KEY, String(total.left_out));
      }
    }
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
  const cards = count(claimed && claimed.cards);
  const parts = [];
  if (games > 0) parts.push(games === 1 ? "1 game" : `${games} games`);
  if (seats > 0) parts.push(seats === 1 ? "1 room seat" : `${seats} room seats`);
  const sentences = [];
  if (parts.length) {
    const verb = games + seats === 1 ? "is" : "are";
    sentences.push(`${parts.join(" and ")} you played as a guest ${verb} now on your profile.`);
  }
  if (cards > 0) {
    const words = cards === 1 ? "1 word" : `${cards} words`;
    sentences.push(`Your trainer's ${words}, with their progress, are now kept with your account.`);
  }
  const leftOut = count(claimed && claimed.left_out);
  if (leftOut > 0) sentences.push(leftOutText(leftOut));
  return sentences.join(" ");
}

// What is said of guest trainer words that did not fit in the account's full deck.
export function leftOutText(leftOut) {
  const words = leftOut === 1 ? "1 word" : `${leftOut} words`;
  return `Your account's trainer deck is full: ${words} from your guest trainer did not fit and stayed in this browser.`;
}
