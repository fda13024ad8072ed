"""Streamlit's own protocol, as the browser speaks it (streamlit 1.67, starlette server).

A browser first loads the page (``GET /``, keeping whatever cookies come back, e.g. a load balancer's route cookie).
Before every websocket connect, the first and each reconnect, the frontend pings ``/_stcore/health`` and
``/_stcore/host-config`` together; the health answer (re)sets the ``_streamlit_xsrf`` cookie. It then opens
``ws://host/_stcore/stream`` with its cookies and the subprotocol header ``streamlit, <xsrf cookie value>`` (plus
the session id to resume, on a reconnect), sends binary ``BackMsg`` protobufs and receives one binary
``ForwardMsg`` per frame. A rerun is ``BackMsg.rerun_script`` with a ``ClientState``: the page's script hash, the
widget values that changed (``WidgetState`` by element id; a slider's value is ``double_array_value``) and, for a
widget inside an ``st.fragment``, that fragment's id. The run starts with ``ForwardMsg.new_session`` (which names
the session) and ends with ``ForwardMsg.script_finished``. Element ids and fragment ids come from the ``delta``
messages. Letting go of a live chart's slider (``ui.live``) is a trigger of its ``components.v2`` element:
``WidgetState.json_trigger_value`` under the id ``$$STREAMLIT_INTERNAL_KEY_<element id>__events``, a JSON list of
``{"event": "settled", "value": {control: value}}``. A release that moves a shared control from inside a fragment
ends that fragment's run early (``FINISHED_EARLY_FOR_RERUN``) and the whole page runs again; the rerun is timed to
the end of that second run.

Like the browser, a client keeps the large element messages it was sent (Streamlit marks those of ≥ 10 kB
``cacheable``) for as many runs as the server's ``maxCachedMessageAge`` says, and lists their hashes in every
rerun request (``ClientState.cached_message_hashes``); the server then sends an element that did not change as a
reference (``ForwardMsg.ref_hash``) instead of its bytes, so the bytes counted are those a browser receives.

The HTTP requests are a minimal HTTP/1.1 GET over ``asyncio.open_connection`` so that a hundred simulated students
share one event loop without blocking it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import random
import time
from dataclasses import dataclass, field

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.Slider_pb2 import Slider

from ui.component_data import sent_data, unpacked

SIDEBAR = 1  # the root container of an element, first in its delta path: 0 the main area, 1 the sidebar
SECTION = "-section-"  # in the id of a section's container (ui.sections keys it section-<key>)
FINISHED_OK = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}


@dataclass
class SliderInfo:
    """What the client needs to move a slider: its element id, range, step, and the fragment it lives in."""

    element_id: str
    minimum: float
    maximum: float
    step: float
    is_int: bool
    fragment_id: str
    shared: bool = False  # in the sidebar: one of the shared controls (dim, length, base, heads)
    options: tuple[str, ...] = ()  # a select slider's option labels (its value is sent as one of them)

    def random_value(self, rng: random.Random) -> float:
        steps = round((self.maximum - self.minimum) / self.step) if self.step else 0
        value = self.minimum + self.step * rng.randint(0, max(steps, 0))
        return float(int(value)) if self.is_int else value


@dataclass
class LiveInfo:
    """A browser element whose sliders the server hears of only on release: a live chart (``ui.live.live_chart``,
    the trigger ``settled``) or the sidebar's shared controls (``ui.shared``, the trigger ``commit``). Its element id,
    fragment, and its sliders' grids (or ranges) and server values."""

    element_id: str
    fragment_id: str
    controls: dict
    server: dict
    event: str = "settled"
    stale: tuple[str, ...] = ()  # the sidebar's: sections a commit left stale out of sight (ui.sections)
    shared: tuple[str, ...] = ()  # a live chart's: its sliders that are shared controls (ui.live: ``shared``)
    tab: str = ""  # the sidebar's: the token its commits over HTTP name (ui.commit_http)

    @property
    def trigger_id(self) -> str:
        return f"$$STREAMLIT_INTERNAL_KEY_{self.element_id}__events"

    def random_release(self, rng: random.Random) -> tuple[str, str]:
        """One slider let go at a random value of its grid: (name, the trigger's JSON) as the browser sends it."""
        name = rng.choice(list(self.controls))
        return name, self.release(name, rng)

    def release(self, name: str, rng: random.Random, near: list[str] | None = None) -> str:
        """Slider ``name`` let go at a random value of its grid: the trigger's JSON, as the browser sends it."""
        return self.payload({name: self.random_value(name, rng)}, near)

    def random_value(self, name: str, rng: random.Random) -> float:
        """A random value of slider ``name``'s grid (or range)."""
        spec = self.controls[name]
        if "values" in spec:
            return rng.choice(spec["values"])
        return rng.randrange(spec["min"], spec["max"] + 1, spec.get("step", 1))

    def payload(self, moved: dict, near: list[str] | None = None) -> str:
        """The trigger's JSON of letting go with ``moved`` (name -> value) and the others where the server drew them;
        ``near``: the sections the browser names as near its viewport (static/sections.js), None: it names none."""
        values = self.server | moved
        value = {"values": values, "seq": 1} if self.event == "commit" else values
        if near is not None:
            value = value | {"near": near}
        return json.dumps([{"event": self.event, "value": value}])

    def refresh(self, keys: list[str]) -> str:
        """The sidebar's trigger asking for stale sections that came near the viewport."""
        return json.dumps([{"event": "refresh", "value": keys}])


