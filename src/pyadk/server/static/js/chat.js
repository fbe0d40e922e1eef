// The chat transcript: user messages, the agents' answers (content deltas, then
// `final` replaces the text) and approval cards (`approval_required`: Approve / Reject).
// Internal events never reach it.

import {el, jsonDetails, stickToBottom} from "./dom.js";

export class Chat {
  /** `onDecide(ev, confirmed)` is called when an approval card's button is clicked. */
  constructor(root, {onDecide = () => {}} = {}) {
    this.root = root;
    this.onDecide = onDecide;
    this.messages = new Map(); // messageId -> {node, body, text, deltas}
    this.approvals = new Map(); // requestId -> {node, buttons, decision, confirmed}
    this.locked = false;
  }

  clear() {
    this.messages.clear();
    this.approvals.clear();
    this.root.replaceChildren();
  }

  /** While a turn runs, the buttons of unanswered approval cards are disabled. */
  lock(locked) {
    this.locked = locked;
    for (const card of this.approvals.values()) {
      if (card.confirmed === null) for (const button of card.buttons) button.disabled = locked;
    }
  }

  empty(text) {
    this.root.replaceChildren(el("p", {class: "hint", text}));
  }

  add(node) {
    this.root.querySelector(":scope > .hint")?.remove();
    stickToBottom(this.root, () => this.root.append(node));
    return node;
  }

  user(text) {
    return this.add(el("div", {class: "msg user"}, el("div", {class: "body", text})));
  }

  message(ev) {
    let message = this.messages.get(ev.messageId);
    if (!message) {
      const body = el("div", {class: "body"});
      const node = el("div", {class: "msg agent streaming", dataset: {messageId: ev.messageId, deltas: "0"}},
        el("div", {class: "meta", text: ev.agent ?? "agent"}), body);
      message = {node, body, text: "", deltas: 0};
      this.messages.set(ev.messageId, message);
      this.add(node);
    }
    return message;
  }

  /** A card asking to approve a tool call: the tool, its arguments, the hint, buttons. */
  approval(ev) {
    if (this.approvals.has(ev.requestId)) return;
    const decide = (confirmed) => () => this.onDecide(ev, confirmed);
    const buttons = [
      el("button", {type: "button", class: "approve", text: "Approve", onclick: decide(true)}),
      el("button", {type: "button", class: "reject quiet", text: "Reject", onclick: decide(false)}),
    ];
    for (const button of buttons) button.disabled = this.locked;
    const decision = el("span", {class: "decision", text: "Waiting for your answer"});
    const node = el("div", {class: "msg approval", dataset: {requestId: ev.requestId, state: "pending"}},
      el("div", {class: "meta", text: `${ev.agent ?? "agent"} · needs your approval`}),
      el("div", {class: "what"}, "Run ", el("code", {text: ev.tool}), "?"),
      ev.hint ? el("div", {class: "why", text: ev.hint}) : null,
      jsonDetails("arguments", ev.args, {open: true, cls: "args"}),
      ev.payload !== null && ev.payload !== undefined ? jsonDetails("payload", ev.payload, {cls: "payload"}) : null,
      el("div", {class: "actions"}, buttons, decision));
    this.approvals.set(ev.requestId, {node, buttons, decision, confirmed: null});
    this.add(node);
  }

  /** Shows the answer on its card (`confirmed` null: unanswered again, the answer failed). */
  decided(requestId, confirmed) {
    const card = this.approvals.get(requestId);
    if (!card) return;
    card.confirmed = confirmed;
    const answered = confirmed !== null;
    for (const button of card.buttons) button.disabled = answered || this.locked;
    card.node.dataset.state = answered ? (confirmed ? "approved" : "rejected") : "pending";
    card.decision.textContent = !answered ? "Waiting for your answer" : confirmed ? "Approved" : "Rejected";
  }

  /** Approval cards nobody answered yet. */
  waiting() {
    return [...this.approvals.values()].filter((card) => card.confirmed === null).length;
  }

  apply(ev) {
    if (ev.internal) return;
    switch (ev.type) {
      case "user_message":
        this.user(ev.text);
        for (const answer of ev.approvals ?? []) this.decided(answer.requestId, answer.confirmed);
        break;
      case "approval_required":
        this.approval(ev);
        break;
      case "content": {
        const message = this.message(ev);
        message.text += ev.delta;
        message.deltas += 1;
        message.node.dataset.deltas = String(message.deltas);
        stickToBottom(this.root, () => { message.body.textContent = message.text; });
        break;
      }
      case "final": {
        const message = this.message(ev);
        if (ev.text === "") { // the turn was a transfer: its text never belonged here
          message.node.remove();
          this.messages.delete(ev.messageId);
          break;
        }
        message.text = ev.text;
        message.body.textContent = ev.text;
        message.node.classList.remove("streaming");
        message.node.classList.add("final");
        message.node.classList.toggle("interim", Boolean(ev.interim));
        message.node.classList.toggle("truncated", Boolean(ev.truncated));
        break;
      }
      case "error":
        this.add(el("div", {class: "msg error"},
          el("div", {class: "meta", text: `${ev.errorType || "Error"}${ev.agent ? ` · ${ev.agent}` : ""}`}),
          el("div", {class: "body", text: ev.message})));
        break;
      case "done":
        for (const message of this.messages.values()) message.node.classList.remove("streaming");
        break;
      default:
        break;
    }
  }
}
