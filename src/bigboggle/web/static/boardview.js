// Building a board's cells from its text, the same markup the server's pages use.
import { el } from "./api.js";
import { splitBoard } from "./gridinput.js";

export function renderBoard(text, label = "The board") {
  const rows = splitBoard(text);
  const cols = Math.max(...rows.map((row) => row.length));
  const board = el("div", { class: "board", role: "img", "aria-label": `${label}: ${text}` });
  board.style.setProperty("--cols", cols);
  rows.forEach((row, r) => {
    row.forEach((cell, c) => {
      const challenge = cell.endsWith("*");
      const face = cell.replace("*", "");
      const classes = ["cell", challenge ? "challenge" : "", ["M", "W", "Z"].includes(face) ? "underlined" : ""];
      board.append(
        el("div", { class: classes.join(" ").trim(), "data-r": r, "data-c": c, "aria-hidden": "true", text: face || "·" }),
      );
    });
  });
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("class", "path-layer");
  svg.setAttribute("aria-hidden", "true");
  board.append(svg);
  return el("div", { class: "board-wrap" }, board);
}

export function pathText(path) {
  return path.map(([r, c]) => `${r},${c}`).join(";");
}
