"""``python -m bot`` tunes the garbage collector once its modules are imported."""

from __future__ import annotations

import gc

from bot.app import lifecycle


def test_the_bot_process_freezes_what_start_up_made_and_collects_young_objects_less_often():
    thresholds, frozen = gc.get_threshold(), gc.get_freeze_count()
    try:
        lifecycle.tune_collector()
        assert gc.get_freeze_count() > frozen  # start-up's objects left out of collections
        assert gc.get_threshold() == lifecycle.COLLECTOR_THRESHOLDS
        assert lifecycle.COLLECTOR_THRESHOLDS[0] > thresholds[0]  # fewer young collections
    finally:
        gc.unfreeze()  # the test process goes on as it was
        gc.set_threshold(*thresholds)

