// The replay's story: who did what at this step, and at the few steps before it, told
// from the difference between consecutive views (games/describe.js, the move log's
// narration). views[i] is step first + i; a missing one (it could not be read) is left
// out.

import { h } from "../lib/dom.js";
import { describeTable } from "../games/describe.js";

export function replayStory({ views, first, step, contextFor, mod }) {
  const stepLines = (i) => {
    const at = first + i;
    const prev = i > 0 ? views[i - 1] : null;
    if (!views[i] || (!prev && at > 1)) return [];
    return describeTable(prev, views[i], contextFor(views[i]), mod);
  };
  const lines = stepLines(views.length - 1);
  const earlier = [];
  for (let i = views.length - 2; i >= 1; i -= 1) {
    const said = stepLines(i);
    if (said.length) earlier.push(h("li", {}, h("strong", {}, `Step ${first + i}: `), said.join(" ")));
  }
  return [
    h("h2", {}, `Step ${step}`),
    h("ul", {}, (lines.length ? lines : ["Nothing visible changed at this step."]).map((line) => h("li", {}, line))),
    earlier.length ? h("details", { open: true }, h("summary", {}, "Just before"), h("ul", { class: "meta" }, earlier)) : null,
  ];
}
