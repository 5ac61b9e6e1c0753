// A game module's drawing, in the parts the table and replay pages place:
//   board   the <svg data-testid="board"> picture, with moves where they are played
//   moves   the game's own moves panel (hints, simple moves, choices as buttons)
//   hand    my private panel (data-testid="private")
//   under   multi-step orders that belong under the board (a workshop order, a placement)
//   details the table in words: every public fact, with the moves as buttons in place
// A drawing bug must not blank the page: it is logged and the generic drawing (which
// still offers every legal move) takes its place. A board whose wide panels overflow the
// board column (lib/svg.js flowBoard) is drawn again with the game's narrow panels.

import * as generic from "../games/generic.js";

export function gameParts(mod, ctx) {
  const parts = drawParts(mod, ctx);
  // the game's wide panels do not fit the measured board column: its narrow ones do
  if (parts.board && parts.board.dataset.overflow && !ctx.narrow && !ctx.fellBack) {
    ctx.narrow = true;
    ctx.rendered.clear();
    return drawParts(mod, ctx);
  }
  return parts;
}

function drawParts(mod, ctx) {
  try {
    return { board: null, moves: null, hand: null, under: null, details: null, ...mod.render(ctx) };
  } catch (error) {
    console.error("drawing failed", error);
    ctx.fellBack = true;
    ctx.rendered.clear();
    return { board: null, moves: null, hand: null, under: null, details: generic.render(ctx).details };
  }
}
