// Class mode's one poller per tab: what changed in the class, asked of the server with one small HTTP request every
// POLL_MS, so a student's page reruns a fragment only when something it shows changed (no script run per poll).
//
//   GET  class/state?code=…&cp=<checkpoint>[.<asked>],…   (ui/class_http.py) every POLL_MS while anything watches:
//        {view, page, settings, checkpoint?, boards: {checkpoint: print}, start} or {over: true}
//        `start` is the replica's id (one per server process): when it changes, the replica restarted and Streamlit's
//        reconnect gave this tab a fresh session that has not run the page, so no fragment can rerun there; the tab
//        asks Streamlit for a full run of the page it shows (restartAnswered), without a reload while it can
//   POST class/beat {code, browser, mode}                  every BEAT_MS while the follow element asks for it
//
// Watchers are the follow element (static/follow.js) and each class checkpoint's board element (renderBoard below):
// one fetch per tab whatever their number. Every module imports this file as "./class_poll.js?v=<release>" (the
// version of its own URL), so the tab has one instance; ui/classroom.py's loader imports it with the release's too.

export const POLL_MS = 500;
export const BEAT_MS = 2000;
export const BOARD_GAP_MS = 1500; // a board is rerun at most this often
const GIVE_UP_MS = 5000; // a request that has not answered by then is dropped: the next one goes out on time
export const RERUN_AGAIN_MS = 3000; // a full run asked for after a restart is asked again after this long …
export const RERUN_TRIES = 5; // … this many times at most (the websocket may still be reconnecting), then a reload

const watchers = new Map(); // key -> {code, cp, onState}
let pollTimer = null;
let beat = null; // {code, browser, mode}: what the heartbeat says
let beatTimer = null;
const restart = { start: null, pending: false, asked: 0, tries: 0 }; // restartAnswered's state

/** The folder the page lives in ("/" or "/lab/"): the routes are beside the pages. */
export function folder(location) {
  return location.origin + location.pathname.replace(/[^/]*$/, "");
}

/** The state request's address for the watchers' code and checkpoints (each checkpoint once, in order). */
export function stateAddress(base, list) {
  const code = list.find((w) => w.code)?.code;
  if (!code) return null;
  const cps = [...new Set(list.filter((w) => w.code === code && w.cp).map((w) => w.cp))];
  const query = new URLSearchParams({ code });
  if (cps.length) query.set("cp", cps.join(","));
  return `${base}class/state?${query}`;
}

/** Call `onState(answer)` after every poll; returns the function that stops it (and only this one: a newer watch
 * under the same key is left alone). */
export function watch(key, code, cp, onState) {
  const entry = { code, cp, onState };
  if (restart.pending && restart.tries > 0) restart.pending = false; // a script run drew it: the page ran again
  watchers.set(key, entry);
  if (!pollTimer) pollTimer = setTimeout(poll, POLL_MS * Math.random());
  return () => {
    if (watchers.get(key) === entry) watchers.delete(key);
  };
}

async function poll() {
  pollTimer = null;
  const address = stateAddress(folder(window.location), [...watchers.values()]);
  if (!address) return; // nothing watches: no more polls until something does
  try {
    const response = await fetch(address, { credentials: "same-origin", cache: "no-store", signal: giveUp() });
    if (response.ok) {
      const answer = await response.json();
      const action = restartAnswered(restart, answer, Date.now());
      if (action === "rerun") rerunPage();
      else if (action === "reload") window.location.reload();
      else tell(answer);
    }
  } catch (error) {
    // offline or a replica restarting: try again at the next poll
  }
  if (watchers.size && !pollTimer) pollTimer = setTimeout(poll, POLL_MS);
}

/** What a state answer asks of the tab about restarts: "rerun" (the page, through Streamlit), "reload" (reruns
 * asked RERUN_TRIES times have not run it), or null (go on: tell the watchers). `state` ({start, pending, asked,
 * tries}) is kept up to date: the first answer's start is only noted; a different one makes the rerun pending until
 * a watcher is drawn again (watch() clears it). Edge-triggered: each replica change asks once, so a tab whose
 * answers come from one replica (nginx's route cookie pins it) is never rerun twice for one restart. */
