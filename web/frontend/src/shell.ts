// What both modes share: the live region, the toast, the error page, the title.

import { h } from "./dom";
import { t } from "./strings";

let liveEl: HTMLElement | null = null;
let toastEl: HTMLElement | null = null;
let toastTimer = 0;

/** The polite live region (screen readers) and the visual toast, made once. */
export function mountCommon(parent: HTMLElement): void {
  liveEl = h("div", { class: "sr-only", "aria-live": "polite", "aria-atomic": "true", id: "live" });
  toastEl = h("div", { class: "toast", "aria-hidden": "true", hidden: true });
  parent.append(liveEl, toastEl);
}

/** Says `text` to screen readers (the same words twice are said twice). */
export function announce(text: string): void {
  if (!liveEl || !text) return;
  const el = liveEl;
  el.textContent = "";
  window.setTimeout(() => { el.textContent = text; }, 60);
}

/** A short message on screen (a refusal), also announced. */
export function toast(text: string, kind: "info" | "warn" = "warn"): void {
  announce(text);
  if (!toastEl) return;
  const el = toastEl;
  el.textContent = text;
  el.className = `toast ${kind}`;
  el.hidden = false;
  window.clearTimeout(toastTimer);
  toastTimer = window.setTimeout(() => { el.hidden = true; }, 4200);
}

/** The whole page replaced by one sentence (and a retry button when it may help). */
export function showError(root: HTMLElement, message: string, retry: (() => void) | null): void {
  const box = h("main", { class: "page-error", id: "main" },
    h("div", { class: "error-card" },
      h("div", { class: "error-suits", "aria-hidden": "true", text: "♠ ♥ ♣ ♦" }),
      h("h1", { text: t("app_name") }),
      h("p", { role: "alert", text: message })));
  if (retry) {
    const again = h("button", { type: "button", class: "btn primary", text: t("try_again") });
    again.addEventListener("click", retry);
    box.firstElementChild?.append(again);
  }
  root.replaceChildren(box);
  document.title = t("app_name");
}

export function showLoading(root: HTMLElement): void {
  root.replaceChildren(h("main", { class: "page-error", id: "main" },
    h("div", { class: "error-card" },
      h("div", { class: "error-suits spin", "aria-hidden": "true", text: "♠ ♥ ♣ ♦" }),
      h("p", { role: "status", text: t("connecting") }))));
}
