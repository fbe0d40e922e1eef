// The dev UI: app and session pickers, sending messages, and the views of a session.
// The page state (app, user, session) lives in the URL hash, so a reload restores it:
// the session is rebuilt from GET .../sessions/{id}/ui-events (the same UI events).

import {Api} from "./api.js";
import {Chat, SIGN_IN_SCHEMES, answerText} from "./chat.js";
import {el} from "./dom.js";
import {Invocations, Timeline, wireTabs} from "./inspector.js";
import {RunOptionsPanel} from "./options.js";
import {StateView} from "./state.js";
import {ThinkingPanel} from "./thinking.js";

const $ = (id) => document.getElementById(id);
const USER_KEY = "pyadk.devui.user";

const api = new Api();
const views = {
  chat: new Chat($("chat"), {
    onDecide: (ev, confirmed) => guard(answer)(ev, confirmed),
    onCredential: (ev, value) => guard(provide)(ev, value),
    onInput: (ev, value) => guard(reply)(ev, value),
  }),
  thinking: new ThinkingPanel($("thinking")),
  timeline: new Timeline($("timeline")),
  state: new StateView($("state"), {onSave: (delta) => saveState(delta)}),
  invocations: new Invocations($("invocations"), {onResume: (id) => guard(resume)(id)}),
};
const runOptions = new RunOptionsPanel($("run-options-form"), {
  summary: $("run-options-summary"), error: $("run-options-error"), reset: $("run-options-reset"),
});
const current = {app: null, user: "user", session: null, runId: null, running: false, sent: 0, done: null, error: null};

function status(text, kind = "") {
  $("status").textContent = text;
  $("status").dataset.kind = kind;
}

function readHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  return {app: params.get("app"), user: params.get("user"), session: params.get("session")};
}

function writeHash() {
  const params = new URLSearchParams();
  if (current.app) params.set("app", current.app);
  params.set("user", current.user);
  if (current.session) params.set("session", current.session);
  history.replaceState(null, "", `#${params}`);
}

function apply(ev) {
  views.chat.apply(ev);
  views.thinking.apply(ev);
  views.timeline.apply(ev);
  views.invocations.apply(ev);
  if (ev.type === "thinking" && ev.kind === "state") views.state.merge(ev.data);
  if (ev.type === "done") current.done = ev.reason;
}

function clearViews() {
  for (const view of [views.chat, views.thinking, views.timeline, views.invocations]) view.clear();
  views.state.set({});
}

function setRunning(running) {
  current.running = running;
  $("send").disabled = running;
  $("stop").disabled = !running;
  views.chat.lock(running);
  views.state.lock(running, Boolean(current.session));
  views.invocations.lock(running);
  runOptions.lock(running);
  for (const id of ["app-select", "session-select", "new-session", "delete-session", "user-input"]) {
    $(id).disabled = running;
  }
  document.body.classList.toggle("running", running);
}

function fillSelect(select, options, value) {
  select.replaceChildren(...options.map(([val, label]) => el("option", {value: val, text: label})));
  select.value = value ?? "";
}

async function loadSessions() {
  const sessions = await api.listSessions(current.app, current.user);
  sessions.sort((a, b) => (b.lastUpdateTime ?? 0) - (a.lastUpdateTime ?? 0));
  const options = sessions.map((s) => {
    const when = s.lastUpdateTime ? new Date(s.lastUpdateTime * 1000).toLocaleString() : "";
    return [s.id, `${s.id.length > 12 ? `${s.id.slice(0, 12)}…` : s.id}  ${when}`];
  });
  fillSelect($("session-select"), [["", "(no session: pick or create)"], ...options], current.session);
  return sessions;
}

let loads = 0; // a newer openSession wins over one still loading

async function openSession(id) {
  const load = ++loads;
  current.session = id || null;
  writeHash();
  clearViews();
  $("session-select").value = current.session ?? "";
  views.state.lock(current.running, Boolean(current.session));
  if (!current.session) {
    views.chat.empty("New conversation: type a message (a session is created when you send).");
    return;
  }
  const [events, session] = await Promise.all([
    api.history(current.app, current.user, current.session),
    api.getSession(current.app, current.user, current.session),
  ]);
  if (load !== loads) return;
  for (const ev of events) apply(ev);
  views.state.set(session.state);
  if (!events.length) views.chat.empty("No messages yet in this session.");
  status(`Session ${current.session}: ${events.length} UI events`);
}

async function openApp(app, sessionId = null) {
  current.app = app;
  $("app-select").value = app;
  const sessions = await loadSessions();
  const known = sessionId && sessions.some((s) => s.id === sessionId);
  if (sessionId && !known) status(`Session ${sessionId} was not found: start a new one.`, "error");
  await openSession(known ? sessionId : null);
}

