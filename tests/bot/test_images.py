"""The pictures: drawn from what a reader may see, changed by what changes, cached.

Hidden cards (another seat's hand, the stock under its top card, AttackJack's blind
card and deck) are swapped inside a copy of a running game; the public picture must
come out byte for byte the same, and a hand picture only changes with its own cards.
"""

from __future__ import annotations

import ast
import inspect
import io
import json
import tomllib
from collections.abc import Iterator
from gettext import NullTranslations
from pathlib import Path

import pytest
from PIL import Image

import locales
from benchmarks.images import states, ui_for
from bot import images
from bot.images import cards as card_sprites
from bot.images import draw, scene, sprites, text
from bot.images.cards import SIZES, rank_text, sprite
from bot.ui import markup
from bot.views import GameView
from engine import cards, registry
from engine.core import Game
from tests.toy import SPEC as TOY

ROOT = Path(__file__).resolve().parents[2]
NAMES = ("Ann", "Bo", "Cy", "Dee", "Eve", "Fay", "Gus")


def table_png(game: Game) -> bytes:
    ui = ui_for(game.GAME_ID)
    return images.render(ui.table_scene(game.public_view(), NAMES[:game.players]), cache=False)


def hand_png(game: Game, seat: int) -> bytes:
    ui = ui_for(game.GAME_ID)
    return images.render(ui.hand_scene(game.seat_view(seat), NAMES[:game.players], seat),
                         cache=False)


def mid_game(game_id: str, steps: int, players: int | None = None,
             options: dict | None = None, seed: int = 3) -> Game:
    game = None
    for step, game in enumerate(states(game_id, seed, players, options)):
        if step >= steps and game.to_act is not None:
            break
    assert game is not None and not game.is_over
    return game.copy()


def swap_hands(game: Game, a: int, b: int) -> Game:
    """A copy where seats ``a`` and ``b`` swapped a card of theirs (first for last)."""
    other = game.copy()
    hands = other._hands  # type: ignore[attr-defined]
    hands[a][0], hands[b][-1] = hands[b][-1], hands[a][0]
    hands[a].sort()
    hands[b].sort()
    return other


def swap_stock(game: Game, i: int, j: int) -> Game:
    other = game.copy()
    stock = list(other._stock)  # type: ignore[attr-defined]
    stock[i], stock[j] = stock[j], stock[i]
    other._stock = type(game._stock)(stock)  # type: ignore[attr-defined]
    return other


def others(game: Game) -> Iterator[int]:
    return (s for s in range(game.players) if s != game.to_act)


# -- what a picture may know -------------------------------------------------------------


def test_jazz_swapping_two_other_hands_leaves_the_table_and_my_hand_unchanged():
    game = mid_game("jazz", 9, players=4)
    me = game.to_act
    a, b = [s for s in others(game)][:2]
    swapped = swap_hands(game, a, b)
    assert swapped.public_view() == game.public_view()
    assert table_png(swapped) == table_png(game)
    assert hand_png(swapped, me) == hand_png(game, me)
    assert hand_png(swapped, a) != hand_png(game, a)


def test_jacko_closed_hands_hide_the_opponent_cards_from_both_pictures():
    game = mid_game("jacko", 6, options={"open_hands": False})
    me = game.to_act
    swapped = game.copy()
    hand = swapped._hands[1 - me]  # type: ignore[attr-defined]
    hand.reverse()  # the same cards: nothing may change
    hand.sort()
    assert table_png(swapped) == table_png(game)
    changed = swap_hands(game, me, 1 - me)
    assert changed.public_view() == game.public_view()
    assert table_png(changed) == table_png(game)
    assert hand_png(changed, me) != hand_png(game, me)


