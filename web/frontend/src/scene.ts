// A Scene (bot/images/scene.py) as HTML: zones as rows of cards, seats as boxes,
// captions as lines. Game-neutral: a fifth game needs no code here.

import { cardView, isRed, pile, symbolName } from "./cards";
import { h } from "./dom";
import { pulse } from "./motion";
import { t } from "./strings";
import type { Card, Seat, Zone } from "./types";

/** Makes the element for one card of a zone (the hand turns its cards into buttons). */
export type CardMaker = (card: Card) => HTMLElement;

export function zoneView(zone: Zone, make: CardMaker = cardView): HTMLElement {
  const classes = ["zone", `zone--${zone.size === "small" ? "small" : "large"}`];
  if (zone.compact) classes.push("zone--compact");
  if (zone.slots.length || zone.span > 0) classes.push("zone--slotted");
  const el = h("div", { class: classes.join(" "), role: "group" });
  const spoken = zone.compact ? symbolName(zone.label) : null;
  const label = h("h3", { class: zone.compact ? "zone-label compact" : "zone-label", text: zone.label });
  if (isRed(zone.label)) label.classList.add("red");
  if (spoken) {
    label.setAttribute("aria-hidden", "true");
    el.setAttribute("aria-label", spoken);
  } else if (zone.label) {
    const id = uid("z");
    label.id = id;
    el.setAttribute("aria-labelledby", id);
  }
  el.append(label);
  const body = h("div", { class: "zone-body" });
  if (zone.badge) {
    body.append(h("span", { class: isRed(zone.badge) ? "badge red" : "badge", text: zone.badge }));
  }
  if (zone.backs > 0) body.append(pile(zone.backs, !zone.compact));
  if (zone.cards.length) body.append(cardRow(zone.cards, zone.slots, zone.span, make));
  if (zone.note) body.append(h("p", { class: "zone-note", text: zone.note }));
  el.append(body);
  return el;
}

/** The cards on a grid: card i in column slots[i] of span columns (Jacko's two piles
 * share the round's order). Columns shrink when room is short: the cards then overlap. */
export function cardRow(cards: Card[], slots: number[], span: number,
                        make: CardMaker = cardView): HTMLElement {
  const places = slots.length === cards.length ? slots : cards.map((_, i) => i);
  const columns = Math.max(span, ...places.map((s) => s + 1), 1);
  const list = h("ul", { class: "cards" });
  if (cards.some((c) => c.caption)) list.classList.add("captioned");
  list.style.gridTemplateColumns = columns > 1
    ? `repeat(${columns - 1}, minmax(0, var(--step))) minmax(var(--cw), var(--step))`
    : "minmax(var(--cw), var(--step))";
  cards.forEach((card, i) => {
    const item = h("li", { class: "slot" });
    item.style.gridColumnStart = String((places[i] ?? i) + 1);
    item.style.gridRowStart = "1";
    item.append(make(card));
    if (card.caption) {
      item.append(h("span", { class: card.mark === "win" ? "caption win" : "caption", text: card.caption }));
    }
    list.append(item);
  });
  return list;
}

export interface SeatOptions {
  me?: boolean;
  index: number;
}

export function seatView(seat: Seat, opts: SeatOptions): HTMLElement {
  const classes = ["seat"];
  if (seat.active) classes.push("active");
  if (seat.out) classes.push("out");
  if (seat.winner) classes.push("winner");
  if (opts.me) classes.push("me");
  const el = h("li", { class: classes.join(" ") });
  el.dataset["seat"] = String(opts.index);
  el.dataset["name"] = seat.name;
  const states: string[] = [];
  if (seat.active) states.push(t("seat_active"));
  if (seat.winner) states.push(t("seat_winner"));
  if (seat.out) states.push(t("seat_out"));
  const head = h("div", { class: "seat-head" });
  if (seat.active || seat.winner) {
    head.append(h("span", { class: "seat-mark", "aria-hidden": "true", text: seat.active ? "▶" : "★" }));
  }
  head.append(h("span", { class: opts.me ? "seat-name sr-only" : "seat-name", text: seat.name }));
  if (states.length) head.append(h("span", { class: "sr-only", text: `, ${states.join(", ")}` }));
  if (seat.score) {
    head.append(h("span", { class: "seat-score", text: seat.score, "aria-label": t("score", { score: seat.score }) }));
  }
  el.append(head);
  if (seat.note) el.append(h("div", { class: "seat-note", text: seat.note }));
  if (seat.backs > 0 || seat.cards.length) {
    const row = h("div", { class: "seat-cards" });
    if (seat.backs > 0) row.append(pile(seat.backs));
    if (seat.cards.length) {
      const fan = h("ul", { class: "fan" });
      for (const card of seat.cards) {
        fan.append(h("li", {}, cardView(seat.out ? { ...card, mark: "dim" } : card)));
      }
      row.append(fan);
    }
    el.append(row);
  }
  if (seat.active) el.append(h("div", { class: "seat-timer", "aria-hidden": "true" }, h("span", { class: "bar" })));
  return el;
}

