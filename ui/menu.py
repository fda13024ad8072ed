"""The app's pages, listed once: ``navigation.py`` builds the sidebar from this list, and the home page its
"Where to next" links. Plain Python (no Streamlit): a page's words are catalog keys named after it, read in the
student's language where they are shown.
"""

from typing import NamedTuple


class Page(NamedTuple):
    section: str  # its sidebar section, titled app.section_<section>
    name: str  # titled app.page_<name>; on the home page, home.next_<name> says what it answers
    path: str  # its script, relative to the app's root
    icon: str  # a Material icon: drawn by the browser, nothing fetched

    @property
    def section_key(self) -> str:
        return f"app.section_{self.section}"

    @property
    def title_key(self) -> str:
        return f"app.page_{self.name}"

    @property
    def blurb_key(self) -> str:
        return f"home.next_{self.name}"


PAGES = (  # in the sidebar's order; the first is the home page
    Page("start", "home", "pages/home.py", ":material/home:"),
    Page("start", "glossary", "pages/glossary.py", ":material/translate:"),
    Page("absolute", "sinusoidal", "pages/sinusoidal.py", ":material/waves:"),
    Page("relative", "relative", "pages/relative.py", ":material/compare_arrows:"),
    Page("relative", "relative_scores", "pages/relative_scores.py", ":material/join_inner:"),
    Page("rotary", "rope", "pages/rope.py", ":material/rotate_right:"),
    Page("rotary", "rope_practice", "pages/rope_practice.py", ":material/memory:"),
    Page("rotary", "decay", "pages/decay.py", ":material/trending_down:"),
    Page("rotary", "inference", "pages/inference.py", ":material/bolt:"),
    Page("rotary", "model_rope", "pages/model_rope.py", ":material/memory:"),
    Page("rotary", "rope_layers", "pages/rope_layers.py", ":material/view_agenda:"),
    Page("experiment", "toy", "pages/toy_model.py", ":material/calculate:"),
    Page("experiment", "extrapolation", "pages/extrapolation.py", ":material/straighten:"),
)
HOME = PAGES[0]
CHECKPOINTS = {  # every checkpoint of the app, by page (ui.checkpoint counts them; a lesson step names one)
    "sinusoidal": ("cp_sin_fastest", "cp_sin_dot", "cp_sin_scale"),
    "relative": ("cp_rel_t5", "cp_rel_alibi"),
    "relative_scores": ("cp_rs_deberta", "cp_rs_nope"),
    "rope": ("cp_rope_shift", "cp_rope_slowest"),
    "decay": ("cp_decay_half", "cp_decay_turns"),
    "inference": ("cp_infer_precision", "cp_infer_temperature", "cp_infer_kv", "cp_infer_move"),
    "model_rope": ("cp_model_turns", "cp_model_slowest"),
    "rope_layers": ("cp_layers_reach", "cp_layers_meaning", "cp_layers_patch"),
    "toy": ("cp_toy_weakest", "cp_toy_longer"),
    "extrapolation": ("cp_extrap_survive", "cp_extrap_far_needle", "cp_extrap_learned"),
}
# The section (ui.sections) each checkpoint of a page built of sections is drawn in: a class's step scrolls to it, and a
# page step draws it, on a replica that has not yet run the page too (tests/test_sections.py holds it to the pages)
CHECKPOINT_SECTIONS = {
    "cp_sin_fastest": "sin_table", "cp_sin_dot": "sin_similarity", "cp_sin_scale": "sin_add",
    "cp_rel_t5": "relative_t5", "cp_rel_alibi": "relative_alibi",
    "cp_rs_deberta": "rs_deberta", "cp_rs_nope": "rs_nope",
    "cp_rope_shift": "rope_pair_shift", "cp_rope_slowest": "rope_clocks",
    "cp_decay_half": "decay_bound", "cp_decay_turns": "decay_bound",
    "cp_infer_precision": "inference_precision", "cp_infer_kv": "inference_kv",
}  # fmt: skip


def sections() -> dict[str, list[Page]]:
    """The pages by section (its catalog key), sections and pages in the sidebar's order."""
    grouped: dict[str, list[Page]] = {}
    for page in PAGES:
        grouped.setdefault(page.section_key, []).append(page)
    return grouped


def next_pages() -> list[Page]:
    """The pages the home page suggests: the topics in the sidebar's order, then the other start pages (the
    glossary, a reference)."""
    others = [page for page in PAGES if page != HOME]
    return [page for page in others if page.section != HOME.section] + [
        page for page in others if page.section == HOME.section
    ]
