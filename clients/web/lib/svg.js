// Drawing boards as SVG with DOM APIs (createElementNS: no markup strings, so a strict
// Content-Security-Policy and data from the view cannot inject anything).
//
// s(tag, attrs, ...children) is h() for SVG: "class", "text", "on<event>" listeners, every
// other attribute set with setAttribute (false/null/undefined leave it out).
// board(...) is the one root every game draws into: <svg data-testid="board"> with a
// viewBox (it scales to any width), a title and an accessible name.
// hot(ctx, body, label, ...shapes) makes a drawn element a move: role="button",
// tabindex, aria-label, a <title> tooltip, data-command with the exact JSON body it sends
// (the same hook as the move buttons), Enter / Space / click send it. Its accessible name
// holds the words drawn on it (lib/dom.js nameShowing); the tooltip is not read twice.

import { nameShowing } from "./dom.js";

const NS = "http://www.w3.org/2000/svg";

export function s(tag, attrs = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = String(value);
    else if (key.startsWith("on") && typeof value === "function") {
      node.addEventListener(key.slice(2).toLowerCase(), value);
    } else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function board(viewBox, label, cls, ...children) {
  return s(
    "svg",
    {
      viewBox,
      class: "board " + cls,
      "data-testid": "board",
      role: "group",
      "aria-label": label,
      preserveAspectRatio: "xMidYMid meet",
    },
    s("title", {}, label),
    ...children,
  );
}

// Text that never catches a click meant for the shape below (see .board text in CSS).
export function text(x, y, content, attrs = {}) {
  return s("text", { x, y, ...attrs }, content);
}

// Text at most `width` wide: a label longer than about `width / em` characters is squeezed
// (SVG's textLength) instead of running into the next box.
export function fittedText(x, y, content, width, em, attrs = {}) {
  const squeeze = content.length * em > width ? { textLength: width, lengthAdjust: "spacingAndGlyphs" } : {};
  return text(x, y, content, { ...attrs, ...squeeze });
}

// A labelled, non-interactive drawn element (read by screen readers as one image).
export function thing(label, attrs, ...children) {
  return s("g", { role: "img", "aria-label": label, ...attrs }, s("title", {}, label), ...children);
}

export function hot(ctx, body, label, attrs, ...children) {
  const json = JSON.stringify(body);
  ctx.rendered.add(json);
  const act = () => {
    if (!ctx.busy) ctx.send(body);
  };
  const { class: cls, ...rest } = attrs || {};
  const shown = s("g", {}, ...children);
  const words = [...shown.querySelectorAll("text")].map((t) => t.textContent).join(" ");
  return s(
    "g",
    {
      class: "hot" + (cls ? " " + cls : ""),
      role: "button",
      tabindex: "0",
      "aria-label": nameShowing(words, label),
      "aria-disabled": ctx.busy ? "true" : null,
      "data-command": json,
      "data-key": "board:" + json,
      onclick: act,
      onkeydown: (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          act();
        }
      },
      ...rest,
    },
    s("title", { "aria-hidden": "true" }, label),
    ...shown.childNodes,
  );
}

// A drawn thing with a price: a click chooses it (aria-pressed), then a payment beside the
// board makes the move. data-pick, data-key and the rest come in `attrs`.
export function pick(label, chosen, choose, attrs, ...children) {
  const shown = s("g", {}, ...children);
  const words = [...shown.querySelectorAll("text")].map((t) => t.textContent).join(" ");
  const { class: cls, ...rest } = attrs || {};
  return s(
    "g",
    {
      class: "hot pick" + (chosen ? " chosen" : "") + (cls ? " " + cls : ""),
      role: "button",
      tabindex: "0",
      "aria-pressed": String(chosen),
      "aria-label": nameShowing(words, label),
      onclick: choose,
      onkeydown: (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          choose();
        }
      },
      ...rest,
    },
    s("title", { "aria-hidden": "true" }, label),
    ...shown.childNodes,
  );
}

// ------------------------------------------------------------------ boards made of panels
// A board is a set of panels, each drawn in its own coordinates from (x0, y0), w × h
// units. flowBoard places them in rows no wider than the layout's width: the desktop's
// wide one, or on a narrow screen (ctx.narrow) a width that a phone shows at about its
// own size, so no text falls under 11 CSS px and nothing scrolls sideways. A game splits
// a panel too wide for the phone into narrower ones itself.

export const NARROW_WIDTH = 320;

export function panel(w, h, nodes, x0 = 0, y0 = 0) {
  return { w, h, nodes, x0, y0 };
}

export function flowBoard(ctx, width, label, cls, panels, gap = 10) {
  const limit = ctx.narrow ? NARROW_WIDTH : width;
  const placed = [];
  let x = 0;
  let y = 0;
  let rowH = 0;
  let widest = 0;
  for (const p of panels.filter((p) => p)) {
    if (x > 0 && x + p.w > limit) {
      x = 0;
      y += rowH + gap;
      rowH = 0;
    }
    placed.push(s("g", { transform: `translate(${x - p.x0} ${y - p.y0})` }, p.nodes));
    x += p.w + gap;
    rowH = Math.max(rowH, p.h);
    widest = Math.max(widest, x - gap);
  }
  const w = Math.max(widest, ctx.narrow ? 0 : width);
  return board(`0 0 ${w} ${y + rowH}`, label, cls + (ctx.narrow ? " narrow" : ""), placed);
}

// Words wrapped into lines of at most `chars` characters (a card's text on the board).
export function wrapWords(words, chars) {
  const lines = [];
  let line = "";
  for (const word of String(words).split(/\s+/)) {
    if (line && (line + " " + word).length > chars) {
      lines.push(line);
      line = word;
    } else line = line ? line + " " + word : word;
  }
  if (line) lines.push(line);
  return lines;
}