def test_california_jack_the_stock_under_its_top_card_is_hidden():
    game = mid_game("california_jack", 3)
    pos = game._pos  # type: ignore[attr-defined]
    assert len(game._stock) - pos > 3  # type: ignore[attr-defined]
    swapped = swap_stock(game, pos + 1, len(game._stock) - 1)  # type: ignore[attr-defined]
    assert swapped.public_view() == game.public_view()
    assert table_png(swapped) == table_png(game)
    for seat in range(2):
        assert hand_png(swapped, seat) == hand_png(game, seat)


def test_california_jack_an_undrawn_card_of_the_other_hand_is_hidden():
    game = mid_game("california_jack", 0)
    me = game.to_act
    other = 1 - me
    hand = game._hands[other]  # type: ignore[attr-defined]
    pos = game._pos  # type: ignore[attr-defined]
    swapped = game.copy()
    deep = len(game._stock) - 1  # type: ignore[attr-defined]
    stock = list(swapped._stock)  # type: ignore[attr-defined]
    held = hand[0]
    assert held not in game.public_view()["known"][other] and deep > pos
    stock[deep], swapped._hands[other][0] = held, stock[deep]  # type: ignore[attr-defined]
    swapped._hands[other].sort()  # type: ignore[attr-defined]
    swapped._stock = tuple(stock)  # type: ignore[attr-defined]
    assert swapped.public_view() == game.public_view()
    assert table_png(swapped) == table_png(game)
    assert hand_png(swapped, me) == hand_png(game, me)
    assert hand_png(swapped, other) != hand_png(game, other)


def test_attackjack_the_deck_and_a_blind_card_are_hidden():
    options = {"blind": True, "choice": True}
    game = mid_game("attackjack", 1, players=4, options=options)
    pos = game._pos  # type: ignore[attr-defined]
    deck = swap_stock(game, pos + 1, pos + 2)
    assert deck.public_view() == game.public_view()
    assert table_png(deck) == table_png(game)
    me = game.to_act
    seat = next(s for s in others(game) if game.public_view()["seats"][s]["hidden"])
    blind = game.copy()
    hand, stock = blind._hands[seat], list(blind._stock)  # type: ignore[attr-defined]
    hand[1], stock[pos + 3] = stock[pos + 3], hand[1]  # the face-down card, second dealt
    blind._stock = tuple(stock)  # type: ignore[attr-defined]
    assert blind.public_view() == game.public_view()
    assert table_png(blind) == table_png(game)
    assert hand_png(blind, me) == hand_png(game, me)
    assert hand_png(blind, seat) != hand_png(game, seat)


@pytest.mark.parametrize("game_id", ["jazz", "jacko", "california_jack", "attackjack"])
def test_the_table_scene_is_built_from_the_public_view_alone(game_id):
    ui = ui_for(game_id)
    assert list(inspect.signature(ui.table_scene).parameters) == ["view", "names"]
    assert list(inspect.signature(ui.hand_scene).parameters) == ["seat_view", "names", "seat"]
    for step, game in enumerate(states(game_id, 5)):
        if step % 5:
            continue
        names = NAMES[:game.players]
        view = game.public_view()
        public = ui.table_scene(view, names)
        # Plain JSON data is enough, and a seat's private keys change nothing.
        assert ui.table_scene(json.loads(json.dumps(view)), names) == public
        for seat in range(game.players):
            assert ui.table_scene(game.seat_view(seat), names) == public


def test_the_table_image_changes_when_a_card_is_played():
    for game_id in ("jazz", "jacko", "california_jack"):
        game = mid_game(game_id, 4)
        before = table_png(game)
        card = next(a for a in game.legal_actions() if a <= cards.JOKER)
        game.apply(game.to_act, card)
        assert table_png(game) != before, game_id


def test_the_attackjack_table_changes_when_a_card_is_taken():
    game = mid_game("attackjack", 1, players=3, options={"choice": True})
    before = table_png(game)
    game.apply(game.to_act, game.legal_actions()[0])
    assert table_png(game) != before


# -- hands -----------------------------------------------------------------------------


