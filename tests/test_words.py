"""Words the browser draws (ui.words, static/words.js): read as CommonMark reads them, graded on the server, and sent
by a commit without a rerun of their fragment.

The Markdown the browser draws is compared with markdown-it-py (a CommonMark implementation, not ours) on every
words part the pages show in every language, and on the verdicts their questions give. The grading is driven over a
real server's websocket (bench.protocol), as static/words.js sends a "Check": a right pick is judged right, and a
forged one (a pick out of range, another question's print, a malformed value) stores nothing and breaks nothing.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import answer_words, shown_texts, words_parts
from system_packages import require_system_packages

from bench.protocol import StreamlitClient
from bench.server import StreamlitServer
from ui.component_data import sent_data

ROOT = Path(__file__).resolve().parents[1]
WORDS_JS = ROOT / "static" / "words.js"
NODE = shutil.which("node")
PAGES = ("sinusoidal", "rope", "rope_practice", "relative", "relative_scores", "decay")


def commonmark_parts(text: str) -> list[list[str]]:
    """``text``'s inline Markdown as CommonMark reads it: [kind, words] with kind "text", "strong", "em" or "code"."""
    from markdown_it import MarkdownIt

    parts, kind = [], "text"
    for token in MarkdownIt("commonmark").parseInline(text)[0].children:
        if token.type in ("strong_open", "em_open"):
            kind = token.type.split("_")[0]
        elif token.type in ("strong_close", "em_close"):
            kind = "text"
        elif token.type == "code_inline":
            parts.append(["code", token.content])
        elif token.type == "text" and token.content:
            if parts and parts[-1][0] == kind == "text":
                parts[-1][1] += token.content
            else:
                parts.append([kind, token.content])
        elif token.type != "text":  # a link, an image, HTML, a line break: the browser's reader draws none of them
            parts.append([token.type, token.content])
    return parts


def browser_parts(texts: list[str]) -> list:
    """static/words.js ``inlineParts`` of each text, in Node."""
    require_system_packages(nodejs=NODE is not None)
    source = (
        f"const words = await import({json.dumps(WORDS_JS.as_uri())});\n"
        "const chunks = []; for await (const chunk of process.stdin) chunks.push(chunk);\n"
        "const texts = JSON.parse(Buffer.concat(chunks).toString());\n"
        "console.log(JSON.stringify(texts.map((text) => words.inlineParts(text))));"
    )
    done = subprocess.run([NODE, "--input-type=module", "-e", source], input=json.dumps(texts), capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("lang", ["en", "ko", "zh"])
def test_the_browser_reads_every_words_part_as_commonmark_does(open_page, lang):
    texts = []
    for page in PAGES:
        at = open_page(f"pages/{page}.py", query={"lang": lang, "length": "100", "dim": "64"})
        assert not at.exception, at.exception
        for part in words_parts(at):
            if part["kind"] == "question":  # its verdict too: the first choice picked
                answer_words(at, part["key"], None)
        texts += shown_texts(words_parts(at))
    texts = list(dict.fromkeys(texts))
    assert len(texts) > 20
    assert browser_parts(texts) == [commonmark_parts(text) for text in texts]


def test_the_browser_reads_bold_italics_and_code_and_leaves_the_rest_as_text():
    texts = ["**What to notice** d_model stays *as* is: `x*y` and 2 * 3 * 4", "a **b** *c* `d`", "no marks", ""]
    assert browser_parts(texts) == [commonmark_parts(text) for text in texts]


async def check_decay_half(port: int, payloads: list) -> list:
    """On the decay page (one session), send the half-way question's "Check" with each of ``payloads`` in turn (a
    dict without "asked" gets the question's own print; "right": the right pick), each followed by a full run; per
    payload: (the verdict the Check's rerun drew, the verdict a full run draws after it, the runs' errors)."""
    from charts.checkpoints import decay_half
    from ui.limits import shared_default

    asked = decay_half(shared_default("dim"), shared_default("base"))
    right = list(asked.choices).index(asked.correct)
    client = StreamlitClient(port, timeout=120)
    await client.connect()
    out = []
    try:
        page = (await client.rerun()).pages["decay"]
        for payload in payloads:
            before = await client.rerun(page)
            element_id, fragment, question = words_element(before, "cp_decay_half")
            value = {"question": "cp_decay_half", "pick": right} if payload == "right" else payload
            if isinstance(value, dict) and "asked" not in value:
                value = value | {"asked": question["asked"]}
            trigger = {
                f"$$STREAMLIT_INTERNAL_KEY_{element_id}__events": json.dumps([{"event": "check", "value": value}])
            }
            checked = await client.rerun(page, {}, fragment, trigger)
            after = await client.rerun(page)
            drawn, later = words_element(checked, "cp_decay_half"), words_element(after, "cp_decay_half")
            verdict = drawn[2]["verdict"] if drawn else "not drawn"
            out.append((verdict, later[2]["verdict"], before.errors + checked.errors + after.errors))
    finally:
        await client.close()
    return out


def words_element(run, key: str):
    """(element id, fragment id, question part) of the words element holding question ``key`` in a run, or None."""
    from streamlit.proto.Element_pb2 import Element

    for fragment, element in run.drawn:
        proto = Element.FromString(element)
        if proto.WhichOneof("type") == "bidi_component" and proto.bidi_component.component_name.endswith("lab_words"):
            for part in sent_data(proto.bidi_component)["parts"]:
                if part.get("key") == key:
                    return proto.bidi_component.id, fragment, part
    return None


@pytest.fixture(scope="module")
def server():
    with StreamlitServer(startup_timeout=240) as running:
        yield running


@pytest.mark.browser  # a real server and its websocket
def test_a_check_is_graded_on_the_server_and_a_forged_one_stores_nothing(server):
    forged = [
        {"question": "cp_decay_half", "pick": 99},  # not one of its choices
        {"question": "cp_decay_half", "pick": "1"},  # not an index
        {"question": "cp_decay_half", "pick": True},
        {"question": "cp_decay_half", "pick": 0, "asked": "0123456789ab"},  # a question it does not show
        {"question": "cp_decay_turns", "pick": 0},  # another question's key, this question's print
        "check",  # not an object
    ]
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        none = {"question": "cp_decay_half", "pick": None}  # pressed with nothing picked
        results = pool.submit(asyncio.run, check_decay_half(server.port, [*forged, none, "right"])).result()
    for (checked, after, errors), sent in zip(results, [*forged, "none", "right"], strict=True):
        assert not errors, (sent, errors)
        if sent == "none":  # pressed with nothing picked: asked to pick one
            assert checked["tone"] == after["tone"] == "warning", checked
        elif sent == "right":
            assert checked["tone"] == after["tone"] == "success" and checked["text"].startswith("Right."), checked
        else:
            assert checked is None and after is None, (sent, checked, after)  # nothing stored, nothing shown
