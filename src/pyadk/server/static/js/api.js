// The API server's routes (docs/server.md) and the UI event stream (docs/ui-events.md).

const TOKEN_KEY = "pyadk.devui.token";

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function errorMessage(response) {
  const text = await response.text();
  try {
    const body = JSON.parse(text);
    const detail = body.message ?? body.detail;
    return typeof detail === "string" ? detail : JSON.stringify(detail);
  } catch {
    return text || response.statusText;
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Yields {id, data} for each SSE message of a fetch response (comments are skipped). */
export async function* readSse(response) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const {value, done} = await reader.read();
      if (done) return;
      buffer += value.replace(/\r\n?/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = [];
        let id = null;
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) continue;
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          const val = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "data") data.push(val);
          else if (field === "id") id = val;
        }
        if (data.length) yield {id, data: data.join("\n")};
      }
    }
  } finally {
    reader.releaseLock();
  }
}

const enc = encodeURIComponent;

export class Api {
  constructor(base = new URL("../", document.baseURI)) {
    this.base = base;
    this.token = sessionStorage.getItem(TOKEN_KEY) || "";
  }

  setToken(token) {
    this.token = token;
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    else sessionStorage.removeItem(TOKEN_KEY);
  }

  headers(extra = {}) {
    return this.token ? {...extra, Authorization: `Bearer ${this.token}`} : {...extra};
  }

  url(path) {
    return new URL(path, this.base);
  }

  async request(method, path, body) {
    const init = {method, headers: this.headers()};
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(this.url(path), init);
    if (!response.ok) throw new ApiError(response.status, await errorMessage(response));
    const text = await response.text();
    return text ? JSON.parse(text) : null;
  }

  sessionsPath(app, user) {
    return `apps/${enc(app)}/users/${enc(user)}/sessions`;
  }

  listApps() { return this.request("GET", "list-apps"); }
  protocol() { return this.request("GET", "ui-protocol"); }
  listSessions(app, user) { return this.request("GET", this.sessionsPath(app, user)); }
  createSession(app, user) { return this.request("POST", this.sessionsPath(app, user), {}); }
  getSession(app, user, id) { return this.request("GET", `${this.sessionsPath(app, user)}/${enc(id)}`); }
  updateSession(app, user, id, stateDelta) {
    return this.request("PATCH", `${this.sessionsPath(app, user)}/${enc(id)}`, {stateDelta});
  }
  deleteSession(app, user, id) { return this.request("DELETE", `${this.sessionsPath(app, user)}/${enc(id)}`); }
  history(app, user, id) { return this.request("GET", `${this.sessionsPath(app, user)}/${enc(id)}/ui-events`); }
  cancelRun(runId) { return this.request("DELETE", `run_ui_events/${enc(runId)}`); }

  /**
   * Runs a turn and yields its UI events until `done`. A stream that drops before
   * `done` is resumed with Last-Event-ID (GET /run_ui_events/{runId}).
   * `onRun(runId)` is called once the run id is known. The message is `parts` (e.g. a
   * functionResponse answering an approval request), or else one text part; with
   * `invocationId` instead, the run resumes that interrupted invocation. `options`:
   * {streaming, runOptions?} (RunOptions of the body).
   */
  async *run({app, user, session, text, parts, invocationId, options = {}}, onRun = () => {}) {
    const body = {appName: app, userId: user, sessionId: session, streaming: true, ...options};
    if (invocationId) body.invocationId = invocationId;
    else body.newMessage = {role: "user", parts: parts ?? [{text}]};
    let response = await fetch(this.url("run_ui_events"), {
      method: "POST",
      headers: this.headers({"Content-Type": "application/json"}),
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new ApiError(response.status, await errorMessage(response));
    const runId = response.headers.get("X-Run-Id");
    onRun(runId);
    let lastId = null;
    for (let attempt = 0; ; attempt += 1) {
      try {
        for await (const message of readSse(response)) {
          const event = JSON.parse(message.data);
          lastId = message.id ?? event.id;
          attempt = 0;
          yield event;
          if (event.type === "done") return;
        }
      } catch (error) {
        if (error instanceof SyntaxError) throw error;
      }
      if (!runId || attempt >= 5) throw new Error("The event stream ended before the run finished.");
      await sleep(300 * (attempt + 1));
      const headers = this.headers(lastId ? {"Last-Event-ID": lastId} : {});
      response = await fetch(this.url(`run_ui_events/${enc(runId)}`), {headers});
      if (!response.ok) throw new ApiError(response.status, await errorMessage(response));
    }
  }
}
