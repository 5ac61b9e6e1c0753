// "Who did what" between two views of a table (replays): the table's own changes
// (seats taken and left, start, end), then the game module's account of the game view.

export function describeTable(prev, next, ctx, mod) {
  if (!prev) return ["The table was created."];
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
  return lines;
}
