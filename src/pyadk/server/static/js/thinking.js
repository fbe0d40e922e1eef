// The thinking panel: per turn, which agent works (handoffs), tool calls with their
// arguments and results, hidden handoff announcements, thoughts, state and outcomes.
// A call waiting for approval or a credential stays open ("waiting for approval"); its
// result arrives in the turn that answered, where it gets an entry of its own.

import {clip, el, jsonDetails, stickToBottom} from "./dom.js";

const SHORT_RESULT = 160; // longer tool results start collapsed, with a one-line preview
const DONE_LABELS = {
  completed: "Turn completed",
  error: "Turn failed",
  cancelled: "Turn cancelled",
  budget: "Turn stopped: budget reached",
};

/** One line for a tool_progress event: the tool's report, or what its sub-agent did. */
export function progressText(ev) {
  const sub = ev.subEvent;
  if (!sub) return typeof ev.data === "string" ? ev.data : JSON.stringify(ev.data) ?? "";
  switch (sub.type) {
    case "tool_start": return `${sub.agent}: called ${sub.tool}`;
    case "tool_end": return `${sub.agent}: ${sub.tool} returned`;
    case "final": return `${sub.agent}: ${sub.text}`;
    case "tool_progress": return `${sub.agent}: ${progressText(sub)}`;
    default: return "";
  }
}

export class ThinkingPanel {
  constructor(root) {
    this.root = root;
    this.clear();
  }

  clear() {
    this.turns = new Map(); // invocation key -> {list}
    this.tools = new Map(); // callId -> {item, result, turn}
    this.decisions = new Map(); // callId -> true (approved) / false (rejected)
    this.credentials = new Map(); // callId -> true: the credential it waits for was sent
    this.approvalInputs = new Map(); // requestId -> {item, result}: a workflow's approvals
    this.thoughts = new Map(); // messageId -> text node
    this.pending = null;
    this.resuming = null; // the invocation a resumed run goes on with
    this.count = 0;
    this.root.replaceChildren();
  }

  /** A live turn starts: its section appears before the first event arrives. */
  begin(text) {
    this.pending = this.section(text);
    this.resuming = null;
  }

  /** A resumed run of invocation `id` starts: its events go to a new section. */
  resume(id) {
    this.pending = null;
    this.resuming = id;
    this.turns.set(id, this.section(`resumed ${id}`));
  }

  section(text) {
    this.count += 1;
    const list = el("ol", {class: "entries"});
    const node = el("section", {class: "turn"},
      el("h3", {}, `Turn ${this.count}`, text ? el("span", {class: "said", text: ` · “${clip(text, 60)}”`}) : null),
      list);
    stickToBottom(this.root, () => this.root.append(node));
    return {node, list};
  }

  turn(ev) {
    const key = ev.invocationId || this.resuming || ev.runId;
    let turn = this.turns.get(key);
    if (!turn) {
      turn = this.pending ?? this.section(ev.type === "user_message" ? ev.text : "");
      this.pending = null;
      this.turns.set(key, turn);
    }
    return turn;
  }

  entry(ev, kind, ...children) {
    const item = el("li", {class: `entry ${kind}`, dataset: {type: ev.type, agent: ev.agent ?? ""}},
      el("span", {class: "who", text: ev.agent ?? ""}), ...children);
    const {list} = this.turn(ev);
    stickToBottom(this.root, () => list.append(item));
    return item;
  }