@dataclass
class RunResult:
    """One rerun as the client saw it: seconds from request to ``script_finished``, and what went wrong."""

    seconds: float
    errors: list[str] = field(default_factory=list)
    sliders: dict[str, SliderInfo] = field(default_factory=dict)  # by element id
    lives: dict[str, LiveInfo] = field(default_factory=dict)  # live charts, by element id
    pages: dict[str, str] = field(default_factory=dict)  # url path name -> page script hash
    payload_bytes: int = 0
    session_id: str = ""  # the server's id of the session this run belonged to
    fragment_run: bool = False  # only fragments ran (a keyed rerun), not the page
    drawn: list[tuple[str, bytes]] = field(default_factory=list)  # (fragment id or "", the element) of each element
    sections: dict[str, str] = field(default_factory=dict)  # key -> fragment id of each section drawn (ui.sections)
    over_http: bool = False  # a commit over HTTP (ui.commit_http): no script ran


XSRF_COOKIE = "_streamlit_xsrf"
NO_XSRF_TOKEN = "PLACEHOLDER_AUTH_TOKEN"  # what the frontend sends in the token's place when it has no XSRF cookie
MAX_HTTP_RESPONSE = 4 * 1024 * 1024


class HttpError(OSError):
    """An HTTP answer a browser could not go on with (e.g. 502 from the proxy while no replica is up)."""


@dataclass
class HttpResponse:
    status: int
    headers: list[tuple[str, str]]  # (lower-case name, value), in order, repeated headers kept
    body: bytes  # as sent (not de-chunked)

    def header_values(self, name: str) -> list[str]:
        return [value for key, value in self.headers if key == name.lower()]


def cookies_set_by(response: HttpResponse) -> dict[str, str]:
    """``name -> value`` of the response's ``Set-Cookie`` headers (attributes such as Path are not kept)."""
    cookies = {}
    for header in response.header_values("set-cookie"):
        name, _, value = header.split(";", 1)[0].strip().partition("=")
        if name:
            cookies[name] = value
    return cookies


async def http_get(
    port: int, path: str, headers: dict[str, str] | None = None, timeout: float = 30.0, host_name: str = "127.0.0.1"
) -> HttpResponse:
    """One ``GET path`` to 127.0.0.1:``port`` over a new connection (``Connection: close``), read to the end, without
    blocking the loop. ``host_name`` is the name the browser asked for, sent as the ``Host`` header."""
    return await http_request(port, "GET", path, headers, None, timeout, host_name)


