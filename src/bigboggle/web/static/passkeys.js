// Passkeys (WebAuthn) on the account pages, through the JSON API of web/passkey_routes.py:
// - on /login, #passkey-login gets a "Log in with a passkey" button (no user name needed: the
//   browser offers the passkeys it holds for this site); once logged in, this browser's guest
//   games are handed to the member (claim.js, as the password form does) and the page goes on;
// - on /account, section#passkeys gets the member's passkeys (label, when added, when last
//   used, a Remove button) and an "Add a passkey" form with a label field.
// Each ceremony is two requests: .../options answers {ceremony, publicKey} (WebAuthn's JSON
// form of the options), and the browser's answer goes back as PublicKeyCredential.toJSON()
// with the ceremony's id. Binary fields travel as base64url: the browser's own
// parse*OptionsFromJSON / toJSON where it has them, the small helpers below otherwise.
// In a browser without WebAuthn (no window.PublicKeyCredential), all of it stays hidden.
// Messages are spoken from a live region beside the controls.
import { api, el } from "./api.js";

const supported =
  typeof window.PublicKeyCredential === "function" &&
  !!navigator.credentials &&
  typeof navigator.credentials.create === "function";

// -- base64url <-> bytes --------------------------------------------------------------------------

export function toBase64url(buffer) {
  const bytes =
    buffer instanceof ArrayBuffer
      ? new Uint8Array(buffer)
      : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function fromBase64url(text) {
  const plain = text.replace(/-/g, "+").replace(/_/g, "/");
  const padded = plain + "=".repeat((4 - (plain.length % 4)) % 4);
  const binary = atob(padded);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes.buffer;
}

const withIds = (list) => (list || []).map((item) => ({ ...item, id: fromBase64url(item.id) }));

function creationOptions(json) {
  if (typeof PublicKeyCredential.parseCreationOptionsFromJSON === "function") {
    return PublicKeyCredential.parseCreationOptionsFromJSON(json);
  }
  return {
    ...json,
    challenge: fromBase64url(json.challenge),
    user: { ...json.user, id: fromBase64url(json.user.id) },
    excludeCredentials: withIds(json.excludeCredentials),
  };
}

function requestOptions(json) {
  if (typeof PublicKeyCredential.parseRequestOptionsFromJSON === "function") {
    return PublicKeyCredential.parseRequestOptionsFromJSON(json);
  }
  return { ...json, challenge: fromBase64url(json.challenge), allowCredentials: withIds(json.allowCredentials) };
}

// The credential as JSON (PublicKeyCredential.toJSON(), or the same keys built by hand).
function credentialJSON(credential) {
  if (typeof credential.toJSON === "function") {
    try {
      return credential.toJSON();
    } catch (err) {
      // some builds throw on toJSON; the hand-made form below carries the same keys
    }
  }
  const answer = credential.response;
  const response = { clientDataJSON: toBase64url(answer.clientDataJSON) };
  if (answer.attestationObject) {
    response.attestationObject = toBase64url(answer.attestationObject);
    response.transports = typeof answer.getTransports === "function" ? answer.getTransports() : [];
  } else {
    response.authenticatorData = toBase64url(answer.authenticatorData);
    response.signature = toBase64url(answer.signature);
    response.userHandle = answer.userHandle ? toBase64url(answer.userHandle) : null;
  }
  return {
    id: credential.id,
    rawId: toBase64url(credential.rawId),
    type: credential.type,
    authenticatorAttachment: credential.authenticatorAttachment || undefined,
    clientExtensionResults: credential.getClientExtensionResults(),
    response,
  };
}

// What to tell the person when the browser's side of a ceremony fails.
function browserProblem(err, adding) {
  switch (err && err.name) {
    case "NotAllowedError":
      return "The passkey request was cancelled or timed out. Try again when you are ready.";
    case "InvalidStateError":
      return adding
        ? "This device already holds a passkey for your account."
        : "This passkey cannot be used here.";
    case "SecurityError":
      return (
        "This browser refuses passkeys on this address: open the site by its name " +
        "(localhost on this computer), over HTTPS elsewhere."
      );
    case "NotSupportedError":
      return "This device cannot make a passkey the site accepts.";
    case "AbortError":
      return "The passkey request was stopped.";
    default:
      return (err && err.message) || "The passkey request failed.";
  }
}

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

// A live region for messages: polite news, or an error (styled as one).
function messages() {
  const node = el("p", { class: "passkey-status", role: "status", "aria-live": "polite" });
  node.hidden = true;
  const say = (text, isError = false) => {
    node.hidden = !text;
    node.className = isError ? "passkey-status error" : "passkey-status";
    node.textContent = text;
  };
  return { node, say };
}

// -- /login -----------------------------------------------------------------------------------------

// This browser's guest games handed to the member by claim.js (at ``src``), as the welcome
// says it; "" if there were none, or if claim.js is missing or fails (the log-in has worked
// regardless).
async function claimedNews(src) {
  if (!src) return "";
  try {
    const claim = await import(src);
    return claim.claimedText(await claim.claimGuestGames());
  } catch (err) {
    return "";
  }
}

function wireLogin(slot) {
  const { node: status, say } = messages();
  const button = el("button", { type: "button", id: "passkey-login-button", text: "Log in with a passkey" });
  slot.replaceChildren(
    el(
      "section",
      { class: "panel passkey-login", "aria-labelledby": "passkey-login-heading" },
      el("h2", { id: "passkey-login-heading", text: "Or use a passkey" }),
      el("p", {
        class: "help",
        text: "Log in with this device's screen lock, or a passkey on your phone or security key — no password needed.",
      }),
      el("div", { class: "actions" }, button),
      status,
    ),
  );
  button.addEventListener("click", async () => {
    button.disabled = true;
    say("Waiting for your passkey…");
    try {
      const options = await api("POST", "/api/passkeys/login/options", {});
      let credential;
      try {
        credential = await navigator.credentials.get({ publicKey: requestOptions(options.publicKey) });
      } catch (err) {
        say(browserProblem(err, false), true);
        return;
      }
      const member = await api("POST", "/api/passkeys/login", {
        ceremony: options.ceremony,
        credential: credentialJSON(credential),
      });
      say(`Logged in as ${member.username}.`);
      await goOn(member.username);
    } catch (err) {
      say(capital(err.message), true);
    } finally {
      button.disabled = false;
    }
  });
}

// Logged in: hand over the guest games, say how many, go on (as account.js does for passwords).
async function goOn(username) {
  const form = document.getElementById("account-form");
  const next = (form && form.dataset.next) || `/players/${encodeURIComponent(username)}`;
  const claimed = await claimedNews(form && form.dataset.claim);
  const done = document.getElementById("account-done");
  if (!claimed || !done) {
    window.location.assign(next);
    return;
  }
  if (form) form.hidden = true;
  document.getElementById("passkey-login").hidden = true;
  const go = el("a", { class: "button primary", href: next, id: "continue-link", text: "Continue" });
  done.replaceChildren(
    el("p", { class: "banner", text: `Welcome, ${username}! ${capital(claimed)}` }),
    el("p", { class: "actions" }, go),
  );
  go.focus();
}

// -- /account ---------------------------------------------------------------------------------------

function when(seconds) {
  const date = new Date(seconds * 1000);
  return el("time", {
    dateTime: date.toISOString(),
    text: date.toLocaleString([], { dateStyle: "medium", timeStyle: "short" }),
  });
}

class PasskeyList {
  constructor(section) {
    this.section = section;
    const { node, say } = messages();
    this.say = say;
    this.list = el("ul", { class: "passkey-list", id: "passkey-list", "aria-label": "Your passkeys" });
    this.empty = el("p", { class: "help", id: "passkey-none", text: "You have no passkeys yet." });
    this.label = el("input", {
      id: "passkey-label",
      name: "label",
      type: "text",
      maxLength: 80,
      autocomplete: "off",
    });
    // Adding or removing a passkey needs a log-in in the last few minutes, or the password.
    this.password = el("input", {
      id: "passkey-password",
      name: "password",
      type: "password",
      autocomplete: "current-password",
      "aria-describedby": "passkey-password-help",
    });
    this.addButton = el("button", { type: "submit", class: "primary", id: "passkey-add", text: "Add a passkey" });
    this.form = el(
      "form",
      { class: "passkey-add", id: "passkey-add-form" },
      el(
        "div",
        { class: "field" },
        el("label", { for: "passkey-label", text: "A name for the new passkey (optional)" }),
        this.label,
      ),
      el(
        "div",
        { class: "field" },
        el("label", { for: "passkey-password", text: "Your password (to add or remove a passkey)" }),
        this.password,
        el("p", {
          class: "help",
          id: "passkey-password-help",
          text: "Not needed within five minutes of logging in; after that, your password (or log in again).",
        }),
      ),
      el("div", { class: "actions" }, this.addButton),
    );
    section.append(this.list, this.empty, this.form, node);
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.add();
    });
  }

  async load() {
    try {
      const data = await api("GET", "/api/passkeys");
      this.show(data.passkeys);
    } catch (err) {
      this.say(capital(err.message), true);
    }
  }

  show(passkeys) {
    this.empty.hidden = passkeys.length > 0;
    this.list.hidden = passkeys.length === 0;
    this.list.replaceChildren(
      ...passkeys.map((passkey) => {
        const remove = el("button", {
          type: "button",
          class: "passkey-remove",
          text: "Remove",
          "aria-label": `Remove the passkey ${passkey.label}`,
          "data-id": passkey.id,
        });
        remove.addEventListener("click", () => this.remove(passkey, remove));
        const used = passkey.last_used ? ["last used ", when(passkey.last_used)] : ["never used yet"];
        return el(
          "li",
          { class: "passkey-item", "data-id": passkey.id },
          el(
            "div",
            { class: "passkey-about" },
            el("strong", { class: "passkey-name", text: passkey.label }),
            el("span", { class: "help" }, "added ", when(passkey.created_at), " · ", ...used),
          ),
          remove,
        );
      }),
    );
  }

  async add() {
    this.addButton.disabled = true;
    this.say("Follow your browser's steps to make the passkey…");
    try {
      const options = await api("POST", "/api/passkeys/register/options", this.confirmation());
      let credential;
      try {
        credential = await navigator.credentials.create({ publicKey: creationOptions(options.publicKey) });
      } catch (err) {
        this.say(browserProblem(err, true), true);
        return;
      }
      const added = await api("POST", "/api/passkeys/register", {
        ceremony: options.ceremony,
        credential: credentialJSON(credential),
        label: this.label.value,
      });
      this.label.value = "";
      this.password.value = "";
      await this.load();
      this.say(`Added the passkey “${added.label}”. You can log in with it from now on.`);
    } catch (err) {
      this.say(capital(err.message), true);
    } finally {
      this.addButton.disabled = false;
    }
  }

  // The body that confirms it is the member: the password if one was typed, else nothing
  // (the server accepts a log-in of the last few minutes instead).
  confirmation() {
    return this.password.value ? { password: this.password.value } : {};
  }

  async remove(passkey, button) {
    button.disabled = true;
    try {
      const confirmation = this.confirmation();
      await api("DELETE", `/api/passkeys/${passkey.id}`, confirmation.password ? confirmation : undefined);
      this.password.value = "";
      await this.load();
      this.say(`Removed the passkey “${passkey.label}”: it no longer logs you in.`);
      const next = this.list.querySelector("button.passkey-remove");
      (next || this.label).focus();
    } catch (err) {
      button.disabled = false;
      this.say(capital(err.message), true);
    }
  }
}

// -- wiring -----------------------------------------------------------------------------------------

const loginSlot = document.getElementById("passkey-login");
const accountSection = document.querySelector("section#passkeys");
if (!supported) {
  if (loginSlot) loginSlot.hidden = true;
  if (accountSection) accountSection.hidden = true;
} else {
  if (loginSlot) wireLogin(loginSlot);
  if (accountSection) new PasskeyList(accountSection).load();
}
