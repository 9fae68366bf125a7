// Tracing words on an interactive board (renderBoard(text, { interactive: true }) in board.js,
// or the server's board_grid(board, interactive=true)): drag across cells, or tap them one by one.
import { cellAt, clearPath, drawPath } from "./board.js";

function adjacent([r1, c1], [r2, c2]) {
  return Math.max(Math.abs(r1 - r2), Math.abs(c1 - c2)) === 1;
}

// Tap the last cell again, or press Enter, to submit; tap the one before it to step back;
// Escape clears; arrows move between cells. `onChange(text)` sees the letters so far; `onSubmit(text)` gets a finished word.
export function traceable(board, { onChange, onSubmit }) {
  let path = [];
  let dragging = false;
  let moved = false;
  const key = ([r, c]) => `${r},${c}`;
  const text = () => path.map(([r, c]) => cellAt(board, r, c).dataset.face).join("").toLowerCase();
  const update = () => {
    drawPath(board, path);
    onChange(text());
  };
  const positionOf = (cell) => [Number(cell.dataset.r), Number(cell.dataset.c)];
  const extend = (pos) => {
    if (path.some((p) => key(p) === key(pos))) {
      if (path.length >= 2 && key(path[path.length - 2]) === key(pos)) {
        path.pop();
        update();
      }
      return;
    }
    if (path.length && !adjacent(path[path.length - 1], pos)) return;
    path.push(pos);
    update();
  };
  const finish = () => {
    const word = text();
    path = [];
    clearPath(board);
    onChange("");
    if (word) onSubmit(word);
  };
  board.addEventListener("pointerdown", (event) => {
    const cell = event.target.closest(".cell");
    if (!cell || cell.disabled) return;
    event.preventDefault();
    dragging = true;
    moved = false;
    const pos = positionOf(cell);
    if (path.length && key(path[path.length - 1]) === key(pos)) {
      dragging = false;
      finish();
      return;
    }
    if (path.length && !adjacent(path[path.length - 1], pos)) path = [];
    extend(pos);
  });
  board.addEventListener("pointermove", (event) => {
    if (!dragging) return;
    const target = document.elementFromPoint(event.clientX, event.clientY);
    const cell = target && target.closest(".cell");
    if (!cell || !board.contains(cell)) return;
    // Only count the inner part of a cell, so that crossing a corner does not pick a neighbour.
    const rect = cell.getBoundingClientRect();
    const dx = Math.abs(event.clientX - (rect.left + rect.width / 2));
    const dy = Math.abs(event.clientY - (rect.top + rect.height / 2));
    if (dx > rect.width * 0.35 || dy > rect.height * 0.35) return;
    const pos = positionOf(cell);
    if (path.length && key(path[path.length - 1]) === key(pos)) return;
    moved = true;
    extend(pos);
  });
  const release = () => {
    if (!dragging) return;
    dragging = false;
    if (moved && path.length > 1) finish();
  };
  // A drag may end outside the board: listen on the window, or the next move would go on.
  window.addEventListener("pointerup", release);
  window.addEventListener("pointercancel", release);
  board.addEventListener("keydown", (event) => {
    const cell = event.target.closest(".cell");
    if (!cell) return;
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      const pos = positionOf(cell);
      if (path.length && key(path[path.length - 1]) === key(pos)) finish();
      else {
        if (path.length && !adjacent(path[path.length - 1], pos)) path = [];
        extend(pos);
      }
    } else if (event.key === "Escape") {
      path = [];
      clearPath(board);
      onChange("");
    } else if (event.key.startsWith("Arrow")) {
      event.preventDefault();
      const [r, c] = positionOf(cell);
      const delta = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[event.key];
      const next = cellAt(board, r + delta[0], c + delta[1]);
      if (next) next.focus();
    }
  });
  return {
    clear() {
      path = [];
      clearPath(board);
    },
    get tracing() {
      return path.length > 0;
    },
    submit: finish,
  };
}
