// Table mode: one WebSocket, each snapshot re-rendered whole; moves sent, never guessed.

import { cardName, cardView, fillCard } from "./cards";
import { byId, h } from "./dom";
import { animate, measure } from "./motion";
import { captionsView, cardRow, handZones, placeSeats, sameZone, seatView, uid, zoneView } from "./scene";
import { announce, mountCommon, showError, toast } from "./shell";
import { forgetSession } from "./session";
import { Link, type LinkState } from "./socket";
import { beep, setSound, soundOn } from "./sound";
import { setStrings, t } from "./strings";
import type { Action, Card, Hand, ServerFrame, Session, Snapshot } from "./types";

const WIDE = window.matchMedia("(min-width: 760px)");
const PENDING_MS = 6000;
const RESULT_MS = 15000;

interface Els {
  title: HTMLElement; heading: HTMLElement; status: HTMLElement; timer: HTMLElement;
  timerText: HTMLElement; sound: HTMLButtonElement; conn: HTMLElement; felt: HTMLElement;
  result: HTMLElement; seatsTop: HTMLElement; seatsLeft: HTMLElement; seatsRight: HTMLElement;
  zones: HTMLElement; captions: HTMLElement; hand: HTMLElement; handTitle: HTMLElement;
  me: HTMLElement; handNote: HTMLElement; handRows: HTMLElement; handActions: HTMLElement;
  handCaptions: HTMLElement; log: HTMLOListElement; logDetails: HTMLDetailsElement;
  layer: HTMLElement; main: HTMLElement; skip: HTMLButtonElement;
}

export class TableView {
  private els!: Els;
  private link: Link;
  private snap: Snapshot | null = null;
  private pending: { code: string; timer: number } | null = null;
  private dismissed = ""; // the result text the reader closed
  private shownResult = "";
  private shownKey = ""; // the result box's text, status and host, as last drawn
  private wasMyTurn = false;
  private linkState: LinkState = "connecting";
  private everOpen = false;
  private skew = 0; // server clock − ours, in seconds
  private deadlineSeen: number | null = null;
  private deadlineSpan = 0;
  private lastSecond = -1;
  private rovingKey = "";
  private resultTimer = 0;
  private dragging: { action: Action; hand: Hand } | null = null;

  constructor(private readonly root: HTMLElement, private readonly session: Session) {
    this.link = new Link(session.session, {
      frame: (f) => this.onFrame(f),
      state: (s) => this.onLinkState(s),
      fatal: (reason) => {
        forgetSession("table");
        showError(this.root, reason, null);
      },
    });
  }

  start(): void {
    this.build();
    this.link.start();
    window.setInterval(() => this.tick(), 250);
    WIDE.addEventListener("change", () => { if (this.snap) this.render(this.snap, false); });
  }

  // -- the page's frame, made once ------------------------------------------------

