// DOM helpers. Text always goes through textContent / text nodes, never innerHTML,
// so user and model text can't inject markup.

/** el("div", {class: "x", text: "hi", onclick: f}, child, "text", ...) */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = String(value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Pretty JSON for <pre> blocks. */
export function pretty(value) {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** One-line, shortened text. */
export function clip(text, max = 80) {
  const line = String(text ?? "").replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** HH:MM:SS.mmm of an epoch-seconds timestamp. */
export function clock(seconds) {
  if (typeof seconds !== "number") return "";
  const date = new Date(seconds * 1000);
  const pad = (n, w = 2) => String(n).padStart(w, "0");
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

/** A collapsible JSON block: <details><summary>label</summary><pre>json</pre></details>. */
export function jsonDetails(label, value, {open = false, cls = ""} = {}) {
  return el("details", {class: `json ${cls}`.trim(), open},
    el("summary", {text: label}),
    el("pre", {text: pretty(value)}));
}

/** Keeps a scroll container pinned to the bottom if it was at the bottom. */
export function stickToBottom(container, change) {
  const atBottom = container.scrollHeight - container.scrollTop - container.clientHeight < 40;
  change();
  if (atBottom) container.scrollTop = container.scrollHeight;
}