  apply(ev) {
    switch (ev.type) {
      case "agent_active": {
        const how = ev.reason === "transfer" ? `took over from ${ev.previousAgent}`
          : ev.reason === "switch" ? "workflow step" : "started";
        this.entry(ev, "agent", el("span", {class: "what", text: `is working (${how})`}),
          ev.description ? el("div", {class: "note", text: ev.description}) : null);
        break;
      }
      case "thinking":
        this.thinking(ev);
        break;
      case "tool_start":
        this.startTool(ev);
        break;
      case "approval_required": {
        const tool = this.tools.get(ev.callId) ?? this.startTool(ev);
        this.decisions.delete(ev.callId); // a call may ask again once approved
        tool.item.classList.add("awaiting");
        tool.item.dataset.approval = "waiting";
        this.showDecision(ev.callId);
        break;
      }
      case "auth_required": {
        const tool = this.tools.get(ev.callId);
        this.credentials.delete(ev.callId); // a call may ask again
        if (!tool) { // its tool_start was in another run
          this.entry(ev, "tool awaiting", el("span", {class: "what"}, ev.tool ? el("code", {text: ev.tool}) : "a tool call", " waits for a credential"));
          break;
        }
        tool.item.classList.add("awaiting");
        tool.item.dataset.auth = "waiting";
        tool.signIn = ev.schemeType === "oauth2" || ev.schemeType === "openIdConnect";
        this.showCredential(ev.callId);
        break;
      }
      case "input_required":
        if (ev.kind === "approval") {
          this.askApproval(ev);
          break;
        }
        this.entry(ev, "input", el("span", {class: "what", text: `${ev.node ?? "a node"} asks for input: ${clip(ev.message || "(no message)", 60)}`}));
        break;
      case "user_message":
        this.turn(ev);
        for (const answer of ev.approvals ?? []) this.decided(answer.callId, answer.confirmed);
        for (const answer of ev.credentials ?? []) this.provided(answer.callId, true);
        for (const answer of ev.inputs ?? []) {
          if (answer.kind === "approval") this.answered(answer.requestId, answer.confirmed ?? null);
        }
        break;
      case "tool_end": {
        const decision = this.decisions.get(ev.callId);
        let tool = this.tools.get(ev.callId);
        const waited = tool?.item.dataset.approval || tool?.item.dataset.auth;
        if (waited && tool.turn !== this.turn(ev)) { // answered later: an entry there
          tool.item.classList.remove("awaiting");
          tool.result.textContent = tool.item.dataset.auth ? "credential sent: ran in a later turn"
            : decision === undefined ? "answered in a later turn"
              : decision ? "approved: ran in a later turn" : "rejected: not run";
          if (tool.item.dataset.auth) tool.item.dataset.auth = "provided";
          tool = null;
        }
        if (!tool) {
          const what = decision === undefined ? "tool " : decision ? "approved, ran " : "rejected, did not run ";
          const result = el("div", {class: "result"});
          const item = this.entry(ev, "tool", el("span", {class: "what"}, what, el("code", {text: ev.tool})), result);
          tool = {item, result};
        }
        const text = JSON.stringify(ev.result) ?? "";
        const short = text.length <= SHORT_RESULT;
        const kind = decision === false ? "rejected" : ev.isError ? "error result" : "result";
        const label = `${kind}${short ? "" : ` · ${clip(text, 60)}`}`;
        const block = jsonDetails(label, ev.result, {open: short, cls: "result-json"});
        tool.result.replaceWith(block);
        tool.result = block;
        tool.item.classList.toggle("failed", Boolean(ev.isError) && decision !== false);
        tool.item.classList.toggle("declined", decision === false);
        tool.item.classList.add("ended");
        break;
      }
      case "tool_progress": { // the running call's latest progress, on its pending line
        const tool = this.tools.get(ev.callId);
        const line = progressText(ev);
        if (tool && line && tool.result.classList.contains("pending")) {
          tool.result.textContent = `running… ${clip(line, 120)}`;
        }
        break;
      }
      case "error":
        this.entry(ev, "error", el("span", {class: "what", text: `${ev.errorType || "error"}: ${ev.message}`}));
        break;
      case "done":
        this.entry(ev, `done ${ev.reason}`, el("span", {class: "what", text: DONE_LABELS[ev.reason] ?? ev.reason}));
        break;
      default:
        break;
    }
  }