  private build(): void {
    const sound = h("button", { type: "button", class: "icon-btn", id: "sound" }) as HTMLButtonElement;
    sound.append(h("span", { class: "icon", "aria-hidden": "true", text: "♪" }),
      h("span", { class: "label", text: t("sound") }));
    sound.addEventListener("click", () => {
      setSound(!soundOn());
      this.paintSound();
      if (soundOn()) beep();
    });
    const skip = h("button", { type: "button", class: "skip", text: t("skip_to_hand") }) as HTMLButtonElement;
    skip.addEventListener("click", () => this.focusHand());
    const timerText = h("span", { class: "timer-text" });
    const header = h("header", { class: "topbar" },
      skip,
      h("div", { class: "titles" },
        h("h1", { id: "title", text: this.session.role === "watch" ? t("watching") : t("app_name") }),
        h("p", { id: "heading", class: "heading" })),
      h("div", { class: "tools" },
        h("span", { id: "status", class: "chip" }),
        h("span", { id: "timer", class: "chip timer", role: "timer", hidden: true },
          h("span", { class: "clock", "aria-hidden": "true" }), timerText),
        sound));
    const felt = h("section", { class: "felt", "aria-labelledby": "table-h" },
      h("h2", { id: "table-h", class: "sr-only", text: t("table") }),
      h("div", { id: "conn", class: "conn", role: "status", hidden: true }),
      h("div", { class: "ring" },
        h("ul", { id: "seats-top", class: "seats seats-top", "aria-label": t("players") }),
        h("ul", { id: "seats-left", class: "seats seats-left", "aria-label": t("players") }),
        h("div", { class: "center" },
          h("div", { id: "result", class: "result", hidden: true }),
          h("div", { id: "zones", class: "zones" }), h("div", { id: "captions" })),
        h("ul", { id: "seats-right", class: "seats seats-right", "aria-label": t("players") })));
    const hand = h("section", { id: "hand", class: "hand", "aria-labelledby": "hand-h", hidden: true },
      h("div", { class: "hand-head" },
        h("h2", { id: "hand-h", text: t("your_hand") }),
        h("ul", { id: "me", class: "me-box" })),
      h("p", { id: "hand-note", class: "hand-note" }),
      h("div", { id: "hand-rows", class: "hand-rows" }),
      h("div", { id: "hand-actions", class: "hand-actions", role: "group", "aria-label": t("moves") }),
      h("div", { id: "hand-captions" }));
    const main = h("main", { id: "main", class: "table-main" }, felt, hand);
    const details = h("details", { id: "log-details", class: "log" },
      h("summary", {}, h("h2", { id: "log-h", text: t("log") })),
      h("ol", { id: "log" }));
    const aside = h("aside", { class: "side", "aria-labelledby": "log-h" }, details);
    const layer = h("div", { class: "layer", "aria-hidden": "true" });
    const app = h("div", { class: "app mode-table" }, header, main, aside, layer);
    this.root.replaceChildren(app);
    mountCommon(main);
    if (window.matchMedia("(min-width: 1000px)").matches) (details as HTMLDetailsElement).open = true;
    hand.addEventListener("keydown", (e) => this.onHandKey(e));
    felt.addEventListener("dragover", (e) => {
      if (!this.dragging) return;
      e.preventDefault();
      felt.classList.add("drop-here");
    });
    felt.addEventListener("dragleave", (e) => {
      if (!felt.contains(e.relatedTarget as Node | null)) felt.classList.remove("drop-here");
    });
    felt.addEventListener("drop", (e) => {
      const drag = this.dragging;
      felt.classList.remove("drop-here");
      if (!drag) return;
      e.preventDefault();
      this.dragging = null;
      this.play(drag.action, true, drag.hand);
    });
    this.els = {
      title: byId("title"), heading: byId("heading"), status: byId("status"), timer: byId("timer"),
      timerText, sound, conn: byId("conn"), felt, result: byId("result"),
      seatsTop: byId("seats-top"), seatsLeft: byId("seats-left"), seatsRight: byId("seats-right"),
      zones: byId("zones"), captions: byId("captions"), hand, handTitle: byId("hand-h"), me: byId("me"),
      handNote: byId("hand-note"), handRows: byId("hand-rows"), handActions: byId("hand-actions"),
      handCaptions: byId("hand-captions"), log: byId<HTMLOListElement>("log"),
      logDetails: details as HTMLDetailsElement, layer, main, skip,
    };
    this.paintSound();
    this.paintConn();
  }

  private paintSound(): void {
    const on = soundOn();
    this.els.sound.setAttribute("aria-pressed", String(on));
    this.els.sound.title = on ? t("sound_off") : t("sound_on");
    this.els.sound.classList.toggle("on", on);
  }

  // -- frames -----------------------------------------------------------------------

  private onFrame(frame: ServerFrame): void {
    switch (frame.type) {
      case "snapshot":
        this.clearPending();
        this.render(frame, true);
        break;
      case "refused":
        this.clearPending();
        toast(frame.reason || t("not_playable"));
        break;
      case "error":
        toast(frame.reason);
        break;
      default:
        break;
    }
  }

  private onLinkState(state: LinkState): void {
    const back = state === "open" && this.everOpen && this.linkState !== "open";
    if (state === "open") this.everOpen = true;
    this.linkState = state;
    this.paintConn();
    if (back) announce(t("reconnected"));
    if (state === "reconnecting" && this.everOpen) announce(t("reconnecting"));
  }

