// Link → token → session (docs/web-protocol.md, "Who you are").

import { t } from "./strings";
import type { Session } from "./types";

export type Mode = "table" | "replay";

/** A problem to show instead of the page: the server's sentence, or ours. */
export class PageError extends Error {
  constructor(message: string, readonly retryable = false) {
    super(message);
  }
}

const key = (mode: Mode): string => `cardtable.session.${mode}`;

/** The path's mode: /replay (or …/replay) shows a replay, anything else the table. */
export function pageMode(): Mode {
  return /\/replay\/?$/.test(location.pathname) ? "replay" : "table";
}

/** The token from the address's fragment, removed from the address bar at once. */
export function takeToken(): string | null {
  const token = decodeURIComponent(location.hash.replace(/^#/, "")).trim();
  if (!token) return null;
  history.replaceState(history.state, "", location.pathname + location.search);
  return token;
}

export function storedSession(mode: Mode): Session | null {
  try {
    const raw = sessionStorage.getItem(key(mode));
    const found = raw ? (JSON.parse(raw) as Session) : null;
    return found && typeof found.session === "string" ? found : null;
  } catch {
    return null;
  }
}

export function forgetSession(mode: Mode): void {
  try {
    sessionStorage.removeItem(key(mode));
  } catch {
    /* storage refused: nothing kept */
  }
}

/** The socket moved on to a table that followed this one: a reload asks for that one
 * (where this tab keeps a session at all: the Activity asks Discord again instead). */
export function followSession(next: { session: string; table: string; role: "seat" | "watch" }
): void {
  const kept = storedSession("table");
  if (!kept) return;
  try {
    sessionStorage.setItem(key("table"), JSON.stringify({ ...kept, ...next }));
  } catch {
    /* storage refused: a reload will need a new link */
  }
}

/** Redeems the link's token (once), or reuses this tab's session (a reload). */
export async function obtainSession(mode: Mode, token: string | null): Promise<Session> {
  if (token) {
    const session = await redeem(token);
    try {
      sessionStorage.setItem(key(mode), JSON.stringify(session));
    } catch {
      /* private mode without storage: a reload will need a new link */
    }
    return session;
  }
  const stored = storedSession(mode);
  if (stored) return stored;
  throw new PageError(t("error_no_link"));
}

async function redeem(token: string): Promise<Session> {
  let answer: Response;
  try {
    answer = await fetch("api/session", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ token }),
      credentials: "same-origin",
      cache: "no-store",
    });
  } catch {
    throw new PageError(t("error_network"), true);
  }
  const body = await readJson(answer);
  if (!answer.ok) {
    const sentence = typeof body?.["error"] === "string" ? body["error"] : "";
    // A 4xx is the server's answer about this link: retrying cannot help.
    if (sentence) throw new PageError(sentence, answer.status >= 500);
    throw new PageError(answer.status >= 500 ? t("error_server") : t("error_no_link"),
      answer.status >= 500);
  }
  if (!body || typeof body["session"] !== "string") throw new PageError(t("error_server"), true);
  return body as unknown as Session;
}

export async function readJson(answer: Response): Promise<Record<string, unknown> | null> {
  try {
    const body: unknown = await answer.json();
    return body && typeof body === "object" ? (body as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
