// Run options of the next turns (a collapsible panel above the message box): streaming,
// maxLlmCalls and the turn's budget (RunOptions of POST /run_ui_events, see
// docs/server.md). Empty fields are not sent. Kept in localStorage, like the user id.

const OPTIONS_KEY = "pyadk.devui.runOptions";
const INTEGERS = ["maxLlmCalls", "llmCalls", "toolCalls", "tokens"];
const BUDGET = ["llmCalls", "toolCalls", "tokens", "wallTime"];

export class RunOptionsPanel {
  constructor(form, {summary, error, reset}) {
    this.form = form;
    this.summary = summary;
    this.error = error;
    this.restore();
    form.addEventListener("input", () => this.changed());
    form.addEventListener("submit", (e) => e.preventDefault());
    reset.addEventListener("click", () => {
      form.reset();
      this.changed();
    });
    this.changed();
  }

  restore() {
    let saved = {};
    try {
      saved = JSON.parse(localStorage.getItem(OPTIONS_KEY) || "{}") ?? {};
    } catch {
      saved = {};
    }
    const fields = this.form.elements;
    fields.streaming.checked = saved.streaming !== false;
    for (const name of [...INTEGERS, "wallTime"]) fields[name].value = saved[name] ?? "";
  }

  /** The fields as typed: {streaming, maxLlmCalls: "3", ...} (strings, "" = empty). */
  fields() {
    const fields = this.form.elements;
    const values = {streaming: fields.streaming.checked};
    for (const name of [...INTEGERS, "wallTime"]) values[name] = fields[name].value.trim();
    return values;
  }

  /** The body fields of a run: {streaming, runOptions?}; throws on an invalid field. */
  body() {
    const typed = this.fields();
    const number = (name) => {
      if (typed[name] === "") return undefined;
      const value = Number(typed[name]);
      const integer = INTEGERS.includes(name);
      if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
        throw new Error(`Run options: ${name} must be a positive ${integer ? "whole number" : "number"}.`);
      }
      return value;
    };
    const runOptions = {};
    const maxLlmCalls = number("maxLlmCalls");
    if (maxLlmCalls !== undefined) runOptions.maxLlmCalls = maxLlmCalls;
    const budget = {};
    for (const name of BUDGET) {
      const value = number(name);
      if (value !== undefined) budget[name] = value;
    }
    if (Object.keys(budget).length) runOptions.budget = budget;
    return Object.keys(runOptions).length
      ? {streaming: typed.streaming, runOptions}
      : {streaming: typed.streaming};
  }

  changed() {
    localStorage.setItem(OPTIONS_KEY, JSON.stringify(this.fields()));
    try {
      const {streaming, runOptions} = this.body();
      this.error.textContent = "";
      const notes = streaming ? [] : ["no streaming"];
      if (runOptions?.maxLlmCalls) notes.push(`max ${runOptions.maxLlmCalls} LLM calls`);
      if (runOptions?.budget) {
        notes.push(`budget ${Object.entries(runOptions.budget).map(([k, v]) => `${k} ${v}`).join(", ")}`);
      }
      this.summary.textContent = notes.length ? `(${notes.join("; ")})` : "(defaults)";
    } catch (error) {
      this.error.textContent = error.message;
      this.summary.textContent = "(invalid)";
    }
  }

  /** Disabled while a turn runs. */
  lock(locked) {
    for (const control of this.form.elements) control.disabled = locked;
  }
}
