// An optional "your turn" beep, made with WebAudio (no sound file); off by default.

const KEY = "cardtable.sound";
let context: AudioContext | null = null;

export function soundOn(): boolean {
  try {
    return localStorage.getItem(KEY) === "on";
  } catch {
    return false;
  }
}

export function setSound(on: boolean): void {
  try {
    localStorage.setItem(KEY, on ? "on" : "off");
  } catch {
    /* not kept: on for this page only */
  }
  if (on) unlock();
}

/** Browsers start audio only from a user's gesture: the toggle's click makes the context. */
function unlock(): void {
  if (!context) {
    const Ctx = window.AudioContext ?? (window as unknown as { webkitAudioContext?: typeof AudioContext }).webkitAudioContext;
    if (!Ctx) return;
    context = new Ctx();
  }
  void context.resume();
}

/** Two short soft tones, rising. */
export function beep(): void {
  if (!soundOn()) return;
  if (!context) unlock();
  const ctx = context;
  if (!ctx || ctx.state !== "running") return;
  const start = ctx.currentTime + 0.01;
  [660, 880].forEach((freq, i) => {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = "sine";
    osc.frequency.value = freq;
    const at = start + i * 0.12;
    gain.gain.setValueAtTime(0.0001, at);
    gain.gain.exponentialRampToValueAtTime(0.18, at + 0.015);
    gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.11);
    osc.connect(gain).connect(ctx.destination);
    osc.start(at);
    osc.stop(at + 0.12);
  });
}
