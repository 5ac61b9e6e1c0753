// The final standings: every participant in rank order (built-in opponents included),
// straight from the view's standings, and a link to step through the game.

import { h } from "../lib/dom.js";
import { swatch } from "../games/common.js";

export function standingsPanel(view, name, tableId) {
  const lines = view.standings || [];
  if (!view.standing || !lines.length) return null;
  return h(
    "section",
    { class: "panel standings", "data-testid": "standings", "aria-labelledby": "standings-title" },
    h("h2", { id: "standings-title" }, "Final standings"),
    h(
      "table",
      {},
      h("thead", {}, h("tr", {}, h("th", {}, "Rank"), h("th", {}, "Player"), h("th", {}, "Points"))),
      h(
        "tbody",
        {},
        lines.map((line) =>
          h(
            "tr",
            {
              class: line.seat !== null && line.seat === view.viewer ? "mine" : "",
              "data-participant": line.participant,
              "data-ai": line.ai ? "1" : null,
            },
            h("td", {}, line.rank),
            h(
              "td",
              {},
              swatch(line.participant),
              line.ai ? `${line.name} (automated opponent)` : name(line.seat),
              line.left ? " (left)" : "",
            ),
            h("td", {}, line.points),
          ),
        ),
      ),
    ),
    h(
      "p",
      {},
      h("a", { href: `#/table/${tableId}/replay`, "data-testid": "replay-link" }, "Step through this game"),
    ),
  );
}
