// The move log beside the board: who did what, in words, newest at the bottom, live.
// Told from the difference between consecutive views this viewer received (the same
// narration as the replay page, games/describe.js), so it never says more than the
// viewer may know; an undo, whoever took a move back, is told as one (the view's
// undone_by). One <li> per update received (a move, with what it set off).
//
// The element is made once and updated in place; restore() after each render puts it back
// at the newest entry, or where the reader scrolled to.

import { h } from "../lib/dom.js";
import { describeTable } from "../games/describe.js";

const KEEP = 300;

export class MoveLog {
  constructor(tableId) {
    // Focusable: a keyboard scrolls it (it scrolls on its own).
    this.list = h("ol", { class: "move-log", "data-testid": "move-log", "aria-label": "Moves so far", tabindex: "0" });
    this.element = h(
      "section",
      { class: "panel log-panel", "aria-labelledby": "log-title" },
      h("h2", { id: "log-title" }, "Moves"),
      this.list,
      h("p", { class: "meta" }, h("a", { href: `#/table/${tableId}/replay` }, "Step through the whole game")),
    );
    this.previous = null;
    // Where the reader left the list: following the newest entry, or scrolled up to a
    // place. (The page re-attaches the list on each render, which resets its scroll.)
    this.following = true;
    this.saved = 0;
    this.list.addEventListener("scroll", () => {
      if (!this.list.isConnected || !this.list.clientHeight) return;
      this.saved = this.list.scrollTop;
      this.following = this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < 24;
    });
  }

  // After the page placed the list again: back where the reader was (or at the newest).
  restore() {
    this.list.scrollTop = this.following ? this.list.scrollHeight : this.saved;
  }

  // A new view arrived: tell what changed since the last one (nothing for the first).
  update(view, ctx, mod) {
    const previous = this.previous;
    this.previous = view;
    if (!previous || previous.seq >= view.seq) return;
    const lines = describeTable(previous, view, ctx, mod);
    if (!lines.length) return;
    const list = this.list;
    list.append(h("li", { "data-seq": view.seq }, lines.join(" ")));
    while (list.children.length > KEEP) list.firstElementChild.remove();
  }
}
