// Replay mode: GET /api/replay, then frame i shown (the table, every hand face up, the
// frame's line and result), stepped with buttons or keys, or played.

import { byId, h } from "./dom";
import { icon } from "./icons";
import { animate, measure } from "./motion";
import { captionsView, handZones, placeSeats, zoneView } from "./scene";
import { readJson, PageError, forgetSession } from "./session";
import { announce, mountCommon } from "./shell";
import { setStrings, t } from "./strings";
import type { Replay, Session } from "./types";

const WIDE = window.matchMedia("(min-width: 760px)");
const AUTOPLAY_MS = 1100;

export async function loadReplay(session: Session): Promise<Replay> {
  let answer: Response;
  try {
    answer = await fetch("api/replay", {
      headers: { Authorization: `Bearer ${session.session}` },
      credentials: "same-origin",
      cache: "no-store",
    });
  } catch {
    throw new PageError(t("error_network"), true);
  }
  const body = await readJson(answer);
  if (!answer.ok) {
    if (answer.status === 401 || answer.status === 403) forgetSession("replay");
    const sentence = typeof body?.["error"] === "string" ? body["error"] : "";
    throw new PageError(sentence || t("error_server"), answer.status >= 500);
  }
  const replay = body as unknown as Replay | null;
  if (!replay || !Array.isArray(replay.frames) || !replay.frames.length) throw new PageError(t("error_server"));
  return replay;
}

interface Buttons {
  first: HTMLButtonElement; prevDeal: HTMLButtonElement; back: HTMLButtonElement;
  play: HTMLButtonElement; forward: HTMLButtonElement; nextDeal: HTMLButtonElement;
}

export class ReplayView {
  private index = 0;
  private timer = 0;
  private buttons!: Buttons;
  private scrub!: HTMLInputElement;
  private main!: HTMLElement;
  private layer!: HTMLElement;

  constructor(private readonly root: HTMLElement, private readonly replay: Replay) {}

  start(): void {
    setStrings(this.replay.strings);
    if (this.replay.language) document.documentElement.lang = this.replay.language;
    this.build();
    this.show(0, false);
    document.addEventListener("keydown", (e) => this.onKey(e));
    WIDE.addEventListener("change", () => this.show(this.index, false));
  }

  private build(): void {
    const button = (key: string, glyph: string, action: () => void): HTMLButtonElement => {
      const b = h("button", { type: "button", class: "ctl", "aria-label": t(key), title: t(key) },
        icon(glyph)) as HTMLButtonElement;
      b.addEventListener("click", action);
      return b;
    };
    this.buttons = {
      first: button("first", "first", () => this.go(0)),
      prevDeal: button("previous_deal", "prevDeal", () => this.go(this.dealStart(-1))),
      back: button("back", "back", () => this.go(this.index - 1)),
      play: button("play", "play", () => this.toggle()),
      forward: button("forward", "forward", () => this.go(this.index + 1)),
      nextDeal: button("next_deal", "nextDeal", () => this.go(this.dealStart(1))),
    };
    this.buttons.play.classList.add("primary");
    this.scrub = h("input", { type: "range", min: 0, max: this.replay.frames.length - 1, value: 0,
      class: "scrub", "aria-label": t("replay") }) as HTMLInputElement;
    this.scrub.addEventListener("input", () => { this.pause(); this.show(Number(this.scrub.value), false); });
    const b = this.buttons;
    const header = h("header", { class: "topbar" },
      h("div", { class: "titles" },
        h("h1", { id: "title", text: `${this.replay.title} · ${t("replay")}` }),
        h("p", { id: "heading", class: "heading" })),
      h("div", { class: "tools" }, h("span", { id: "counter", class: "chip" })));
    const felt = h("section", { class: "felt", "aria-labelledby": "table-h" },
      h("h2", { id: "table-h", class: "sr-only", text: t("table") }),
      h("div", { id: "result", class: "result", hidden: true }),
      h("div", { class: "ring" },
        h("ul", { id: "seats-top", class: "seats seats-top", "aria-label": t("players") }),
        h("ul", { id: "seats-left", class: "seats seats-left", "aria-label": t("players") }),
        h("div", { class: "center" }, h("div", { id: "zones", class: "zones" }), h("div", { id: "captions" })),
        h("ul", { id: "seats-right", class: "seats seats-right", "aria-label": t("players") })),
      h("p", { id: "line", class: "replay-line", "aria-live": "polite" }));
    const hands = h("section", { class: "hands", "aria-labelledby": "hands-h" },
      h("h2", { id: "hands-h", class: "sr-only", text: t("hands") }),
      h("div", { id: "hands", class: "hands-grid" }));
    const controls = h("nav", { class: "controls", "aria-label": t("replay_controls") },
      h("div", { class: "ctl-row", role: "toolbar", "aria-label": t("replay_controls") },
        b.first, b.prevDeal, b.back, b.play, b.forward, b.nextDeal),
      this.scrub,
      h("p", { class: "keys-help", text: t("keys_help") }));
    this.main = h("main", { id: "main", class: "replay-main" }, felt, hands);
    this.layer = h("div", { class: "layer", "aria-hidden": "true" });
    this.root.replaceChildren(h("div", { class: "app mode-replay" }, header, this.main, controls, this.layer));
    mountCommon(this.main);
  }