  startTool(ev) {
    const result = el("div", {class: "result pending", text: "running…"});
    const item = this.entry(ev, "tool",
      el("span", {class: "what"}, "called ", el("code", {text: ev.tool})),
      ev.longRunning ? el("span", {class: "badge", text: "long-running"}) : null,
      jsonDetails("arguments", ev.args, {open: true, cls: "args"}), result);
    const tool = {item, result, turn: this.turn(ev)};
    this.tools.set(ev.callId, tool);
    return tool;
  }

  /** A workflow's approval request (`input_required` of kind approval): an entry
   * waiting for the answer; the same request again (refused) waits again. */
  askApproval(ev) {
    let asked = this.approvalInputs.get(ev.requestId);
    if (!asked) {
      const result = el("div", {class: "result pending"});
      const item = this.entry(ev, "input approval",
        el("span", {class: "what"}, `${ev.node ?? "a node"} asks approval to run `, el("code", {text: ev.tool ?? "a tool"})),
        jsonDetails("arguments", ev.args ?? {}, {open: true, cls: "args"}), result);
      asked = {item, result};
      this.approvalInputs.set(ev.requestId, asked);
    }
    this.answered(ev.requestId, null);
  }

  /** The person answered workflow approval `requestId` (null: waiting, or refused). */
  answered(requestId, confirmed) {
    const asked = this.approvalInputs.get(requestId);
    if (!asked) return;
    const answered = confirmed !== null && confirmed !== undefined;
    asked.result.textContent = !answered ? "waiting for approval…"
      : confirmed ? "approved: runs in the next turn" : "rejected: not run";
    asked.item.dataset.approval = !answered ? "waiting" : confirmed ? "approved" : "rejected";
  }

  /** The person answered the approval of call `callId` (null: the answer failed). */
  decided(callId, confirmed) {
    if (confirmed === null) this.decisions.delete(callId);
    else this.decisions.set(callId, confirmed);
    this.showDecision(callId);
  }

  /** The credential call `callId` waits for was sent (false: the answer was refused). */
  provided(callId, sent) {
    if (sent) this.credentials.set(callId, true);
    else this.credentials.delete(callId);
    this.showCredential(callId);
  }

  showCredential(callId) {
    const tool = this.tools.get(callId);
    if (!tool || tool.item.classList.contains("ended") || !tool.item.dataset.auth) return;
    const sent = this.credentials.get(callId);
    tool.result.className = "result pending";
    tool.result.textContent = sent ? "credential sent: runs again in the next turn"
      : tool.signIn ? "waiting for you to sign in…" : "waiting for your credential…";
    tool.item.dataset.auth = sent ? "provided" : "waiting";
  }

  showDecision(callId) {
    const tool = this.tools.get(callId);
    if (!tool || tool.item.classList.contains("ended")) return;
    const decision = this.decisions.get(callId);
    tool.result.className = "result pending";
    tool.result.textContent = decision === undefined ? "waiting for approval…"
      : decision ? "approved: runs in the next turn" : "rejected: not run";
    tool.item.dataset.approval = decision === undefined ? "waiting" : decision ? "approved" : "rejected";
  }

  thinking(ev) {
    if (ev.kind === "thought" && ev.messageId && this.thoughts.has(ev.messageId)) {
      const text = this.thoughts.get(ev.messageId);
      text.textContent += ev.text;
      return;
    }
    const item = this.entry(ev, `thinking ${ev.kind}`,
      el("span", {class: "kind", text: ev.kind.replace("_", " ")}));
    const text = el("span", {class: "what", text: ev.kind === "handoff_text" ? `kept out of the chat: “${ev.text}”` : ev.text});
    item.append(text);
    if (ev.kind === "thought" && ev.messageId) this.thoughts.set(ev.messageId, text);
    if (ev.kind === "outcome" && ev.data?.status) item.dataset.status = ev.data.status;
    if (ev.data && ev.kind !== "handoff") item.append(jsonDetails("data", ev.data));
  }
}