async function newSession() {
  const session = await api.createSession(current.app, current.user);
  current.session = session.id;
  await loadSessions();
  await openSession(session.id);
}

async function send(text) {
  if (!text.trim() || current.running || !current.app) return;
  await runTurn({text, parts: [{text}]});
}

/** Resumes the session's interrupted invocation `invocationId` (POST /run_ui_events with
 * invocationId): it streams in like a turn; 404 / 409 show as an error bubble. */
async function resume(invocationId) {
  if (current.running || !current.session || !invocationId) return;
  await runTurn({invocationId});
}

/** Stores a state delta (PATCH .../sessions/{id}) and reloads the State tab. */
async function saveState(delta) {
  if (current.running || !current.session) throw new Error("Wait until the turn is over.");
  const session = await api.updateSession(current.app, current.user, current.session, delta);
  views.state.set(session.state, new Set(Object.keys(delta)));
  status(`State updated: ${Object.keys(delta).join(", ")}`);
}

/**
 * Answers an approval card: the next turn's message is a functionResponse to its
 * adk_request_confirmation call (a workflow's approval: to its adk_request_input call,
 * `{"result": {"confirmed": ...}}`); the call then runs (or not) and the turn goes on.
 */
async function answer(ev, confirmed) {
  if (current.running || !current.session) return;
  const workflow = ev.type === "input_required";
  views.chat.decided(ev.requestId, confirmed);
  if (workflow) views.thinking.answered(ev.requestId, confirmed);
  else views.thinking.decided(ev.callId, confirmed);
  const response = workflow
    ? {id: ev.requestId, name: "adk_request_input", response: {result: {confirmed}}}
    : {id: ev.requestId, name: "adk_request_confirmation", response: {confirmed}};
  const started = await runTurn({text: `${confirmed ? "Approved" : "Rejected"} ${ev.tool}`, parts: [{functionResponse: response}]});
  if (!started) { // refused (e.g. the session is busy): the card can be answered again
    views.chat.decided(ev.requestId, null, current.error ?? "The answer was not accepted.");
    if (workflow) views.thinking.answered(ev.requestId, null);
    else views.thinking.decided(ev.callId, null);
  }
}

/** The credential an `auth_required` card's `value` is (google-adk's exchangedAuthCredential):
 * an API key, an HTTP token (basic: "user:password"), or for a sign-in the OAuth2
 * request it answers with the URL the browser landed on. */
function exchangedCredential(ev, value) {
  if (ev.schemeType === "apiKey") return {authType: "apiKey", apiKey: value};
  if (ev.schemeType === "http") {
    const scheme = ev.httpScheme || "bearer";
    if (scheme === "basic") {
      const colon = value.indexOf(":");
      const credentials = colon < 0 ? {username: value} : {username: value.slice(0, colon), password: value.slice(colon + 1)};
      return {authType: "http", http: {scheme, credentials}};
    }
    return {authType: "http", http: {scheme, credentials: {token: value}}};
  }
  const sent = ev.authConfig?.exchangedAuthCredential ?? {};
  return {...sent, authType: sent.authType ?? "oauth2", oauth2: {...(sent.oauth2 ?? {}), authResponseUri: value}};
}

/**
 * Answers a credential card: the next turn's message is a functionResponse to its
 * adk_request_credential call holding the authConfig it was sent, its
 * exchangedAuthCredential filled in; the waiting call then runs again. The chat shows
 * "Signed in" / "Provided a credential", never the value. A refused answer (HTTP 400)
 * shows its reason on the card, which can be answered again.
 */
async function provide(ev, value) {
  if (current.running || !current.session) return;
  const signIn = SIGN_IN_SCHEMES.has(ev.schemeType);
  const config = {...(ev.authConfig ?? {}), exchangedAuthCredential: exchangedCredential(ev, value)};
  const response = {id: ev.requestId, name: "adk_request_credential", response: config};
  views.chat.provided(ev.requestId, true);
  views.thinking.provided(ev.callId, true);
  const started = await runTurn({text: signIn ? "Signed in" : "Provided a credential", parts: [{functionResponse: response}]});
  if (!started) {
    views.chat.provided(ev.requestId, false, current.error ?? "The answer was not accepted.");
    views.thinking.provided(ev.callId, false);
  }
}

/**
 * Answers an input card: the next turn's message is a functionResponse to its
 * adk_request_input call, `{"result": value}`; the workflow goes on from the asking
 * node. The chat shows the answer. A refused answer (the run's fatal error names the
 * request in `requestIds`, or HTTP 400 / 409 before the run) opens the card again.
 */