def test_a_hand_scene_shows_the_cards_in_the_text_order_with_the_legal_ones_marked():
    hand = ["2S", "AS", "TH", "KD", "3D"]
    rows = scene.suit_rows(hand, legal=["AS", "3D"])
    text_lines = markup.hand_lines(hand, ["AS", "3D"]).splitlines()
    for row, line in zip(rows, text_lines, strict=True):
        shown = " ".join(("**%s**" if c.mark == "legal" else "%s") % markup.label(c.code)[:-1]
                         for c in row.cards)
        assert line == f"{row.label}  {shown or '—'}"
    assert [c.mark for r in rows for c in r.cards] == ["legal", "dim", "dim", "dim", "legal"]


def test_jokers_come_last_and_keywords_become_a_caption():
    assert scene.hand_order(["JK", "2S", "AH"]) == ["2S", "AH", "JK"]
    assert scene.keyword_caption(["AS", "pass"]) == "You may also: Pass"
    assert scene.keyword_caption(["AS"]) == ""


def test_the_default_hand_scene_of_a_game_ui_marks_the_legal_cards():
    ui = ui_for("jazz")
    game = mid_game("jazz", 2, players=4)
    view = game.seat_view(game.to_act)
    hand = GameView.hand_scene(ui, view, NAMES[:4], game.to_act)  # the default one
    marks = {c.code: c.mark for z in hand.zones for c in z.cards}
    assert set(marks) == set(view["hand"])
    assert {c for c, m in marks.items() if m == "legal"} == set(view["legal"])


def test_a_new_game_gets_pictures_from_the_defaults_alone():
    import random

    from tests.toy.cog import ToyUI
    from tests.toy.engine import Toy

    registry.register(TOY)
    try:
        ui = ToyUI()
        game = Toy(3, None, first_dealer=0)
        game.start_deal(game.random_deal(random.Random(1)))
        table = ui.table_scene(game.public_view(), NAMES[:3])
        assert [s.note for s in table.seats] == [ui.seat_note(game.public_view(), s)
                                                 for s in range(3)]
        assert table.seats[game.to_act].active
        hand = ui.hand_scene(game.seat_view(game.to_act), NAMES[:3], game.to_act)
        assert {c.code for z in hand.zones for c in z.cards} == \
            set(game.seat_view(game.to_act)["hand"])
        for built in (table, hand):
            assert Image.open(io.BytesIO(images.render(built))).size == images.size_of(built)
    finally:
        registry.unregister(TOY.id)


# -- the drawing ------------------------------------------------------------------------


def test_an_image_decodes_at_its_promised_size_well_under_the_limits():
    game = mid_game("jazz", 12, players=7)
    for data in (table_png(game), hand_png(game, game.to_act)):
        image = Image.open(io.BytesIO(data))
        image.load()
        assert image.format == "PNG" and image.width == draw.WIDTH
        assert len(data) <= 150 * 1024 <= 8 * 1024 * 1024
    ui = ui_for("jazz")
    table = ui.table_scene(game.public_view(), NAMES[:7])
    assert Image.open(io.BytesIO(images.render(table))).size == images.size_of(table)


def test_a_scene_is_drawn_once_while_it_stays_in_the_bounded_cache():
    ui = ui_for("california_jack")
    game = mid_game("california_jack", 5)
    built = ui.table_scene(game.public_view(), NAMES[:2])
    again = ui.table_scene(game.public_view(), NAMES[:2])
    assert built == again and hash(built) == hash(again)
    first = images.render(built)
    assert images.render(again) is first  # a cache hit: the very same bytes
    assert draw._cached.cache_info().maxsize == draw.CACHE_SIZE
    assert images.render(built, cache=False) == first


# -- languages --------------------------------------------------------------------------


