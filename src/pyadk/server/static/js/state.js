// The State tab: the session state, updated live from state deltas, and editable
// between turns. Edit a key or add one: the value is JSON, checked here before
// `onSave(delta)` sends it (PATCH .../sessions/{id} with {stateDelta}).

import {el, pretty} from "./dom.js";

const TEMP_PREFIX = "temp:";

/** The JSON value typed in `text`, or throws an Error that says what is wrong. */
export function parseValue(text) {
  if (!text.trim()) throw new Error("Type a JSON value: \"tea\", 42, true, null, [1, 2] or {\"a\": 1}.");
  try {
    return JSON.parse(text);
  } catch (error) {
    const hint = /^[A-Za-z]/.test(text.trim()) ? " (text needs double quotes: \"tea\")" : "";
    throw new Error(`Not valid JSON${hint}: ${error.message}`);
  }
}

function checkKey(key) {
  if (!key) throw new Error("Give the key a name.");
  if (key.startsWith(TEMP_PREFIX)) throw new Error("temp: keys live for one invocation and are never stored.");
}

export class StateView {
  /** `onSave(delta)` stores a state delta (a Promise; a rejection is shown). */
  constructor(root, {onSave = async () => {}} = {}) {
    this.root = root;
    this.onSave = onSave;
    this.state = {};
    this.locked = false;
    this.editable = false; // a session is open
    this.render(new Set());
  }

  set(state, changed = new Set()) {
    this.state = {...(state ?? {})};
    this.render(changed);
  }

  /** A live state delta (thinking kind "state"): shown at once, before the refresh. A
   * null value is stored as null (the key stays), so it is shown as null. */
  merge(delta) {
    Object.assign(this.state, delta ?? {});
    this.render(new Set(Object.keys(delta ?? {})));
  }

  /** While a turn runs (or without a session) nothing can be edited. */
  lock(locked, editable = this.editable) {
    this.locked = locked;
    this.editable = editable;
    for (const control of this.root.querySelectorAll("button, input, textarea")) {
      control.disabled = locked || !editable;
    }
  }

  render(changed) {
    const keys = Object.keys(this.state).sort();
    const list = keys.length
      ? el("dl", {class: "kv"}, keys.map((key) => [
        el("dt", {class: changed.has(key) ? "changed" : null, dataset: {key}, text: key}),
        el("dd", {dataset: {key}},
          el("pre", {text: typeof this.state[key] === "string" ? this.state[key] : pretty(this.state[key])}),
          el("button", {type: "button", class: "quiet small edit", text: "Edit", "aria-label": `Edit ${key}`, onclick: () => this.edit(key)})),
      ]))
      : el("p", {class: "hint", text: "The session state is empty."});
    this.root.replaceChildren(list, this.addForm());
    this.lock(this.locked);
  }

  /** Replaces a key's value with an editor (JSON), Save / Cancel. */
  edit(key) {
    const dd = [...this.root.querySelectorAll("dd")].find((node) => node.dataset.key === key);
    if (!dd || this.locked) return;
    const input = el("textarea", {class: "value", rows: 3, spellcheck: "false", "aria-label": `Value of ${key}`});
    input.value = pretty(this.state[key]);
    const error = el("div", {class: "state-error", role: "alert"});
    const save = () => this.save(() => ({[key]: parseValue(input.value)}), error);
    dd.replaceChildren(el("form", {class: "state-edit", onsubmit: (e) => { e.preventDefault(); save(); }},
      input, error,
      el("div", {class: "actions"},
        el("button", {type: "submit", class: "save", text: "Save"}),
        el("button", {type: "button", class: "quiet cancel", text: "Cancel", onclick: () => this.render(new Set())}))));
    input.focus();
  }

  addForm() {
    const key = el("input", {class: "new-key", placeholder: "key", spellcheck: "false", "aria-label": "New state key"});
    const value = el("textarea", {class: "new-value", rows: 2, placeholder: "JSON value, e.g. \"tea\" or 42", spellcheck: "false", "aria-label": "New state value"});
    const error = el("div", {class: "state-error", role: "alert"});
    const delta = () => {
      const name = key.value.trim();
      checkKey(name);
      return {[name]: parseValue(value.value)};
    };
    return el("form", {class: "state-add", onsubmit: (e) => { e.preventDefault(); this.save(delta, error); }},
      el("div", {class: "title", text: "Add or set a key"}), key, value, error,
      el("button", {type: "submit", class: "add", text: "Add key"}));
  }

  /** Builds the delta (errors shown in `error`), sends it; the caller reloads the pane. */
  async save(build, error) {
    let delta;
    try {
      delta = build();
    } catch (problem) {
      error.textContent = problem.message;
      return;
    }
    error.textContent = "";
    try {
      await this.onSave(delta);
    } catch (problem) {
      error.textContent = `Not saved: ${problem.message}`;
    }
  }
}
