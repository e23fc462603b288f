"""Table sessions: one table per channel, lobby → playing → finished.

``Table`` is the whole state of one table and the rules of the session around
the game (who may join, start, move; timers; away players). It does no I/O, so
every rule here is tested with a fake clock and no Discord. ``bot.table.manager``
keeps the live tables and persists them; ``bot.table.step`` changes them.

The table's options are the engine's typed ``Options``, parsed once when the
table is opened. Where its messages are on Discord (``bot.table.posts.Posts``) is
kept beside the state, outside the versioned snapshot.

Two counters: ``version`` is the storage row's version (optimistic locking of
saves; every save bumps it), ``step`` counts the changes players can see (joins,
moves, deals). Components carry ``step``: a click drawn at an older step is
stale, while a save that changes nothing visible (a reminder sent, a message id)
does not make anybody's menu stale.
"""

from __future__ import annotations

import logging
import random
import secrets
from dataclasses import dataclass, field
from typing import Any

from bot.table import gathering
from bot.table.ai_runner import AI_LEVELS
from bot.table.ai_runner import seat_name as ai_seat_name
from bot.table.autoplay import Policy, simple_action
from bot.table.errors import StaleClick, TableError, refusal_text
from bot.table.gathering import Gathering
from bot.table.lines import move_line
from bot.table.pause_state import PauseState, arm_turn, remind_again
from bot.table.posts import Posts
from bot.table.seats import Seat
from bot.table.snapshot import Snapshots
from bot.table.status import Automation, Status
from bot.table.takeover_state import TakeoverState
from bot.table.tournament_seat import TournamentSeat
from engine.core import PASS, Game, OptionError, Options, RulesError, parse_action
from engine.events import DealStarted, Event, Played
from engine.text import TN, T, Text

log = logging.getLogger(__name__)


LOBBY, PLAYING, FINISHED, STOPPED = Status.LOBBY, Status.PLAYING, Status.FINISHED, Status.STOPPED
ACTIVE = (LOBBY, PLAYING)
HANDS_MODES = ("dm", "channel")
AWAY_AFTER = 3  # expiries in a row before a player is marked away
MAX_LINES = 3  # "what just happened" lines kept for the table message
RESTARTED = T("♻️ The bot restarted: the game resumed where it was.")


