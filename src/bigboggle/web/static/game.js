// A solo game's page: the countdown from the server's deadline, word entry (typed or traced),
// verdicts as they come; once over, the results' paths and the rarer missed words.
import { api } from "./api.js";
import { linkWordsToBoard } from "./board.js";
import { clockAnnouncer, formatClock } from "./clock.js";
import { traceable } from "./trace.js";
import { verdictSentence, wordItem } from "./words.js";

const game = document.getElementById("game");

if (game) {
  const data = JSON.parse(document.getElementById("game-data").textContent);
  const id = data.id;
  // The key this browser got when it started the game: needed to play it and see its words.
  const key = localStorage.getItem(`bigboggle:key:${id}`);
  const withKey = { "X-Game-Key": key || "" };
  // The server's clock is the authority: show its deadline, corrected for this device's clock.
  const offset = data.now - Date.now() / 1000;
  const serverNow = () => Date.now() / 1000 + offset;
  const clock = document.getElementById("clock");
  const announcer = clockAnnouncer(document.getElementById("clock-announce"));
  const input = document.getElementById("word");
  const verdict = document.getElementById("verdict");
  const list = document.getElementById("my-words");
  const scoreNode = document.getElementById("score-so-far");
  const board = game.querySelector(".board");
  let ending = false;

  const end = async () => {
    if (ending) return;
    ending = true;
    input.disabled = true;
    verdict.textContent = "Time is up. Scoring…";
    // The player's own request (with the key) scores the game; anyone's sees "scoring" until
    // it is (the server's timer scores it at the deadline too).
    for (let attempt = 0; attempt < 20; attempt++) {
      try {
        const state = await api("GET", `/api/games/${encodeURIComponent(id)}`, undefined, withKey);
        if (state.phase === "ended") {
          location.reload();
          return;
        }
        const wait = state.phase === "scoring" ? 1000 : Math.max(200, state.time_left * 1000);
        await new Promise((resolve) => setTimeout(resolve, wait));
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
    verdict.textContent = "Time is up. The results are not in yet: reload the page in a moment.";
  };

  const tick = () => {
    const left = data.deadline - serverNow();
    clock.textContent = formatClock(left);
    announcer.update(left);
    game.classList.toggle("hurry", left <= 10);
    if (left <= 0) end();
  };
  tick();
  setInterval(tick, 250);

  const submit = async (word) => {
    word = word.trim();
    if (!word || ending) return;
    try {
      const answer = await api("POST", `/api/games/${encodeURIComponent(id)}/words`, { word }, withKey);
      const result = answer.result;
      verdict.textContent = verdictSentence(result);
      verdict.className = `verdict-line v-${result.verdict}`;
      scoreNode.textContent = answer.score_so_far;
      if (result.verdict !== "repeated") list.prepend(wordItem(result));
    } catch (err) {
      verdict.textContent = err.message;
      verdict.className = "verdict-line error";
      if (err.status === 409) end();
    }
  };

  document.getElementById("word-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const word = input.value;
    input.value = "";
    submit(word);
  });
  const tracer = traceable(board, {
    onChange: (text) => {
      input.value = text;
    },
    onSubmit: (word) => {
      input.value = "";
      submit(word);
    },
  });
  input.addEventListener("input", () => tracer.clear());
  document.getElementById("end-button").addEventListener("click", async () => {
    if (!confirm("End the game now? Your score is final.")) return;
    try {
      await api("POST", `/api/games/${encodeURIComponent(id)}/finish`, undefined, withKey);
    } finally {
      location.reload();
    }
  });
  const showWords = (words) => {
    list.replaceChildren(...words.slice().reverse().map((result) => wordItem(result)));
  };
  if (key) {
    // The page was drawn without the words (they are private); fetch them with the key.
    api("GET", `/api/games/${encodeURIComponent(id)}`, undefined, withKey)
      .then((state) => {
        showWords(state.words);
        scoreNode.textContent = state.score_so_far;
      })
      .catch(() => {});
  } else {
    input.disabled = true;
    document.getElementById("end-button").hidden = true;
    verdict.textContent = "This game is another player's: you can watch the clock, not play.";
  }
} else {
  const board = document.querySelector(".board");
  const lists = document.getElementById("result-lists");
  if (board && lists) linkWordsToBoard(lists, board, document.getElementById("path-caption"));
  const rare = document.getElementById("show-rare");
  if (rare) {
    rare.addEventListener("change", () => {
      for (const item of document.querySelectorAll("#missed-words li.rare")) item.hidden = !rare.checked;
    });
  }
  const heading = document.getElementById("score-heading");
  if (heading) heading.focus();
  if (localStorage.getItem("bigboggle:game") === document.location.pathname.split("/").pop()) {
    localStorage.removeItem("bigboggle:game");
  }
}
