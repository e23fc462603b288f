// The protocol's shapes (docs/web-protocol.md); Scene mirrors bot/images/scene.py.

export type Mark = "" | "legal" | "dim" | "win";

export interface Card {
  code: string | null; // null: a back
  mark: Mark;
  caption: string;
}

export interface Zone {
  label: string;
  cards: Card[];
  note: string;
  size: "large" | "small";
  backs: number;
  badge: string;
  slots: number[];
  span: number;
  compact: boolean;
}

export interface Seat {
  name: string;
  score: string;
  note: string;
  cards: Card[];
  backs: number;
  active: boolean;
  out: boolean;
  winner: boolean;
}

export interface Scene {
  title: string;
  heading: string;
  zones: Zone[];
  seats: Seat[];
  captions: string[];
  seat_columns: number;
  seat_cards?: boolean;
  language: string;
}

export interface Action {
  code: string;
  label: string;
  legal: boolean;
  card: string | null;
  why?: string; // why this one is not playable now ("" when it is, or when not your turn)
}

export interface Hand {
  scene: Scene;
  step: number;
  your_turn: boolean;
  actions: Action[];
  note: string;
}

export type Strings = Record<string, string>;

export interface Snapshot {
  type: "snapshot";
  table: string;
  game: string;
  title: string;
  version: number;
  step: number;
  status: "lobby" | "playing" | "closed";
  host?: boolean; // the viewer is the table's host (may start its rematch)
  role: "seat" | "watch";
  seat: number | null;
  language: string;
  scene: Scene;
  hand: Hand | null;
  lines: string[];
  to_act: number | null;
  deadline: number | null;
  result: { final: boolean; text: string } | null;
  strings: Strings;
  players?: string[];
  now?: number; // the server's clock, if it sends it: corrects the timer for skew
}

export type ServerFrame =
  | Snapshot
  | { type: "refused"; reason: string }
  | { type: "error"; reason: string; fatal?: boolean }
  | { type: "session"; session: string; table: string; role: "seat" | "watch" }
  | { type: "pong" };

export interface Session {
  session: string;
  table: string;
  role: "seat" | "watch" | "replay";
  language: string;
}

export interface ReplayFrame {
  scene: Scene;
  hands: Scene[];
  line: string;
  deal: number;
  result: string | null;
}

export interface Replay {
  game: string;
  title: string;
  players: string[];
  language: string;
  frames: ReplayFrame[];
  deals: number[];
  strings: Strings;
}