  private paintConn(): void {
    if (!this.els) return;
    const { conn } = this.els;
    const closed = this.snap?.status === "closed";
    let text = "";
    if (this.linkState === "offline") text = t("offline");
    else if (this.linkState === "reconnecting") text = t("reconnecting");
    else if (this.linkState === "connecting" && !this.snap) text = t("connecting");
    else if (this.linkState === "stopped" && closed) text = t("table_closed");
    conn.textContent = text;
    conn.hidden = text === "";
    conn.classList.toggle("calm", this.linkState === "connecting" || closed);
    document.body.classList.toggle("stale", this.linkState === "reconnecting" || this.linkState === "offline");
  }

  // -- a snapshot -------------------------------------------------------------------

  private render(s: Snapshot, fresh: boolean): void {
    const previous = this.snap;
    this.snap = s;
    setStrings(s.strings);
    if (s.language) document.documentElement.lang = s.language;
    if (typeof s.now === "number") this.skew = s.now - Date.now() / 1000;
    const before = fresh && previous ? measure(this.els.main) : null;
    const focus = this.rememberFocus();

    const { els } = this;
    els.title.textContent = s.scene.title || s.title;
    els.heading.textContent = s.scene.heading;
    els.status.textContent = s.role === "watch" ? `${t("watching")} · ${t(`status_${s.status}`)}` : t(`status_${s.status}`);
    els.status.className = `chip status status-${s.status}${s.role === "watch" ? " watch" : ""}`;
    els.skip.textContent = t("skip_to_hand");
    els.skip.hidden = !s.hand;

    this.renderSeats(s, previous);
    els.zones.replaceChildren(...s.scene.zones.map((z) => zoneView(z)));
    if (!s.scene.zones.length && s.scene.heading) {
      // Nothing dealt yet (a lobby): the heading in the middle of the felt.
      els.zones.append(h("p", { class: "felt-word", text: s.scene.heading }));
    }
    els.captions.replaceChildren(...[captionsView(s.scene.captions)].filter((x): x is HTMLElement => x !== null));
    this.renderResult(s);
    this.renderHand(s);
    this.renderLog(s);
    animate(els.main, before, els.layer);
    this.restoreFocus(focus);

    const mine = !!s.hand?.your_turn && s.status !== "closed";
    document.title = mine ? t("title_your_turn", { title: s.title }) : t("title_table", { title: s.title });
    if (mine && !this.wasMyTurn) {
      announce(t("your_turn_announce", { note: s.hand?.note ?? "" }).trim());
      beep();
    }
    this.wasMyTurn = mine;
    this.paintConn();
    this.lastSecond = -1;
    this.tick();
  }

  private renderSeats(s: Snapshot, previous: Snapshot | null): void {
    const n = s.scene.seats.length;
    // The viewer's own box sits by their hand; with no hand (a lobby) it stays at the table.
    const me = s.hand && s.role === "seat" && s.seat !== null && s.seat >= 0 && s.seat < n ? s.seat : null;
    placeSeats(this.els, s.scene.seats, me, previous?.scene.seats ?? null, WIDE.matches);
    if (me !== null) this.els.me.replaceChildren(seatView(s.scene.seats[me]!, { index: me, me: true }));
    else this.els.me.replaceChildren();
  }

