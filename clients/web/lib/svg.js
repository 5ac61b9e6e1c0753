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
// units. flowBoard packs them, in order, each at the highest free place (then the
// leftmost) within the layout's width:
// - on a phone (ctx.phone) a width that a phone shows at about its own size;
// - on a wider one whose board column was measured (ctx.boardPx, CSS px), as many units
//   as keep one unit at least LEGIBLE_SCALE px: the board is drawn at that scale, never
//   shrunk to fit a height, so its smallest words (10 units) stay at 11 CSS px or more;
// - otherwise (the replay) the game's own wide width, scaled to the page.
// A panel wider than the layout marks the board data-overflow: the page draws the game's
// narrow panels (ctx.narrow, a phone's) instead (components/game.js). A game sizes its rows of cards to
// ctx.flowWidth (flowWidth below) and splits a panel too wide for the phone itself.

export const NARROW_WIDTH = 320;
export const LEGIBLE_SCALE = 1.12;

export function panel(w, h, nodes, x0 = 0, y0 = 0) {
  return { w, h, nodes, x0, y0 };
}

// The width panels are packed into: the phone's, the measured column's, or `width`.
export function flowWidth(ctx, width) {
  if (ctx.phone || (ctx.narrow && !ctx.boardPx)) return NARROW_WIDTH;
  if (ctx.boardPx) return Math.floor(ctx.boardPx / LEGIBLE_SCALE);
  return width;
}

// Bottom-left packing on a skyline: `tops` holds, per run of x, the lowest drawn y.
function pack(panels, limit, gap) {
  let tops = [{ x: 0, w: Infinity, y: 0 }];
  const at = [];
  for (const p of panels) {
    let best = null;
    for (const start of tops) {
      const x = start.x;
      if (x > 0 && x + p.w > limit) continue;
      const y = Math.max(...tops.filter((t) => t.x < x + p.w && t.x + t.w > x).map((t) => t.y));
      if (!best || y < best.y || (y === best.y && x < best.x)) best = { x, y };
    }
    at.push(best);
    const bottom = best.y + p.h + gap;
    const right = best.x + p.w + gap;
    const next = [];
    for (const t of tops) {
      const end = t.x + t.w;
      if (end <= best.x || t.x >= right) next.push(t);
      else {
        if (t.x < best.x) next.push({ x: t.x, w: best.x - t.x, y: t.y });
        if (end > right) next.push({ x: right, w: end - right, y: t.y });
      }
    }
    next.push({ x: best.x, w: right - best.x, y: bottom });
    tops = next.sort((a, b) => a.x - b.x);
  }
  return at;
}

export function flowBoard(ctx, width, label, cls, panels, gap = 10) {
  const limit = flowWidth(ctx, width);
  const shown = panels.filter((p) => p);
  const at = pack(shown, limit, gap);
  const widest = Math.max(0, ...shown.map((p, i) => at[i].x + p.w));
  const height = Math.max(0, ...shown.map((p, i) => at[i].y + p.h));
  // a measured column (not a phone's): the board as wide as the column, its panels in
  // the middle
  const column = ctx.boardPx && !ctx.phone;
  const w = column ? Math.max(widest, limit) : ctx.narrow ? widest : Math.max(widest, width);
  const shift = column ? (w - widest) / 2 : 0;
  const placed = shown.map((p, i) => s("g", { transform: `translate(${at[i].x + shift - p.x0} ${at[i].y - p.y0})` }, p.nodes));
  const drawn = board(`0 0 ${w} ${height}`, label, cls + (ctx.narrow ? " narrow" : ""), placed);
  drawn.dataset.flowWidth = String(limit);
  if (widest > limit) drawn.dataset.overflow = "1";
  return drawn;
}

// Panels that belong together in reading order (each player's board): one panel of
// rows, as many side by side as `limit` holds, so they are not scattered by the packing.
export function panelRows(panels, limit, gap = 10) {
  const nodes = [];
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
    nodes.push(s("g", { transform: `translate(${x - p.x0} ${y - p.y0})` }, p.nodes));
    x += p.w + gap;
    rowH = Math.max(rowH, p.h);
    widest = Math.max(widest, x - gap);
  }
  return panel(widest, y + rowH, nodes);
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