export function captionsView(captions: string[]): HTMLElement | null {
  const shown = captions.filter((c) => c.trim() !== "");
  if (!shown.length) return null;
  const list = h("ul", { class: "captions" });
  for (const line of shown) list.append(h("li", { text: line }));
  return list;
}

let counter = 0;
export function uid(prefix: string): string {
  counter += 1;
  return `${prefix}${counter}`;
}

/** Two zones that show the same thing (the hand's copy of the trick). */
export function sameZone(a: Zone, b: Zone): boolean {
  if (a.label !== b.label || a.badge !== b.badge || a.backs !== b.backs || a.note !== b.note) return false;
  if (a.cards.length !== b.cards.length) return false;
  return a.cards.every((c, i) => {
    const d = b.cards[i];
    return d !== undefined && c.code === d.code && c.caption === d.caption;
  });
}

export interface SeatLists {
  seatsTop: HTMLElement;
  seatsLeft: HTMLElement;
  seatsRight: HTMLElement;
}

/** The seats around the table, clockwise from the viewer (`me`, left out: their box is by
 * the hand): the next seat on the left, then over the top, the one before on the right.
 * Narrow screens put them all in rows at the top. */
export function placeSeats(lists: SeatLists, seats: Seat[], me: number | null,
                           previous: Seat[] | null, wide: boolean): void {
  const n = seats.length;
  const order: number[] = [];
  for (let k = me === null ? 0 : 1; k < n; k++) order.push(me === null ? k : (me + k) % n);
  const make = (i: number, where: string): HTMLElement => {
    const seat = seats[i]!;
    const el = seatView(seat, { index: i });
    el.classList.add(`at-${where}`);
    const old = previous?.[i];
    if (old && old.score !== seat.score) {
      const score = el.querySelector(".seat-score");
      if (score) window.requestAnimationFrame(() => pulse(score));
    }
    return el;
  };
  const sides = wide && order.length >= 3 && order.length <= 7;
  const left = sides ? order.slice(0, 1) : [];
  const right = sides ? order.slice(-1) : [];
  const top = sides ? order.slice(1, -1) : order;
  lists.seatsLeft.replaceChildren(...left.map((i) => make(i, "left")));
  lists.seatsRight.replaceChildren(...right.map((i) => make(i, "right")));
  lists.seatsTop.replaceChildren(...top.map((i) => make(i, "top")));
  lists.seatsLeft.hidden = left.length === 0;
  lists.seatsRight.hidden = right.length === 0;
  lists.seatsTop.hidden = top.length === 0;
  lists.seatsTop.classList.toggle("many", top.length > 4);
  lists.seatsTop.style.setProperty("--seats", String(Math.max(1, top.length)));
}

/** A hand's zones with its suit rows (compact zones) as one fan, a small gap between
 * suits, where the first of them was; its other zones as they are. */
export function handZones(zones: Zone[], label: string, make: CardMaker = cardView): HTMLElement[] {
  const compact = zones.filter((z) => z.compact);
  if (compact.length < 2) return zones.map((z) => zoneView(z, make));
  const group = h("div", { class: "zone zone--hand", role: "group", "aria-label": label });
  const cards = compact.flatMap((z) => z.cards);
  const slots: number[] = [];
  let col = 0;
  for (const z of compact) {
    if (z.cards.length && slots.length) col += 1;
    for (let i = 0; i < z.cards.length; i++) { slots.push(col); col += 2; }
  }
  const body = h("div", { class: "zone-body" });
  if (cards.length) body.append(cardRow(cards, slots, Math.max(1, col - 1), make));
  for (const z of compact) {
    if (z.note && z.note !== "—") body.append(h("p", { class: "zone-note", text: z.note }));
  }
  group.append(body);
  let placed = false;
  return zones.flatMap((z) => {
    if (!z.compact) return [zoneView(z, make)];
    if (placed) return [];
    placed = true;
    return [group];
  });
}