  private renderResult(s: Snapshot): void {
    const { result } = this.els;
    const text = s.result?.text ?? "";
    if (!text || text === this.dismissed) {
      result.hidden = true;
      this.shownResult = "";
      return;
    }
    // Drawn again when the text or what it offers changes (the game's end first comes
    // while the table still plays, then closed: with the host's Rematch).
    const shown = `${text}\u0000${s.status}\u0000${s.host ? 1 : 0}`;
    if (shown === this.shownKey && !result.hidden) return;
    this.shownKey = shown;
    const close = h("button", { type: "button", class: "icon-btn close", "aria-label": t("dismiss") },
      h("span", { "aria-hidden": "true", text: "×" }));
    close.addEventListener("click", () => {
      this.dismissed = text;
      result.hidden = true;
    });
    const titleId = uid("r");
    // The host starts the rematch from here as from Discord's Rematch (the server checks
    // it all again); the page then follows the new table by itself.
    const rematch = s.result?.final && s.host && s.status === "closed"
      ? h("button", { type: "button", class: "btn primary rematch", text: t("rematch") }) : null;
    rematch?.addEventListener("click", () => {
      if (!this.link.send({ type: "rematch" })) announce(t("not_connected"));
    });
    result.replaceChildren(h("div", { class: s.result?.final ? "result-card final" : "result-card", role: "group", "aria-labelledby": titleId },
      h("h3", { id: titleId, text: s.result?.final ? t("final_result") : t("result") }),
      h("p", { class: "result-text", text }), ...(rematch ? [rematch] : []), close));
    result.hidden = false;
    this.shownResult = text;
    announce(text);
    // A deal's result makes way for the next deal after a while (the log keeps it); the
    // game's final result stays.
    window.clearTimeout(this.resultTimer);
    if (!s.result?.final) {
      this.resultTimer = window.setTimeout(() => {
        if (this.shownResult === text) {
          this.dismissed = text;
          result.hidden = true;
        }
      }, RESULT_MS);
    }
  }

  private renderLog(s: Snapshot): void {
    const { log } = this.els;
    const items = s.lines.length
      ? s.lines.map((line) => h("li", { text: line }))
      : [h("li", { class: "empty", text: t("log_empty") })];
    log.replaceChildren(...items);
    const box = this.els.logDetails.parentElement;
    if (box) box.scrollTop = box.scrollHeight;
    log.lastElementChild?.scrollIntoView?.({ block: "nearest" });
  }

  // -- the hand ---------------------------------------------------------------------

  private renderHand(s: Snapshot): void {
    const { hand, handTitle, handNote, handRows, handActions, handCaptions } = this.els;
    const theHand = s.hand;
    hand.hidden = !theHand;
    document.body.classList.toggle("has-hand", !!theHand);
    if (!theHand) {
      handRows.replaceChildren();
      handActions.replaceChildren();
      return;
    }
    hand.classList.toggle("my-turn", theHand.your_turn);
    handTitle.textContent = theHand.scene.title || t("your_hand");
    const noteId = "hand-note";
    handNote.textContent = theHand.note || (theHand.your_turn ? t("your_turn") : "");
    handNote.hidden = handNote.textContent === "";
    handNote.classList.toggle("turn", theHand.your_turn);

    const unused = theHand.actions.slice();
    const take = (code: string | null): Action | null => {
      if (code === null) return null;
      const i = unused.findIndex((a) => a.card === code);
      return i < 0 ? null : unused.splice(i, 1)[0] ?? null;
    };
    const maker = (card: Card): HTMLElement => {
      const action = take(card.code);
      return action ? this.actionButton(action, theHand, noteId, card) : cardView(card);
    };
    // The hand's scene without what the table shows already (its copy of the trick).
    const zones = theHand.scene.zones.filter((z) => !s.scene.zones.some((p) => sameZone(p, z)));
    const compact = zones.filter((z) => z.compact);
    const fan = WIDE.matches && window.matchMedia("(min-height: 560px)").matches && compact.length > 1;
    handRows.classList.toggle("fan", fan);
    if (fan) {
      // A wide screen: the suit rows side by side as one fan.
      handRows.replaceChildren(...handZones(zones, theHand.scene.title || t("your_hand"), maker));
    } else {
      // Narrow screens pair short suit rows side by side; a long one gets the width.
      handRows.replaceChildren(...zones.map((z) => {
        const el = zoneView(z, maker);
        if (z.compact && z.cards.length > 3) el.classList.add("wide-row");
        return el;
      }));
    }
    const extra = unused.filter((a) => a.card !== null);
    const words = unused.filter((a) => a.card === null);
    const bar: HTMLElement[] = [];
    if (extra.length) {
      bar.push(cardRow(extra.map((a) => ({ code: a.card, mark: a.legal ? "legal" : "dim", caption: "" })), [], 0,
        (card) => this.actionButton(extra.find((a) => a.card === card.code)!, theHand, noteId, card)));
    }
    for (const action of words) bar.push(this.actionButton(action, theHand, noteId, null));
    handActions.replaceChildren(...bar);
    handActions.hidden = bar.length === 0;
    const caps = captionsView(theHand.scene.captions);
    handCaptions.replaceChildren(...(caps ? [caps] : []));
    this.rove();
  }