async def http_request(
    port: int,
    method: str,
    path: str,
    headers: dict[str, str] | None = None,
    body: bytes | None = None,
    timeout: float = 30.0,
    host_name: str = "127.0.0.1",
) -> HttpResponse:
    """One ``method path`` (with ``body``, if any) as :func:`http_get` sends it."""

    async def exchange() -> bytes:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            lines = [f"{method} {path} HTTP/1.1", f"Host: {host_name}:{port}", "Connection: close"]
            lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
            if body is not None:
                lines.append(f"Content-Length: {len(body)}")
            writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b""))
            await writer.drain()
            data = b""
            while chunk := await reader.read(65536):
                data += chunk
                if len(data) > MAX_HTTP_RESPONSE:
                    raise HttpError(f"{method} {path}: more than {MAX_HTTP_RESPONSE} bytes")
            return data
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    raw = await asyncio.wait_for(exchange(), timeout)
    head, _, body = raw.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    parts = status_line.split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
        raise HttpError(f"{method} {path}: not an HTTP answer: {status_line[:80]!r}")
    pairs = []
    for line in header_lines:
        name, _, value = line.partition(":")
        pairs.append((name.strip().lower(), value.strip()))
    return HttpResponse(status=int(parts[1]), headers=pairs, body=body)


