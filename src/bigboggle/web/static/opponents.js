// Computer opponents' counts arriving on the server's clock. The game's JSON gives each
// opponent's entry times (seconds into the round, never its words) once, so the page counts
// them against the clock itself instead of asking the server every second; the words come with
// the results.

function reducedMotion() {
  return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

// How many of the sorted `times` are at or before `seconds`.
function countUpTo(times, seconds) {
  let low = 0;
  let high = times.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (times[middle] <= seconds) low = middle + 1;
    else high = middle;
  }
  return low;
}

// The counts in `list` (the game page's <ul id="opponent-counts">, one <li data-seat> per
// opponent with a .count) for `opponents` (the game JSON's), at `seconds` into the round:
// update(seconds) redraws the counts that changed, with a small nudge unless reduced motion.
export function opponentCounts(list, opponents) {
  const counts = opponents.map((seat, index) => {
    const item = list.querySelector(`li[data-seat="${index}"]`);
    return { seat, node: item ? item.querySelector(".count") : null, shown: -1 };
  });
  return {
    update(seconds) {
      for (const entry of counts) {
        if (!entry.node) continue;
        const count = countUpTo(entry.seat.times || [], seconds);
        if (count === entry.shown) continue;
        const grew = entry.shown >= 0 && count > entry.shown;
        entry.shown = count;
        entry.node.textContent = String(count);
        const noun = entry.node.parentElement.querySelector(".noun");
        if (noun) noun.textContent = count === 1 ? "word" : "words";
        if (grew && !reducedMotion() && entry.node.animate) {
          entry.node.animate([{ transform: "scale(1.3)" }, { transform: "none" }], { duration: 220, easing: "ease-out" });
        }
      }
    },
  };
}
