// The inspector tabs: the session's event timeline and the outcome of each invocation
// (turn); the State tab lives in state.js.

import {clip, clock, el, pretty, stickToBottom} from "./dom.js";
import {progressText} from "./thinking.js";

/** Makes the inspector's tab buttons show their panel (the panel's id is data-tab). */
export function wireTabs() {
  const tabs = document.querySelectorAll("[role=tab]");
  for (const tab of tabs) {
    tab.addEventListener("click", () => {
      for (const other of tabs) {
        const selected = other === tab;
        other.setAttribute("aria-selected", String(selected));
        document.getElementById(other.dataset.tab).hidden = !selected;
      }
    });
  }
}

function summary(ev) {
  switch (ev.type) {
    case "user_message": return ev.text;
    case "agent_active": return `${ev.reason}${ev.previousAgent ? ` from ${ev.previousAgent}` : ""}`;
    case "thinking": return `${ev.kind}: ${ev.text}`;
    case "tool_start": return `${ev.tool}(${JSON.stringify(ev.args)})`;
    case "tool_end": return `${ev.tool} → ${JSON.stringify(ev.result)}`;
    case "tool_progress": return `${ev.tool}: ${progressText(ev)}`;
    case "approval_required": return `${ev.tool}(${JSON.stringify(ev.args)}) needs approval`;
    case "auth_required": return `${ev.tool ?? "a tool call"} needs a credential (${ev.schemeType ?? "?"})`;
    case "input_required": return ev.kind === "approval" ? `${ev.tool}(${JSON.stringify(ev.args ?? {})}) needs approval`
      : `${ev.node ?? "a node"} asks: ${ev.message ?? ""}`;
    case "content": return ev.delta;
    case "final": return `${ev.interim ? "[interim] " : ""}${ev.text}`;
    case "error": return `${ev.errorType || "error"}: ${ev.message}`;
    case "done": return ev.reason;
    default: return "";
  }
}

export class Timeline {
  constructor(root) {
    this.root = root;
    this.clear();
  }

  clear() {
    this.last = null; // the last row, to fold consecutive deltas of one message
    this.root.replaceChildren();
  }

  apply(ev) {
    if (ev.type === "content" && this.last?.messageId === ev.messageId) {
      this.last.count += 1;
      this.last.events.push(ev);
      this.last.text += ev.delta;
      this.last.label.textContent = `content ×${this.last.count}`;
      this.last.summary.textContent = clip(this.last.text, 90);
      this.last.json.textContent = pretty(this.last.events);
      return;
    }
    const label = el("span", {class: "type", text: ev.type});
    const line = el("span", {class: "line", text: clip(summary(ev), 90)});
    const json = el("pre", {text: pretty(ev)});
    const row = el("details", {class: `row ${ev.type}${ev.internal ? " internal" : ""}`, dataset: {type: ev.type}},
      el("summary", {}, el("span", {class: "time", text: clock(ev.timestamp)}), label,
        el("span", {class: "who", text: ev.agent ?? ""}), line),
      json);
    this.last = ev.type === "content"
      ? {messageId: ev.messageId, count: 1, events: [ev], text: ev.delta, label, summary: line, json}
      : null;
    stickToBottom(this.root, () => this.root.append(row));
  }
}

/** Statuses of a last invocation that may be resumed (it did not finish, and does not
 * wait for an approval or credential answer). */
const RESUMABLE = new Set(["error", "cancelled", "budget", "no answer"]);

export class Invocations {
  /** `onResume(invocationId)` is called when a card's Resume button is clicked. */
  constructor(root, {onResume = () => {}} = {}) {
    this.root = root;
    this.onResume = onResume;
    this.locked = false;
    this.clear();
  }

  clear() {
    this.records = new Map();
    this.pending = null;
    this.resuming = null; // the invocation a resumed run goes on with
    this.root.replaceChildren();
  }

  begin(text) {
    this.pending = {said: text, live: true};
    this.resuming = null;
  }

  /** A resumed run of invocation `id` starts: its card runs again. */
  resume(id) {
    this.pending = null;
    this.resuming = id;
    const record = this.records.get(id);
    if (!record) return;
    Object.assign(record, {status: "running", live: true, answer: null});
    this.render(record);
  }

  /** While a turn runs, no Resume button. */
  lock(locked) {
    this.locked = locked;
    const last = [...this.records.values()].at(-1);
    if (last) this.render(last);
  }

