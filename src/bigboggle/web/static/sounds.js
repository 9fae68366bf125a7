// Short sounds for a word's verdict and for time nearly up, made in the page with WebAudio (no
// audio files to download). Off unless this browser turned them on (localStorage
// "bigboggle:sounds" = "on"), and silent whenever the browser asks for reduced motion.

const KEY = "bigboggle:sounds";

// Each sound as notes: [frequency in Hz, start in seconds, length in seconds], with a wave shape.
const SOUNDS = {
  scored: { wave: "sine", notes: [[660, 0, 0.09], [990, 0.08, 0.14]] },
  repeated: { wave: "triangle", notes: [[440, 0, 0.08], [440, 0.12, 0.08]] },
  invalid: { wave: "square", notes: [[196, 0, 0.16]] },
  hurry: { wave: "triangle", notes: [[880, 0, 0.07], [880, 0.15, 0.07], [880, 0.3, 0.07]] },
};

// The loudness of every note (quiet: these sit under the player's own attention).
const VOLUME = 0.08;

let context = null;

function reducedMotion() {
  return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

// Whether this browser asked for sounds.
export function soundsOn() {
  try {
    return localStorage.getItem(KEY) === "on";
  } catch {
    return false;
  }
}

function audio() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return null;
  if (!context) context = new Context();
  // A context made before the player's first gesture starts suspended.
  if (context.state === "suspended") context.resume().catch(() => {});
  return context;
}

// Play the sound for `kind` ("scored", "repeated", "invalid" or "hurry"): nothing if sounds are
// off, motion is reduced, the kind is unknown or the browser has no WebAudio.
export function playSound(kind) {
  const sound = SOUNDS[kind];
  if (!sound || !soundsOn() || reducedMotion()) return;
  const ctx = audio();
  if (!ctx) return;
  const now = ctx.currentTime;
  for (const [frequency, start, length] of sound.notes) {
    const oscillator = ctx.createOscillator();
    const gain = ctx.createGain();
    oscillator.type = sound.wave;
    oscillator.frequency.value = frequency;
    // A quick rise and fall, so a note does not click.
    gain.gain.setValueAtTime(0, now + start);
    gain.gain.linearRampToValueAtTime(VOLUME, now + start + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
    oscillator.connect(gain).connect(ctx.destination);
    oscillator.start(now + start);
    oscillator.stop(now + start + length + 0.02);
  }
}

// Make `button` the Sound on/off toggle: aria-pressed shows the preference, a click flips and
// remembers it (and plays a note when turned on, so the player hears what they chose). Its
// title says when reduced motion keeps the page silent anyway. Returns { get on() }.
export function soundToggle(button) {
  const show = () => {
    const on = soundsOn();
    button.setAttribute("aria-pressed", String(on));
    button.title = reducedMotion()
      ? "Sounds stay silent while your system asks for reduced motion"
      : on
        ? "Sounds are on"
        : "Sounds are off";
  };
  button.addEventListener("click", () => {
    try {
      localStorage.setItem(KEY, soundsOn() ? "off" : "on");
    } catch {
      return;
    }
    show();
    if (soundsOn()) playSound("scored");
  });
  show();
  // Browsers let a page's audio start only after a gesture: wake it at the player's first one,
  // so a sound that comes on its own (time nearly up) is heard too.
  const wake = () => {
    if (soundsOn() && !reducedMotion()) audio();
  };
  for (const kind of ["pointerdown", "keydown"]) document.addEventListener(kind, wake, { once: true, capture: true });
  return {
    get on() {
      return soundsOn();
    },
  };
}