export function restartAnswered(state, answer, now) {
  if (typeof answer.start === "string" && answer.start !== state.start) {
    const first = state.start === null;
    state.start = answer.start;
    if (!first) Object.assign(state, { pending: true, asked: 0, tries: 0 });
  }
  if (!state.pending || now - state.asked < RERUN_AGAIN_MS) return state.pending ? "wait" : null;
  state.asked = now;
  state.tries += 1;
  return state.tries > RERUN_TRIES ? "reload" : "rerun";
}

/** Ask Streamlit for a full run of the page this tab shows (after a restart; static/follow.js, after asks for the
 * follow line's rerun that went unanswered), as its router does on Back or Forward: the same
 * address announced with a popstate event (static/follow.js's goTo pushes another page's); nothing is added to the
 * history. */
export function rerunPage() {
  window.history.replaceState(window.history.state, "", window.location.href);
  window.dispatchEvent(new PopStateEvent("popstate"));
}

/** Give the answer to the watchers, the follow line first, until one reruns its fragment (its onState returns
 * true): the others wait for the next poll. Following the teacher's view redraws most boards anyway, and Streamlit
 * drops a trigger sent in one batch with another fragment's (ui/classroom.py's identity element says more), so a
 * tab sends at most one per poll; a board whose print still differs reruns at the next. */
function tell(answer) {
  const ordered = [...watchers.entries()].sort(([a], [b]) => (b === "follow") - (a === "follow"));
  for (const [, entry] of ordered) {
    try {
      if (entry.onState(answer) === true) return;
    } catch (error) {
      console.error(error);
    }
  }
}

/** A signal that aborts a request after GIVE_UP_MS (a connection a reconnecting network left hanging would
 * otherwise stop the polls for good). */
function giveUp() {
  return typeof AbortSignal.timeout === "function" ? AbortSignal.timeout(GIVE_UP_MS) : undefined;
}

/** What the heartbeat says from now on (null: no heartbeat); returns it, for clearBeat. */
export function setBeat(next) {
  beat = next && next.code && next.browser ? next : null;
  if (beat && !beatTimer) beatTimer = setTimeout(sendBeat, BEAT_MS);
  return beat;
}

/** No more heartbeat, unless a newer setBeat replaced `which` (an element's cleanup after its successor drew). */
export function clearBeat(which) {
  if (beat === which) beat = null;
}

async function sendBeat() {
  beatTimer = null;
  if (!beat) return;
  try {
    await fetch(`${folder(window.location)}class/beat`, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(beat),
      signal: giveUp(),
    });
  } catch (error) {
    // the next beat will do
  }
  if (beat && !beatTimer) beatTimer = setTimeout(sendBeat, BEAT_MS);
}

/** Whether a board showing `shown` must rerun for `answer` (its print changed, or the class is over). */
export function boardChanged(answer, cp, shown) {
  const now = answer.over ? "over" : answer.boards?.[cp];
  return now !== undefined && now !== shown;
}

const boards = new Map(); // checkpoint -> {shown, send, at}

/** A class checkpoint's board element (ui/classroom.py): data {code, cp, shown}; triggers `poll` (which reruns the
 * board's fragment) when the server's print of the board differs from the one it drew, at most every BOARD_GAP_MS. */
export function renderBoard(component) {
  const { setTriggerValue } = component;
  const data = Array.isArray(component.data) ? component.data[0] : component.data; // see ui/component_data.py
  const name = data.cp.split(".")[0];
  const board = boards.get(name) || { at: 0 };
  board.shown = data.shown;
  board.send = setTriggerValue;
  boards.set(name, board);
  return watch(`board:${name}`, data.code, data.cp, (answer) => {
    if (!boardChanged(answer, name, board.shown) || Date.now() - board.at < BOARD_GAP_MS) return false;
    board.at = Date.now();
    board.send("poll", answer.over ? "over" : answer.boards[name]);
    return true;
  });
}
