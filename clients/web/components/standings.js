// The final standings: every participant in rank order (built-in opponents included),
// straight from the view's standings: places the rules left shared read "=1", and a link
// to step through; then, in a panel of its own, the score in parts (each participant's
// line's `parts`, the game's own final scoring), a column per participant so it stays
// narrow on a phone. standingsPanel returns both panels (null before the end).

import { h } from "../lib/dom.js";
import { swatch } from "../games/common.js";

// "1", or "=1" when another participant holds the same place.
export function finalRank(lines, line) {
  const shared = lines.filter((other) => other.rank === line.rank).length > 1;
  return `${shared ? "=" : ""}${line.rank}`;
}

function who(line, name) {
  return [swatch(line.participant), line.ai ? `${line.name} (automated opponent)` : name(line.seat), line.left ? " (left)" : ""];
}

// Rows: each part, then the total; columns: the participants in rank order.
function breakdown(lines, name) {
  // a seat's words name a row (a built-in opponent's may say more)
  const keys = [];
  const labels = new Map();
  for (const line of [...lines.filter((l) => !l.ai), ...lines.filter((l) => l.ai)]) {
    for (const part of line.parts || []) {
      if (labels.has(part.key)) continue;
      keys.push(part.key);
      labels.set(part.key, part.label);
    }
  }
  if (!keys.length) return null;
  const pointsOf = (line, key) => {
    const part = (line.parts || []).find((p) => p.key === key);
    return part ? part.points : "–";
  };
  return h(
    "section",
    { class: "panel", "data-testid": "score-parts", "aria-labelledby": "breakdown-title" },
    h("h2", { id: "breakdown-title" }, "How the points were scored"),
    h(
      "div",
      { class: "breakdown-wrap", tabindex: "0", role: "region", "aria-labelledby": "breakdown-title" },
      h(
        "table",
        { class: "breakdown", "data-testid": "score-breakdown" },
        h(
          "thead",
          {},
          h("tr", {}, h("th", { scope: "col" }, "Part"), lines.map((line) => h("th", { scope: "col", "data-participant": line.participant }, who(line, name)))),
        ),
        h(
          "tbody",
          {},
          keys.map((key) =>
            h(
              "tr",
              { "data-part": key },
              h("th", { scope: "row" }, labels.get(key)),
              lines.map((line) => h("td", { "data-participant": line.participant }, pointsOf(line, key))),
            ),
          ),
          h(
            "tr",
            { class: "total" },
            h("th", { scope: "row" }, "Total"),
            lines.map((line) => h("td", { "data-participant": line.participant }, line.points)),
          ),
        ),
      ),
    ),
  );
}

export function standingsPanel(view, name, tableId) {
  const lines = view.standings || [];
  if (!view.standing || !lines.length) return null;
  const places = h(
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
            h("td", { "data-testid": "final-rank" }, finalRank(lines, line)),
            h("td", {}, who(line, name)),
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
  return [places, breakdown(lines, name)];
}
