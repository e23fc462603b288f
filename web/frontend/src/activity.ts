// The page as a Discord Activity (docs/web-table.md, "Inside Discord"): Discord frames
// it at the URL mapping's root with its own query parameters (frame_id, instance_id…).
// Who the user is comes from Discord alone: the SDK's authorize() gives a one-use code,
// the server exchanges it (POST api/token) and answers with a session for the table live
// in the Activity's channel. The page never says who it is: it sends the code and the
// SDK's instance id, nothing else.

import type { DiscordClient } from "./discord";
import { PageError, readJson } from "./session";
import { t } from "./strings";
import type { Session } from "./types";

const READY_MS = 20_000; // Discord's client answers the SDK's handshake within this

// discord.<hash>.js's path beside app.js (build.mjs defines it): a file of its own, loaded
// only here, so the table's bundle does not carry Discord's SDK.
declare const DISCORD_SDK: string;

/** Discord's frame: the page at a root path with Discord's `frame_id` parameter. */
export function inDiscord(): boolean {
  return location.pathname.endsWith("/") && new URLSearchParams(location.search).has("frame_id");
}

// One SDK per page: a retry authorizes again (a code is spent once) on the same client.
let client: Promise<DiscordClient> | null = null;

function discord(clientId: string): Promise<DiscordClient> {
  if (!client) {
    const loading = import(DISCORD_SDK) as Promise<typeof import("./discord")>;
    const connecting = loading.then(
      (sdk) => within(sdk.connect(clientId), READY_MS),
      () => { throw new PageError(t("error_network"), true); });
    client = connecting;
    connecting.catch(() => { if (client === connecting) client = null; });
  }
  return client;
}

/** A session for this Activity's table: Discord's code, the server's answer, and the
 * access token handed back to Discord's client (authenticate). Never kept: a reload
 * asks Discord again (silently, once the user has agreed). */
export async function activitySession(): Promise<Session> {
  const config = await call("api/activity", { cache: "no-cache" });
  const clientId = config["client_id"];
  if (typeof clientId !== "string" || !clientId) throw new PageError(t("error_server"), true);
  let sdk: DiscordClient;
  let code: string;
  try {
    sdk = await discord(clientId);
    code = await sdk.authorize();
  } catch (error) {
    throw error instanceof PageError ? error : new PageError(t("error_discord"), true);
  }
  const answer = await call("api/token", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ code, instance_id: sdk.instanceId }),
    cache: "no-store",
  });
  const { access_token: accessToken, session, table, role, language } = answer;
  if (typeof accessToken !== "string" || typeof session !== "string" || typeof table !== "string"
      || (role !== "seat" && role !== "watch")) {
    throw new PageError(t("error_server"), true);
  }
  try {
    await sdk.authenticate(accessToken);
  } catch {
    throw new PageError(t("error_discord"), true);
  }
  return { session, table, role, language: typeof language === "string" ? language : "en" };
}

/** The server's JSON answer; its `error` sentence (or ours) as a PageError. */
async function call(path: string, init: RequestInit): Promise<Record<string, unknown>> {
  let answer: Response;
  try {
    answer = await fetch(path, { credentials: "same-origin", ...init });
  } catch {
    throw new PageError(t("error_network"), true);
  }
  const body = await readJson(answer);
  if (!answer.ok) {
    const sentence = typeof body?.["error"] === "string" ? body["error"] : "";
    throw new PageError(sentence || t(answer.status >= 500 ? "error_server" : "error_discord"),
      answer.status >= 500);
  }
  if (!body) throw new PageError(t("error_server"), true);
  return body;
}

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = window.setTimeout(() => reject(new Error("Discord did not answer")), ms);
    promise.then(
      (value) => { window.clearTimeout(timer); resolve(value); },
      (error: unknown) => { window.clearTimeout(timer); reject(error); });
  });
}
