// Building DOM nodes without a framework: h(tag, attrs, ...children).
//
// attrs: "class", "text", "style" (an object of CSS properties, or a CSS text, set
// through the CSSOM: the page's Content-Security-Policy refuses style attributes),
// "on<event>" (listeners), "data-*" / "aria-*" / other attributes
// (set with setAttribute; false/null/undefined leave them out; true sets them empty),
// and a few properties set directly (value, checked, selected, disabled, hidden).
// children: nodes, strings, numbers, arrays of them, null/undefined/false (skipped).

const PROPERTIES = new Set(["value", "checked", "selected", "disabled", "hidden", "open"]);

export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = String(value);
    else if (key === "style" && typeof value === "string") node.style.cssText = value;
    else if (key === "style") {
      for (const [property, css] of Object.entries(value)) node.style.setProperty(property, css);
    } else if (key.startsWith("on") && typeof value === "function") {
      node.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (PROPERTIES.has(key)) node[key] = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

export function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

// Replace a container's children, keeping keyboard focus on the element with the same
// data-key (so a re-render after each live update does not throw a keyboard user out).
export function replaceChildren(container, ...children) {
  const active = document.activeElement;
  const key = active && container.contains(active) ? active.getAttribute("data-key") : null;
  // Build first, then swap in one step (a blur handler fired by the swap sees a whole tree).
  const fresh = append(document.createDocumentFragment(), children);
  container.replaceChildren(fresh);
  if (key) {
    const again = [...container.querySelectorAll("[data-key]")].find(
      (el) => el.getAttribute("data-key") === key,
    );
    if (again && !again.disabled) again.focus({ preventScroll: true });
  }
}

export function plural(n, one, many = one + "s") {
  return `${n} ${n === 1 ? one : many}`;
}

export function capitalise(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

// "a, b and c"
export function listing(items) {
  const list = items.filter((x) => x !== "" && x !== null && x !== undefined);
  if (list.length <= 1) return list.join("");
  return list.slice(0, -1).join(", ") + " and " + list[list.length - 1];
}

// A control's accessible name that holds the words it shows (a speech user says what they
// see): `label` itself when it already says `shown`, else `shown` first, then the label.
// Compared without case, punctuation and "+", as a speech recogniser hears them.
const UNSPOKEN = /[()[\]{},.:;!?'"“”‘’\-+/]/g;
const spoken = (words) => String(words).toLowerCase().replace(UNSPOKEN, "").replace(/\s+/g, " ").trim();

export function nameShowing(shown, label) {
  const seen = spoken(shown);
  if (!seen || spoken(label).includes(seen)) return label;
  return `${String(shown).replace(/\s+/g, " ").trim()}: ${label}`;
}