# The field groups of features (Gathering, PauseState, TakeoverState, TournamentSeat) are
# keyword-only: they come after these fields, each saved with the snapshot like the rest.
@dataclass
class Table(Snapshots, Gathering, PauseState, TakeoverState, TournamentSeat):
    table_id: str
    game_id: str
    engine: type[Game]
    guild_id: int | None
    channel_id: int
    host_id: int
    created_at: float
    options: Options
    hands_mode: str = "dm"  # where hands are shown: "dm", or "channel" (My hand only)
    images: bool = True  # pictures of the table and the hands beside the text
    language: str = "en"  # what the table message and channel notices speak (locales)
    ai_allowed: bool = True  # the server lets the host seat AI players (/settings)
    hints_allowed: bool = False  # the server allows hints in rated games (/settings)
    turn_timer: float = 300.0
    lobby_idle: float = 900.0
    # A running game with no step for this long is stopped (0: never; bot.play.deadlines).
    idle_limit: float = 30 * 86400.0
    guild_name: str = ""
    channel_name: str = ""
    status: str = Status.LOBBY
    version: int = 0
    step: int = 0
    seats: list[Seat] = field(default_factory=list)
    rng: random.Random = field(default_factory=lambda: random.Random(secrets.randbits(64)))
    game: Game | None = None
    started_at: float | None = None
    last_activity: float = 0.0
    turn_deadline: float | None = None
    reminder_at: float | None = None  # the turn's next reminder (bot.table.durations.next_reminder)
    nudged_at: float | None = None  # the table's last nudge (bot.features.nudges: rate-limited)
    lines: list[Text] = field(default_factory=list)  # what just happened, said when drawn
    stopped_by: int | None = None
    # The game after another (bot.features.rematch, .series): the finished table this one follows
    # (a rematch or a series' next deal). A series (AttackJack) is its first table's id, the
    # deal's number in it, each player's net over the deals so far ([user id, name, net, AI
    # level], replaced, never changed in place: clones share it), whether the host ended it
    # (no deal after this one), and when a next deal waiting in the lobby starts.
    follows: str | None = None
    series_id: str | None = None
    series_deal: int = 0
    series_totals: list[list[Any]] = field(default_factory=list)
    series_over: bool = False
    series_start_at: float | None = None
    # The seats that asked for a hint (bot.features.hints), replaced, never changed in place (clones
    # share it): a hinted game counts like a game against AI seats and changes no rating.
    hinted: list[int] = field(default_factory=list)
    # The people the host removed from the lobby (bot.actions.host_controls.remove_player): they
    # cannot join this table again. Replaced, never changed in place (clones share it).
    removed: list[int] = field(default_factory=list)
    # Forced steps (AttackJack's turns) the engine played since the last action or deal:
    # the game's record holds actions only, so a table read back replays these too
    # (bot.table.snapshot), and shows exactly the version it was saved at.
    auto_steps: int = 0
    # Not part of the game's state: not versioned, not rolled back (see bot.table.posts).
    posts: Posts = field(default_factory=Posts, compare=False)

    # -- who is here ----------------------------------------------------------

    @property
    def title(self) -> str:
        return self.engine.TITLE

    @property
    def names(self) -> list[str]:
        """The seats' names as people read them, in the current language (``Seat.shown``)."""
        return [s.shown for s in self.seats]

    def seat_of(self, user_id: int) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat.user_id == user_id:
                return index
        return None

    def seated(self, user_id: int) -> int:
        index = self.seat_of(user_id)
        if index is None:
            raise TableError(T("You are not seated at this table."))
        return index

    @property
    def humans(self) -> list[Seat]:
        return [s for s in self.seats if not s.is_ai]

    @property
    def host_name(self) -> str:
        """The host's name; a ``Text`` when nobody seated hosts (a parameter of a sentence,
        said with it)."""
        index = self.seat_of(self.host_id)
        # Translators: stands for the host's name in "Only the host, {host}, can ..."
        return self.seats[index].name if index is not None else T("the host")

    @property
    def seat_range(self) -> tuple[int, int]:
        """How many players this table may seat with its options: (fewest, most)."""
        return self.engine.player_range(self.options)

    @property
    def count_fits(self) -> bool:
        low, high = self.seat_range
        return low <= len(self.seats) <= high

    def _full(self, joining: bool) -> Text | None:
        """Why one more seat is refused (None: a seat is free); the limit is named."""
        high = self.seat_range[1]
        if len(self.seats) < high:
            return None
        if high < self.engine.MAX_PLAYERS:  # the options narrow the game (Norwegian Jazz)
            return TN("With the options chosen, {game} seats at most {n} player.",
                      "With the options chosen, {game} seats at most {n} players.",
                      high, game=self.title)
        if joining:
            return TN("The table is full: {game} is for at most {n} player.",
                      "The table is full: {game} is for at most {n} players.",
                      high, game=self.title)
        return TN("{game} seats at most {n} player.", "{game} seats at most {n} players.",
                  high, game=self.title)

    @property
    def to_act(self) -> int | None:
        if self.status != PLAYING or self.game is None or self.game.is_over:
            return None
        return self.game.to_act

    # -- lobby ----------------------------------------------------------------

    def lobby_deadline(self) -> float:
        return self.last_activity + self.lobby_idle

    def idle_deadline(self) -> float | None:
        """When a running game that nobody moves on is stopped (None: never)."""
        if self.status != PLAYING or self.idle_limit <= 0:
            return None
        return self.last_activity + self.idle_limit

    def join(self, user_id: int, name: str, now: float) -> None:
        self._require_lobby()
        if self.seat_of(user_id) is not None:
            raise TableError(T("You are already seated at this table."))
        if user_id in self.removed:
            # Decision: a removal stands for the rest of this lobby, whoever hosts it; the
            # next table (a new one, a rematch) starts with nobody removed.
            raise TableError(T("The host removed you from this table, so you cannot join it "
                               "again."))
        kept = gathering.join_refusal(self, user_id)  # invitations: kept seats, invite-only
        if kept is not None:
            raise TableError(kept)
        full = self._full(joining=True)
        if full is not None:
            raise TableError(full)
        self.seats.append(Seat(user_id, name))
        self._touch(now)

    def add_ai(self, user_id: int, level: str, now: float) -> None:
        """The host seats an AI player of ``level`` (in the lobby, while a seat is free)."""
        self._require_lobby()
        if not self.ai_allowed:
            raise TableError(T("This server does not allow AI players at its tables."))
        if user_id != self.host_id:
            raise TableError(T("Only the host, {host}, can add AI players.",
                               host=self.host_name))
        if level not in AI_LEVELS:
            raise TableError(T("Unknown AI level {level}.", level=repr(level)))
        full = self._full(joining=False) or gathering.ai_refusal(self)
        if full is not None:
            raise TableError(full)
        same = sum(1 for s in self.seats if s.ai == level)
        # Negative ids: never a Discord user's, so seat_of() cannot confuse them.
        user = min([s.user_id for s in self.seats] + [0]) - 1
        self.seats.append(Seat(user, ai_seat_name(level, same + 1), ai=level))
        self._touch(now)

    def remove_ai(self, user_id: int, now: float) -> None:
        """The host removes the last AI seat before the start."""
        self._require_lobby()
        if user_id != self.host_id:
            raise TableError(T("Only the host, {host}, can remove AI players.",
                               host=self.host_name))
        ai = [i for i, s in enumerate(self.seats) if s.is_ai]
        if not ai:
            raise TableError(T("There is no AI player to remove."))
        del self.seats[ai[-1]]
        self._touch(now)

    def leave(self, user_id: int, now: float) -> str:
        """Leave; returns "left", "empty" (a lobby nobody is left in) or "away" (mid-game)."""
        index = self.seated(user_id)
        if self.status == PLAYING:
            # Decision: leaving a running game hands the seat to the bot (like away) so
            # the others can finish; acting again takes the seat back.
            seat = self.seats[index]
            seat.away = seat.left = True  # no step: nobody's menu changes
            self.add_line(T("{player} left: I play their seat from now on.",
                            player=seat.name_text))
            return Automation.AWAY
        self._require_lobby()
        del self.seats[index]
        if self.starts_at is not None:  # (their interest no longer seats them: gathering)
            self.declined = [*self.declined, user_id]
        self._touch(now)
        if not self.humans and self.tournament_id is None:  # (a tournament's waits for all)
            return "empty"  # Decision: AI seats never keep a lobby open on their own
        if user_id == self.host_id:
            self.host_id = self.humans[0].user_id  # the longest-seated person hosts now
        return "left"

    def start(self, user_id: int, now: float) -> None:
        self._require_lobby()
        if user_id != self.host_id:
            raise TableError(T("Only the host, {host}, can start the game.",
                               host=self.host_name))
        if not self.may_start_early(now):
            raise TableError(T("This table is scheduled: it can start from one hour before "
                               "its time."))
        low, high, seated = self.engine.MIN_PLAYERS, self.engine.MAX_PLAYERS, len(self.seats)
        if not low <= seated <= high:  # the options' narrower range: check_players, below
            if low == high:
                raise TableError(TN("{game} needs {n} player: {seated} seated.",
                                    "{game} needs {n} players: {seated} seated.",
                                    low, game=self.title, seated=seated))
            raise TableError(T("{game} needs {low} to {high} players: {seated} seated.",
                               game=self.title, low=low, high=high, seated=seated))
        try:
            # Checked again as at the start command (a lobby saved before the bounds), and
            # for this many players (Norwegian Jazz: 3 to 5).
            type(self.options).from_dict(self.options.to_dict(), seated)
            # The first dealer is drawn by lot (each rules file); seats keep join order.
            game = self.engine(len(self.seats), self.options, self.rng.randrange(len(self.seats)))
        except (OptionError, RulesError) as error:
            raise TableError(refusal_text(error)) from None
        self.game = game
        self.status = PLAYING
        self.started_at = now
        self.lines = []
        self.step += 1
        self.last_activity = now

    def start_and_deal(self, user_id: int, now: float) -> list[Event]:
        """Start the game and deal its first deal at once (the host's Start)."""
        self.start(user_id, now)
        return self.run_automation(Automation.DEAL, now)

    def player_range(self) -> str:
        """How many players the game takes, "3 to 7" (a ``Text``: ``say`` it, or pass it as
        a parameter of a sentence)."""
        low, high = self.seat_range
        # Translators: how many players a game takes, as in "3 to 7 players"
        return str(low) if low == high else T("{low} to {high}", low=low, high=high)

    def _require_lobby(self) -> None:
        if self.status == PLAYING:
            raise TableError(T("The game has already started."))
        if self.status != LOBBY:
            raise TableError(T("This table is closed."))

    def _touch(self, now: float) -> None:
        self.step += 1
        self.last_activity = now

    # -- moves ----------------------------------------------------------------

    def require_playing(self) -> Game:
        if self.status == LOBBY:
            raise TableError(T("The game has not started yet."))
        if self.status != PLAYING or self.game is None:
            raise TableError(T("This game is over.") if self.status == FINISHED
                             else T("This table was stopped."))
        return self.game

    def check_move(self, user_id: int, step: int, code: str) -> tuple[int, int]:
        """The seat and action of a click, or ``TableError``/``StaleClick``; changes nothing."""
        game = self.require_playing()
        seat = self.seated(user_id)
        self.require_running()  # (paused: bot.table.pause)
        if step != self.step:
            raise StaleClick(T("That menu is out of date: the table has moved on."))
        to_act = game.to_act
        if to_act is None:
            raise TableError(T("It is not your turn: it is nobody's."))
        if to_act != seat:
            raise TableError(T("It is not your turn: it is {player}'s.",
                               player=self.seats[to_act].name_text))
        try:
            action = parse_action(code)
        except RulesError as error:
            raise TableError(refusal_text(error)) from None
        problem = game.why_illegal(action)
        if problem is not None:
            raise TableError(problem)
        return seat, action

    def apply(self, seat: int, action: int, now: float, by: str = "player") -> list[Event]:
        """Apply a checked action; ``by`` is "player", "timer", "away", "ai" or "forced".
        Returns the engine's events of the step."""
        game = self.require_playing()
        events = game.apply(seat, action)
        self.auto_steps = 0
        player = self.seats[seat]
        if by == "player":
            player.expiries = 0
            player.away = player.left = False
        self.add_line(self._event_text(events[0], by))
        self._after_step(now)
        return events

    def _event_text(self, played: Event, by: str) -> Text:
        """The line the table shows for a move (kept, and said in the table's language)."""
        assert isinstance(played, Played)
        return move_line(by, self.seats[played.seat].name_text, played.action)

    def _after_step(self, now: float) -> None:
        self.step += 1
        self.last_activity = now
        self.arm_turn_timer(now)

    # -- lines and marks (saved without a new step: nobody's menu goes stale) -------

    def add_line(self, line: Text) -> None:
        """One more line of what just happened (the last ``MAX_LINES`` are kept)."""
        self.lines.append(line)
        del self.lines[:-MAX_LINES]

    def note_restart(self) -> None:
        """The bot restarted and the game resumes: the table says so."""
        self.add_line(RESTARTED)

    def mark_nudged(self, now: float) -> None:
        """Someone nudged the player to act (``bot.table.nudge_rules``: rate-limited)."""
        self.nudged_at = now

    def remind_later(self, now: float) -> None:
        """A reminder was sent: a long turn may remind once more, later."""
        remind_again(self, now)  # (through quiet hours: bot.table.quiet)

    def end_series_after_this(self) -> None:
        """The host ended the series (``bot.features.series``): no deal after this one."""
        self.series_over = True

    # -- automation -------------------------------------------------------------

    def automation(self) -> Automation | None:
        """What the bot must do itself: finish, deal, auto, abandon, forced, ai, away;
        None = wait (also while paused: bot.table.pause)."""
        if self.status != PLAYING or self.game is None or self.paused:
            return None
        game = self.game
        if game.is_over:
            return Automation.FINISH
        if game.needs_deal:
            return Automation.DEAL
        if game.has_auto_step:
            return Automation.AUTO
        if all(seat.away for seat in self.humans):
            return Automation.ABANDON  # nobody is left to play for: stop rather than play alone
        to_act = game.to_act
        if to_act is None:
            return None
        if game.legal_actions() == [PASS]:
            return Automation.FORCED
        if self.seats[to_act].is_ai:
            return Automation.AI
        if self.seats[to_act].away:
            return Automation.AWAY
        return None

    def run_automation(self, kind: Automation, now: float, policy: Policy = simple_action
                       ) -> list[Event]:
        """Play the bot's own step of ``kind`` (see ``automation``); its engine events."""
        game = self.require_playing()
        if kind == Automation.DEAL:
            events = game.start_deal(game.random_deal(self.rng))
            self.auto_steps = 0
            self.lines = [T("Deal {number} is dealt.", number=e.deal + 1) for e in events
                           if isinstance(e, DealStarted)]
            self._after_step(now)
            return events
        if kind == Automation.AUTO:
            events = game.auto_step()
            self.auto_steps += 1
            self._after_step(now)
            return events
        if kind in (Automation.FORCED, Automation.AWAY, Automation.AI):
            seat = game.to_act
            assert seat is not None
            return self.apply(seat, PASS if kind == Automation.FORCED else policy(game), now,
                              by=str(kind))
        raise ValueError(f"not an automatic step: {kind}")

    def completed_deals(self) -> int:
        """How many deals have ended (their points are final)."""
        if self.game is None:
            return 0
        started = len(self.game.deal_points)
        ended = self.game.is_over or self.game.needs_deal
        return started if ended else max(0, started - 1)

    # -- time ----------------------------------------------------------------------

    def arm_turn_timer(self, now: float) -> None:
        """A fresh turn timer when a player (not the bot) must act, else none (through
        quiet hours; paused: none runs, ``bot.table.pause_state.arm_turn``)."""
        arm_turn(self, now, waits=self.to_act is not None and self.automation() is None)

    def time_out(self, now: float, policy: Policy = simple_action) -> list[Event]:
        """The turn timer expired: play for the seat to act; the step's engine events."""
        game = self.require_playing()
        seat = game.to_act
        if seat is None:
            raise TableError(T("Nobody is to act."))
        player = self.seats[seat]
        player.expiries += 1
        if player.expiries >= AWAY_AFTER:
            player.away = True  # played for from now on, until they act again
        return self.apply(seat, policy(game), now, by="timer")

    def welcome_back(self, user_id: int, now: float) -> None:
        """A seated player who was away acted again: they play their own seat, their own
        timer runs if it is their turn, and the table says they are back."""
        seat = self.seated(user_id)
        self.come_back(user_id)
        if self.to_act == seat:
            self.arm_turn_timer(now)
        self.add_line(T("{player} is back.", player=self.seats[seat].name_text))

    def come_back(self, user_id: int) -> bool:
        """A seated player showed up (opened their hand): no longer away. True if they were."""
        index = self.seat_of(user_id)
        if index is None or not self.seats[index].away:
            return False
        seat = self.seats[index]
        seat.away = seat.left = False
        seat.expiries = 0
        return True


def new_table_id() -> str:
    return secrets.token_hex(4)


