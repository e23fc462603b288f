"""Every state of a few seeded whole games of each game, drawn: no crash, every text
inside the canvas, one image size per layout, and each image a PNG that decodes to the
size its scene promises, under Discord's limit and our own 150 KB."""

from __future__ import annotations

import io

import pytest
from PIL import Image

import locales
from benchmarks.images import states, ui_for
from bot.images import draw
from bot.images.scene import Scene
from engine.registry import game_ids

DISCORD_LIMIT = 8 * 1024 * 1024
OUR_LIMIT = 150 * 1024
NAMES = ("Alexandrina Konstantinopoulou-Vasquez the Third of Her Name", "🔥🔥🔥",
         "مرحبا بالعالم", "Zoë\u200d\u0301\n\tTab", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo",
         "Kim", "Lu", "Mo", "Ned", "Oz", "Pip", "Quinn")
# (game, players, options, seeds): the tables people sit at, with the options that
# change the picture (AttackJack's blind card and choice, Jacko's closed hands).
CASES = [
    ("jazz", 3, None, (1,)),
    ("jazz", 7, None, (2,)),
    ("jazz", 4, {"norwegian": True}, (3,)),
    ("jacko", 2, None, (1,)),
    ("jacko", 2, {"open_hands": False, "target": 40}, (2,)),
    ("california_jack", 2, None, (1,)),
    ("attackjack", 4, {"choice": True, "blind": True, "stake": 10}, range(1, 9)),
    ("attackjack", 17, {"choice": True}, range(1, 5)),
]


def check_canvas(scene: Scene) -> tuple[int, int]:
    canvas = draw.paint(scene)
    width, height = canvas.image.size
    assert (width, height) == draw.size_of(scene)
    assert canvas.texts, "nothing was written"
    for x0, y0, x1, y1 in canvas.texts:
        assert 0 <= x0 <= x1 <= width and 0 <= y0 <= y1 <= height, (x0, y0, x1, y1)
    return width, height


def check_png(scene: Scene) -> int:
    data = draw.render(scene, cache=False)
    assert len(data) <= min(DISCORD_LIMIT, OUR_LIMIT)
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG"
    assert image.size == draw.size_of(scene)
    image.load()  # decodes the whole image, not only its header
    return len(data)


@pytest.mark.parametrize("language", locales.LANGUAGES)
@pytest.mark.parametrize(("game_id", "players", "options", "seeds"), CASES,
                         ids=[f"{c[0]}-{c[1]}-{i}" for i, c in enumerate(CASES)])
def test_every_state_draws_inside_its_canvas(game_id, players, options, seeds, language):
    """In every language: a longer translation must still fit its picture."""
    with locales.speaking(language):
        draw_every_state(game_id, players, options, seeds)


def draw_every_state(game_id, players, options, seeds):
    ui = ui_for(game_id)
    names = NAMES[:players]
    table_sizes, hand_sizes = set(), set()
    drawn = 0
    for seed in seeds:
        for step, game in enumerate(states(game_id, seed, players, options)):
            table = ui.table_scene(game.public_view(), names)
            table_sizes.add(check_canvas(table))
            seats = range(players) if step % 25 == 0 else [game.to_act or 0]
            for seat in seats:
                hand = ui.hand_scene(game.seat_view(seat), names, seat)
                hand_sizes.add(check_canvas(hand))
            if step % 7 == 0 or game.is_over:  # encoding is the slow half: a sample
                check_png(table)
                check_png(hand)
            drawn += 1
    assert drawn > 0
    assert {w for w, _ in table_sizes | hand_sizes} == {draw.WIDTH}
    # One height per layout: Jazz has two (its trick deals and Sevens), the others one.
    assert len({h for _, h in table_sizes}) <= (2 if game_id == "jazz" else 1)
    assert len({h for _, h in hand_sizes}) <= (2 if game_id == "jazz" else 1)


@pytest.mark.parametrize("norwegian", [False, True])
def test_the_sevens_rows_show_every_card_played_to_them(norwegian):
    ui = ui_for("jazz")
    seen = 0
    for game in states("jazz", 4, 4, {"norwegian": norwegian}):
        view = game.public_view()
        if view["deal_kind"] != "sevens" or game.is_over or game.needs_deal:
            continue
        rows = ui.table_scene(view, NAMES[:4]).zones
        laid = [c.code for zone in rows for c in zone.cards]
        assert len(laid) == len(set(laid)) == 52 - sum(view["hand_sizes"])
        seen += 1
    assert seen > 5


def test_game_ids_are_all_covered():
    assert {case[0] for case in CASES} == set(game_ids())
