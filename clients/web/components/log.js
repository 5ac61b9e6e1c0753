// The move log beside the board: who did what, in words, newest at the bottom, live.
// Told from the difference between consecutive views this viewer received (the same
// narration as the replay page, games/describe.js), so it never says more than the
// viewer may know. One <li> per update received (a move, with what it set off).
//
// The element is made once and updated in place, so its scroll position survives the
// page's re-renders; it follows the newest entry unless the reader scrolled up.

import { h } from "../lib/dom.js";
import { describeTable } from "../games/describe.js";

const KEEP = 300;

export class MoveLog {
  constructor(tableId) {
    this.list = h("ol", { class: "move-log", "data-testid": "move-log", "aria-label": "Moves so far" });
    this.element = h(
      "section",
      { class: "panel log-panel", "aria-labelledby": "log-title" },
      h("h2", { id: "log-title" }, "Moves"),
      this.list,
      h("p", { class: "meta" }, h("a", { href: `#/table/${tableId}/replay` }, "Step through the whole game")),
    );
    this.previous = null;
  }

  // A new view arrived: tell what changed since the last one (nothing for the first).
  update(view, ctx, mod) {
    const previous = this.previous;
    this.previous = view;
    if (!previous || previous.seq >= view.seq) return;
    const lines = describeTable(previous, view, ctx, mod);
    if (!lines.length) return;
    const list = this.list;
    const follow = !list.isConnected || list.scrollHeight - list.scrollTop - list.clientHeight < 24;
    list.append(h("li", { "data-seq": view.seq }, lines.join(" ")));
    while (list.children.length > KEEP) list.firstElementChild.remove();
    // after the page has placed the list (it may be re-attached by this update's render)
    if (follow) requestAnimationFrame(() => (list.scrollTop = list.scrollHeight));
  }
}
