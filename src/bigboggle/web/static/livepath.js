// The path of the word being typed, lit on the board as the letters come (as lexica does), and a
// word the board cannot spell said at once. The board is the .board element board.js (or the
// server's board_grid) draws: its cells carry their face in data-face ("A", "Qu", "Th", "" for a
// blank). The rules of a path are the game's: a face is used whole ("qu" for the Qu cube, "th"
// for [Th]; a typed "q" alone never matches Qu), neighbours include diagonals, no cell twice,
// blanks never.
import { clearPath, drawPath } from "./board.js";

// Cells a search may visit before it gives up: a typed word is at most 60 letters (limits.py,
// MAX_ENTRY_LENGTH, the input's maxlength), but on a board of one repeated letter the ways to
// fail can still be many; past this the page simply lights nothing (the server judges anyway).
const SEARCH_BUDGET = 20000;

// The board's cells as a grid of lowercase faces, null where there is no cell.
function facesOf(board) {
  const grid = [];
  for (const cell of board.querySelectorAll(".cell[data-r][data-c]")) {
    const r = Number(cell.dataset.r);
    const c = Number(cell.dataset.c);
    (grid[r] ||= [])[c] = (cell.dataset.face || "").toLowerCase();
  }
  return grid;
}

// Depth-first search for a path spelling `word` (lowercase). With `partial`, the last face may be
// only begun ("q" of Qu, "t" of Th) - the word is still being typed. Returns the path if there
// is one, the longest prefix's path found on the way (`best`, what can still be lit), and
// whether the budget ran out before an answer.
function search(grid, word, partial) {
  let budget = SEARCH_BUDGET;
  let best = [];
  let bestLength = 0;
  const used = new Set();
  const path = [];
  const fits = (face, offset) => {
    if (!face) return 0;
    if (word.startsWith(face, offset)) return face.length;
    if (partial && offset < word.length && face.startsWith(word.slice(offset))) return word.length - offset;
    return 0;
  };
  const extend = (r, c, offset) => {
    if (--budget < 0) return false;
    const step = fits(grid[r] && grid[r][c], offset);
    if (!step) return false;
    const key = `${r},${c}`;
    used.add(key);
    path.push([r, c]);
    const next = offset + step;
    if (next > bestLength) {
      bestLength = next;
      best = path.slice();
    }
    if (next === word.length) return true;
    for (let dr = -1; dr <= 1; dr++) {
      for (let dc = -1; dc <= 1; dc++) {
        if ((dr || dc) && !used.has(`${r + dr},${c + dc}`) && extend(r + dr, c + dc, next)) return true;
      }
    }
    used.delete(key);
    path.pop();
    return false;
  };
  if (word) {
    for (let r = 0; r < grid.length; r++) {
      for (let c = 0; c < (grid[r] || []).length; c++) {
        if (extend(r, c, 0)) return { path: path.slice(), best, exhausted: false };
      }
    }
  }
  return { path: null, best, exhausted: budget < 0 };
}

// The letters a word is compared by: lowercase, surrounding spaces dropped.
function normal(text) {
  return String(text).trim().toLowerCase();
}

// A path ([[row, col], …]) on `board` that spells `word` with whole faces, or null if there is
// none (or it is too costly to find).
export function findPath(board, word) {
  return search(facesOf(board), normal(word), false).path;
}

// A short sentence for the polite live region beside the input. It names where the word
// stops, not the whole word, so letters typed after a dead one do not repeat the announcement.
function deadMessage(word, litLength) {
  const letter = word.slice(litLength, litLength + 1);
  return litLength
    ? `Not on the board: "${letter}" cannot follow "${word.slice(0, litLength)}"`
    : `Not on the board: no cube starts "${letter}"`;
}

// While the player types in `input`, the word's path lights on `board` (its cells get the class
// `typing`); when the letters cannot go on, the input gets the class `no-path` and
// aria-invalid="true", the part that can be spelled stays lit, and one short polite message says
// so (a live region made after the input's form). clear() puts it all back, for after a word is
// sent or when a trace takes over. stop() clears it and stops listening (a page that draws a
// new board, a room's next round, calls lightTyping again for it; the message is reused).
export function lightTyping(board, input) {
  const anchor = input.closest("form") || input;
  let note = anchor.nextElementSibling;
  if (!note || !note.classList.contains("livepath-note")) {
    note = document.createElement("p");
    note.className = "livepath-note";
    note.setAttribute("aria-live", "polite");
    anchor.after(note);
  }
  let lastMessage = note.textContent;
  // Whether the path on the board is this typing's (a trace's own path is left alone).
  let lit = false;

  const unlight = () => {
    for (const cell of board.querySelectorAll(".cell.typing")) cell.classList.remove("typing");
  };
  const setDead = (message) => {
    input.classList.toggle("no-path", Boolean(message));
    if (message) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
    if (message !== lastMessage) {
      note.textContent = message;
      lastMessage = message;
    }
  };
  const light = (path) => {
    unlight();
    if (!path.length) {
      if (lit) clearPath(board);
      lit = false;
      return;
    }
    lit = true;
    drawPath(board, path);
    for (const [r, c] of path) board.querySelector(`.cell[data-r="${r}"][data-c="${c}"]`).classList.add("typing");
  };
  const update = () => {
    const word = normal(input.value);
    if (!word) {
      light([]);
      setDead("");
      return;
    }
    const found = search(facesOf(board), word, true);
    if (found.path) {
      light(found.path);
      setDead("");
    } else if (found.exhausted) {
      // Too many ways to try: say nothing rather than something wrong.
      light([]);
      setDead("");
    } else {
      light(found.best);
      const litLength = found.best.length ? prefixLength(board, word, found.best) : 0;
      setDead(deadMessage(word, litLength));
    }
  };
  input.addEventListener("input", update);
  const clear = () => {
    light([]);
    setDead("");
  };
  return {
    clear,
    update,
    stop() {
      input.removeEventListener("input", update);
      clear();
    },
  };
}

// How many of the word's letters the path `best` spells (its faces' lengths, the last possibly begun).
function prefixLength(board, word, best) {
  let length = 0;
  for (const [r, c] of best) {
    const face = (board.querySelector(`.cell[data-r="${r}"][data-c="${c}"]`).dataset.face || "").toLowerCase();
    length += Math.min(face.length, word.length - length);
  }
  return length;
}
