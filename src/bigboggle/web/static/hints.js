// The hints panel of a running solo game: a button per kind of hint (its cost on it), each hint
// asked of POST /api/games/ID/hints with the game's key (stored by the server before it
// answers), shown in a list read out politely, and, for a word's starting cube or its path,
// marked on the board. The hints used so far come from the game's JSON (with the key).
import { api, el } from "./api.js";
import { cellAt } from "./board.js";

// Mark `hint`'s cells on `board`: its starting cube, or every cube of its path (the first apart).
function markBoard(board, hint) {
  const revealed = hint.revealed || {};
  const cells = hint.kind === "path" ? revealed.path || [] : hint.kind === "start" && revealed.cell ? [revealed.cell] : [];
  if (!cells.length) return;
  for (const old of board.querySelectorAll(".hint-cell, .hint-first")) old.classList.remove("hint-cell", "hint-first");
  cells.forEach(([r, c], index) => {
    const cell = cellAt(board, r, c);
    if (!cell) return;
    cell.classList.add("hint-cell");
    if (index === 0) cell.classList.add("hint-first");
  });
}

function costText(cost) {
  return cost === 0 ? "free" : `${cost} point${cost === 1 ? "" : "s"}`;
}

// Wire the panel `panel` (the game page's #hints-panel) for game `id` (requests carry
// `headers`, the key); `onCost(total)` is told the hints' cost so far after each hint. A hint
// asked for waits for `ready` (the page's first read of the game, which load()s the hints
// used), so that read cannot wipe a newer hint.
export function hintsPanel(panel, { id, headers, board, onCost, ready = Promise.resolve() }) {
  const list = panel.querySelector("#hint-list");
  const errorNode = panel.querySelector("#hint-error");
  const buttons = [...panel.querySelectorAll("button[data-hint]")];
  const show = (hint) => {
    list.append(el("li", { class: `hint hint-${hint.kind}` }, el("span", { class: "hint-label", text: hint.label }), `: ${hint.text} `, el("span", { class: "cost", text: `(${costText(hint.cost)})` })));
    markBoard(board, hint);
  };
  panel.addEventListener("click", async (event) => {
    const button = event.target.closest("button[data-hint]");
    if (!button) return;
    errorNode.hidden = true;
    for (const other of buttons) other.disabled = true;
    try {
      await ready;
      const answer = await api("POST", `/api/games/${encodeURIComponent(id)}/hints`, { kind: button.dataset.hint }, headers);
      if (answer.again) {
        list.append(el("li", { class: "hint again", text: `${answer.hint.label}: ${answer.hint.text} (shown again, no cost)` }));
        markBoard(board, answer.hint);
      } else show(answer.hint);
      onCost(answer.hint_cost);
    } catch (err) {
      errorNode.textContent = err.message;
      errorNode.hidden = false;
    } finally {
      for (const other of buttons) other.disabled = false;
    }
  });
  return {
    // The hints already used (the game's JSON, read with the key), shown in order.
    load(hints) {
      list.replaceChildren();
      for (const hint of hints.used || []) show(hint);
      onCost(hints.cost || 0);
    },
    disable() {
      for (const button of buttons) button.disabled = true;
    },
  };
}
