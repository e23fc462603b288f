"""The page's own words, in the viewer's language (a snapshot's or a replay's ``strings``).

The keys are the page's (``web/frontend/STRINGS.md`` says where each shows); each word
is a ``_c("web page", ...)`` here, so ``python -m bot.catalogues`` extracts it with the
rest of the bot's words and the same ``.po`` catalogues translate it. ``{name}`` parts
are filled in by the page.
"""

from __future__ import annotations

import functools

import locales
from locales import _c


def page_strings() -> dict[str, str]:
    """The page's words in the current language (``locales.speaking``)."""
    return dict(_page_strings(locales.current()))


@functools.cache
def _page_strings(language: str) -> tuple[tuple[str, str], ...]:
    with locales.speaking(language):
        return (
            ("app_name", "cardtable"),
            # Translators: the web page: the tab's title while it is the viewer's turn; {title}
            # is the game's title
            ("title_your_turn", _c("web page", "● Your turn – {title}")),
            # Translators: the web page: the tab's title otherwise
            ("title_table", _c("web page", "{title} – cardtable")),
            # Translators: the web page: the hand's note when the server sends none
            ("your_turn", _c("web page", "Your turn")),
            # Translators: the web page: said by screen readers when the turn comes; {note} is
            # the hand's note (may be…
            ("your_turn_announce", _c("web page", "Your turn. {note}")),
            # Translators: the web page: before the first snapshot
            ("connecting", _c("web page", "Connecting…")),
            # Translators: the web page: banner while the socket is reopened
            ("reconnecting", _c("web page", "Reconnecting…")),
            # Translators: the web page: said when the socket is back
            ("reconnected", _c("web page", "Back at the table.")),
            # Translators: the web page: banner while the browser reports no network
            ("offline", _c("web page", "You are offline. Reconnecting when the network returns…")),
            # Translators: the web page: banner once status is closed
            ("table_closed", _c("web page", "This table is closed.")),
            # Translators: the web page: header chip for status lobby
            ("status_lobby", _c("web page", "Waiting to start")),
            # Translators: the web page: … playing
            ("status_playing", _c("web page", "Playing")),
            # Translators: the web page: … closed
            ("status_closed", _c("web page", "Closed")),
            # Translators: the web page: header chip of a spectator (role watch)
            ("watching", _c("web page", "Watching")),
            # Translators: the web page: screen-reader heading of the table
            ("table", _c("web page", "Table")),
            # Translators: the web page: screen-reader name of the seat lists
            ("players", _c("web page", "Players")),
            # Translators: the web page: the hand's heading when its scene has no title
            ("your_hand", _c("web page", "Your hand")),
            # Translators: the web page: the group of moves that are not cards (Pass…)
            ("moves", _c("web page", "Other moves")),
            # Translators: the web page: the log's heading
            ("log", _c("web page", "Table log")),
            # Translators: the web page: the log with no line yet
            ("log_empty", _c("web page", "Nothing yet.")),
            # Translators: the web page: heading of a deal's result
            ("result", _c("web page", "Result")),
            # Translators: the web page: heading of a final result
            ("final_result", _c("web page", "Game over")),
            # Translators: the web page: the result box's close button
            ("dismiss", _c("web page", "Close")),
            # Translators: the web page: the sound toggle's label
            ("sound", _c("web page", "Sound")),
            # Translators: the web page: its tooltip when off
            ("sound_on", _c("web page", "Turn sound on")),
            # Translators: the web page: its tooltip when on
            ("sound_off", _c("web page", "Turn sound off")),
            # Translators: the web page: the turn timer's name
            ("timer", _c("web page", "Time left")),
            # Translators: the web page: the timer's spoken value; {seconds}
            ("seconds_left", _c("web page", "{seconds} seconds left")),
            # Translators: the web page: shown when a card is pressed out of turn
            ("not_your_turn", _c("web page", "Not your turn.")),
            # Translators: the web page: a move pressed while the socket is closed
            ("not_connected", _c("web page", "Not connected: the move was not sent.")),
            # Translators: the web page: after a hand card's name: "10 of hearts, playable"
            ("playable", _c("web page", "playable")),
            # Translators: the web page: … or "not playable"
            ("not_playable", _c("web page", "not playable")),
            # Translators: the web page: a card for screen readers: {rank} (a number or a
            # rank_* word) of {suit} (a su…
            ("card_name", _c("web page", "{rank} of {suit}")),
            # Translators: the web page: a face-down card
            ("card_back", _c("web page", "face-down card")),
            # Translators: the web page: a face-down pile; {n}
            ("backs_count", _c("web page", "{n} face-down cards")),
            # Translators: the web page: the joker's name
            ("joker", _c("web page", "Joker")),
            # Translators: the web page: the word printed on the joker's face
            ("joker_face", _c("web page", "JOKER")),
            # Translators: the web page: the ace's name (screen readers)
            ("rank_A", _c("web page", "Ace")),
            # Translators: the web page: the king's
            ("rank_K", _c("web page", "King")),
            # Translators: the web page: the queen's
            ("rank_Q", _c("web page", "Queen")),
            # Translators: the web page: the jack's
            ("rank_J", _c("web page", "Jack")),
            # Translators: the web page: the letter in the ace's corner (Swedish E, Russian Т)
            ("face_A", _c("web page", "A")),
            # Translators: the web page: the king's letter
            ("face_K", _c("web page", "K")),
            # Translators: the web page: the queen's
            ("face_Q", _c("web page", "Q")),
            # Translators: the web page: the jack's
            ("face_J", _c("web page", "J")),
            # Translators: the web page: plural suit name in "{rank} of {suit}"; also names a ♠ row
            ("suit_S", _c("web page", "spades")),
            ("suit_H", _c("web page", "hearts")),
            ("suit_C", _c("web page", "clubs")),
            ("suit_D", _c("web page", "diamonds")),
            # Translators: the web page: spoken after a seat's name
            ("seat_active", _c("web page", "to play")),
            # Translators: the web page: spoken after a seat's name
            ("seat_out", _c("web page", "out")),
            # Translators: the web page: spoken after a seat's name
            ("seat_winner", _c("web page", "winner")),
            # Translators: the web page: a seat's score, spoken; {score} is the scene's text ("+3")
            ("score", _c("web page", "score {score}")),
            # Translators: the web page: the page opened without a token or a kept session
            ("error_no_link", _c("web page", "Open the table from its link in Discord.")),
            # Translators: the web page: the server cannot be reached (a Try again button follows)
            ("error_network",
             _c("web page", "The server cannot be reached. Check your connection and try again.")),
            # Translators: the web page: a 5xx or an answer the page cannot read
            ("error_server",
             _c("web page", "Something went wrong on the server. Try again in a moment.")),
            # Translators: the web page: the error page's button
            # Translators: the web page inside Discord (an Activity): Discord did not sign the
            # player in
            ("error_discord", _c("web page", "Discord did not confirm who you are: close the "
                                             "activity and open it again.")),
            ("try_again", _c("web page", "Try again")),
            # Translators: the web page: the host's button under the game's result: the same
            # players play another game
            ("rematch", _c("web page", "Rematch")),
            # Translators: the web page: after the game's title in replay mode; the scrubber's name
            ("replay", _c("web page", "Replay")),
            # Translators: the web page: the replay's toolbar
            ("replay_controls", _c("web page", "Replay controls")),
            # Translators: the web page: replay button
            ("first", _c("web page", "First move")),
            # Translators: the web page: replay button
            ("back", _c("web page", "Back")),
            # Translators: the web page: replay button
            ("forward", _c("web page", "Forward")),
            # Translators: the web page: replay button
            ("previous_deal", _c("web page", "Previous deal")),
            # Translators: the web page: replay button
            ("next_deal", _c("web page", "Next deal")),
            # Translators: the web page: replay button (autoplay)
            ("play", _c("web page", "Play")),
            # Translators: the web page: the same button while playing
            ("pause", _c("web page", "Pause")),
            # Translators: the web page: replay position; {i}, {n}
            ("frame_of", _c("web page", "Move {i} of {n}")),
            # Translators: the web page: replay's deal; {n} from 1
            ("deal_n", _c("web page", "Deal {n}")),
            # Translators: the web page: screen-reader heading of the replay's hands
            ("hands", _c("web page", "Hands")),
            # Translators: the web page: the skip link (keyboard users)
            ("skip_to_hand", _c("web page", "Skip to your hand")),
            # Translators: the web page: replay's keyboard hint (hidden on touch screens)
            ("keys_help", _c("web page", "Keys: ← → step, Space play/pause")),
        )
