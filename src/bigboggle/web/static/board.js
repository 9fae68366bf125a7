// The one board renderer: a board's cells from its text (Qu and two-letter faces, blanks, M W Z
// underlined as on the dice, the challenge cube marked), as a picture or as buttons to trace on,
// with the SVG layer a word's path is drawn on; and drawing, describing and showing those paths.
// Its markup is the server's own (templates/_macros.html, board_grid): the same board looks and
// behaves the same whether the server or a script drew it.
import { el } from "./api.js";
import { splitBoard } from "./gridinput.js";

const SVG = "http://www.w3.org/2000/svg";

// Faces printed underlined on real dice so that they are not misread when rotated
// (bigboggle.dice.UNDERLINED_FACES; a test checks that the two agree).
export const UNDERLINED_FACES = ["M", "W", "Z"];

// One cell: a picture's <div>, or a board to trace on's <button> that says where it is.
function cellNode(cell, r, c, interactive) {
  const challenge = cell.endsWith("*");
  const face = cell.replace("*", "");
  const classes = ["cell", challenge && "challenge", UNDERLINED_FACES.includes(face) && "underlined"];
  const common = { class: classes.filter(Boolean).join(" "), "data-r": r, "data-c": c, text: face || "·" };
  if (!interactive) return el("div", { ...common, "aria-hidden": "true" });
  return el("button", {
    type: "button",
    role: "gridcell",
    ...common,
    "data-face": face,
    "aria-label": `${face || "blank"}, row ${r + 1}, column ${c + 1}${challenge ? ", challenge cube" : ""}`,
    disabled: !face,
  });
}

// The board for `text` ("LINES/TQuARD/…", "*" after the challenge cube), wrapped as the pages
// place it. `interactive` gives a grid of buttons for traceable() (trace.js); otherwise the
// board is one picture whose label spells it out.
export function renderBoard(text, { interactive = false, label = "The board" } = {}) {
  const rows = splitBoard(text);
  const cols = Math.max(...rows.map((row) => row.length));
  const board = el(
    "div",
    interactive
      ? { class: "board interactive", role: "grid", "aria-label": `${label}: tap or drag across cells to spell a word` }
      : { class: "board", role: "img", "aria-label": `${label}: ${text}` },
  );
  board.dataset.rows = rows.length;
  board.dataset.cols = cols;
  rows.forEach((row, r) => {
    const cells = row.map((cell, c) => cellNode(cell, r, c, interactive));
    board.append(...(interactive ? [el("div", { role: "row", class: "board-row" }, cells)] : cells));
  });
  const layer = document.createElementNS(SVG, "svg");
  layer.setAttribute("class", "path-layer");
  layer.setAttribute("aria-hidden", "true");
  layer.setAttribute("focusable", "false");
  board.append(layer);
  return el("div", { class: "board-wrap" }, board);
}

// A path as the pages carry it in data-path: "row,col;row,col;…", and back.
export function pathText(path) {
  return path.map(([r, c]) => `${r},${c}`).join(";");
}

export function parsePath(text) {
  if (!text) return [];
  return text.split(";").map((step) => step.split(",").map(Number));
}

export function cellAt(board, r, c) {
  return board.querySelector(`.cell[data-r="${r}"][data-c="${c}"]`);
}

// Draw `path` ([[row, col], …]) over `board` as a line through the cells' centres.
export function drawPath(board, path) {
  const layer = board.querySelector(".path-layer");
  clearPath(board);
  if (!path.length) return;
  const box = board.getBoundingClientRect();
  layer.setAttribute("viewBox", `0 0 ${box.width} ${box.height}`);
  const points = path.map(([r, c]) => {
    const cell = cellAt(board, r, c);
    cell.classList.add("on-path");
    const rect = cell.getBoundingClientRect();
    return [rect.left - box.left + rect.width / 2, rect.top - box.top + rect.height / 2];
  });
  const line = document.createElementNS(SVG, "polyline");
  line.setAttribute("points", points.map((p) => p.join(",")).join(" "));
  line.setAttribute("class", "path-line");
  layer.append(line);
  const start = document.createElementNS(SVG, "circle");
  start.setAttribute("cx", points[0][0]);
  start.setAttribute("cy", points[0][1]);
  start.setAttribute("r", 7);
  start.setAttribute("class", "path-start");
  layer.append(start);
  cellAt(board, path[0][0], path[0][1]).classList.add("path-first");
}

export function clearPath(board) {
  board.querySelector(".path-layer").replaceChildren();
  for (const cell of board.querySelectorAll(".on-path, .path-first")) {
    cell.classList.remove("on-path", "path-first");
  }
}

export function describePath(board, path) {
  return path
    .map(([r, c]) => `${cellAt(board, r, c).textContent.trim()} (row ${r + 1}, column ${c + 1})`)
    .join(" → ");
}

// Show a word's path when its button is hovered, focused or tapped.
export function linkWordsToBoard(list, board, caption) {
  const show = (button) => {
    const path = parsePath(button.dataset.path);
    drawPath(board, path);
    if (caption) caption.textContent = `${button.querySelector(".w").textContent}: ${describePath(board, path)}`;
    for (const other of list.querySelectorAll("button.active")) other.classList.remove("active");
    button.classList.add("active");
  };
  for (const kind of ["mouseover", "focusin", "click"]) {
    list.addEventListener(kind, (event) => {
      const button = event.target.closest("button[data-path]");
      if (button) show(button);
    });
  }
}