class StreamlitClient:
    """One browser tab: ``await client.open_page()``, ``await client.connect()``, then
    ``await client.rerun(page_hash, {id: value}, fragment)``; ``await client.reconnect()`` drops the websocket and
    opens a new one as the frontend does (health ping first, then resume the session by its id).

    Cookies are kept per client, as one browser keeps them: every HTTP request and the websocket send them back.
    ``name`` goes out as the User-Agent, so a proxy's access log can tell the simulated browsers apart.
    Everything connects to 127.0.0.1:``port``; ``host_name`` is the server's name as the students typed it, sent in
    the ``Host`` and ``Origin`` headers (Streamlit accepts a websocket whose Origin matches its Host, or whose
    Origin is a local address such as 127.0.0.1, so a public name is the stricter check of a proxy).
    """

    def __init__(self, port: int, timeout: float = 30.0, name: str = "bench-student", host_name: str = "127.0.0.1"):
        self.port = port
        self.timeout = timeout
        self.name = name
        self.host_name = host_name
        self.cookies: dict[str, str] = {}
        self.session_id = ""  # from the last new_session message: what a reconnect asks to resume
        self.socket = None
        self.messages = MessageCache()  # the browser's cache of large messages (frontend's ForwardMsgCache)
        self.held: dict[str, dict] = {}  # live chart element id -> the data it was last sent whole (static/live.js)
        self.query_string = ""  # the address bar's query, as the server last set it: sent with every rerun
        # section -> the values whose commit reruns a fragment of it, as the last commit over HTTP answered
        self.rerun_for: dict[str, list[str]] = {}

    def reruns_fragment(self, held: dict, values: dict, near: list[str] | None) -> bool:
        """Whether a commit of ``values`` over ``held`` reruns a fragment of a section ``near`` (None: any), as
        static/shared_controls.js decides between HTTP and the trigger (ui.sections.reruns_for)."""
        changed = {name for name, value in values.items() if held.get(name) != value}
        keys = self.rerun_for if near is None else near
        return any(changed & set(self.rerun_for.get(key, ())) for key in keys)

    @property
    def origin(self) -> str:
        return f"http://{self.host_name}:{self.port}"

    def _headers(self) -> dict[str, str]:
        headers = {"User-Agent": self.name}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
        return headers

    async def get(self, path: str) -> HttpResponse:
        """GET ``path`` with this browser's cookies; keep the cookies the answer sets; fail unless it is a 200."""
        response = await http_get(self.port, path, self._headers(), self.timeout, self.host_name)
        self.cookies.update(cookies_set_by(response))
        if response.status != 200:
            raise HttpError(f"GET {path} answered {response.status}")
        return response

    async def open_page(self) -> HttpResponse:
        """Load the app's HTML page, as a browser does before any websocket."""
        return await self.get("/")

    async def connect(self, resume: bool = False) -> None:
        """Ping health and host-config (together, as the frontend does), then open the websocket with the
        cookies and the XSRF token; ``resume``: also ask for the last session back (a reconnect)."""
        await asyncio.gather(self.get("/_stcore/health"), self.get("/_stcore/host-config"))
        subprotocols = ["streamlit", self.cookies.get(XSRF_COOKIE) or NO_XSRF_TOKEN]
        if resume and self.session_id:
            subprotocols.append(self.session_id)
        self.socket = await websockets.connect(
            f"ws://{self.host_name}:{self.port}/_stcore/stream",
            host="127.0.0.1",  # where to connect; the URL's name goes into the Host header
            subprotocols=subprotocols,
            origin=self.origin,
            additional_headers={"Cookie": self._headers()["Cookie"]} if self.cookies else None,
            user_agent_header=self.name,
            max_size=None,
            open_timeout=self.timeout,
            proxy=None,
        )

    async def reconnect(self) -> None:
        """Drop the websocket and connect again, resuming the session (a network blip, a laptop lid)."""
        await self.close()
        await self.connect(resume=True)

    async def close(self) -> None:
        if self.socket is not None:
            await self.socket.close()
            self.socket = None

    async def release(self, page_hash: str, widgets: dict, sender: LiveInfo, payload: str) -> RunResult:
        """Let go of a slider as the browser does: a sidebar commit over HTTP (``POST shared/commit``,
        ui.commit_http) unless a near section reruns a fragment for what changed, through the element's trigger (a
        rerun) then or when the server answers otherwise; a live chart's release, through its trigger."""
        sent = json.loads(payload)[0]["value"]
        over_http = sender.event == "commit" and sender.tab
        if over_http and not self.reruns_fragment(sender.server, sent["values"], sent.get("near")):
            return await self._over_http(page_hash, widgets, sender, sent, payload)
        return await self.rerun(page_hash, widgets, sender.fragment_id, {sender.trigger_id: payload})

    async def ask_for(self, page_hash: str, sidebar: LiveInfo, keys: list[str]) -> RunResult:
        """Ask for stale sections that came near the viewport as the browser does: over HTTP unless one reruns a
        fragment (:attr:`rerun_for`), through the sidebar's trigger ``refresh`` then or when the server says so."""
        if sidebar.tab and not any(self.rerun_for.get(key) for key in keys):
            return await self._over_http(page_hash, {}, sidebar, {"refresh": keys}, sidebar.refresh(keys))
        return await self.rerun(page_hash, {}, sidebar.fragment_id, {sidebar.trigger_id: sidebar.refresh(keys)})

    async def _over_http(self, page_hash: str, widgets: dict, sender: LiveInfo, sent: dict, payload: str):
        """``sent`` to ``POST shared/commit``; what it answered, as a run's result, or the trigger's rerun with
        ``payload`` when it answered "on the page"."""
        body = json.dumps({"tab": sender.tab, **sent}).encode()
        headers = self._headers() | {"Content-Type": "application/json"}
        start = time.perf_counter()
        response = await http_request(self.port, "POST", "/shared/commit", headers, body, self.timeout,
                                      self.host_name)  # fmt: skip
        self.cookies.update(cookies_set_by(response))
        json_answer = any(value.startswith("application/json") for value in response.header_values("content-type"))
        if response.status == 200 and not json_answer:
            data = unpacked(response.body)
            self.rerun_for = data.get("rerun_for", self.rerun_for)
            stale = tuple(key for key in data.get("stale", ()) if isinstance(key, str))
            committed = dataclasses.replace(sender, server=dict(data["values"]), stale=stale)
            return RunResult(seconds=time.perf_counter() - start, lives={sender.element_id: committed},
                             payload_bytes=len(response.body), fragment_run=True, over_http=True)  # fmt: skip
        if response.status == 200:  # {"commit": "on the page", "rerun_for": …}
            self.rerun_for = json.loads(response.body).get("rerun_for", self.rerun_for)
        result = await self.rerun(page_hash, widgets, sender.fragment_id, {sender.trigger_id: payload})
        result.seconds = time.perf_counter() - start  # the answer "on the page" came first
        result.payload_bytes += len(response.body)
        return result

    async def rerun(
        self, page_hash: str = "", widgets: dict | None = None, fragment_id: str = "", triggers: dict | None = None
    ) -> RunResult:
        """Send rerun_script and read ForwardMsgs until script_finished (or the timeout); time the round trip.
        ``triggers``: JSON trigger values by widget id (a live chart's release, :meth:`LiveInfo.random_release`)."""
        message = BackMsg()
        state = message.rerun_script
        state.page_script_hash = page_hash
        state.fragment_id = fragment_id
        state.query_string = self.query_string  # as the frontend sends its address bar's, which the server set
        state.cached_message_hashes.extend(self.messages.hashes())
        for element_id, value in (widgets or {}).items():
            widget = state.widget_states.widgets.add()
            widget.id = element_id
            if isinstance(value, str):  # a select slider: its option's label
                widget.string_array_value.data.append(value)
            else:
                widget.double_array_value.data.append(value)
        for widget_id, payload in (triggers or {}).items():
            widget = state.widget_states.widgets.add()
            widget.id = widget_id
            widget.json_trigger_value = payload
        start = time.perf_counter()
        await self.socket.send(message.SerializeToString())
        result = RunResult(seconds=float("nan"))
        deadline = start + self.timeout
        while True:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                result.errors.append("timeout")
                return result
            try:
                frame = await _receive(self.socket, remaining)
            except TimeoutError:
                result.errors.append(f"timeout: no script_finished within {self.timeout:.0f} s")
                return result
            result.payload_bytes += len(frame)
            forward = ForwardMsg.FromString(frame)
            kind = forward.WhichOneof("type")
            if kind == "ref_hash":  # an element the browser has: it draws it from its cache, where the ref says
                cached = self.messages.take(forward.ref_hash)
                if cached is None:
                    result.errors.append("a reference to a message this client never had")
                    continue
                cached.metadata.CopyFrom(forward.metadata)
                forward, kind = cached, cached.WhichOneof("type")
            elif forward.metadata.cacheable and forward.hash:
                self.messages.keep(forward)
            if kind == "new_session":
                result.session_id = self.session_id = forward.new_session.initialize.session_id
                self.messages.max_age = forward.new_session.config.max_cached_message_age
            elif kind == "page_info_changed":  # st.query_params set: the frontend writes it to the address bar
                self.query_string = forward.page_info_changed.query_string
            elif kind == "navigation":  # st.navigation lists the pages of the app
                result.pages = {page.url_pathname: page.page_script_hash for page in forward.navigation.app_pages}
            elif kind == "delta":
                if forward.delta.WhichOneof("type") == "add_block" and SECTION in forward.delta.add_block.id:
                    key = forward.delta.add_block.id.split(SECTION, 1)[1]
                    result.sections[key] = forward.delta.fragment_id
                if forward.delta.WhichOneof("type") == "new_element":
                    result.drawn.append((forward.delta.fragment_id, forward.delta.new_element.SerializeToString()))
                _read_delta(forward, result, self.held)
            elif kind == "script_finished" and forward.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                continue  # a fragment asked for the whole page (st.rerun(scope="app")): its run follows
            elif kind == "script_finished":
                result.seconds = time.perf_counter() - start
                result.fragment_run = forward.script_finished == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY
                self.messages.run_finished()
                if forward.script_finished not in FINISHED_OK:
                    result.errors.append(ForwardMsg.ScriptFinishedStatus.Name(forward.script_finished))
                return result


