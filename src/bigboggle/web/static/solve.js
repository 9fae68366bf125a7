// The solver page: paths drawn over the board, filters, the grid editor and the shake button.
import { api } from "./api.js";
import { linkWordsToBoard } from "./board.js";
import { applyFamilyFilter, showOffensive } from "./family.js";
import { chosenSize, mountGridEditor } from "./gridinput.js";
import { mountPhotoReader } from "./photo.js";

const form = document.getElementById("solve-form");
const boardField = document.getElementById("board");
const rulesField = document.getElementById("rules");

const editor = mountGridEditor(document.getElementById("grid-editor"), boardField, () => chosenSize(rulesField));
const photoReader = document.getElementById("photo-reader"); // absent: the server reads none
if (photoReader) mountPhotoReader(photoReader, { boardField, rulesField, editor });
rulesField.addEventListener("change", () => {
  if (!boardField.value.trim()) editor.resize();
});

// Leave empty choices out of the URL, so that a shared link is short and plain.
form.addEventListener("submit", () => {
  for (const field of form.querySelectorAll("select, input")) {
    if (field.name && !field.value) field.disabled = true;
  }
  setTimeout(() => {
    for (const field of form.querySelectorAll("select, input")) field.disabled = false;
  });
});

const shakeButton = document.getElementById("shake-button");
shakeButton.hidden = false;
shakeButton.addEventListener("click", async () => {
  shakeButton.disabled = true;
  try {
    const shaken = await api("GET", `/api/shake?rules=${encodeURIComponent(rulesField.value)}`);
    boardField.value = shaken.board;
    editor.refresh();
    form.requestSubmit();
  } catch (err) {
    alert(err.message);
  } finally {
    shakeButton.disabled = false;
  }
});

const list = document.getElementById("word-list");
if (list) {
  const board = document.querySelector(".board");
  linkWordsToBoard(list, board, document.getElementById("path-caption"));
  const lengthFilter = document.getElementById("filter-length");
  const startFilter = document.getElementById("filter-start");
  const count = document.getElementById("filter-count");
  // The length and first-letters filters set `hidden`; the family filter hides offensive words
  // on its own (family.js), so the count leaves those out unless the player shows them.
  const hint = " Hover, tap or focus a word to see its path.";
  const apply = ({ withHint = false } = {}) => {
    const length = lengthFilter.value;
    const start = startFilter.value.trim().toLowerCase();
    const offensiveShown = showOffensive();
    let shown = 0;
    for (const item of list.children) {
      const visible = (!length || item.dataset.length === length) && item.dataset.word.startsWith(start);
      item.hidden = !visible;
      if (visible && (offensiveShown || !item.classList.contains("offensive"))) shown++;
    }
    count.textContent = `${shown} word${shown === 1 ? "" : "s"} shown.${withHint ? hint : ""}`;
  };
  lengthFilter.addEventListener("change", () => apply());
  startFilter.addEventListener("input", () => apply());
  applyFamilyFilter(list);
  document.addEventListener("bigboggle:family", () => apply());
  if (list.querySelector("li.offensive")) apply({ withHint: true });
}
