// What every game's page shares: the context handed to a game module, move buttons
// (each carries data-command with the exact JSON body it sends), seat names and colours.
//
// A game module exports:
//   render(ctx)         -> {board, moves, hand, under, details} (components/game.js): the
//                          SVG board, the moves panel, my private panel
//                          (data-testid="private"), multi-step orders, and every seat's
//                          public state in words, with move controls where they belong
//   handles(body)       -> true for the commands render() offers (the rest of the legal
//                          moves are listed by the page, so every legal move has a control)
//   label(body, ctx)    -> a human sentence for a legal command
//   describe(prev, next, ctx) -> [sentences]: who did what between two views (the move
//                          log and the replay)
// Scores are never computed here: the view's standings carry the rules' own.

import { h, nameShowing } from "../lib/dom.js";

export const LIFECYCLE = new Set([
  "table.start",
  "table.leave",
  "table.join",
  "table.create",
  "table.undo", // the page's own Undo button, beside the board
]);

// Under this width the boards draw their narrow layout (lib/svg.js flowBoard); above it
// the table page measures the board's column (boardPx) and the board is packed into it.
export const NARROW_QUERY = "(max-width: 760px)";

export function makeContext({ view, cat, ui, busy, send, rerender, boardPx = 0 }) {
  const me = view.viewer;
  const legal = (view.legal || []).filter((body) => !LIFECYCLE.has(body.type));
  const ctx = {
    view,
    game: view.view,
    cat,
    ui,
    me,
    legal,
    busy,
    myTurn: me !== null && me !== undefined && view.to_move.includes(me) && legal.length > 0,
    send,
    rerender,
    rendered: new Set(),
    // a phone: the game draws its narrow panels (also where its wide ones overflow)
    phone: typeof matchMedia === "function" && matchMedia(NARROW_QUERY).matches,
    // the board column's width in CSS px (the table page), 0 where unmeasured
    boardPx,
    name: (seat) => seatName(view, seat),
  };
  ctx.narrow = ctx.phone;
  // A button for a legal (or composed) command body.
  ctx.button = (body, label, text = label, extra = {}) => {
    const json = JSON.stringify(body);
    ctx.rendered.add(json);
    const { class: cls, ...rest } = extra;
    return h(
      "button",
      {
        type: "button",
        class: "move" + (cls ? " " + cls : ""),
        "data-command": json,
        "data-key": "cmd:" + json,
        "aria-label": typeof text === "string" ? nameShowing(text, label) : label,
        title: label,
        disabled: ctx.busy,
        onclick: () => ctx.send(body),
        ...rest,
      },
      text,
    );
  };
  ctx.of = (type) => legal.filter((body) => body.type === type);
  return ctx;
}

// A phase, step or pending choice in a player's words (the catalogue's phases, the same
// words the terminal client says); one the catalogue lacks, with spaces for underscores.
export function phaseWords(cat, key) {
  const words = (cat && cat.phases) || {};
  return words[key] || String(key || "").replace(/_/g, " ");
}

export function seatName(view, seat) {
  if (seat === null || seat === undefined || seat < 0) return "nobody";
  const info = view.seats && view.seats[seat];
  if (info) return info.name || `Seat ${seat + 1}`;
  return `Seat ${seat + 1}`;
}

export function swatch(seat) {
  return h("span", { class: `swatch seat-${seat % 6}`, "aria-hidden": "true" });
}

export function who(ctx, seat) {
  return h(
    "span",
    { class: `who seat-text-${seat % 6}` },
    swatch(seat),
    ctx.name(seat),
    seat === ctx.me ? " (you)" : "",
  );
}

export function section(title, attrs, ...children) {
  return h("section", { class: "panel", ...attrs }, h("h3", {}, title), ...children);
}

// A label value grid (definition list).
export function facts(pairs) {
  return h(
    "dl",
    { class: "facts" },
    pairs
      .filter((pair) => pair)
      .map(([term, value]) => [h("dt", {}, term), h("dd", {}, value)]),
  );
}

export function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}
