// Creating a room (the host is seated at once) or going to one by its code.
import { api } from "./api.js";
import { showError } from "./roundform.js";
import { offerName } from "./savedname.js";

const create = document.getElementById("create-room");
const host = document.getElementById("host");
offerName(host);
create.addEventListener("submit", async (event) => {
  event.preventDefault();
  const errorNode = document.getElementById("create-error");
  showError(errorNode, "");
  const settings = { rules: document.getElementById("rules").value };
  const ends = document.getElementById("ends").value;
  if (ends) {
    const [kind, value] = ends.split(":");
    settings[kind] = Number(value);
  }
  try {
    const room = await api("POST", "/api/rooms", { host: host.value.trim(), settings });
    localStorage.setItem(`bigboggle:room:${room.room}`, room.token);
    localStorage.setItem("bigboggle:name", host.value.trim());
    location.href = room.url;
  } catch (err) {
    showError(errorNode, err.message);
  }
});
document.getElementById("join-room").addEventListener("submit", (event) => {
  event.preventDefault();
  // Codes are read aloud in groups: spaces and dashes are not part of them.
  const code = document.getElementById("code").value.replace(/[\s-]/g, "").toUpperCase();
  if (code) location.href = `/rooms/${encodeURIComponent(code)}`;
});
