// A grid of cells for typing a board cube by cube, kept in step with the board's text field.
// The text field stays the form's value (a pasted board works, and the URL carries it).
//
// The grid holds one cube per cell and never moves a cube to make room for another: a typed Q
// is the Qu cube (a "u" typed next is its u), "[Th" then "]" or Tab is a two-letter face, "."
// a blank cube, "*" marks the cube before it as the challenge cube, "/" goes to the next row.
// A cell not typed yet is "_" in the text field, so that the rows keep their length, and the
// form is not sent while one is left (the grid says which).

// Characters read from one paste or one cell's edit: bigboggle.limits.MAX_BOARD_TEXT.
const MAX_TEXT = 800;
const MIN_SIDE = 2;
const MAX_SIDE = 12;
const LETTER = /^[A-Za-z]$/;

// A face from the letters typed for it: "q" is the Qu cube; "th" is "Th".
function faceOf(letters) {
  const lower = letters.toLowerCase();
  if (lower === "q" || lower === "qu") return "Qu";
  return lower[0].toUpperCase() + lower.slice(1);
}

// The cubes in `text`, in order: {face} ("A", "Qu", "Th", "." a blank, "_" a cell not typed
// yet), {star} (the challenge mark, after its cube) and {row} (a row ends). Also: `draft`, an
// unfinished "[Th" at the very end; `endsInQ`, when the text ends with a Q whose u may follow;
// `ignored`, characters that are no part of a board. With `spacesSplitRows`, spaces end rows
// (the core's notation for a board written without "/" or new lines).
export function readCubes(text, { spacesSplitRows = false } = {}) {
  const s = String(text).slice(0, MAX_TEXT);
  const items = [];
  const ignored = [];
  let draft = null;
  let endsInQ = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    endsInQ = false;
    if (ch === "q" || ch === "Q") {
      items.push({ face: "Qu" });
      if (s[i + 1] === "u" || s[i + 1] === "U") i++;
      else endsInQ = i === s.length - 1;
    } else if (LETTER.test(ch)) items.push({ face: ch.toUpperCase() });
    else if (ch === "." || ch === "_") items.push({ face: ch });
    else if (ch === "*") items.push({ star: true });
    else if (ch === "/" || ch === "\n" || ch === "\r") items.push({ row: true });
    else if (ch === "[") {
      let j = i + 1;
      while (j < s.length && j - i - 1 < 3 && LETTER.test(s[j])) j++;
      const letters = s.slice(i + 1, j);
      if (j === s.length) {
        draft = `[${letters}`;
        break;
      }
      if (letters) items.push({ face: faceOf(letters) });
      i = s[j] === "]" ? j : j - 1;
    } else if (/\s/.test(ch)) {
      if (spacesSplitRows) items.push({ row: true });
    } else if (ch !== "]" && ch !== "," && ch !== ";") ignored.push(ch);
  }
  return { items, draft, endsInQ, ignored };
}

// Rows of cells ({face, star}) from the items of readCubes: empty rows at the end dropped.
function rowsOf(items) {
  const rows = [[]];
  for (const item of items) {
    const row = rows[rows.length - 1];
    if (item.row) {
      if (row.length) rows.push([]);
    } else if (item.star) {
      if (row.length) row[row.length - 1].star = true;
    } else row.push({ face: item.face, star: false });
  }
  while (rows.length && !rows[rows.length - 1].length) rows.pop();
  return rows;
}

// Rows of faces from board text, as board.js draws them: "Qu", "Th" (no brackets), "" for a
// blank or a cell not typed yet, "*" after the challenge cube's face.
export function splitBoard(text) {
  const spacesSplitRows = !/[\/\n]/.test(text.trim());
  return rowsOf(readCubes(text.trim(), { spacesSplitRows }).items).map((row) =>
    row.map((cell) => (cell.face === "." || cell.face === "_" ? "" : cell.face) + (cell.star ? "*" : "")),
  );
}

// Separators between the cubes or rows of a board written on one line: spaces, tabs, commas and
// semicolons (as a spreadsheet or a list copies them).
const SEPARATORS = /[\s,;]+/;