class MessageCache:
    """The browser's cache of large messages (Streamlit's frontend ``ForwardMsgCache``): a message is kept by its
    hash, and dropped once more than ``max_age`` runs have finished since it was last sent or referred to."""

    def __init__(self, max_age: int = 2):
        self.max_age = max_age
        self.runs = 0
        self.kept: dict[str, tuple[int, ForwardMsg]] = {}  # hash -> (the run it was last used in, the message)

    def hashes(self) -> list[str]:
        return list(self.kept)

    def keep(self, message: ForwardMsg) -> None:
        self.kept[message.hash] = (self.runs, message)

    def take(self, message_hash: str) -> ForwardMsg | None:
        """The message a reference names (its age starts again), or None when it is not here."""
        if message_hash not in self.kept:
            return None
        message = self.kept[message_hash][1]
        self.kept[message_hash] = (self.runs, message)
        copy = ForwardMsg()
        copy.CopyFrom(message)
        return copy

    def run_finished(self) -> None:
        self.runs += 1
        self.kept = {key: (run, m) for key, (run, m) in self.kept.items() if self.runs - run <= self.max_age}


async def _receive(socket, timeout: float) -> bytes:
    frame = await asyncio.wait_for(socket.recv(), timeout)
    return frame if isinstance(frame, bytes) else frame.encode()