  private dealStart(dir: -1 | 1): number {
    const deals = this.replay.deals.length ? this.replay.deals : [0];
    if (dir > 0) return deals.find((d) => d > this.index) ?? this.replay.frames.length - 1;
    // Back: this deal's start, or the one before when already at its start.
    const earlier = deals.filter((d) => d < this.index);
    return earlier.length ? earlier[earlier.length - 1]! : 0;
  }

  private go(i: number): void {
    if (this.timer && i !== this.index + 1) this.pause();
    this.show(Math.max(0, Math.min(this.replay.frames.length - 1, i)), i === this.index + 1);
  }

  private show(i: number, animated: boolean): void {
    const frames = this.replay.frames;
    const frame = frames[i];
    if (!frame) return;
    const before = animated ? measure(this.main) : null;
    this.index = i;
    const scene = frame.scene;
    byId("title").textContent = `${scene.title || this.replay.title} · ${t("replay")}`;
    byId("heading").textContent = scene.heading;
    const deal = this.replay.deals.filter((d) => d <= i).length || frame.deal + 1;
    byId("counter").textContent = `${t("deal_n", { n: deal })} · ${t("frame_of", { i: i + 1, n: frames.length })}`;
    placeSeats({ seatsTop: byId("seats-top"), seatsLeft: byId("seats-left"), seatsRight: byId("seats-right") },
      scene.seats, null, null, WIDE.matches);
    byId("zones").replaceChildren(...scene.zones.map((z) => zoneView(z)));
    const caps = captionsView(scene.captions);
    byId("captions").replaceChildren(...(caps ? [caps] : []));
    byId("hands").replaceChildren(...frame.hands.map((hand, seat) => {
      const name = this.replay.players[seat] ?? hand.title;
      const box = h("div", { class: "hand-box", role: "group", "aria-label": hand.title || name },
        h("h3", { text: hand.title || name }));
      // The hand's copy of the table (its trick) is left out: the table shows it.
      const own = hand.zones.filter((z) => z.compact || !scene.zones.some((p) => p.label === z.label));
      box.append(...handZones(own, hand.title || name));
      return box;
    }));
    byId("line").textContent = frame.line;
    const result = byId("result");
    if (frame.result) {
      result.replaceChildren(h("div", { class: "result-card" }, h("h3", { text: t("result") }),
        h("p", { class: "result-text", text: frame.result })));
      result.hidden = false;
    } else {
      result.hidden = true;
    }
    this.scrub.value = String(i);
    this.scrub.setAttribute("aria-valuetext", t("frame_of", { i: i + 1, n: frames.length }));
    const b = this.buttons;
    const atStart = i === 0;
    const atEnd = i === frames.length - 1;
    for (const [el, off] of [[b.first, atStart], [b.prevDeal, atStart], [b.back, atStart],
      [b.forward, atEnd], [b.nextDeal, atEnd]] as const) {
      el.disabled = off;
    }
    if (atEnd) this.pause();
    animate(this.main, before, this.layer);
  }

  private toggle(): void {
    if (this.timer) {
      this.pause();
      return;
    }
    if (this.index >= this.replay.frames.length - 1) this.show(0, false);
    this.timer = window.setInterval(() => this.go(this.index + 1), AUTOPLAY_MS);
    this.paintPlay();
    announce(t("play"));
  }

  private pause(): void {
    if (!this.timer) return;
    window.clearInterval(this.timer);
    this.timer = 0;
    this.paintPlay();
  }

  private paintPlay(): void {
    const playing = this.timer !== 0;
    const b = this.buttons.play;
    b.replaceChildren(icon(playing ? "pause" : "play"));
    b.setAttribute("aria-label", playing ? t("pause") : t("play"));
    b.title = playing ? t("pause") : t("play");
    b.setAttribute("aria-pressed", String(playing));
  }

  private onKey(e: KeyboardEvent): void {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const target = e.target as HTMLElement;
    const typing = target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement;
    switch (e.key) {
      case "ArrowRight":
        if (typing) return;
        this.go(this.index + 1);
        break;
      case "ArrowLeft":
        if (typing) return;
        this.go(this.index - 1);
        break;
      case " ":
        if (target instanceof HTMLButtonElement || typing) return; // Space presses a focused button
        this.toggle();
        break;
      case "PageDown":
        this.go(this.dealStart(1));
        break;
      case "PageUp":
        this.go(this.dealStart(-1));
        break;
      case "Home":
        if (typing) return;
        this.go(0);
        break;
      case "End":
        if (typing) return;
        this.go(this.replay.frames.length - 1);
        break;
      default:
        return;
    }
    e.preventDefault();
  }
}
