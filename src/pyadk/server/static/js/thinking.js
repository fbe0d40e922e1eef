// The thinking panel: per turn, which agent works (handoffs), tool calls with their
// arguments and results, hidden handoff announcements, thoughts, state and outcomes.

import {clip, el, jsonDetails, stickToBottom} from "./dom.js";

const SHORT_RESULT = 160; // longer tool results start collapsed, with a one-line preview
const DONE_LABELS = {completed: "Turn completed", error: "Turn failed", cancelled: "Turn cancelled"};

export class ThinkingPanel {
  constructor(root) {
    this.root = root;
    this.clear();
  }

  clear() {
    this.turns = new Map(); // invocation key -> {list}
    this.tools = new Map(); // callId -> entry
    this.thoughts = new Map(); // messageId -> text node
    this.pending = null;
    this.count = 0;
    this.root.replaceChildren();
  }

  /** A live turn starts: its section appears before the first event arrives. */
  begin(text) {
    this.pending = this.section(text);
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
    const key = ev.invocationId || ev.runId;
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
      case "user_message":
        this.turn(ev);
        break;
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
      case "tool_start": {
        const result = el("div", {class: "result pending", text: "running…"});
        const item = this.entry(ev, "tool",
          el("span", {class: "what"}, "called ", el("code", {text: ev.tool})),
          ev.longRunning ? el("span", {class: "badge", text: "long-running"}) : null,
          jsonDetails("arguments", ev.args, {open: true, cls: "args"}), result);
        this.tools.set(ev.callId, {item, result});
        break;
      }
      case "tool_end": {
        let tool = this.tools.get(ev.callId);
        if (!tool) {
          const result = el("div", {class: "result"});
          const item = this.entry(ev, "tool", el("span", {class: "what"}, "tool ", el("code", {text: ev.tool})), result);
          tool = {item, result};
        }
        const text = JSON.stringify(ev.result) ?? "";
        const short = text.length <= SHORT_RESULT;
        const label = `${ev.isError ? "error result" : "result"}${short ? "" : ` · ${clip(text, 60)}`}`;
        const block = jsonDetails(label, ev.result, {open: short, cls: "result-json"});
        tool.result.replaceWith(block);
        tool.result = block;
        tool.item.classList.toggle("failed", Boolean(ev.isError));
        tool.item.classList.add("ended");
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
