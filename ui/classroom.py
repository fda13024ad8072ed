"""Class mode on the page: the teacher's class panel, the join link and QR code, and checkpoints answered as a class.

A session is in a class when its link says ``?class=<code>`` (checked once, on the session's first run, then kept
for the session and mirrored in the URL like the shared controls). The rules and the store are :mod:`classroom`'s;
this module only draws. Three parts:

* :func:`browser_identity`: a tiny ``components.v2`` element that keeps a random id in the browser's localStorage
  and sends it once per session (so a reload or a second tab is the same browser and never counts twice). For a
  teacher it also keeps the class's secret there, never in a link: a reload of the teacher's page keeps the rights.
* :func:`class_panel`: in presenter mode, "Start a class", then the join link, its QR code (drawn here by ``segno``,
  offline) and the short code, and "End the class"; for a student, one line saying which class they are in.
* :func:`class_checkpoint`: a checkpoint in a class. Its board (the answered count, the distribution when the
  teacher shows it, the reveal) is an ``st.fragment``: the teacher's reruns by itself every :data:`TEACHER_POLL_S`
  s; a student's is rerun by the browser only when what it shows changed: its element carries the board's print
  (:func:`classroom.service.board_print`), and static/class_poll.js, which asks ``class/state`` twice a second for
  the whole tab (ui/class_http.py, no script run), triggers the rerun when the server's print differs, at most every
  :data:`STUDENT_POLL_S` s. Each rerun reads the question from the store once (one indexed query, or one Redis
  ``HGETALL``). Only sessions in a class poll.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from urllib.parse import urlencode

import segno
import streamlit as st

from classroom.codes import read_browser_id
from classroom.service import MAX_ROUNDS, Classroom, board_print, choice_text, question_id
from classroom.store import Poll, open_store
from ui.component_data import component_data
from ui.i18n import sentences
from ui.language import NOTICES, current_language, t
from ui.limits import SHARED_NAMES
from ui.once import computed_once
from ui.presenter import presenting
from ui.query import parse_shared_params
from ui.static_files import STATIC_VERSION

CLASS = "class_code"  # the class this session is in (a checked code), or None
SECRET = "class_secret"  # the teacher's secret, only in the teacher's own session
BROWSER = "class_browser"  # this browser's random id, from its localStorage
_KEEP = "class_keep"  # what the browser element must store or forget next: {"keep": {...}} or {"forget": code}
_ASKED = "class_asked"  # the questions this teacher's session has opened for the class
_RERUN_PAGE = "class_rerun_page"  # a student took the class's settings: rerun the page, not only the fragment
_WAITING = "class_waiting"  # pressed before the browser's id came, done when it does: {what: (action, args)}
TEACHER_POLL_S = 1.0
STUDENT_POLL_S = 1.5  # a student's board reruns at most this often (static/class_poll.js's BOARD_GAP_MS)

IDENTITY_JS = """
export default function (component) {
  const { setTriggerValue } = component;
  const data = Array.isArray(component.data) ? component.data[0] : component.data; // see ui/component_data.py
  const read = (key) => { try { return window.localStorage.getItem(key); } catch (e) { return null; } };
  const write = (key, value) => { try { window.localStorage.setItem(key, value); } catch (e) { /* private mode */ } };
  let id = read("posenc-lab-browser");
  if (!/^[A-Za-z0-9_-]{16,64}$/.test(id || "")) {
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    id = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    write("posenc-lab-browser", id);
  }
  if (data && data.keep) write("posenc-lab-class-" + data.keep.code, data.keep.secret);
  if (data && data.forget) { try { window.localStorage.removeItem("posenc-lab-class-" + data.forget); } catch (e) {} }
  const secret = data && data.code ? read("posenc-lab-class-" + data.code) : null;
  // Streamlit sends a trigger in one batch with other elements' changes, under one fragment's rerun: when another
  // fragment's element changed at the same moment (a board's poll, a reconnect's replay), this one's trigger is
  // dropped. So the answer is sent again every 2 s while the server still asks (it stops drawing the element, or
  // draws it without `ask`, once it has the id).
  const host = component.parentElement || {};
  clearInterval(host.posencAsking);
  if (!(data && data.ask)) return;
  const send = () => setTriggerValue("browser", { id, secret });
  send();
  host.posencAsking = setInterval(send, 2000);
  return () => clearInterval(host.posencAsking);
}
"""
_IDENTITY = st.components.v2.component("posenc_lab_class_identity", js=IDENTITY_JS)

BOARD_JS = """
export default function (component) {
  // static/class_poll.js with the release's version: one poller per tab for every board and the follow line
  const script = new URL("app/static/class_poll.js?v=STATIC_VERSION", window.location.href.replace(/[^/]*$/, ""));
  let stop = null, gone = false;
  import(script.href).then((poller) => { stop = poller.renderBoard(component); if (gone) stop(); });
  return () => { gone = true; if (stop) stop(); };
}
""".replace("STATIC_VERSION", STATIC_VERSION)
_BOARD = st.components.v2.component("posenc_lab_class_board", js=BOARD_JS)

CHART_CSS = """<style>
.class-bars { display: grid; grid-template-columns: minmax(6rem, max-content) 1fr; gap: 0.35rem 0.75rem;
              align-items: center; font-size: 1.05rem; }
