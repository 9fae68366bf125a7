// The atlas page: a Copy button beside each command that finds a best board again. Without
// this script (or without a clipboard) the command is plain text to select.
for (const button of document.querySelectorAll("button.copy[data-copy]")) {
  if (!navigator.clipboard) break;
  button.hidden = false;
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(button.dataset.copy);
      button.textContent = "Copied";
    } catch {
      button.textContent = "Select it to copy";
    }
    setTimeout(() => { button.textContent = "Copy"; }, 2000);
  });
}

// Leave an empty dictionary out of the URL, so that a shared link is short and plain.
const form = document.getElementById("atlas-form");
form?.addEventListener("submit", () => {
  const field = form.querySelector("#dictionary");
  if (field && !field.value) {
    field.disabled = true;
    setTimeout(() => { field.disabled = false; });
  }
});
