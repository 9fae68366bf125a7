// "Take a photo": the board read from a photo of the tray (POST /api/read-board), put in the
// board field and its grid, the cells the reader doubts marked there to check and correct by
// tap or keyboard, and the photo shown with the grid it found drawn over it.
import { api, el } from "./api.js";

// The longest side a photo is sent at: the reader works at this size, and a phone's 12 MB
// photo becomes a few hundred kB to send.
const SEND_SIDE = 1600;

// The photo as a JPEG of at most SEND_SIDE pixels a side, upright as the phone held it; the
// file itself if the browser cannot draw it (the server reads full-size photos too).
async function shrunk(file) {
  try {
    const bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
    const scale = Math.min(1, SEND_SIDE / Math.max(bitmap.width, bitmap.height));
    if (scale === 1 && file.type === "image/jpeg") return file;
    const canvas = document.createElement("canvas");
    canvas.width = Math.round(bitmap.width * scale);
    canvas.height = Math.round(bitmap.height * scale);
    canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    bitmap.close();
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.9));
    return blob || file;
  } catch {
    return file;
  }
}

// A cell's name as players say it: column letter, row number ("b3").
const cellName = (index, cols) => `${String.fromCharCode(97 + (index % cols))}${Math.floor(index / cols) + 1}`;
const faceName = (face) => face || "blank";
const percent = (value) => `${Math.round(value * 100)}%`;

// The point at (u, v) of the quadrilateral `corners` (fractions of the photo), 0-1 each way.
function inside(corners, u, v) {
  const [tl, tr, br, bl] = corners;
  const top = [tl[0] + (tr[0] - tl[0]) * u, tl[1] + (tr[1] - tl[1]) * u];
  const bottom = [bl[0] + (br[0] - bl[0]) * u, bl[1] + (br[1] - bl[1]) * u];
  return [top[0] + (bottom[0] - top[0]) * v, top[1] + (bottom[1] - top[1]) * v];
}

// The photo with the grid found drawn over it, doubtful cells circled.
function preview(url, reading) {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 1000 1000");
  svg.setAttribute("preserveAspectRatio", "none");
  svg.setAttribute("aria-hidden", "true");
  const scaled = (point) => `${point[0] * 1000},${point[1] * 1000}`;
  const outline = document.createElementNS(svg.namespaceURI, "polygon");
  outline.setAttribute("points", reading.grid.map(scaled).join(" "));
  outline.setAttribute("class", "photo-grid");
  svg.append(outline);
  reading.cells.forEach((cell, i) => {
    if (!cell.doubtful) return;
    const [x, y] = inside(reading.grid, ((i % reading.cols) + 0.5) / reading.cols, (Math.floor(i / reading.cols) + 0.5) / reading.rows);
    // As wide and high as a cube there: the grid's sides through this cell, split evenly.
    const [left, right] = [inside(reading.grid, (i % reading.cols) / reading.cols, 0.5), inside(reading.grid, ((i % reading.cols) + 1) / reading.cols, 0.5)];
    const row = Math.floor(i / reading.cols);
    const [top, bottom] = [inside(reading.grid, 0.5, row / reading.rows), inside(reading.grid, 0.5, (row + 1) / reading.rows)];
    const ring = document.createElementNS(svg.namespaceURI, "ellipse");
    ring.setAttribute("cx", x * 1000);
    ring.setAttribute("cy", y * 1000);
    ring.setAttribute("rx", Math.hypot(right[0] - left[0], right[1] - left[1]) * 500 * 0.55);
    ring.setAttribute("ry", Math.hypot(bottom[0] - top[0], bottom[1] - top[1]) * 500 * 0.55);
    ring.setAttribute("class", "photo-doubt");
    svg.append(ring);
  });
  return el(
    "figure",
    { class: "photo-preview" },
    el("div", { class: "photo-frame" }, el("img", { src: url, alt: "The photo read" }), svg),
    el("figcaption", { text: "The grid as found in the photo; circled cubes are the ones to check." }),
  );
}

// Wire the "Take a photo" control in `container` to fill `boardField` (through `editor`, the
// grid editor) with the board read by `rulesField`'s preset.
export function mountPhotoReader(container, { boardField, rulesField, editor }) {
  const input = container.querySelector("input[type=file]");
  const status = container.querySelector(".photo-status");
  const shown = container.querySelector(".photo-shown");
  container.hidden = false;
  let url = null;
  input.addEventListener("change", async () => {
    const file = input.files && input.files[0];
    if (!file || container.getAttribute("aria-busy") === "true") return;
    status.className = "photo-status";
    status.textContent = "Reading the photo…";
    container.setAttribute("aria-busy", "true"); // not disabled: the focus stays where it is
    try {
      const form = new FormData();
      form.append("photo", await shrunk(file), "tray.jpg");
      const reading = await api("POST", `/api/read-board?rules=${encodeURIComponent(rulesField.value)}`, form);
      boardField.value = reading.board;
      editor.refresh();
      const notes = {};
      const doubts = [];
      reading.cells.forEach((cell, i) => {
        if (!cell.doubtful) return;
        const others = cell.alternatives.map((other) => `${faceName(other.face)} ${percent(other.confidence)}`).join(", ");
        notes[i] = `read as ${faceName(cell.face)} (${percent(cell.confidence)} sure); or ${others}`;
        doubts.push(`${cellName(i, reading.cols)}: ${faceName(cell.face)}?`);
      });
      editor.mark(notes);
      status.textContent = doubts.length
        ? `Read ${reading.cells.length} cubes. Check the ${doubts.length} marked in the grid (${doubts.join(", ")}), correct any by typing, then solve.`
        : `Read ${reading.cells.length} cubes. Check them against the tray, then solve.`;
      if (url) URL.revokeObjectURL(url);
      url = URL.createObjectURL(file);
      shown.replaceChildren(preview(url, reading));
    } catch (err) {
      status.className = "photo-status error";
      status.textContent = `The photo could not be read: ${err.message}`;
    } finally {
      container.removeAttribute("aria-busy");
      input.value = "";
    }
  });
}
