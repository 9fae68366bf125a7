// A round's clock as the pages show it ("2:05"), and the spoken warnings as it runs down.

// Seconds left as minutes:seconds, rounded up (the clock shows 0:00 only when time is up).
export function formatClock(seconds) {
  const whole = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

// Says "60 seconds left", then 30, then 10, into `node` (a polite live region), each once
// while the clock passes it; reset() for the next round.
export function clockAnnouncer(node, marks = [60, 30, 10]) {
  const said = new Set();
  return {
    update(left) {
      for (const mark of marks) {
        if (left <= mark && left > mark - 1 && !said.has(mark)) {
          said.add(mark);
          node.textContent = `${mark} seconds left`;
        }
      }
    },
    reset() {
      said.clear();
    },
  };
}
