// The account pages (signup.html, login.html, account.html, account_delete.html). Each form
// there is a real HTML form the server handles without scripts; this module adds:
// - a Show/Hide toggle on every password field;
// - the submit button disabled while a form is being sent (no double posts);
// - on /signup and /login, the form sent to the JSON API instead (POST /api/account,
//   POST /api/session), with the server's message beside the field it concerns, and then the
//   guest games of this browser handed to the new member (claim.js, when the site has it)
//   before going on to where the person came from (data-next, already checked by the server
//   to be a path on this site) or to their profile.
import { el } from "./api.js";

const SHOW = "Show";
const HIDE = "Hide";

// Show/Hide buttons: hidden without scripts (the field is then a plain password field).
function wirePasswordToggles(root) {
  for (const button of root.querySelectorAll("button.show-password")) {
    const field = document.getElementById(button.dataset.for);
    if (!field) continue;
    const word = button.querySelector(".show-word");
    button.hidden = false;
    button.addEventListener("click", () => {
      const show = field.type === "password";
      field.type = show ? "text" : "password";
      word.textContent = show ? HIDE : SHOW;
    });
  }
}

// A plain form post (account page): its button disabled once it is on its way.
function wirePlainForms(root) {
  for (const form of root.querySelectorAll("form.account-form:not([data-api])")) {
    form.addEventListener("submit", () => {
      for (const button of form.querySelectorAll("button[type=submit]")) button.disabled = true;
    });
  }
}

// "try again in 15 minutes (at 18:40)" from a Retry-After header's seconds.
export function retryText(seconds) {
  if (!Number.isFinite(seconds) || seconds <= 0) return "try again in a moment";
  const at = new Date(Date.now() + seconds * 1000).toLocaleTimeString([], {
    hour: "2-digit",
    minute: "2-digit",
  });
  if (seconds < 90) return `try again in ${Math.ceil(seconds)} seconds`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 90) return `try again in ${minutes} minutes (at ${at})`;
  return `try again in ${Math.ceil(minutes / 60)} hours (at ${at})`;
}

// A refusal with when to try again in words: the server's "try again in 900 s" becomes
// "try again in 15 minutes (at 18:40)" (added if the message does not say it).
export function withRetry(message, seconds) {
  const text = message.charAt(0).toUpperCase() + message.slice(1).replace(/\.$/, "");
  const pattern = /try again in \d+ s\b/;
  if (pattern.test(text)) return `${text.replace(pattern, retryText(seconds))}.`;
  return `${text}; ${retryText(seconds)}.`;
}

// Which field a refusal is about: the server's messages start with it ("password: ...").
function fieldOf(message) {
  const match = /^(username|password):\s*(.*)$/s.exec(message);
  if (!match) return null;
  const text = match[2];
  return { name: match[1], text: text.charAt(0).toUpperCase() + text.slice(1) };
}

class EntryForm {
  constructor(form) {
    this.form = form;
    this.mode = form.dataset.mode; // "signup" or "login"
    this.status = document.getElementById("form-status");
    this.done = document.getElementById("account-done");
    this.button = form.querySelector("button[type=submit]");
    this.buttonText = this.button.textContent;
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.send();
    });
  }

  field(name) {
    return this.form.elements.namedItem(name);
  }

  clear() {
    this.status.replaceChildren();
    for (const name of ["username", "password"]) this.mark(name, "");
  }

  // A message beside a field (or none): the field is marked invalid and describes it.
  mark(name, text) {
    const slot = document.getElementById(`${name}-error`);
    const input = this.field(name);
    if (slot) {
      slot.textContent = text;
      slot.hidden = !text;
    }
    if (input) {
      if (text) input.setAttribute("aria-invalid", "true");
      else input.removeAttribute("aria-invalid");
    }
  }

  say(text) {
    this.status.replaceChildren(el("p", { class: "error", text }));
  }

  busy(on) {
    this.button.disabled = on;
    this.button.textContent = on
      ? this.mode === "signup"
        ? "Creating your account…"
        : "Logging in…"
      : this.buttonText;
    this.form.setAttribute("aria-busy", String(on));
  }

  async send() {
    this.clear();
    const username = this.field("username").value;
    const password = this.field("password").value;
    if (!username.trim()) {
      this.mark("username", "Enter a user name.");
      this.field("username").focus();
      return;
    }
    if (!password) {
      this.mark("password", "Enter a password.");
      this.field("password").focus();
      return;
    }
    this.busy(true);
    let response;
    let data = null;
    try {
      response = await fetch(this.form.dataset.api, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ username, password }),
        credentials: "same-origin",
      });
      data = await response.json().catch(() => null);
    } catch (err) {
      this.busy(false);
      this.say("The server cannot be reached; check your connection and try again.");
      return;
    }
    if (!response.ok) {
      this.busy(false);
      this.refused(response, (data && data.error) || `The server answered ${response.status}.`);
      return;
    }
    await this.loggedIn((data && data.username) || username);
  }

  refused(response, message) {
    if (response.status === 429 || response.status === 503) {
      this.say(withRetry(message, Number(response.headers.get("Retry-After"))));
      return;
    }
    if (response.status === 409) {
      this.mark("username", message);
      this.field("username").focus();
      return;
    }
    const about = response.status === 400 ? fieldOf(message) : null;
    if (about) {
      this.mark(about.name, about.text);
      this.field(about.name).focus();
      return;
    }
    this.say(message.charAt(0).toUpperCase() + message.slice(1));
    if (response.status === 401) this.field("password").select();
  }

  // Signed up or logged in: hand over the guest games, say how many, go on.
  async loggedIn(username) {
    const next = this.form.dataset.next || `/players/${encodeURIComponent(username)}`;
    const claimed = await claimedNews(this.form.dataset.claim);
    if (!claimed) {
      window.location.assign(next);
      return;
    }
    this.form.hidden = true;
    for (const node of document.querySelectorAll(".account-page .switch, .account-page .after-hidden, #passkey-login"))
      node.hidden = true;
    const heading = document.querySelector(".account-page h1");
    if (heading) heading.textContent = this.mode === "signup" ? "You are signed up" : "You are logged in";
    showMemberInHeader(username);
    const go = el("a", { class: "button primary", href: next, id: "continue-link", text: "Continue" });
    this.done.replaceChildren(
      el("p", { class: "banner", text: `Welcome, ${username}! ${capitalFirst(claimed)}` }),
      el("p", { class: "actions" }, go),
    );
    go.focus();
  }
}

// The header as the server draws it for a member: the name (to the profile) and Account.
function showMemberInHeader(username) {
  const list = document.querySelector("header.site nav.account-nav ul");
  if (!list) return;
  const profile = el(
    "a",
    { class: "member-name", href: `/players/${encodeURIComponent(username)}` },
    el("span", { class: "sr-only", text: "Logged in as " }),
    username,
  );
  list.replaceChildren(el("li", {}, profile), el("li", {}, el("a", { href: "/account", text: "Account" })));
}

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

const capitalFirst = (text) => text.charAt(0).toUpperCase() + text.slice(1);


wirePasswordToggles(document);
wirePlainForms(document);
const entry = document.querySelector("form#account-form[data-api]");
if (entry) new EntryForm(entry);
