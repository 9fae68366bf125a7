// A grid of cells for typing a board cube by cube, kept in step with the board's text field.
// The text field stays the form's value (so a pasted board works, and the URL carries it).

export function splitBoard(text) {
  // Rows of faces from board text; "*" marks the previous cell as the challenge cube.
  const rows = text.trim().split(/[\/\n]+/).filter((row) => row.trim());
  return rows.map((row) => {
    const cells = [];
    const re = /\[([A-Za-z]{1,3})\]|Qu|QU|qu|[A-Za-z]|\.|\*/g;
    for (const match of row.replace(/\s+/g, "").matchAll(re)) {
      const token = match[0];
      if (token === "*") {
        if (cells.length) cells[cells.length - 1] += "*";
      } else if (match[1]) cells.push(match[1]);
      else if (token === ".") cells.push("");
      else cells.push(token.length === 2 ? "Qu" : token.toUpperCase());
    }
    return cells;
  });
}

function faceText(value) {
  let face = value.trim().replace(/[^A-Za-z.*]/g, "");  // "[th" and "th" alike
  const star = face.endsWith("*") ? "*" : "";
  face = face.replace(/\*/g, "");
  if (!face || face === ".") return "." + star;
  const letters = face.replace(/\./g, "");
  if (letters.toLowerCase() === "qu" || letters.toLowerCase() === "q") return "Qu" + star;
  if (letters.length === 1) return letters.toUpperCase() + star;
  return `[${letters[0].toUpperCase()}${letters.slice(1).toLowerCase()}]` + star;
}

export function mountGridEditor(container, textField, sizeFor) {
  container.hidden = false;
  const heading = document.createElement("p");
  heading.className = "help";
  heading.id = "grid-help";
  heading.textContent = "Type one cube per cell: a letter, Qu, . for a blank, or [Th for a two-letter face (then Tab). The cursor moves on by itself.";
  const grid = document.createElement("div");
  grid.className = "grid-cells";
  grid.setAttribute("role", "group");
  grid.setAttribute("aria-label", "Board grid");
  container.replaceChildren(heading, grid);
  let inputs = [];

  const build = (rows, cols) => {
    grid.style.setProperty("--cols", cols);
    grid.replaceChildren();
    inputs = [];
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const input = document.createElement("input");
        input.maxLength = 4;
        input.autocomplete = "off";
        input.spellcheck = false;
        input.setAttribute("aria-label", `Row ${r + 1}, column ${c + 1}`);
        input.setAttribute("aria-describedby", "grid-help");
        input.dataset.index = String(inputs.length);
        grid.append(input);
        inputs.push(input);
      }
    }
    grid.dataset.rows = rows;
    grid.dataset.cols = cols;
  };

  const fromText = () => {
    const rows = splitBoard(textField.value);
    const [defaultRows, defaultCols] = sizeFor();
    const height = rows.length >= 2 ? rows.length : defaultRows;
    const width = rows.length >= 2 ? Math.max(...rows.map((row) => row.length)) : defaultCols;
    if (Number(grid.dataset.rows) !== height || Number(grid.dataset.cols) !== width) build(height, width);
    inputs.forEach((input, i) => {
      const cell = (rows[Math.floor(i / width)] || [])[i % width];
      if (document.activeElement !== input) input.value = cell === undefined ? "" : cell;
    });
  };

  const toText = () => {
    const width = Number(grid.dataset.cols);
    const rows = [];
    for (let i = 0; i < inputs.length; i += width) {
      rows.push(inputs.slice(i, i + width).map((input) => (input.value.trim() ? faceText(input.value) : "")).join(""));
    }
    if (inputs.every((input) => !input.value.trim())) textField.value = "";
    else textField.value = rows.join("/");
  };

  grid.addEventListener("input", (event) => {
    const input = event.target;
    const value = input.value.trim().toLowerCase();
    toText();
    // One cube per cell: a letter, Qu or "." moves on; "[th" waits for a two-letter face.
    const complete = (value.length === 1 && value !== "q" && value !== "[") || value === "qu";
    const next = inputs[Number(input.dataset.index) + 1];
    if (complete && next) next.focus();
  });
  grid.addEventListener("keydown", (event) => {
    const input = event.target;
    const index = Number(input.dataset.index);
    const width = Number(grid.dataset.cols);
    const moves = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -width, ArrowDown: width };
    if (event.key in moves && (event.key.startsWith("ArrowU") || event.key.startsWith("ArrowD") || !input.value)) {
      const next = inputs[index + moves[event.key]];
      if (next) {
        event.preventDefault();
        next.focus();
      }
    } else if (event.key === "Backspace" && !input.value && index > 0) {
      event.preventDefault();
      inputs[index - 1].focus();
      inputs[index - 1].select();
    }
  });
  grid.addEventListener("focusin", (event) => event.target.select());
  textField.addEventListener("input", fromText);
  fromText();
  return { refresh: fromText, resize: () => { build(...sizeFor()); toText(); fromText(); } };
}
