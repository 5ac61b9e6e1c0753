// The legal moves a game's drawing did not place anywhere (and every move when the
// drawing fell back to the generic one): one labelled button each.

import { h } from "../lib/dom.js";

export function otherMoves(moves, ctx, mod) {
  if (!moves.length) return null;
  return h(
    "section",
    { class: "panel moves", "data-testid": "moves", "aria-labelledby": "moves-title" },
    h("h2", { id: "moves-title", tabindex: "-1" }, "Your moves"),
    h(
      "div",
      { class: "move-list" },
      moves.map((body) => ctx.button(body, mod.label(body, ctx))),
    ),
  );
}