class Marked(NullTranslations):
    """A catalogue that says every id with ``[sv]`` in front (placeholders kept)."""

    def gettext(self, message: str) -> str:
        return "[sv]" + message

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return "[sv]" + (msgid1 if n == 1 else msgid2)

    def pgettext(self, context: str, message: str) -> str:
        return "[sv]" + message

    def npgettext(self, context: str, msgid1: str, msgid2: str, n: int) -> str:
        return self.ngettext(msgid1, msgid2, n)


@pytest.fixture
def marked(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Swedish says the marked catalogue; English stays the code's own. The drawing caches
    are emptied after, so no marked card face or image outlives the test."""
    monkeypatch.setattr(locales, "translations",
                        lambda lang: Marked() if lang == "sv" else NullTranslations())
    yield
    card_sprites._drawn.cache_clear()
    sprites.clear()
    draw.clear_bands()
    draw._cached.cache_clear()


def test_a_caption_in_russian_is_drawn_with_its_own_letters():
    with locales.speaking("ru"):
        built = scene.Scene("Jacko", "Взятки", (scene.Zone("Взятки", (scene.Card("JK"),),
                                                             "Взятки"),),
                            (scene.Seat("Аня", "+3", "Взятки"),), ("Взятки",))
    assert built.language == "ru"
    assert text.clean("Взятки") == "Взятки" == text.clean("Взятки", bold=True)  # no "?"
    data = images.render(built, cache=False)
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG" and image.size == images.size_of(built)
    image.load()


def test_a_game_ui_draws_its_words_through_the_catalogue(marked):
    ui = ui_for("jacko")
    game = mid_game("jacko", 6)
    view, names = game.public_view(), NAMES[:2]
    english = ui.draw_table(view, names)
    assert english.startswith(f"**Sum: {view['sum']}") and "[sv]" not in english
    with locales.speaking("sv"):
        swedish = ui.draw_table(view, names)
        note = ui.seat_note(view, 0)
        table = ui.table_scene(view, names)
        hand = ui.hand_scene(game.seat_view(game.to_act), names, game.to_act)
        rules, blurb = ui.rules_text(None), ui.blurb_text()
    assert swedish.startswith("**[sv]Sum: ") or swedish.startswith("[sv]**Sum: ")
    assert note.startswith("[sv]") and note.endswith(" card" if view["cards_left"][0] == 1
                                                     else " cards")
    assert "[sv]Running sum" in [z.label for z in table.zones]
    assert hand.title.startswith("[sv]Your hand · ")
    assert rules.startswith("[sv]**Jacko**") and "**[sv]Options**" in rules
    assert blurb.startswith("[sv]2 players")
    # Outside the block the table speaks English again.
    assert ui.draw_table(view, names) == english


def test_each_language_draws_its_own_image_from_the_cache(marked):
    ui = ui_for("california_jack")
    game = mid_game("california_jack", 3)
    view, names = game.public_view(), NAMES[:2]
    english = ui.table_scene(view, names)
    with locales.speaking("sv"):
        swedish = ui.table_scene(view, names)
    assert swedish.language == "sv" and english.language == "en"
    assert swedish != english and hash(swedish) != hash(english)
    assert images.render(swedish) != images.render(english)
    assert images.render(english) == images.render(english, cache=False)
    # The same words in another language's scene are still another cache entry, and its
    # card faces carry that language's rank letters.
    same = scene.Scene("T", "x")
    with locales.speaking("sv"):
        other = scene.Scene("T", "x")
    assert same != other
    assert rank_text(cards.parse_card("QH"), "sv") == "[sv]Q"
    assert sprite("QH", "small", "", "sv").tobytes() != sprite("QH", "small").tobytes()


def test_the_card_faces_letters_are_the_english_labels_ranks():
    for card in range(52):
        assert rank_text(card) == cards.RANK_NAMES[cards.RANK[card]]
    assert sprite("QH", "small", "", "en") is sprite("QH", "small")  # one cache entry


def test_webp_is_available_and_decodes():
    built = scene.Scene("T", zones=(scene.Zone("Z", (scene.Card("AS"), scene.Card(None))),))
    data = images.render(built, "webp", cache=False)
    assert Image.open(io.BytesIO(data)).size == images.size_of(built)


STRANGE = ["A" * 300, "🔥🔥🔥", "Bob 🔥", "Zoë\u200d\u0301\n\tTab", "مرحبا بالعالم", "田中",
           "\x00\x07", "   ", "👍🏽 fine", "W" * 40]


def test_strange_and_long_names_never_leave_their_box_or_the_canvas():
    seats = tuple(scene.Seat(name, "+99999", name, (scene.Card("TH"),) * 9, backs=52,
                             active=i == 0) for i, name in enumerate(STRANGE))
    zone = scene.Zone(STRANGE[0], tuple(scene.Card("JK", caption=n) for n in STRANGE),
                      STRANGE[0], badge="12345678", backs=40)
    built = scene.Scene(STRANGE[0], STRANGE[0], (zone,), seats, tuple(STRANGE), 3)
    canvas = draw.paint(built)
    width, height = canvas.image.size
    assert all(0 <= x0 <= x1 <= width and 0 <= y0 <= y1 <= height
               for x0, y0, x1, y1 in canvas.texts)


def test_names_lose_emoji_and_an_empty_name_gets_a_seat_number():
    assert scene.display_names(["🔥🔥🔥", "Bob 🔥", "👍🏽 fine", "Ann"]) == \
        ("Player 1", "Bob", "fine", "Ann")


def test_text_is_cut_to_its_width_and_missing_glyphs_show_once():
    cut = text.fit("W" * 200, 17, True, 120)
    assert cut.endswith("…") and text.font(17, True).getlength(cut) <= 120
    assert text.fit("short", 17, False, 500) == "short"
    assert text.clean("田中 Bo") == "? Bo"
    assert text.clean("a\x00b\u200dc") == "abc"
    assert text.fit("anything", 17, False, 0) == ""


def test_every_card_has_a_sprite_of_its_size_and_red_suits_are_red():
    for size, (w, h) in SIZES.items():
        for code in (*cards.CODE, None):
            assert sprite(code, size).size == (w, h)
    hearts = sprite("AH", "large").convert("RGB")
    spades = sprite("AS", "large").convert("RGB")
    centre = (int(64 * 0.62), int(90 * 0.64))
    assert hearts.getpixel(centre)[0] > 150 and hearts.getpixel(centre)[1] < 80
    assert max(spades.getpixel(centre)) < 80


# -- packaging and boundaries -------------------------------------------------------------


def test_the_fonts_ship_with_their_licence_and_in_the_package_data():
    fonts = ROOT / "bot" / "images" / "fonts"
    readme = (fonts / "README.md").read_text()
    for name in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf"):
        assert (fonts / name).is_file() and name in readme
    assert "Bitstream Vera" in (fonts / "LICENSE-DejaVu.txt").read_text()
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns = data["package-data"]["bot.images"]
    assert "fonts/*.ttf" in patterns and any(p.endswith(".txt") for p in patterns)
    assert any(d.startswith("Pillow") for d in
               tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"])


def test_only_bot_images_imports_pillow():
    offenders = []
    for package in ("engine", "bot", "cogs", "terminal"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.is_relative_to(ROOT / "bot" / "images") and path.name != "scene.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                         else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
                if any(n.split(".")[0] == "PIL" for n in names):
                    offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_the_benchmark_reports_time_and_size_per_game():
    from benchmarks import images as bench

    figures = bench.measure("attackjack", 5)
    assert figures["states"] >= 5
    for key in ("table", "hand"):
        assert set(figures[key]) == {"p50_ms", "p95_ms", "bytes_mean", "bytes_max"}
        assert 0 < figures[key]["bytes_max"] <= 150 * 1024
    assert figures["retained_bytes_per_table"] < 50 * 1024
