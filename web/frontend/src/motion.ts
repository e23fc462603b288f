// Every move seen at once, briefly: cards that moved between two snapshots glide from
// where they were (a card from the hand into the trick, the trick into the last
// trick); new cards come from the seat that played them; cards that left fade out.
// Cheap: the Web Animations API on transforms and opacity only, nothing when the
// reader prefers reduced motion.

import { reducedMotion } from "./dom";

const DURATION = 360;
const EASING = "cubic-bezier(.2,.75,.25,1)";

export interface Before {
  rects: Map<string, DOMRect>;
  nodes: Map<string, HTMLElement>;
  seats: Map<string, DOMRect>; // by seat name
  active: DOMRect | null; // the seat that was to act
}

/** Keys every card with a code under `root`: its code and which of that code it is. */
export function keyCards(root: HTMLElement): Map<string, HTMLElement> {
  const seen = new Map<string, number>();
  const out = new Map<string, HTMLElement>();
  root.querySelectorAll<HTMLElement>(".card[data-code]").forEach((el) => {
    const code = el.dataset["code"] ?? "";
    const n = seen.get(code) ?? 0;
    seen.set(code, n + 1);
    out.set(`${code}#${n}`, el);
  });
  return out;
}

export function measure(root: HTMLElement): Before | null {
  if (reducedMotion()) return null;
  const rects = new Map<string, DOMRect>();
  const nodes = keyCards(root);
  nodes.forEach((el, key) => rects.set(key, el.getBoundingClientRect()));
  const seats = new Map<string, DOMRect>();
  let active: DOMRect | null = null;
  root.querySelectorAll<HTMLElement>(".seat").forEach((el) => {
    const rect = el.getBoundingClientRect();
    seats.set(el.dataset["name"] ?? "", rect);
    if (el.classList.contains("active")) active = rect;
  });
  return { rects, nodes, seats, active };
}

function visible(rect: DOMRect): boolean {
  return rect.width > 0 && rect.height > 0;
}

export function animate(root: HTMLElement, before: Before | null, layer: HTMLElement): void {
  if (!before || reducedMotion()) return;
  const after = keyCards(root);
  after.forEach((el, key) => {
    const now = el.getBoundingClientRect();
    if (!visible(now)) return;
    let from = before.rects.get(key);
    let appearing = false;
    if (!from || !visible(from)) {
      // New here: from the seat whose name is its caption (who played it), else from
      // the seat that was to act.
      const caption = el.closest(".slot")?.querySelector(".caption")?.textContent ?? "";
      from = before.seats.get(caption) ?? before.active ?? undefined;
      appearing = true;
      if (!from) {
        el.animate([{ opacity: 0, transform: "scale(.85)" }, { opacity: 1, transform: "none" }],
          { duration: DURATION, easing: EASING });
        return;
      }
    }
    // A card newly marked as the trick's winner: the trick went to its winner.
    if (el.classList.contains("m-win") && !before.nodes.get(key)?.classList.contains("m-win")) hail(root, el);
    const dx = from.left + from.width / 2 - (now.left + now.width / 2);
    const dy = from.top + from.height / 2 - (now.top + now.height / 2);
    if (Math.abs(dx) < 1 && Math.abs(dy) < 1) return;
    const scale = appearing ? 0.6 : from.width / now.width;
    el.animate([
      { transform: `translate(${dx}px, ${dy}px) scale(${scale})`, opacity: appearing ? 0.2 : 1 },
      { transform: "none", opacity: 1 },
    ], { duration: DURATION, easing: EASING });
  });
  // Cards gone from the table: a copy where they were, fading.
  before.nodes.forEach((old, key) => {
    if (after.has(key)) return;
    const rect = before.rects.get(key);
    if (!rect || !visible(rect) || old.tagName === "BUTTON") return;
    const ghost = old.cloneNode(true) as HTMLElement;
    ghost.removeAttribute("role");
    ghost.removeAttribute("aria-label");
    ghost.setAttribute("aria-hidden", "true");
    ghost.classList.add("ghost");
    ghost.style.left = `${rect.left}px`;
    ghost.style.top = `${rect.top}px`;
    ghost.style.width = `${rect.width}px`;
    ghost.style.height = `${rect.height}px`;
    layer.append(ghost);
    ghost.animate([{ opacity: 1, transform: "none" }, { opacity: 0, transform: "translateY(-12px) scale(.9)" }],
      { duration: DURATION, easing: "ease-in" }).finished.finally(() => ghost.remove());
  });
}

/** A short pulse on an element (a score that changed). */
export function pulse(el: Element): void {
  if (reducedMotion()) return;
  el.animate([{ transform: "scale(1)" }, { transform: "scale(1.25)" }, { transform: "scale(1)" }],
    { duration: 420, easing: "ease-out" });
}

/** A glow on the seat named under a winning card (who took the trick). */
function hail(root: HTMLElement, card: HTMLElement): void {
  const name = card.closest(".slot")?.querySelector(".caption")?.textContent ?? "";
  if (!name) return;
  root.querySelectorAll<HTMLElement>(".seat").forEach((seat) => {
    if (seat.dataset["name"] !== name) return;
    seat.animate([
      { boxShadow: "0 0 0 0 rgba(246, 196, 60, 0)" },
      { boxShadow: "0 0 0 4px rgba(246, 196, 60, .95), 0 0 26px rgba(246, 196, 60, .8)", offset: 0.4 },
      { boxShadow: "0 0 0 0 rgba(246, 196, 60, 0)" },
    ], { duration: 900, delay: DURATION - 60, easing: "ease-out" });
  });
}
