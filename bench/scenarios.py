"""The classes ``bench.load`` can simulate (``--scenario``), and how a student of each moves a shared control.

- ``random`` (the default, as before issue 25): a random slider of the page, mostly a chart's own, now and then
  another page.
- ``exploring``: every student stays on one topic page and every few seconds moves one of the shared controls
  (base, dim, length, heads) to a value of their own: uniform over the slider's range (the sidebar) or grid (a
  live chart's slider), so few of them ever hit a picture another student made.
- ``converging``: the same, but every value is one of the teacher's three for that control (:data:`TEACHER`), so
  after a first few moves every picture is one a replica has drawn before.

A shared control is moved either in the sidebar (a browser slider: the release commits it, ``ui.shared``) or by
letting go of a live chart's slider of that name; each way a student can move it counts once when a move is drawn.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bench.protocol import LiveInfo, SliderInfo

# The topic pages that draw shared controls (their url paths): a student of a shared-control class opens one of them
# (any other page first only when the app lists none of these)
TOPIC_PAGES = ("sinusoidal", "relative", "rope", "decay", "relative_scores", "rope_practice")
SHARED = ("base", "dim", "length", "heads")  # a live slider with one of these names moves a shared control
# The teacher's three values of each shared control (each on every grid a live slider has: base on its options,
# dim in ui.live.LIVE_DIMS, length in the naive chart's lengths, heads in 1 … 16).
TEACHER: dict[str, tuple[float, ...]] = {
    "base": (100.0, 10000.0, 500000.0),
    "dim": (64, 128, 256),
    "length": (64, 256, 1024),
    "heads": (4, 8, 12),
}


@dataclass(frozen=True)
class Scenario:
    name: str
    shared_only: bool  # every move is a shared control, and students stay on their page
    teacher: dict[str, tuple[float, ...]] | None = None  # the values students choose from; None: their own
    near: bool = True  # a commit names the sections near the student's viewport (False: none, so all rerun)


SCENARIOS = {
    "random": Scenario("random", shared_only=False),
    "exploring": Scenario("exploring", shared_only=True),
    "converging": Scenario("converging", shared_only=True, teacher=TEACHER),
}


def shared_name(slider: SliderInfo) -> str | None:
    """The shared control a sidebar slider moves (its key is ``shared_<name>_widget``), or None."""
    key = slider.element_id.rsplit("-", 1)[-1]
    name = key.removeprefix("shared_").removesuffix("_widget")
    return name if slider.shared and key.startswith("shared_") and name in SHARED else None


@dataclass(frozen=True)
class SharedMove:
    """One way to move a shared control: a sidebar slider, or a live chart's slider of that name."""

    name: str
    slider: SliderInfo | None = None
    live: LiveInfo | None = None


def shared_moves(sliders: dict[str, SliderInfo], lives: dict[str, LiveInfo]) -> list[SharedMove]:
    """Every way the page offers to move a shared control."""
    moves = [SharedMove(name, slider=s) for s in sliders.values() if (name := shared_name(s))]
    moves += [SharedMove(name, live=live) for live in lives.values() for name in live.controls if name in SHARED]
    return moves


def sidebar_value(slider: SliderInfo, name: str, rng: random.Random, scenario: Scenario) -> float | str:
    """The value a student sets a sidebar slider to: an option's label for a select slider (base)."""
    if slider.options:
        numbers = [float(option.replace(",", "")) for option in slider.options]
        if scenario.teacher:
            wanted = rng.choice(scenario.teacher[name])
            return slider.options[min(range(len(numbers)), key=lambda k: abs(numbers[k] - wanted))]
        return rng.choice(slider.options)
    if scenario.teacher:
        return float(rng.choice(scenario.teacher[name]))
    return slider.random_value(rng)


def live_release(
    live: LiveInfo, name: str, rng: random.Random, scenario: Scenario | None, near=None, lives: dict | None = None
) -> tuple[LiveInfo, str]:
    """Letting go of ``live``'s slider ``name``, at the student's own value or the teacher's: the element whose
    trigger the browser sends it by, and the trigger's JSON. A live chart's shared slider is committed by the
    sidebar, when one of ``lives`` shows that control (static/live.js asks static/shared_controls.js to).
    ``near``: the sections the browser names as near its viewport (None: it names none, and every section that uses
    the value reruns)."""
    value = rng.choice(scenario.teacher[name]) if scenario and scenario.teacher else live.random_value(name, rng)
    sender = committed_by(live, name, lives or {})
    return sender, sender.payload({name: value}, near)


def committed_by(live: LiveInfo, name: str, lives: dict) -> LiveInfo:
    """The element that sends a release of ``live``'s slider ``name``: the sidebar for a shared value it shows,
    else the chart itself."""
    if live.event == "commit" or name not in live.shared:
        return live
    return next((other for other in lives.values() if other.event == "commit" and name in other.controls), live)


# Where a simulated student looks: at one section of the page and the ones just above and below it. Measured in
# Chromium (static/sections.js's nearSections() at every half screen of each topic page): at 1024×768 a commit names
# 0.9 (inference) to 2.7 (rope_practice) sections on average, at most 4; at 390×844, 1.0 to 2.6. A section and its two
# neighbours names 2.3 to 2.7 on those pages: never fewer than a browser does on average.
NEIGHBOURS = 1
SCROLL_SHARE = 0.5  # after a move, the share of students who scroll to another section before the next one


def near_sections(sections: list[str], spot: int) -> list[str]:
    """The sections a browser looking at section ``spot`` names as near: it and its NEIGHBOURS either side."""
    return sections[max(0, spot - NEIGHBOURS) : spot + NEIGHBOURS + 1]
