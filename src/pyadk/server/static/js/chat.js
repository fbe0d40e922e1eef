// The chat transcript: user messages, the agents' answers (content deltas, then
// `final` replaces the text), approval cards (`approval_required`, or a workflow's
// `input_required` of kind approval: Approve / Reject),
// credential cards (`auth_required`: a key or token, or a sign-in) and input cards
// (`input_required`: a workflow node's question, with a form). Internal events never
// reach it.

import {el, jsonDetails, stickToBottom} from "./dom.js";

/** Scheme types whose credential comes from signing in (the rest: a key or a token). */
export const SIGN_IN_SCHEMES = new Set(["oauth2", "openIdConnect"]);

/** JSON schema types an input card has a plain field for (the rest: a JSON field). */
const SCALAR_TYPES = new Set(["string", "integer", "number", "boolean"]);

/** The field of a value of JSON schema `schema` (a scalar; anything else: JSON text). */
function inputField(schema, label) {
  const type = schema?.type;
  if (type === "boolean") {
    return el("select", {class: "answer-field", "aria-label": label},
      el("option", {value: "true", text: "true"}), el("option", {value: "false", text: "false"}));
  }
  if (type === "integer" || type === "number") {
    return el("input", {type: "number", class: "answer-field", step: type === "integer" ? "1" : "any", "aria-label": label});
  }
  if (SCALAR_TYPES.has(type) || !schema) return el("input", {type: "text", class: "answer-field", autocomplete: "off", "aria-label": label});
  return el("textarea", {class: "answer-field json", rows: "3", spellcheck: "false", placeholder: "JSON", "aria-label": label});
}

/** The value of a field made by `inputField` (throws an Error saying what to fix). */
function fieldValue(field, schema, name) {
  const type = schema?.type;
  const raw = field.value.trim();
  const what = name ? `${name}: ` : "";
  if (type === "boolean") return raw === "true";
  if (type === "integer" || type === "number") {
    if (raw === "") throw new Error(`${what}type ${type === "integer" ? "a whole number" : "a number"}.`);
    return Number(raw);
  }
  if (SCALAR_TYPES.has(type) || !schema) {
    if (raw === "" && !name) throw new Error("Type your answer.");
    return field.value;
  }
  try {
    return JSON.parse(raw);
  } catch {
    throw new Error(`${what}not valid JSON.`);
  }
}

/** An object schema whose properties are all scalars gets one field per property. */
function perProperty(schema) {
  const properties = schema?.type === "object" ? schema.properties : null;
  if (!properties || !Object.keys(properties).length) return null;
  return Object.values(properties).every((p) => SCALAR_TYPES.has(p?.type)) ? properties : null;
}

