// What a player sees when a word counts: the word arriving at the top of their list with its
// points ("+3"), and how much of the board's points they have so far. Animations use the Web
// Animations API (allowed by the pages' CSP, which forbids inline styles) and are skipped when the
// browser asks for reduced motion.

function reducedMotion() {
  return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

// Put `item` (an <li>, as wordItem in words.js makes it) at the top of `list`, with a "+N" badge
// for its `points`; the badge stays on the newest scored word only. The badge is aria-hidden: the
// item already says its points, and the page's verdict line announces the word.
export function addScoredWord(list, item, points) {
  for (const old of list.querySelectorAll(".gain")) old.remove();
  const badge = document.createElement("span");
  badge.className = "gain";
  badge.setAttribute("aria-hidden", "true");
  badge.textContent = `+${points}`;
  (item.querySelector(".word") || item).append(badge);
  item.classList.add("fresh");
  for (const old of list.querySelectorAll("li.fresh")) if (old !== item) old.classList.remove("fresh");
  list.prepend(item);
  if (!reducedMotion() && item.animate) {
    item.animate(
      [
        { opacity: 0, transform: "translateY(-0.75rem) scale(1.06)" },
        { opacity: 1, transform: "none" },
      ],
      { duration: 260, easing: "ease-out" },
    );
    badge.animate(
      [
        { transform: "translateY(0.4rem) scale(0.6)", opacity: 0 },
        { transform: "translateY(-0.2rem) scale(1.25)", opacity: 1, offset: 0.6 },
        { transform: "none", opacity: 1 },
      ],
      { duration: 420, easing: "ease-out" },
    );
  }
  return item;
}

// The "points of the board" meter in `node` (an empty element): a bar and its words ("12 of 340
// points, 4%"), a role="meter" with its values for assistive technology. update(score, maxScore)
// redraws it; a maxScore of 0 or less (unknown) shows the score alone.
export function boardMeter(node) {
  node.classList.add("board-meter");
  const label = document.createElement("span");
  label.className = "meter-label";
  label.id = `${node.id || "board-meter"}-label`;
  label.textContent = "Points of the board";
  const bar = document.createElement("div");
  bar.className = "meter-bar";
  bar.setAttribute("role", "meter");
  bar.setAttribute("aria-labelledby", label.id);
  bar.setAttribute("aria-valuemin", "0");
  const fill = document.createElement("div");
  fill.className = "meter-fill";
  bar.append(fill);
  const text = document.createElement("span");
  text.className = "meter-text";
  node.replaceChildren(label, bar, text);
  return {
    update(score, maxScore) {
      const known = maxScore > 0;
      const share = known ? Math.min(1, Math.max(0, score / maxScore)) : 0;
      const percent = Math.round(share * 1000) / 10;
      const words = known ? `${score} of ${maxScore} points (${percent}%)` : `${score} points`;
      bar.setAttribute("aria-valuemax", String(known ? maxScore : Math.max(score, 1)));
      bar.setAttribute("aria-valuenow", String(score));
      bar.setAttribute("aria-valuetext", words);
      fill.style.width = `${share * 100}%`;
      text.textContent = words;
      node.dataset.score = String(score);
      node.dataset.max = String(maxScore);
    },
  };
}
