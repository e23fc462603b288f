// One WebSocket to /ws: hello first, a ping every 20 s, reopened with backoff
// (1, 2, 4 … 30 s) and at once when the tab becomes visible or the network returns.

import { followSession } from "./session";
import type { ServerFrame } from "./types";

export type LinkState = "connecting" | "open" | "reconnecting" | "offline" | "stopped";

export interface LinkHandlers {
  frame(frame: ServerFrame): void;
  state(state: LinkState): void;
  fatal(reason: string): void;
}

const HEARTBEAT_MS = 20_000;
const SILENCE_MS = 50_000; // no frame at all for this long: the socket is dead
const MAX_DELAY_S = 30;

export function socketUrl(): string {
  const url = new URL("ws", location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  url.hash = "";
  url.search = "";
  return url.href;
}

export class Link {
  private ws: WebSocket | null = null;
  private failures = 0;
  private retryTimer = 0;
  private heartbeat = 0;
  private lastFrame = 0;
  private stopped = false;
  private synced = false; // a snapshot arrived on this socket

  constructor(private session: string, private readonly on: LinkHandlers) {}

  start(): void {
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState !== "visible") return;
      if (this.isOpen()) this.send({ type: "sync" }); // re-sync on return
      else this.now();
    });
    window.addEventListener("online", () => this.now());
    window.addEventListener("offline", () => {
      if (!this.isOpen() && !this.stopped) this.on.state("offline");
    });
    this.heartbeat = window.setInterval(() => this.beat(), HEARTBEAT_MS);
    this.open();
  }

  isOpen(): boolean {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  send(frame: object): boolean {
    if (!this.isOpen() || !this.ws) return false;
    this.ws.send(JSON.stringify(frame));
    return true;
  }

  /** The table is over or the session refused: no more reconnecting. */
  stop(): void {
    this.stopped = true;
    window.clearTimeout(this.retryTimer);
    window.clearInterval(this.heartbeat);
    this.on.state("stopped");
  }

  /** Reconnect now (not after the backoff): the tab is back, or the network. */
  private now(): void {
    if (this.stopped || this.isOpen() || this.ws?.readyState === WebSocket.CONNECTING) return;
    window.clearTimeout(this.retryTimer);
    this.open();
  }

  private open(): void {
    if (this.stopped) return;
    this.on.state(this.failures === 0 && !this.synced ? "connecting" : "reconnecting");
    this.synced = false;
    let ws: WebSocket;
    try {
      ws = new WebSocket(socketUrl());
    } catch {
      this.retry();
      return;
    }
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.lastFrame = Date.now();
      ws.send(JSON.stringify({ type: "hello", session: this.session }));
    });
    ws.addEventListener("message", (event: MessageEvent) => {
      if (ws !== this.ws) return;
      this.lastFrame = Date.now();
      let frame: ServerFrame;
      try {
        frame = JSON.parse(String(event.data)) as ServerFrame;
      } catch {
        return;
      }
      if (frame.type === "snapshot") {
        if (!this.synced) {
          this.synced = true;
          this.failures = 0; // only a snapshot proves the socket works
          this.on.state("open");
        }
      } else if (frame.type === "session") {
        // The table was followed by another (a rematch, a series' next deal): this socket
        // shows that one now, and a reconnect must ask for it.
        this.session = frame.session;
        followSession(frame);
        return;
      } else if (frame.type === "error" && frame.fatal !== false) {
        this.on.fatal(frame.reason);
        this.stop();
        ws.close();
        return;
      }
      this.on.frame(frame);
    });
    ws.addEventListener("close", () => {
      if (ws !== this.ws) return;
      this.ws = null;
      this.retry();
    });
  }

  private retry(): void {
    if (this.stopped) return;
    const delay = Math.min(MAX_DELAY_S, 2 ** this.failures);
    this.failures += 1;
    this.on.state(navigator.onLine === false ? "offline" : "reconnecting");
    window.clearTimeout(this.retryTimer);
    this.retryTimer = window.setTimeout(() => this.open(), delay * 1000);
  }

  private beat(): void {
    if (!this.isOpen()) return;
    if (Date.now() - this.lastFrame > SILENCE_MS) {
      // A half-open socket: drop it now (its close event may take long) and reconnect.
      const dead = this.ws;
      this.ws = null;
      dead?.close();
      this.retry();
      return;
    }
    this.send({ type: "ping" });
  }
}