/** How an answer reads in the chat (the server's user_message text is the same). */
export function answerText(value) {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function secretLabel(ev) {
  if (ev.schemeType === "apiKey") return "API key";
  if (ev.schemeType === "http" && ev.httpScheme === "basic") return "User name and password";
  return "Token";
}

function secretWhat(ev) {
  if (ev.schemeType === "apiKey") {
    const where = ev.keyName ? ` (${ev.keyName}${ev.keyLocation ? ` ${ev.keyLocation}` : ""})` : "";
    return `an API key${where}`;
  }
  if (ev.schemeType === "http") return ev.httpScheme === "basic" ? "your user name and password" : `a ${ev.httpScheme ?? "bearer"} token`;
  return "a credential";
}

function secretHint(ev) {
  return ev.schemeType === "http" && ev.httpScheme === "basic" ? "user:password" : "";
}

/** A link opening the sign-in page in a new window: only for an http(s) URL. */
function signInLink(uri) {
  let url = null;
  try {
    url = new URL(uri);
  } catch {
    url = null;
  }
  if (!url || !["http:", "https:"].includes(url.protocol)) {
    return el("span", {class: "sign-in missing", text: "Sign in (no sign-in URL was sent)"});
  }
  return el("a", {class: "sign-in", href: url.href, target: "_blank", rel: "noopener noreferrer", text: "Sign in"});
}

export class Chat {
  /** `onDecide(ev, confirmed)` is called when an approval card's button is clicked,
   * `onCredential(ev, value)` when a credential card is submitted (value: the key or
   * token, or the redirect URL a sign-in ended on), `onInput(ev, value)` when an input
   * card is submitted (value: the answer, typed by the request's schema). */
  constructor(root, {onDecide = () => {}, onCredential = () => {}, onInput = () => {}} = {}) {
    this.root = root;
    this.onDecide = onDecide;
    this.onCredential = onCredential;
    this.onInput = onInput;
    this.messages = new Map(); // messageId -> {node, body, text, deltas}
    this.approvals = new Map(); // requestId -> {node, buttons, decision, confirmed}
    this.credentials = new Map(); // requestId -> {node, controls, input, error, decision, provided}
    this.inputs = new Map(); // requestId -> {node, form, controls, error, shown, answered}
    this.locked = false;
  }

  clear() {
    this.messages.clear();
    this.approvals.clear();
    this.credentials.clear();
    this.inputs.clear();
    this.root.replaceChildren();
  }

  /** While a turn runs, the controls of unanswered approval and credential cards are
   * disabled. */
  lock(locked) {
    this.locked = locked;
    for (const card of this.approvals.values()) {
      if (card.confirmed === null) for (const button of card.buttons) button.disabled = locked;
    }
    for (const card of this.credentials.values()) {
      if (!card.provided) for (const control of card.controls) control.disabled = locked;
    }
    for (const card of this.inputs.values()) {
      if (!card.answered) for (const control of card.controls) control.disabled = locked;
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

  /** A card asking to approve a tool call: the tool, its arguments, the hint, buttons.
   * A workflow's approval (`input_required` of kind approval) gets the same card; the
   * same request again (its answer was refused) opens it again. */
  approval(ev) {
    if (this.approvals.has(ev.requestId)) {
      if (ev.type === "input_required") this.decided(ev.requestId, null);
      return;
    }
    const decide = (confirmed) => () => this.onDecide(ev, confirmed);
    const buttons = [
      el("button", {type: "button", class: "approve", text: "Approve", onclick: decide(true)}),
      el("button", {type: "button", class: "reject quiet", text: "Reject", onclick: decide(false)}),
    ];
    for (const button of buttons) button.disabled = this.locked;
    const decision = el("span", {class: "decision", text: "Waiting for your answer"});
    const error = el("div", {class: "approval-error", role: "alert", hidden: true});
    const workflow = ev.type === "input_required";
    const hint = workflow ? ev.message : ev.hint;
    const payload = workflow ? ev.confirmationPayload : ev.payload;
    const who = `${ev.agent ?? (workflow ? "workflow" : "agent")}${workflow && ev.node ? ` · ${ev.node}` : ""}`;
    const node = el("div", {class: "msg approval", dataset: {requestId: ev.requestId, state: "pending", kind: workflow ? "workflow" : "tool"}},
      el("div", {class: "meta", text: `${who} · needs your approval`}),
      el("div", {class: "what"}, "Run ", el("code", {text: ev.tool ?? "a tool"}), "?"),
      hint ? el("div", {class: "why", text: hint}) : null,
      jsonDetails("arguments", ev.args ?? {}, {open: true, cls: "args"}),
      payload !== null && payload !== undefined ? jsonDetails("payload", payload, {cls: "payload"}) : null,
      el("div", {class: "actions"}, buttons, decision), error);
    this.approvals.set(ev.requestId, {node, buttons, decision, error, confirmed: null});
    this.add(node);
  }

  /** Shows the answer on its card (`confirmed` null: unanswered again, the answer failed;
   * `message` says why). */
  decided(requestId, confirmed, message = "") {
    const card = this.approvals.get(requestId);
    if (!card) return;
    card.confirmed = confirmed;
    card.error.textContent = confirmed === null ? message : "";
    card.error.hidden = !card.error.textContent;
    const answered = confirmed !== null;
    for (const button of card.buttons) button.disabled = answered || this.locked;
    card.node.dataset.state = answered ? (confirmed ? "approved" : "rejected") : "pending";
    card.decision.textContent = !answered ? "Waiting for your answer" : confirmed ? "Approved" : "Rejected";
  }

  /**
   * A card asking for the user's credential: for OAuth2 / OpenID Connect a "Sign in"
   * link (a new window) and a field for the URL the browser landed on afterwards; for
   * an API key or an HTTP token a password field. The value never reaches the chat.
   */
  credential(ev) {
    if (this.credentials.has(ev.requestId)) return;
    const signIn = SIGN_IN_SCHEMES.has(ev.schemeType);
    const tool = ev.tool ? el("code", {text: ev.tool}) : "A tool";
    const input = signIn
      ? el("input", {type: "url", class: "redirect", required: true, autocomplete: "off", spellcheck: "false",
        placeholder: "https://… (the address after signing in)", "aria-label": "The URL you landed on after signing in"})
      : el("input", {type: "password", class: "secret", required: true, autocomplete: "off",
        placeholder: secretHint(ev), "aria-label": secretLabel(ev)});
    const submit = el("button", {type: "submit", class: "provide", text: "Submit"});
    const error = el("div", {class: "auth-error", role: "alert"});
    const decision = el("span", {class: "decision", text: "Waiting for your answer"});
    const link = signIn ? signInLink(ev.authUri) : null;
    const form = el("form", {class: "credential-form", onsubmit: (e) => {
      e.preventDefault();
      const value = input.value.trim();
      if (!value) {
        error.textContent = signIn ? "Paste the URL your browser landed on after signing in." : `Type the ${secretLabel(ev).toLowerCase()}.`;
        return;
      }
      error.textContent = "";
      this.onCredential(ev, value);
    }},
    signIn ? el("div", {class: "step"}, "1. ", link, " (opens a new window)") : null,
    el("label", {}, signIn ? "2. Paste the URL your browser landed on:" : `${secretLabel(ev)}:`, input),
    el("div", {class: "actions"}, submit, decision), error);
    const controls = [input, submit];
    for (const control of controls) control.disabled = this.locked;
    const node = el("div", {class: "msg auth", dataset: {requestId: ev.requestId, state: "pending", scheme: ev.schemeType ?? ""}},
      el("div", {class: "meta", text: `${ev.agent ?? "agent"} · ${signIn ? "needs you to sign in" : "needs your credential"}`}),
      el("div", {class: "what"}, tool, signIn ? " needs you to sign in." : ` needs ${secretWhat(ev)}.`),
      form);
    this.credentials.set(ev.requestId, {node, controls, input, error, decision, provided: false, signIn});
    this.add(node);
  }

  /** Shows that credential request `requestId` was answered (`provided` false: it was
   * refused, `message` says why; the card can be answered again). */
  provided(requestId, provided, message = "") {
    const card = this.credentials.get(requestId);
    if (!card) return;
    card.provided = provided;
    if (provided) card.input.value = ""; // the secret stays nowhere on the page
    for (const control of card.controls) control.disabled = provided || this.locked;
    card.node.dataset.state = provided ? "provided" : "pending";
    card.decision.textContent = provided ? (card.signIn ? "Signed in" : "Provided") : "Waiting for your answer";
    card.error.textContent = provided ? "" : message;
  }

  /**
   * A card with a workflow node's question and a form for the answer: a text field
   * (no schema, or a string), a number field, true / false, a field per property (an
   * object of scalars), or a JSON field (anything else). The same request again (its
   * answer was refused) opens the card again.
   */
  input(ev) {
    if (this.inputs.has(ev.requestId)) {
      this.answered(ev.requestId, null);
      return;
    }
    const schema = ev.responseSchema ?? null;
    const properties = perProperty(schema);
    const fields = properties
      ? Object.entries(properties).map(([name, property]) => ({name, property, field: inputField(property, name)}))
      : [{name: null, property: schema, field: inputField(schema, ev.message ?? "Your answer")}];
    const submit = el("button", {type: "submit", class: "answer-submit", text: "Send"});
    const error = el("div", {class: "input-error", role: "alert"});
    const decision = el("span", {class: "decision", text: "Waiting for your answer"});
    const form = el("form", {class: "input-form", onsubmit: (e) => {
      e.preventDefault();
      let value;
      try {
        if (!properties) {
          value = fieldValue(fields[0].field, schema, null);
        } else {
          value = {};
          for (const {name, property, field} of fields) {
            if (property.type === "string" && field.value === "" && !(schema.required ?? []).includes(name)) continue;
            value[name] = fieldValue(field, property, name);
          }
        }
      } catch (problem) {
        error.textContent = problem.message;
        return;
      }
      error.textContent = "";
      this.onInput(ev, value);
    }},
    fields.map(({name, property, field}) => (name
      ? el("label", {}, `${property.title ?? name}${property.description ? ` (${property.description})` : ""}:`, field)
      : field)),
    el("div", {class: "actions"}, submit, decision), error);
    const controls = [...fields.map((f) => f.field), submit];
    for (const control of controls) control.disabled = this.locked;
    const shown = el("div", {class: "answer-text", hidden: true});
    const type = schema?.type;
    const node = el("div", {class: "msg input", dataset: {requestId: ev.requestId, state: "pending", schema: type ?? ""}},
      el("div", {class: "meta", text: `${ev.agent ?? "workflow"}${ev.node ? ` · ${ev.node}` : ""} · asks for your input`}),
      el("div", {class: "what", text: ev.message || "Input requested"}),
      schema && type !== "string" ? jsonDetails("expected answer (JSON schema)", schema, {cls: "schema"}) : null,
      ev.payload !== null && ev.payload !== undefined ? jsonDetails("payload", ev.payload, {cls: "payload"}) : null,
      form, shown);
    this.inputs.set(ev.requestId, {node, form, controls, error, shown, answered: false});
    this.add(node);
  }

  /** Shows the answer `text` on input card `requestId` in place of its form (`text`
   * null: unanswered again, `message` says why; the form can be sent again). */
  answered(requestId, text, message = "") {
    const card = this.inputs.get(requestId);
    if (!card) return;
    const answered = text !== null && text !== undefined;
    card.answered = answered;
    card.form.hidden = answered;
    card.shown.hidden = !answered;
    card.shown.textContent = answered ? text : "";
    for (const control of card.controls) control.disabled = answered || this.locked;
    card.node.dataset.state = answered ? "answered" : "pending";
    card.error.textContent = answered ? "" : message;
  }

  /** Input cards nobody answered yet. */
  waitingInputs() {
    return [...this.inputs.values()].filter((card) => !card.answered).length;
  }

  /** Approval cards nobody answered yet. */
  waiting() {
    return [...this.approvals.values()].filter((card) => card.confirmed === null).length;
  }

  /** Credential cards nobody answered yet. */
  waitingCredentials() {
    return [...this.credentials.values()].filter((card) => !card.provided).length;
  }

  apply(ev) {
    if (ev.internal) return;
    switch (ev.type) {
      case "user_message":
        this.user(ev.text);
        for (const answer of ev.approvals ?? []) this.decided(answer.requestId, answer.confirmed);
        for (const answer of ev.credentials ?? []) this.provided(answer.requestId, true);
        for (const answer of ev.inputs ?? []) {
          if (this.approvals.has(answer.requestId)) this.decided(answer.requestId, answer.confirmed ?? answer.value?.confirmed === true);
          else this.answered(answer.requestId, answerText(answer.value));
        }
        break;
      case "input_required":
        if (ev.kind === "approval") this.approval(ev);
        else this.input(ev);
        break;
      case "approval_required":
        this.approval(ev);
        break;
      case "auth_required":
        this.credential(ev);
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
        for (const requestId of ev.requestIds ?? []) { // refused: the card can be answered again
          if (this.approvals.has(requestId)) this.decided(requestId, null, ev.message);
          else this.answered(requestId, null, ev.message);
        }
        break;
      case "done":
        for (const message of this.messages.values()) message.node.classList.remove("streaming");
        break;
      default:
        break;
    }
  }
}