async function reply(ev, value) {
  if (current.running || !current.session) return;
  const shown = answerText(value);
  const response = {id: ev.requestId, name: "adk_request_input", response: {result: value}};
  views.chat.answered(ev.requestId, shown);
  const started = await runTurn({text: shown, parts: [{functionResponse: response}]});
  if (!started) views.chat.answered(ev.requestId, null, current.error ?? "The answer was not accepted.");
}

/** Runs one turn with the message `parts` (shown in the chat as `text`), or resumes
 * `invocationId`; false when the server refused it before the run started. */
async function runTurn({text, parts, invocationId}) {
  let started = false;
  current.done = null;
  current.error = null;
  setRunning(true);
  try {
    const options = runOptions.body(); // throws on an invalid field: nothing is sent
    if (!current.session) {
      const session = await api.createSession(current.app, current.user);
      current.session = session.id;
      writeHash();
      views.chat.clear();
      await loadSessions();
    }
    if (invocationId) {
      status(`Resuming invocation ${invocationId}…`);
    } else {
      views.chat.user(text);
      views.thinking.begin(text);
      views.invocations.begin(text);
      status("Running…");
    }
    const run = {app: current.app, user: current.user, session: current.session, parts, invocationId, options};
    const onRun = (runId) => {
      current.runId = runId;
      started = true;
      if (invocationId) { // accepted: the invocation's card runs again, in a new section
        views.thinking.resume(invocationId);
        views.invocations.resume(invocationId);
      }
    };
    for await (const ev of api.run(run, onRun)) apply(ev);
    const session = await api.getSession(current.app, current.user, current.session);
    views.state.set(session.state);
    await loadSessions();
    const waiting = views.chat.waiting();
    const credentials = views.chat.waitingCredentials();
    const inputs = views.chat.waitingInputs();
    status(waiting ? `Waiting for your approval (${waiting} tool call${waiting > 1 ? "s" : ""})`
      : credentials ? `Waiting for your credential (${credentials} request${credentials > 1 ? "s" : ""})`
        : inputs ? `Waiting for your input (${inputs} request${inputs > 1 ? "s" : ""})`
        : current.done === "budget" ? "Turn stopped: it reached its budget (Run options)" : "Ready");
  } catch (error) {
    current.error = error.message;
    views.thinking.pending = null;
    views.invocations.pending = null;
    views.chat.apply({type: "error", internal: false, message: error.message, errorType: error.status ? `HTTP ${error.status}` : "Error"});
    status(error.message, "error");
  } finally {
    current.runId = null;
    current.sent += 1;
    document.body.dataset.sent = String(current.sent); // turns sent from this page (tests wait on it)
    setRunning(false);
    $("message").focus();
  }
  return started;
}

function guard(action) {
  return async (...args) => {
    try {
      await action(...args);
    } catch (error) {
      status(error.message, "error");
    }
  };
}

function wire() {
  $("app-select").addEventListener("change", guard((e) => openApp(e.target.value)));
  $("session-select").addEventListener("change", guard((e) => openSession(e.target.value)));
  $("new-session").addEventListener("click", guard(newSession));
  $("delete-session").addEventListener("click", guard(async () => {
    if (!current.session || !confirm(`Delete session ${current.session}?`)) return;
    await api.deleteSession(current.app, current.user, current.session);
    current.session = null;
    await loadSessions();
    await openSession(null);
  }));
  $("user-input").addEventListener("change", guard(async (e) => {
    current.user = e.target.value.trim() || "user";
    localStorage.setItem(USER_KEY, current.user);
    await openApp(current.app);
  }));
  $("composer").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("message").value;
    $("message").value = "";
    send(text);
  });
  $("message").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      $("composer").requestSubmit();
    }
  });
  $("stop").addEventListener("click", guard(async () => {
    if (current.runId) await api.cancelRun(current.runId);
  }));
  $("token-box").addEventListener("submit", guard(async (e) => {
    e.preventDefault();
    api.setToken($("token-input").value.trim());
    await start();
  }));
  wireTabs();
}

async function start() {
  const saved = readHash();
  current.user = saved.user || localStorage.getItem(USER_KEY) || "user";
  $("user-input").value = current.user;
  let apps;
  try {
    apps = await api.listApps();
  } catch (error) {
    if (error.status === 401) {
      $("token-box").hidden = false;
      status("This server needs a bearer token.", "error");
      return;
    }
    throw error;
  }
  $("token-box").hidden = true;
  if (!apps.length) {
    status("No apps in the agents directory.", "error");
    return;
  }
  fillSelect($("app-select"), apps.map((a) => [a, a]), null);
  await openApp(apps.includes(saved.app) ? saved.app : apps[0], saved.session);
  const protocol = await api.protocol();
  document.body.dataset.protocol = String(protocol.version);
  document.body.dataset.ready = "true";
}

wire();
setRunning(false);
guard(start)();
