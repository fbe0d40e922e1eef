// The chat transcript: user messages and the agents' answers (content deltas, then
// `final` replaces the text). Internal events never reach it.

import {el, stickToBottom} from "./dom.js";

export class Chat {
  constructor(root) {
    this.root = root;
    this.messages = new Map(); // messageId -> {node, body, text, deltas}
  }

  clear() {
    this.messages.clear();
    this.root.replaceChildren();
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

  apply(ev) {
    if (ev.internal) return;
    switch (ev.type) {
      case "user_message":
        this.user(ev.text);
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