def whole_data(element_id: str, data, held: dict):
    """An element's data as the browser holds it (static/packed.js ``whole``): data sent whole (``data_id``) is kept
    in ``held`` (element id -> data); data sent in part (``kept``) is merged over it. None when the part it kept was
    never sent to this client."""
    if isinstance(data, dict) and "data_id" in data:
        held[element_id] = data
    elif isinstance(data, dict) and "kept" in data:
        if held.get(element_id, {}).get("data_id") != data["kept"]:
            return None
        return held[element_id] | data
    return data


def _read_delta(forward: ForwardMsg, result: RunResult, held: dict | None = None) -> None:
    """What a new element tells the client: an exception, a live chart's or the sidebar's sliders, a slider. A live
    chart or the sidebar sent only where its sliders stand (``kept``: ui/component_data.py kept_parts) is read with
    the rest its element was sent before (``held``: element id -> that data), as static/packed.js keeps it."""
    held = {} if held is None else held
    delta = forward.delta
    if delta.WhichOneof("type") != "new_element":
        return
    element = delta.new_element
    kind = element.WhichOneof("type")
    if kind == "exception":
        result.errors.append(f"exception: {element.exception.type}: {element.exception.message[:200]}")
    elif kind == "bidi_component" and element.bidi_component.WhichOneof("data") is not None:
        element_id = element.bidi_component.id
        data = whole_data(element_id, sent_data(element.bidi_component), held)
        if data is None:
            result.errors.append(f"{element_id}: kept a part this client was never sent")
            return
        if "controls" in data and "server" in data:
            shared = tuple(name for name in data.get("shared") or () if isinstance(name, str))
            result.lives[element_id] = LiveInfo(element_id, delta.fragment_id, data["controls"], data["server"],
                                                shared=shared)  # fmt: skip
        elif isinstance(data.get("controls"), list) and "seq" in data:  # the sidebar's shared controls
            ranges = ("values", "min", "max", "step")
            controls = {c["name"]: {k: c[k] for k in ranges if k in c} for c in data["controls"]}
            server = dict(data["values"])
            stale = tuple(key for key in data.get("stale", ()) if isinstance(key, str))
            tab = data.get("tab") if isinstance(data.get("tab"), str) else ""
            result.lives[element_id] = LiveInfo(element_id, delta.fragment_id, controls, server, "commit", stale,
                                                tab=tab)  # fmt: skip
    elif kind == "slider" and not element.slider.disabled:
        slider = element.slider
        if slider.type != Slider.SLIDER and not (slider.type == Slider.SELECT_SLIDER and slider.options):
            return
        result.sliders[slider.id] = SliderInfo(
            element_id=slider.id,
            minimum=slider.min,
            maximum=slider.max,
            step=slider.step,
            is_int=slider.data_type == Slider.INT,
            fragment_id=delta.fragment_id,
            shared=forward.metadata.delta_path[:1] == [SIDEBAR],
            options=tuple(slider.options) if slider.type == Slider.SELECT_SLIDER else (),
        )