.class-bars .choice { overflow-wrap: anywhere; }
.class-bars .bar { display: flex; align-items: center; gap: 0.4rem; margin: 0.1rem 0; }
.class-bars .bar i { display: inline-block; height: 1.1rem; border-radius: 0.2rem; min-width: 2px; }
.class-bars .bar b { font-variant-numeric: tabular-nums; font-weight: 600; white-space: nowrap; }
.class-bars .r1 i { background: #8da0cb; } .class-bars .r2 i { background: #d6336c; }
.class-bars .r3 i { background: #2b8a3e; }
.class-legend { font-size: 0.95rem; margin-top: 0.3rem; } .class-legend i { display: inline-block; width: 0.9rem;
                height: 0.9rem; border-radius: 0.2rem; margin: 0 0.3rem 0 0.8rem; vertical-align: middle; }
.class-code { font-size: 2.6rem; font-weight: 700; letter-spacing: 0.25em; font-variant-numeric: tabular-nums; }
</style>"""
ROUND_COLORS = ("#8da0cb", "#d6336c", "#2b8a3e")


@computed_once
def classroom() -> Classroom:
    """The server's one :class:`~classroom.service.Classroom` over the store ``POSENC_CLASS_STORE`` names."""
    return Classroom(open_store())


# the session's class -------------------------------------------------------------------------------------------
def init_class() -> None:
    """On a session's first run, join the class the link names (``?class=``), or show why not."""
    if CLASS in st.session_state:
        return
    st.session_state[CLASS] = None
    if "class" not in st.query_params:
        return
    outcome = classroom().join(st.query_params.get_all("class"))
    if outcome.ok:
        st.session_state[CLASS] = outcome.value
    else:
        st.session_state.setdefault(NOTICES, []).append((outcome.message, {}))


def class_code() -> str | None:
    return st.session_state.get(CLASS)


def teaching() -> bool:
    """Whether this session holds the teacher's rights for its class (and is presenting)."""
    return bool(class_code() and st.session_state.get(SECRET) and presenting())


def mirror_class_in_url() -> None:
    code = class_code()
    if code and st.query_params.get("class") != code:
        st.query_params["class"] = code
    elif not code and "class" in st.query_params:
        del st.query_params["class"]


def browser_identity() -> None:
    """Ask the browser for its id (and, in a class, the teacher's secret it keeps), once per session; pass it
    what to keep. Drawn only while there is something to ask or keep, in a class or in presenter mode."""
    if not (class_code() or presenting()):
        return
    if BROWSER in st.session_state and _KEEP not in st.session_state:
        return
    _identity()


@st.fragment  # the browser's answer reruns only this, unless it restores the teacher's rights (then the page)
def _identity() -> None:
    wanted = BROWSER not in st.session_state
    keep = st.session_state.pop(_KEEP, None)
    if wanted or keep:
        data = {"ask": wanted, "code": class_code()} | (keep or {})
        sent = _IDENTITY(data=component_data(data), key="class_identity", on_browser_change=_ignore).browser
        if _identified(sent):
            st.rerun(scope="app")


def _ignore() -> None:
    """The trigger's callback: registers the ``browser`` event; its value is read from the element's result."""


def _identified(sent: object) -> bool:
    """Keep the browser's id (and do what was pressed before it came); take the teacher's secret it sent when it is
    this class's. Returns whether the page must follow (something was done, the teacher's rights came, or a student's
    browser is known: its page starts following the teacher)."""
    if not isinstance(sent, dict):
        return False
    browser = read_browser_id(sent.get("id"))
    first = browser is not None and BROWSER not in st.session_state
    if browser:
        st.session_state[BROWSER] = browser
        waiting = st.session_state.pop(_WAITING, {})
        for action, args in waiting.values():
            action(*args)
        if waiting:
            return True
    code, secret = class_code(), sent.get("secret")
    if code and secret and not st.session_state.get(SECRET) and classroom().is_teacher(code, secret):
        st.session_state[SECRET] = secret
        return True
    return first and bool(code)  # a student in a class: the page starts following the teacher (ui/follow.py)


# the panel at the top of the page --------------------------------------------------------------------------------
def class_panel() -> None:
    """Presenter mode: start a class, or the class's join link, QR code, code and "End". A student: which class."""
    code = class_code()
    if code:
        st.html(CHART_CSS)
    if teaching():
        _teacher_panel(code)
    elif code:
        from ui.follow import follow_line  # ui.follow imports this module

        left, right = st.columns([5, 1], vertical_alignment="center")
        left.caption(t("classroom.student_line", code=code))
        right.button(t("classroom.leave"), key="class_leave", on_click=_leave)
        if BROWSER in st.session_state:  # no poll before the browser is known: it may be the teacher's own reload
            follow_line()
    elif _waiting_for("start"):
        st.caption(t("classroom.connecting"))
    elif presenting():
        st.button(t("classroom.start"), key="class_start", icon=":material/groups:", on_click=_start,
                  help=t("classroom.start_help"))  # fmt: skip


def _when_browser_known(what: str, action: Callable, *args) -> bool:
    """Whether the browser's id is still to come; then ``action(*args)`` is done when it arrives, not lost (the
    last press of each ``what`` counts)."""
    if BROWSER in st.session_state:
        return False
    st.session_state.setdefault(_WAITING, {})[what] = (action, args)
    return True


def _waiting_for(what: str) -> bool:
    return what in st.session_state.get(_WAITING, {})


def _start() -> None:
    if _when_browser_known("start", _start):
        return
    outcome = classroom().start(st.session_state.get(BROWSER))
    if not outcome.ok:
        st.session_state.setdefault(NOTICES, []).append((outcome.message, {}))
        return
    code, secret = outcome.value
    st.session_state[CLASS], st.session_state[SECRET] = code, secret
    st.session_state[_KEEP] = {"keep": {"code": code, "secret": secret}}


def _end() -> None:
    code = class_code()
    outcome = classroom().end(code, st.session_state.get(SECRET))
    st.session_state.setdefault(NOTICES, []).append((outcome.message, {}))
    if outcome.ok:
        _leave()
        st.session_state[_KEEP] = {"forget": code}


def _leave() -> None:
    st.session_state[CLASS] = None
    st.session_state.pop(SECRET, None)


def join_link(code: str) -> str:
    """The page's address with ``?class=<code>``, the language and the shared settings (so every student's
    questions are asked as on the projector). Never the teacher's secret, never ``present``."""
    params = {"class": code, "lang": current_language()}
    for name in SHARED_NAMES:
        value = st.session_state.get(f"shared_{name}")
        if value is not None:
            params[name] = str(int(value)) if float(value).is_integer() else str(value)
    page = (st.context.url or "").split("?")[0]  # the browser's address (None when a client sends none)
    return f"{page}?{urlencode(params)}"


def qr_svg(link: str) -> str:
    """The link's QR code as an SVG document (segno, offline; a white quiet zone, so it scans on a dark theme too)."""
    return segno.make(link, error="m").svg_inline(scale=8, light="#fff")


def _teacher_panel(code: str) -> None:
    link = join_link(code)
    with st.expander(t("classroom.panel_title", code=code), expanded=True, icon=":material/groups:"):
        qr, words = st.columns([1, 3], vertical_alignment="center")
        qr.image(qr_svg(link), caption=t("classroom.qr_label"), width="stretch")
        words.markdown(t("classroom.join_with_code"))
        words.html(f'<div class="class-code" data-testid="class-code">{code}</div>')
        words.markdown(t("classroom.join_with_link"))
        words.code(link, language=None, wrap_lines=True)
        words.button(t("classroom.end"), key="class_end", icon=":material/logout:", on_click=_end,
                     help=t("classroom.end_help"))  # fmt: skip
    from ui.follow import modes_line  # ui.follow imports this module

    modes_line()


# a checkpoint answered as a class --------------------------------------------------------------------------------
def class_checkpoint(
    key: str,
    question: str,
    choices: Mapping[object, str],
    correct: object,
    verdict: Callable[[dict], None],
    explain_right: str,
    answered: Callable[[], None],
) -> None:
    """A checkpoint in a class. ``verdict(result)`` draws the usual right/wrong/revealed answer and ``answered()``
    counts the checkpoint in the sidebar (both ui.checkpoint's)."""
    asked = question_id(choices, correct)
    if teaching():
        _open_question(key, choices, correct, asked)
        _teacher_checkpoint(key, question, choices, correct, asked, explain_right)
    else:
        _student_checkpoint(key, question, choices, correct, asked, verdict, answered)


def _open_question(key: str, choices: Mapping, correct: object, asked: str) -> None:
    """Make the question on the teacher's screen the class's question (once per session and question)."""
    opened = st.session_state.setdefault(_ASKED, set())
    if (key, asked) in opened:
        return
    settings = {
        name: st.session_state[f"shared_{name}"] for name in SHARED_NAMES if f"shared_{name}" in st.session_state
    }
    outcome = classroom().ask(class_code(), st.session_state.get(SECRET), key, list(choices), correct, settings)
    if outcome.ok:
        opened.add((key, asked))
    else:
        st.warning(t(outcome.message), icon=":material/error:")


def _teacher_checkpoint(key, question, choices, correct, asked, explain_right) -> None:
    """The question and its choices; the teacher's buttons (a fragment of their own, so a poll never reruns a
    button under the teacher's finger); the count and chart, polled every second."""
    with st.container(border=True, key=f"{key}_box"):
        st.markdown(f"**{t('checkpoint.predict')}** {question}")
        st.markdown("\n".join(f"- {words}" for words in choices.values()))
        _teacher_controls(key, asked)
        _teacher_board(key, choices, correct, asked, explain_right)


@st.fragment
def _teacher_controls(key: str, asked: str) -> None:
    poll: Poll | None = classroom().poll(class_code(), key, asked).value
    toggle, reveal, again = st.columns([3, 2, 2], vertical_alignment="center")
    toggle.toggle(t("classroom.show_chart"), key=f"{key}_class_chart", help=t("classroom.show_chart_help"),
                  on_change=_focus, args=(key,))  # fmt: skip
    closed = poll is None or poll.revealed
    reveal.button(t("classroom.reveal"), key=f"{key}_class_reveal", icon=":material/visibility:", type="primary",
                  on_click=_teacher_action, args=("reveal", key, asked), disabled=closed)  # fmt: skip
    again.button(t("classroom.poll_again"), key=f"{key}_class_again", icon=":material/replay:",
                 on_click=_teacher_action, args=("poll_again", key, asked, poll.round if poll else None),
                 help=t("classroom.poll_again_help"),
                 disabled=poll is None or poll.round >= MAX_ROUNDS)  # fmt: skip
    message = st.session_state.pop(f"{key}_class_message", None)
    if message:
        st.warning(t(message), icon=":material/error:")


@st.fragment(run_every=TEACHER_POLL_S)
def _teacher_board(key, choices, correct, asked, explain_right) -> None:
    outcome = classroom().poll(class_code(), key, asked)
    poll: Poll | None = outcome.value
    if poll is None:
        st.warning(t(outcome.message or "classroom.err_no_question"), icon=":material/error:")
        return
    st.metric(t("classroom.answered_label", round=poll.round), poll.answered(), border=True)
    if st.session_state.get(f"{key}_class_chart") or poll.revealed:
        _bars(poll, choices, correct if poll.revealed else None)
    if poll.revealed:
        answer = t("checkpoint.revealed", answer=choices[correct])
        st.info(sentences(answer, explain_right), icon=":material/visibility:")


def _teacher_action(action: str, key: str, asked: str, *seen: int | None) -> None:
    outcome = getattr(classroom(), action)(class_code(), st.session_state.get(SECRET), key, asked, *seen)
    if not outcome.ok:
        st.session_state[f"{key}_class_message"] = outcome.message
    _focus(key)


def _focus(key: str) -> None:
    """The teacher acted on checkpoint ``key``: a following class brings it into view (ui/follow.py)."""
    from ui.follow import focus_on

    focus_on(key)


def _bars(poll: Poll, choices: Mapping, correct: object | None) -> None:
    """The answers of every round so far, side by side under each choice (a bar per round), as plain HTML: cheap to
    send every second. The right choice is marked only once revealed."""
    rounds = range(1, poll.round + 1)
    most = max([1, *(n for counts in poll.counts.values() for n in counts.values())])
    rows = []
    for value, words in choices.items():
        mark = " ✓" if correct is not None and value == correct else ""
        counts = [poll.counts.get(r, {}).get(choice_text(value), 0) for r in rounds]
        bars = "".join(f'<div class="bar r{r}"><i style="width:{80 * n / most:.1f}%"></i><b>{n}</b></div>'
                       for r, n in zip(rounds, counts, strict=True))  # fmt: skip
        rows.append(f'<div class="choice">{html.escape(words)}{mark}</div><div>{bars}</div>')
    legend = "".join(
        f'<i style="background:{ROUND_COLORS[r - 1]}"></i>{html.escape(t("classroom.round", round=r))} '
        f"({poll.answered(r)})"
        for r in rounds
    )
    label = html.escape(t("classroom.chart_label"))
    st.html(f'<div class="class-bars" role="img" aria-label="{label}">{"".join(rows)}</div>'
            f'<div class="class-legend">{legend}</div>')  # fmt: skip


def _student_checkpoint(key, question, choices, correct, asked, verdict, answered) -> None:
    """The question; the choices and "Send" (a fragment of their own: a poll never reruns them under the
    student's finger); what the class has done, polled every 1.5 s (the count, then the reveal)."""
    with st.container(border=True, key=f"{key}_box"):
        st.markdown(f"**{t('checkpoint.predict')}** {question}")
        _student_inputs(key, choices, asked, answered)
        _student_board(key, choices, correct, asked, verdict)


@st.fragment
def _student_inputs(key, choices, asked, answered) -> None:
    st.radio(t("checkpoint.your_answer"), list(choices), index=None, format_func=lambda v: choices[v],
             key=f"{key}_choice", label_visibility="collapsed")  # fmt: skip
    st.button(t("classroom.send"), key=f"{key}_send", on_click=_send, args=(key, asked, answered), type="primary")
    if _waiting_for(f"send {key}"):
        st.caption(t("classroom.connecting"))
    sent = st.session_state.pop(f"{key}_class_sent", None)
    if sent:
        st.success(t(sent), icon=":material/how_to_vote:")
    message = st.session_state.pop(f"{key}_class_message", None)
    if message:
        st.warning(t(message), icon=":material/error:")


@st.fragment
def _student_board(key, choices, correct, asked, verdict) -> None:
    """What the class has done; rerun by the browser when the server's print of it changed (its element)."""
    if st.session_state.pop(_RERUN_PAGE, False):
        st.rerun(scope="app")  # the class's settings were taken: the whole page follows them
    code = class_code()
    outcome = classroom().poll(code, key, asked)
    poll: Poll | None = outcome.value
    if poll is None:
        shown = _no_question(key, code, outcome.message)
        _watch(code, key, asked, shown)
        return
    _watch(code, key, asked, board_print(poll))
    mine = st.session_state.get(f"{key}_class")
    if mine is not None and mine.get("asked") != asked:
        mine = None
    if poll.revealed:
        chosen = mine["chosen"] if mine and mine.get("round") == poll.round else None
        verdict({"asked": "", "chosen": chosen, "revealed": chosen is None})
        _bars(poll, choices, correct)
    elif mine and mine.get("round") == poll.round:
        st.caption(t("classroom.sent", round=poll.round, answered=poll.answered()))
    elif mine:
        st.info(t("classroom.answer_again", round=poll.round), icon=":material/forum:")
    else:
        st.caption(t("classroom.waiting", answered=poll.answered()))


def _no_question(key: str, code: str | None, message: str) -> str:
    """The teacher has not asked this question, or asked it with other settings (then offer the class's), or the
    class is over. Returns the board's print (as class/state gives it: "over" for a class that is over)."""
    current = classroom().current(code, key).value if code else None
    if current is not None:
        settings = " · ".join(f"{t(f'shared.{name}_label')} = {value:g}" for name, value in current.settings.items())
        st.info(t("classroom.other_settings", settings=settings), icon=":material/tune:")
        st.button(t("classroom.use_class_settings"), key=f"{key}_class_settings", on_click=_use_settings,
                  args=(current.settings,))  # fmt: skip
        return board_print(None, current)
    if code and classroom().join(code).ok:
        st.caption(t("classroom.not_asked_yet"))
        return board_print(None, None)
    st.info(t(message or "classroom.class_over"), icon=":material/groups:")
    return "over"


def _watch(code: str | None, key: str, asked: str, shown: str) -> None:
    """The board's element: what the board shows (its print), for the browser to compare with class/state's."""
    if code:
        board = {"code": code, "cp": f"{key}.{asked}", "shown": shown}
        _BOARD(data=component_data(board), key=f"{key}_watch", on_poll_change=_ignore)


def _use_settings(settings: dict) -> None:
    values, _ = parse_shared_params({name: [str(value)] for name, value in settings.items() if name in SHARED_NAMES})
    for name, value in values.items():
        st.session_state[f"shared_{name}"] = value
    st.session_state[_RERUN_PAGE] = True


def _send(key: str, asked: str, answered: Callable[[], None]) -> None:
    chosen = st.session_state.get(f"{key}_choice")
    if chosen is None:
        st.session_state[f"{key}_class_message"] = "classroom.pick_first"
        return
    if _when_browser_known(f"send {key}", _send, key, asked, answered):
        return
    outcome = classroom().answer(class_code(), key, asked, st.session_state.get(BROWSER), choice_text(chosen))
    if outcome.ok:
        st.session_state[f"{key}_class"] = {"asked": asked, "round": outcome.value, "chosen": chosen}
        st.session_state[f"{key}_class_sent"] = outcome.message
        answered()
    else:
        st.session_state[f"{key}_class_message"] = outcome.message
