"""Shared drawing: hands by suit, score tables, and Discord's limits enforced."""

from __future__ import annotations

import gettext

import discord
from hypothesis import given, settings
from hypothesis import strategies as st

import locales
from bot.ui import markup
from engine import cards


def test_a_hand_is_grouped_by_suit_high_first_with_legal_cards_bold():
    text = markup.hand_lines(["2S", "AS", "TH", "KD", "3D"], legal=["AS", "3D"])
    assert text.splitlines() == ["♠  **A** 2", "♥  10", "♣  —", "♦  K **3**"]


def test_a_seventeen_card_hand_fits_a_phone_line_per_suit():
    deck = [cards.CODE[c] for c in range(52)]
    hand = deck[:13] + deck[13:17]
    lines = markup.hand_lines(hand).splitlines()
    assert len(lines) == 4 and max(len(line) for line in lines) <= 40


def test_jokers_get_their_own_line():
    assert markup.hand_lines(["JK", "AS"]).splitlines()[-1] == "🃏  Joker"


def test_labels_use_ten_and_suit_symbols():
    assert markup.label("TH") == "10♥" and markup.label("pass") == "Pass"
    assert markup.labels([]) == "—"


def test_score_table_shows_each_deal_and_totals_in_a_narrow_code_block():
    names = ["Alexandrina-Long", "Bo", "Cy", "Dee", "Eve", "Fay", "Gus"]
    points = [[-1, -2, -3, -4, -5, -6, -7]] * 6
    text = markup.score_table(names, points, [-6, -12, -18, -24, -30, -36, -42],
                              ["Trk", "Clb", "Qns", "King", "Last", "7s"])
    rows = text.strip("`\n").splitlines()
    assert rows[0].split() == ["Trk", "Clb", "Qns", "King", "Last", "7s", "Total"]
    assert rows[1].startswith("Alexandri…") and rows[1].split()[-1] == "-6"
    assert max(len(r) for r in rows) <= 48


def test_clip_marks_what_it_cut():
    assert markup.clip("abcdef", 4) == "abc…" and markup.clip("abc", 4) == "abc"


texts = st.text(min_size=0, max_size=5000)


@settings(max_examples=40, deadline=None)
@given(title=texts, description=st.text(max_size=9000), footer=texts,
       fields=st.lists(st.tuples(st.text(max_size=400), st.text(max_size=2000)), max_size=40))
def test_fit_embed_always_meets_every_limit(title, description, footer, fields):
    embed = discord.Embed(title=title, description=description)
    embed.set_footer(text=footer)
    embed.set_author(name=title)
    for name, value in fields:
        embed.add_field(name=name, value=value)
    fitted = markup.fit_embed(embed)
    assert len(fitted.title or "") <= 256 and len(fitted.description or "") <= 4096
    assert len(fitted.fields) <= 25
    assert all(0 < len(f.name) <= 256 and 0 < len(f.value) <= 1024 for f in fitted.fields)
    assert len(fitted.footer.text or "") <= 2048 and len(fitted.author.name or "") <= 256
    assert markup.embed_size(fitted) <= 6000


def test_fit_embed_leaves_a_small_embed_alone():
    embed = discord.Embed(title="t", description="d").add_field(name="n", value="v")
    assert markup.fit_embed(embed).to_dict() == \
        discord.Embed(title="t", description="d").add_field(name="n", value="v").to_dict()


def test_content_is_cut_to_2000():
    assert len(markup.content("x" * 2500)) == 2000


_WORDS = {("score table", "Total"): "Итого всего", ("card", "Joker"): "Джокер",
          ("rank", "K"): "К", ("rank", "J"): "В"}


class _Russian(gettext.NullTranslations):
    def gettext(self, message):
        return {"D{n}": "Р{n}"}.get(message, message)

    def pgettext(self, context, message):
        return _WORDS.get((context, message), message)


def test_heads_ranks_and_the_joker_are_said_in_the_current_language(monkeypatch):
    monkeypatch.setattr(locales, "translations", lambda language: _Russian())
    with locales.speaking("ru"):
        text = markup.score_table(["Ann", "Bo"], [[1, 2], [3, 4]], [4, 6])
        hand = markup.hand_lines(["KS", "JS", "JK"])
    rows = text.strip("`\n").splitlines()
    assert rows[0].split() == ["Р1", "Р2", "Итого", "всего"]
    assert len({len(r) for r in rows}) == 1  # a longer head keeps the columns straight
    assert hand.splitlines()[0] == "♠  К В" and hand.splitlines()[-1] == "🃏  Джокер"
    assert markup.score_table(["Ann"], [[1]], [1]).splitlines()[1].split() == ["D1", "Total"]