// Pasted text as board text the grid reads, or a refusal saying why. On several lines (or with
// "/"), each line is a row and separators inside it are nothing. On one line, separators part
// either single cubes ("L I N E S T Q A R D": cubes in order, filling the grid) or rows
// ("LINES TQARD HEMOP", the core's notation); a line that mixes the two is refused, as is text
// holding anything that is no part of a board (the grid keeps its size and cubes).
export function readPaste(text) {
  const s = String(text).slice(0, MAX_TEXT).trim();
  const read = readCubes(s);
  if (read.ignored.length) {
    const shown = JSON.stringify([...new Set(read.ignored)].slice(0, 5).join(""));
    return { refusal: `Not pasted: ${shown} is no part of a board. A cube is a letter, Qu, [Th], . (a blank) or * after the challenge cube; rows are parted by / or new lines.` };
  }
  if (!read.items.some((item) => item.face !== undefined)) return { refusal: "Not pasted: the text holds no cubes." };
  if (/[\/\n\r]/.test(s)) return { text: s };
  const tokens = s.split(SEPARATORS).filter(Boolean);
  const cubes = (token) => readCubes(token).items.filter((item) => item.face !== undefined).length;
  const single = tokens.map((token) => cubes(token) === 1);
  if (single.every(Boolean)) return { text: tokens.join("") };
  if (!single.some(Boolean) || tokens.length === 1) return { text: tokens.join("/") };
  return { refusal: "Not pasted: single cubes and whole rows are mixed on one line. Part the rows with / or new lines, or the cubes with spaces only." };
}

const clampSide = (n) => Math.min(Math.max(n, MIN_SIDE), MAX_SIDE);

const EMPTY = Object.freeze({ face: "", star: false, draft: null });

// What a cell shows, and what the text field says for it.
function shown(cell) {
  if (cell.draft !== null) return cell.draft;
  return cell.face + (cell.face && cell.star ? "*" : "");
}
function notation(cell) {
  // An unfinished "[T" reads "[T]" in the text field, as the cell shows it (the form finishes it).
  if (cell.draft !== null) return cell.draft.length > 1 ? `[${finished(cell).face}]${cell.star ? "*" : ""}` : "_";
  const face = cell.face;
  if (!face) return "_";
  const text = face.length === 1 || face === "Qu" ? face : `[${face}]`;
  return text + (cell.star ? "*" : "");
}
// A cell whose "[Th" is finished (by Tab, leaving it, or sending the form).
function finished(cell) {
  if (cell.draft === null) return cell;
  const letters = cell.draft.slice(1);
  return { face: letters ? faceOf(letters) : "", star: cell.star, draft: null };
}

// The board size [rows, cols] of the game chosen in a rules menu: the page writes each
// game's size on its option, so the grid is built at once (no request to wait for, during
// which a click on an unwired form would submit it as a plain page load). [5, 5] when unsaid.
export function chosenSize(select) {
  const option = select.selectedOptions[0];
  const rows = Number(option?.dataset.rows);
  const cols = Number(option?.dataset.cols);
  return rows > 0 && cols > 0 ? [rows, cols] : [5, 5];
}

