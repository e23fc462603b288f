// Cards drawn as HTML/CSS: a face (rank and suit in the corner, a big pip) or a back.

import { h } from "./dom";
import { t } from "./strings";
import type { Card } from "./types";

const SUITS: Record<string, string> = { S: "♠", H: "♥", C: "♣", D: "♦" };
const TEXT_STYLE = "\uFE0E"; // a suit symbol as text, never as a coloured emoji
const COURTS = new Set(["J", "Q", "K", "A"]);

export const SUIT_SYMBOLS = "♠♥♣♦";
const SUIT_BY_SYMBOL: Record<string, string> = { "♠": "S", "♥": "H", "♣": "C", "♦": "D" };

export function isRed(text: string): boolean {
  return /[♥♦]/.test(text);
}

interface Parsed { rank: string; suit: string; joker: boolean }

export function parseCode(code: string): Parsed | null {
  if (code === "JK") return { rank: "", suit: "", joker: true };
  const suit = code.slice(-1).toUpperCase();
  let rank = code.slice(0, -1).toUpperCase();
  if (!(suit in SUITS) || rank === "") return null;
  if (rank === "T") rank = "10";
  return { rank, suit, joker: false };
}

/** What a card's corner shows: "10", "J" (or the language's letter). */
export function faceRank(rank: string): string {
  return COURTS.has(rank) ? t(`face_${rank}`) : rank;
}

/** A card for people: "10 of hearts", "Queen of spades", "Joker". */
export function cardName(code: string | null): string {
  if (code === null) return t("card_back");
  const p = parseCode(code);
  if (!p) return code;
  if (p.joker) return t("joker");
  const rank = COURTS.has(p.rank) ? t(`rank_${p.rank}`) : p.rank;
  return t("card_name", { rank, suit: t(`suit_${p.suit}`) });
}

/** A suit symbol as a word ("♠" → "spades"), for a label that is only a symbol. */
export function symbolName(label: string): string | null {
  const letter = SUIT_BY_SYMBOL[label.trim()];
  if (letter) return t(`suit_${letter}`);
  if (label.trim() === "★") return t("joker");
  return null;
}

/** The inside of a card: its corner and pip (decorative; the element carries the name). */
export function fillCard(el: HTMLElement, code: string | null): void {
  el.classList.add("card");
  if (code === null) {
    el.classList.add("back");
    return;
  }
  const p = parseCode(code);
  el.classList.add("face");
  // The face's letters are CSS content (attr()), not text: the element's name says the
  // card in words, and no visible text then disagrees with it.
  if (!p) {
    el.append(h("span", { class: "corner", "aria-hidden": "true", "data-r": code }));
    return;
  }
  if (p.joker) {
    el.classList.add("joker");
    el.append(h("span", { class: "star", "aria-hidden": "true" }),
      h("span", { class: "jword", "aria-hidden": "true", "data-w": t("joker_face") }));
    return;
  }
  const symbol = (SUITS[p.suit] ?? "") + TEXT_STYLE;
  if (p.suit === "H" || p.suit === "D") el.classList.add("red");
  const rank = faceRank(p.rank);
  el.append(
    h("span", { class: rank.length > 1 ? "corner wide" : "corner", "aria-hidden": "true", "data-r": rank, "data-s": symbol }),
    h("span", { class: "pip", "aria-hidden": "true", "data-s": symbol }),
  );
}

/** A card shown (not played): an image with its name, marked as the scene says. */
export function cardView(card: Card): HTMLElement {
  const el = h("span", { role: "img" });
  fillCard(el, card.code);
  if (card.mark) el.classList.add(`m-${card.mark}`);
  if (card.code !== null) el.dataset["code"] = card.code;
  el.setAttribute("aria-label", cardName(card.code));
  return el;
}

/** A fan of face-down cards (never one per card) with its count. */
export function pile(count: number, withCount = true): HTMLElement {
  const el = h("span", { class: "pile", role: "img", "aria-label": t("backs_count", { n: count }) });
  const shown = Math.min(count, 4);
  for (let i = 0; i < shown; i++) {
    const back = h("span", { class: "card back", "aria-hidden": "true" });
    back.style.setProperty("--i", String(i));
    back.style.setProperty("--n", String(shown));
    el.append(back);
  }
  if (withCount) el.append(h("span", { class: "pile-count", "aria-hidden": "true", text: String(count) }));
  return el;
}
