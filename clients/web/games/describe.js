// "Who did what" between two views of a table (the move log, replays): an undo as one
// (the view's undone_by), else the table's own changes (seats taken and left, start,
// end), then the game module's account of the game view; a step none of these tells is
// still told, by who made it (the view's actor).

export function describeTable(prev, next, ctx, mod) {
  if (!prev) return ["The table was created."];
  // an undo is told as one, not as the changes it took back
  if (next.undone_by !== null && next.undone_by !== undefined) {
    const mine = next.undone_by === next.viewer;
    return [mine ? "You took back your last move." : `${ctx.name(next.undone_by)} took back their last move.`];
  }
  const lines = [];
  next.seats.forEach((seat, i) => {
    const before = prev.seats[i] || {};
    if (seat.name && !before.name) lines.push(`${seat.name} took seat ${i + 1}.`);
    if (!seat.name && before.name) lines.push(`${before.name} gave up seat ${i + 1}.`);
    if (seat.left && !before.left) lines.push(`${seat.name} left the game (a bot plays on).`);
  });
  if (prev.phase === "lobby" && next.phase === "playing") lines.push("The game started.");
  if (prev.view && next.view && mod) {
    try {
      lines.push(...mod.describe(prev.view, next.view, ctx));
    } catch (error) {
      lines.push("The game moved on.");
    }
  }
  if (next.phase === "finished" && prev.phase !== "finished") {
    lines.push("The game is over.");
  }
  const movers = next.to_move.filter((s) => s >= 0);
  if (!lines.length && prev.to_move.join() !== next.to_move.join() && movers.length) {
    lines.push(`Now to move: ${movers.map((s) => ctx.name(s)).join(", ")}.`);
  }
  // a step nothing visible tells (a choice kept secret): still who made it
  if (!lines.length && next.seq > prev.seq) {
    const actor = next.actor;
    lines.push(actor !== null && actor !== undefined ? `${ctx.name(actor)} made a move.` : "The table moved on.");
  }
  return lines;
}