export function mountGridEditor(container, textField, sizeFor, { onChange = () => {} } = {}) {
  container.hidden = false;
  const help = document.createElement("p");
  help.className = "help";
  help.id = "grid-help";
  help.textContent =
    "Type the board cube by cube; the cursor moves on by itself. Q is the Qu cube; type a dot for a " +
    "blank cube, * after a cube for the challenge cube, [Th] for a two-letter face. Arrows move between " +
    "cells, Tab leaves the grid. Or paste a whole board.";
  const grid = document.createElement("div");
  grid.className = "grid-cells";
  grid.setAttribute("role", "group");
  grid.setAttribute("aria-label", "Board grid");
  const status = document.createElement("p");
  status.className = "error grid-status";
  status.setAttribute("role", "alert");
  status.hidden = true;
  container.replaceChildren(help, grid, status);

  let rows = 0;
  let cols = 0;
  let cells = [];
  let inputs = [];
  // After the cursor moved on by itself: the cell it left (a "*" marks it) and whether that
  // cell was a Q (then a "u" typed next is the Qu cube's). Any move of the user's clears it.
  let moved = null;
  let moving = false;

  const say = (message) => {
    status.textContent = message;
    status.hidden = !message;
  };

  const build = (height, width) => {
    rows = clampSide(height);
    cols = clampSide(width);
    grid.style.setProperty("--cols", cols);
    grid.dataset.rows = rows;
    grid.dataset.cols = cols;
    cells = Array.from({ length: rows * cols }, () => ({ ...EMPTY }));
    inputs = cells.map((_, i) => {
      const input = document.createElement("input");
      input.autocomplete = "off";
      input.spellcheck = false;
      input.setAttribute("autocapitalize", "characters");
      input.setAttribute("aria-label", `Row ${Math.floor(i / cols) + 1}, column ${(i % cols) + 1}`);
      input.setAttribute("aria-describedby", "grid-help");
      input.dataset.index = String(i);
      input.tabIndex = i === 0 ? 0 : -1; // one tab stop: Tab passes the grid, arrows move in it
      return input;
    });
    grid.replaceChildren(...inputs);
  };

  const render = () => {
    cells.forEach((cell, i) => {
      const input = inputs[i];
      if (input.value !== shown(cell)) input.value = shown(cell);
      input.classList.toggle("challenge", Boolean(cell.face && cell.star));
    });
  };

  const toText = () => {
    if (cells.every((cell) => !cell.face && cell.draft === null)) textField.value = "";
    else {
      const lines = [];
      for (let r = 0; r < rows; r++) lines.push(cells.slice(r * cols, (r + 1) * cols).map(notation).join(""));
      textField.value = lines.join("/");
    }
    onChange(textField.value);
  };

  const focusCell = (i) => {
    const input = inputs[Math.max(0, Math.min(i, inputs.length - 1))];
    moving = true;
    input.focus();
    // A cube is replaced by the next one typed; an unfinished "[Th" is added to.
    if (cells[Number(input.dataset.index)].draft !== null) input.setSelectionRange(input.value.length, input.value.length);
    else input.select();
    moving = false;
  };

  // The challenge cube is one lettered cube: false for a blank (it could never earn the bonus).
  const markChallenge = (target) => {
    if (target < 0 || !cells[target].face) return true;
    if (cells[target].face === ".") return false;
    cells.forEach((cell, i) => {
      if (cell.star && i !== target) cells[i] = { ...cell, star: false };
    });
    cells[target] = { ...cells[target], star: true };
    return true;
  };

  // Fill `items` (from readCubes) into the cells from cell `start`; where the cursor ends.
  const place = (start, { items, draft, endsInQ }) => {
    let at = start;
    let last = null;
    let overflow = 0;
    let blankStar = false;
    for (const item of items) {
      if (item.star) {
        const target = last ?? (moved && moved.to === start ? moved.from : cells[start].face ? start : start - 1);
        if (!markChallenge(target)) blankStar = true;
      } else if (item.row) {
        if (at % cols !== 0) at = Math.min(cells.length, (Math.floor(at / cols) + 1) * cols);
      } else if (at >= cells.length) overflow++;
      else {
        const star = cells[at].star && item.face === cells[at].face;
        cells[at] = { face: item.face === "_" ? "" : item.face, star, draft: null };
        last = at;
        at++;
      }
    }
    if (draft !== null && at < cells.length) cells[at] = { ...EMPTY, draft };
    const q = endsInQ && last !== null && draft === null;
    return { at, last, overflow, q, blankStar };
  };

  // A paste into cell `start`: refused with a message (the grid unchanged) if it holds anything
  // that is no part of a board, or mixes single cubes with rows on one line; else entered.
  const pasted = (start, text) => {
    const { text: board, refusal } = readPaste(text);
    if (refusal) {
      say(refusal);
      return;
    }
    enter(start, board, { paste: true });
  };

  // A run of cubes typed or pasted into cell `start`.
  const enter = (start, text, { paste = false } = {}) => {
    const read = readCubes(paste ? text.trim() : text);
    const board = rowsOf(read.items);
    if (paste && board.length >= MIN_SIDE) {
      show(board); // a whole board
      const missing = cells.findIndex((cell) => !cell.face);
      finish(missing < 0 ? cells.length - 1 : missing, read, null);
      return;
    }
    // A square board's cubes in one go (4x4 and up, no row marks): the grid takes its size when
    // they don't fit it, or when they go into an empty grid and are not whole rows of it.
    const faces = read.items.filter((item) => item.face !== undefined).length;
    const side = Math.round(Math.sqrt(faces));
    const square = side * side === faces && side >= 4 && side <= MAX_SIDE && faces !== cells.length;
    const empty = cells.every((cell) => !cell.face);
    if (square && ((start === 0 && faces > cells.length) || (empty && faces % cols !== 0))) {
      build(side, side);
      start = 0;
    }
    const placed = place(start, read);
    const to = Math.min(placed.at, cells.length - 1);
    moved = placed.last !== null && placed.at > placed.last ? { from: placed.last, to, q: placed.q } : null;
    finish(placed.at, read, placed.overflow, placed.blankStar);
  };

  const finish = (at, read, overflow, blankStar = false) => {
    render();
    toText();
    const notes = [];
    if (blankStar) notes.push("* marks the challenge cube, which has a letter: a blank cube can't be it");
    if (overflow) notes.push(`${overflow} more cube${overflow === 1 ? "" : "s"} than the grid's ${rows}×${cols} cells: left out`);
    if (read.ignored.length) {
      notes.push(`${JSON.stringify(read.ignored.slice(0, 5).join(""))} left out: a cube is a letter, Qu, [Th], . (blank) or * (challenge)`);
    }
    say(notes.join("; "));
    const keep = moved;
    focusCell(Math.min(at, cells.length - 1));
    moved = keep;
  };

  grid.addEventListener("input", (event) => {
    const input = event.target;
    const i = Number(input.dataset.index);
    const before = shown(cells[i]);
    const value = input.value;
    const wasMoved = moved;
    moved = null;
    if (event.inputType && event.inputType.startsWith("delete")) {
      // A cube deleted goes whole; a letter deleted from an unfinished "[Th" leaves "[T".
      // It is written as a face is ("[T", as the text field's "[T]").
      const letters = value.slice(1);
      const draft = cells[i].draft !== null && value.startsWith("[")
        ? `[${letters.slice(0, 1).toUpperCase()}${letters.slice(1).toLowerCase()}`
        : null;
      cells[i] = { ...EMPTY, draft };
      finish(i, { ignored: [] }, null);
      return;
    }
    // What was typed: the new text beside what the cell showed (typing over a selected cube
    // replaces it; with the caret after it, the new cube replaces it too).
    let typed = value;
    if (cells[i].draft === null && before && value.length > before.length) {
      if (value.startsWith(before)) typed = value.slice(before.length);
      else if (value.endsWith(before)) typed = value.slice(0, value.length - before.length);
    }
    if (wasMoved && wasMoved.q && wasMoved.to === i && /^[uU]/.test(typed)) typed = typed.slice(1); // Qu typed out
    if (cells[i].draft !== null) cells[i] = { ...cells[i], draft: null };
    moved = wasMoved;
    enter(i, typed);
  });
  grid.addEventListener("paste", (event) => {
    const text = event.clipboardData ? event.clipboardData.getData("text") : "";
    if (!text) return;
    event.preventDefault();
    moved = null;
    pasted(Number(event.target.dataset.index), text);
  });
  grid.addEventListener("keydown", (event) => {
    const input = event.target;
    const i = Number(input.dataset.index);
    const moves = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -cols, ArrowDown: cols };
    const inDraft = cells[i].draft !== null;
    if (event.key in moves && !(inDraft && (event.key === "ArrowLeft" || event.key === "ArrowRight"))) {
      const next = i + moves[event.key];
      event.preventDefault();
      if (next >= 0 && next < inputs.length) inputs[next].focus();
    } else if (event.key === "Home" || event.key === "End") {
      event.preventDefault();
      const rowStart = i - (i % cols);
      inputs[event.key === "Home" ? rowStart : rowStart + cols - 1].focus();
    } else if (event.key === "Tab" && !event.shiftKey && inDraft && i + 1 < inputs.length) {
      // "[Th" then Tab: the face is finished and the next cell is next.
      event.preventDefault();
      cells[i] = finished(cells[i]);
      moved = null;
      finish(i + 1, { ignored: [] }, null);
    } else if (event.key === "Backspace" && !shown(cells[i]) && i > 0) {
      // On an empty cell, Backspace takes back the cube before it, as in a line of text.
      event.preventDefault();
      cells[i - 1] = { ...EMPTY };
      moved = null;
      finish(i - 1, { ignored: [] }, null);
    }
  });
  grid.addEventListener("focusin", (event) => {
    for (const input of inputs) input.tabIndex = input === event.target ? 0 : -1;
    if (moving) return;
    moved = null; // the user moved: a "u" or "*" typed now is for this cell
    if (cells[Number(event.target.dataset.index)].draft === null) event.target.select();
  });
  grid.addEventListener("focusout", (event) => {
    const i = Number(event.target.dataset.index);
    if (cells[i] && cells[i].draft !== null) {
      cells[i] = finished(cells[i]);
      render();
      toText();
    }
  });

  // Rows of cells shown in the grid. A complete board gives the grid its shape (if square, or
  // at least as tall as the rules' board: "LINES/TQARD" is a board being typed); any other
  // fills a grid at least the rules' size, row by row. No cube moves, none is left out.
  const show = (board) => {
    const width = Math.max(0, ...board.map((row) => row.length));
    const [defaultRows, defaultCols] = sizeFor();
    const complete =
      board.length >= MIN_SIDE && width >= MIN_SIDE && board.every((row) => row.length === width) &&
      (board.length === width || board.length >= defaultRows);
    const height = clampSide(complete ? board.length : Math.max(defaultRows, board.length));
    const wide = clampSide(complete ? width : Math.max(defaultCols, width));
    if (rows !== height || cols !== wide) build(height, wide);
    cells = cells.map(() => ({ ...EMPTY }));
    board.slice(0, rows).forEach((row, r) =>
      row.slice(0, cols).forEach((cell, c) => {
        cells[r * cols + c] = { face: cell.face === "_" ? "" : cell.face, star: cell.star, draft: null };
      }),
    );
  };

  // The text field typed into (or set by a script): the grid shows it.
  const fromText = () => {
    const text = textField.value.trim();
    show(rowsOf(readCubes(text, { spacesSplitRows: !/[\/\n]/.test(text) }).items));
    render();
    say("");
    onChange(textField.value);
  };

  // The form waits for every cell: a cube left out would move the others.
  const check = () => {
    if (cells.some((cell) => cell.draft !== null)) {
      cells = cells.map(finished);
      render();
      toText();
    }
    const missing = cells.findIndex((cell) => !cell.face);
    if (!textField.value.includes("_") || missing < 0) return true;
    say(`Row ${Math.floor(missing / cols) + 1}, column ${(missing % cols) + 1} of the grid is empty: type its cube (. for a blank cube).`);
    focusCell(missing);
    return false;
  };
  if (textField.form) {
    textField.form.addEventListener(
      "submit",
      (event) => {
        if (!check()) {
          event.preventDefault();
          event.stopImmediatePropagation();
        }
      },
      true,
    );
  }

  textField.addEventListener("input", () => {
    mark({}); // a board typed or pasted in the field: a photo's marks are no longer its cubes'
    fromText();
  });
  build(...sizeFor());
  fromText();
  // Cells a person should check (a photo's doubtful readings): index -> what to say of it.
  // A cell's mark goes once it is typed into.
  const mark = (notes) => {
    inputs.forEach((input, i) => {
      const note = notes[i];
      const label = `Row ${Math.floor(i / cols) + 1}, column ${(i % cols) + 1}`;
      input.classList.toggle("doubtful", Boolean(note));
      input.setAttribute("aria-label", note ? `${label}, check: ${note}` : label);
      input.title = note || "";
      if (note) {
        input.addEventListener(
          "input",
          () => {
            input.classList.remove("doubtful");
            input.setAttribute("aria-label", label);
            input.title = "";
          },
          { once: true },
        );
      }
    });
  };
  return {
    refresh: fromText,
    check,
    mark,
    resize: () => {
      build(...sizeFor());
      toText();
      render();
    },
  };
}
