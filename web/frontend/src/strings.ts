// The page's own words. The server sends them in the viewer's language (a snapshot's or
// a replay's `strings`); these English texts are the fallbacks. STRINGS.md lists the keys.

import type { Strings } from "./types";

export const ENGLISH: Strings = {
  app_name: "cardtable",
  title_your_turn: "● Your turn – {title}",
  title_table: "{title} – cardtable",
  your_turn: "Your turn",
  your_turn_announce: "Your turn. {note}",
  connecting: "Connecting…",
  reconnecting: "Reconnecting…",
  reconnected: "Back at the table.",
  offline: "You are offline. Reconnecting when the network returns…",
  table_closed: "This table is closed.",
  status_lobby: "Waiting to start",
  status_playing: "Playing",
  status_closed: "Closed",
  watching: "Watching",
  table: "Table",
  players: "Players",
  your_hand: "Your hand",
  moves: "Other moves",
  log: "Table log",
  log_empty: "Nothing yet.",
  result: "Result",
  final_result: "Game over",
  dismiss: "Close",
  sound: "Sound",
  sound_on: "Turn sound on",
  sound_off: "Turn sound off",
  timer: "Time left",
  seconds_left: "{seconds} seconds left",
  not_your_turn: "Not your turn.",
  not_connected: "Not connected: the move was not sent.",
  playable: "playable",
  not_playable: "not playable",
  card_name: "{rank} of {suit}",
  card_back: "face-down card",
  backs_count: "{n} face-down cards",
  joker: "Joker",
  joker_face: "JOKER",
  rank_A: "Ace",
  rank_K: "King",
  rank_Q: "Queen",
  rank_J: "Jack",
  face_A: "A",
  face_K: "K",
  face_Q: "Q",
  face_J: "J",
  suit_S: "spades",
  suit_H: "hearts",
  suit_C: "clubs",
  suit_D: "diamonds",
  seat_active: "to play",
  seat_out: "out",
  seat_winner: "winner",
  score: "score {score}",
  error_no_link: "Open the table from its link in Discord.",
  error_network: "The server cannot be reached. Check your connection and try again.",
  error_server: "Something went wrong on the server. Try again in a moment.",
  error_discord: "Discord did not confirm who you are: close the activity and open it again.",
  try_again: "Try again",
  rematch: "Rematch",
  replay: "Replay",
  replay_controls: "Replay controls",
  first: "First move",
  back: "Back",
  forward: "Forward",
  previous_deal: "Previous deal",
  next_deal: "Next deal",
  play: "Play",
  pause: "Pause",
  frame_of: "Move {i} of {n}",
  deal_n: "Deal {n}",
  hands: "Hands",
  skip_to_hand: "Skip to your hand",
  keys_help: "Keys: ← → step, Space play/pause",
};

let current: Strings = {};

export function setStrings(strings: Strings | undefined | null): void {
  if (strings && typeof strings === "object") current = strings;
}

/** The word for `key`, in the server's language if it sent it, with `{name}`s filled. */
export function t(key: string, vars?: Record<string, string | number>): string {
  const found = current[key];
  let text = typeof found === "string" && found !== "" ? found : (ENGLISH[key] ?? key);
  if (vars) {
    text = text.replace(/\{(\w+)\}/g, (whole, name: string) =>
      name in vars ? String(vars[name]) : whole);
  }
  return text;
}