  private actionButton(action: Action, theHand: Hand, noteId: string, card: Card | null): HTMLElement {
    const button = h("button", { type: "button" }) as HTMLButtonElement;
    button.dataset["nav"] = `${action.card ? "c" : "a"}:${action.code}`;
    const playable = action.legal && theHand.your_turn;
    if (card) {
      fillCard(button, card.code);
      button.dataset["code"] = card.code ?? "";
      // Dimmed only beside playable cards; when no card may be played all stay plain.
      const someCard = theHand.your_turn && theHand.actions.some((a) => a.card !== null && a.legal);
      button.classList.add(playable ? "m-legal" : someCard ? "m-dim" : "m-idle");
      button.setAttribute("aria-label", `${cardName(card.code)}, ${playable ? t("playable") : t("not_playable")}`);
    } else {
      button.className = playable ? "btn action legal" : "btn action";
      button.textContent = action.label;
      if (!playable) button.setAttribute("aria-label", `${action.label}, ${t("not_playable")}`);
    }
    if (!playable) {
      button.setAttribute("aria-disabled", "true");
      if (action.why && action.why !== theHand.note) {
        const id = uid("why");
        button.append(h("span", { id, class: "sr-only", text: action.why }));
        button.setAttribute("aria-describedby", id);
      } else if (theHand.note) {
        button.setAttribute("aria-describedby", noteId);
      }
    }
    if (this.pending?.code === action.code) button.classList.add("sending");
    if (playable && card) {
      // An extra for a mouse: a playable card may also be dragged onto the felt.
      button.draggable = true;
      button.addEventListener("dragstart", (e) => {
        this.dragging = { action, hand: theHand };
        e.dataTransfer?.setData("text/plain", action.code);
        if (e.dataTransfer) e.dataTransfer.effectAllowed = "move";
      });
      button.addEventListener("dragend", () => {
        this.dragging = null;
        this.els.felt.classList.remove("drop-here");
      });
    }
    button.addEventListener("click", () => this.play(action, playable, theHand));
    return button;
  }

  private play(action: Action, playable: boolean, theHand: Hand): void {
    if (!playable) {
      toast(action.why || (theHand.your_turn ? theHand.note || t("not_playable") : t("not_your_turn")), "info");
      return;
    }
    if (this.pending) return; // one move at a time: the table answers first
    const sent = this.link.send({ type: "move", step: theHand.step, code: action.code });
    if (!sent) {
      toast(t("not_connected"));
      return;
    }
    this.pending = { code: action.code, timer: window.setTimeout(() => this.clearPending(), PENDING_MS) };
    this.els.hand.setAttribute("aria-busy", "true");
    this.els.hand.querySelectorAll<HTMLElement>("[data-nav]").forEach((el) => {
      if (el.dataset["nav"]?.endsWith(`:${action.code}`)) el.classList.add("sending");
    });
  }

  private clearPending(): void {
    if (!this.pending) return;
    window.clearTimeout(this.pending.timer);
    this.pending = null;
    this.els.hand.removeAttribute("aria-busy");
    this.els.hand.querySelectorAll(".sending").forEach((el) => el.classList.remove("sending"));
  }

  // -- keyboard ---------------------------------------------------------------------

  private navs(): HTMLElement[] {
    return Array.from(this.els.hand.querySelectorAll<HTMLElement>("[data-nav]"));
  }

  /** One tab stop in the hand (the last focused, else the first playable): arrows move. */
  private rove(): void {
    const all = this.navs();
    if (!all.length) return;
    const keep = all.find((el) => el.dataset["nav"] === this.rovingKey)
      ?? all.find((el) => el.getAttribute("aria-disabled") !== "true") ?? all[0]!;
    for (const el of all) el.tabIndex = el === keep ? 0 : -1;
  }

  private focusHand(): void {
    const all = this.navs();
    const target = all.find((el) => el.tabIndex === 0) ?? all[0];
    target?.focus();
  }