  record(ev) {
    const key = ev.invocationId || this.resuming || ev.runId;
    let record = this.records.get(key);
    if (!record) {
      const seed = this.pending ?? {said: ev.type === "user_message" ? ev.text : "", live: false};
      this.pending = null;
      record = {
        ...seed, id: ev.invocationId, agents: [], tools: 0, failedTools: 0, errors: [],
        calls: new Set(), approvals: [], credentials: [], inputs: [], outcomes: [], answer: null,
        status: seed.live ? "running" : null,
        start: ev.timestamp, end: ev.timestamp, node: el("article", {class: "invocation"}),
      };
      this.records.set(key, record);
      const previous = [...this.records.values()].at(-2);
      if (previous) this.render(previous); // no longer the last: no Resume button
      stickToBottom(this.root, () => this.root.append(record.node));
    }
    return record;
  }

  apply(ev) {
    const record = this.record(ev);
    record.end = Math.max(record.end ?? ev.timestamp, ev.timestamp);
    if (ev.type === "agent_active" && record.agents.at(-1) !== ev.agent) record.agents.push(ev.agent);
    if (ev.type === "tool_start" || (ev.type === "tool_end" && !record.calls.has(ev.callId))) {
      record.calls.add(ev.callId); // an approved call's tool_end comes in a later turn
      record.tools += 1;
    }
    if (ev.type === "tool_end" && ev.isError) record.failedTools += 1;
    if (ev.type === "approval_required") record.approvals.push(ev.tool);
    if (ev.type === "auth_required") record.credentials.push(ev.tool ?? "a tool");
    if (ev.type === "input_required" && ev.kind === "approval") record.approvals.push(ev.tool);
    else if (ev.type === "input_required") record.inputs.push(ev.node ?? "a node");
    if (ev.type === "error") record.errors.push(ev.message);
    if (ev.type === "thinking" && ev.kind === "outcome") record.outcomes.push(ev);
    if (ev.type === "final" && !ev.interim && !ev.truncated && ev.text) record.answer = ev.text;
    if (ev.type === "done") {
      record.status = ev.reason;
      this.resuming = null;
    }
    this.render(record);
  }

  render(record) {
    // A turn that ended asking for approval or a credential is "waiting": the answer is
    // the next turn.
    const asked = record.approvals.length || record.credentials.length || record.inputs.length;
    const waiting = asked && (record.status ?? "completed") === "completed";
    const status = waiting ? "waiting"
      : record.status ?? (record.errors.length ? "error" : record.answer ? "completed" : "no answer");
    const seconds = record.end && record.start ? (record.end - record.start).toFixed(2) : null;
    record.node.dataset.status = status;
    const parts = [
      el("header", {},
        el("span", {class: `badge ${status}`, text: status}),
        el("span", {class: "said", text: record.said ? `“${clip(record.said, 50)}”` : "(turn)"})),
      el("div", {class: "facts"},
        el("span", {text: `agents: ${record.agents.join(" → ") || "–"}`}),
        el("span", {text: `tools: ${record.tools}${record.failedTools ? ` (${record.failedTools} failed)` : ""}`}),
        record.approvals.length ? el("span", {text: `approval asked: ${record.approvals.join(", ")}`}) : null,
        record.credentials.length ? el("span", {text: `credential asked: ${record.credentials.join(", ")}`}) : null,
        record.inputs.length ? el("span", {text: `input asked: ${record.inputs.join(", ")}`}) : null,
        seconds !== null ? el("span", {text: `${seconds} s`}) : null),
      record.outcomes.length
        ? el("ul", {class: "outcomes"}, record.outcomes.map((o) =>
          el("li", {dataset: {status: o.data?.status ?? ""}, text: o.text})))
        : null,
      record.errors.map((message) => el("div", {class: "error-line", text: message})),
      record.answer ? el("div", {class: "answer", text: clip(record.answer, 160)}) : null,
      record.id ? el("div", {class: "ids", text: `invocation ${record.id}`}) : null,
      this.resumable(record, status)
        ? el("div", {class: "actions"},
          el("button", {type: "button", class: "resume", text: "Resume", onclick: () => this.onResume(record.id)}),
          el("span", {class: "note", text: "goes on from where it stopped"}))
        : null,
    ];
    record.node.replaceChildren(...parts.flat().filter(Boolean));
  }

  /** Resume is offered on the session's last invocation when it did not finish. */
  resumable(record, status) {
    return Boolean(record.id) && !this.locked && RESUMABLE.has(status)
      && [...this.records.values()].at(-1) === record;
  }
}
