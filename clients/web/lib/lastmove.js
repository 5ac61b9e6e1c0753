// The last move of each other player, marked on the board: told by comparing the board
// drawn for the previous view with the board drawn for the new one, never by the rules.
// Every drawn thing of a board carries its content in its accessible name (lib/svg.js
// thing()); a thing whose name is new when another seat's command (the view's `actor`)
// made the change is a piece that move placed, moved or changed. Each seat keeps its
// latest move's things marked (class "last-move", its colour) until it moves again or
// the things change; the things of a move that just arrived pulse once ("just-moved",
// an animation the stylesheet leaves out under prefers-reduced-motion).

const FRESH_MS = 1500; // a move "just arrived" for this long (re-renders meanwhile pulse too)

function names(board) {
  return [...board.querySelectorAll("[role=img][aria-label]")];
}

export class LastMoves {
  constructor() {
    this.seq = -1;
    this.before = null; // the names drawn for the view of seq `this.seq`
    this.bySeat = new Map(); // seat -> Set of names its last move drew
    this.fresh = null; // {seat, until}
  }

  // After each draw of the board for `view` (the table view): learn what changed, if this
  // is a new view, then mark every other seat's last move.
  mark(board, view) {
    if (!board) return;
    const things = names(board);
    const now = things.map((thing) => thing.getAttribute("aria-label"));
    if (view.seq !== this.seq) {
      if (view.undone_by !== null && view.undone_by !== undefined) this.bySeat.delete(view.undone_by);
      const actor = view.actor;
      if (this.before && view.seq > this.seq && actor !== null && actor !== undefined && actor !== view.viewer) {
        const left = new Map();
        for (const name of this.before) left.set(name, (left.get(name) || 0) + 1);
        const drawn = new Set();
        for (const name of now) {
          if (left.get(name)) left.set(name, left.get(name) - 1);
          else drawn.add(name);
        }
        if (drawn.size) {
          this.bySeat.set(actor, drawn);
          this.fresh = { seat: actor, until: Date.now() + FRESH_MS };
        }
      }
      this.seq = view.seq;
    }
    this.before = now;
    const fresh = this.fresh && this.fresh.until > Date.now() ? this.fresh.seat : null;
    things.forEach((thing, i) => {
      for (const [seat, drawn] of this.bySeat) {
        if (seat === view.viewer || !drawn.has(now[i])) continue;
        thing.classList.add("last-move", `last-move-${seat % 6}`);
        thing.dataset.lastMoveBy = String(seat);
        if (seat === fresh) thing.classList.add("just-moved");
      }
    });
  }
}