  private onHandKey(e: KeyboardEvent): void {
    const current = e.target as HTMLElement;
    if (!current.dataset?.["nav"]) return;
    const all = this.navs();
    const i = all.indexOf(current);
    let next: HTMLElement | undefined;
    if (e.key === "ArrowRight") next = all[i + 1];
    else if (e.key === "ArrowLeft") next = all[i - 1];
    else if (e.key === "Home") next = all[0];
    else if (e.key === "End") next = all[all.length - 1];
    else if (e.key === "ArrowUp" || e.key === "ArrowDown") next = this.vertical(current, all, e.key === "ArrowUp" ? -1 : 1);
    else return;
    e.preventDefault();
    if (next) this.moveFocus(next);
  }

  /** The button in the row above or below nearest in x (the next one when rows are one). */
  private vertical(current: HTMLElement, all: HTMLElement[], dir: -1 | 1): HTMLElement | undefined {
    const here = current.getBoundingClientRect();
    const rowTop = (el: HTMLElement): number => Math.round(el.getBoundingClientRect().top / 8);
    const mine = rowTop(current);
    const rows = Array.from(new Set(all.map(rowTop))).sort((a, b) => a - b);
    const target = rows[rows.indexOf(mine) + dir];
    if (target === undefined) return all[all.indexOf(current) + dir];
    let best: HTMLElement | undefined;
    let bestDx = Infinity;
    for (const el of all) {
      if (rowTop(el) !== target) continue;
      const r = el.getBoundingClientRect();
      const dx = Math.abs(r.left + r.width / 2 - (here.left + here.width / 2));
      if (dx < bestDx) { best = el; bestDx = dx; }
    }
    return best;
  }

  private moveFocus(el: HTMLElement): void {
    this.rovingKey = el.dataset["nav"] ?? "";
    for (const other of this.navs()) other.tabIndex = other === el ? 0 : -1;
    el.focus();
  }

  private rememberFocus(): { key: string; index: number } | null {
    const el = document.activeElement as HTMLElement | null;
    if (!el || !this.els.hand.contains(el) || !el.dataset["nav"]) return null;
    this.rovingKey = el.dataset["nav"];
    return { key: el.dataset["nav"], index: this.navs().indexOf(el) };
  }

  private restoreFocus(focus: { key: string; index: number } | null): void {
    if (!focus) return;
    const all = this.navs();
    const el = all.find((x) => x.dataset["nav"] === focus.key) ?? all[Math.min(focus.index, all.length - 1)];
    if (el) {
      this.moveFocus(el);
      el.focus({ preventScroll: true });
    }
  }

  // -- the turn timer ---------------------------------------------------------------

  private tick(): void {
    const s = this.snap;
    const { timer, timerText } = this.els;
    if (!s || s.deadline === null || s.deadline === undefined || s.status === "closed") {
      timer.hidden = true;
      this.deadlineSeen = null;
      return;
    }
    const now = Date.now() / 1000 + this.skew;
    if (this.deadlineSeen !== s.deadline) {
      this.deadlineSeen = s.deadline;
      this.deadlineSpan = Math.max(1, s.deadline - now);
    }
    const left = Math.max(0, s.deadline - now);
    const seconds = Math.ceil(left);
    const fraction = Math.min(1, left / this.deadlineSpan);
    document.querySelectorAll<HTMLElement>(".seat.active .seat-timer .bar").forEach((bar) => {
      bar.style.transform = `scaleX(${fraction.toFixed(3)})`;
    });
    timer.hidden = false;
    const urgent = seconds <= 10;
    timer.classList.toggle("urgent", urgent);
    timer.classList.toggle("mine", !!s.hand?.your_turn);
    document.querySelectorAll(".seat.active").forEach((el) => el.classList.toggle("urgent", urgent));
    if (seconds === this.lastSecond) return;
    this.lastSecond = seconds;
    const m = Math.floor(seconds / 60);
    timerText.textContent = `${m}:${String(seconds % 60).padStart(2, "0")}`;
    timer.setAttribute("aria-label", `${t("timer")}: ${t("seconds_left", { seconds })}`);
  }
}

