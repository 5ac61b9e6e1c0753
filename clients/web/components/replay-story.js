// The replay's story: who did what at this step, and at the few steps before it, told
// from the difference between consecutive views (games/describe.js, the move log's
// narration). views[i] is step first + i; every step before this one is listed under
// "Just before", one that tells nothing visible or could not be read with words saying so.

import { h } from "../lib/dom.js";
import { describeTable } from "../games/describe.js";

export function replayStory({ views, first, step, contextFor, mod }) {
  // every step says something: one whose views could not be read, or that changed
  // nothing visible, says so
  const stepLines = (i) => {
    const prev = i > 0 ? views[i - 1] : null;
    if (!views[i]) return ["This step could not be read."];
    if (!prev && first + i > 1) return ["What changed is not known (the step before could not be read)."];
    const said = describeTable(prev, views[i], contextFor(views[i]), mod);
    return said.length ? said : ["Nothing visible changed at this step."];
  };
  const lines = stepLines(views.length - 1);
  const earlier = [];
  // views[0] is there to tell step first + 1, except the table's first step (no step before)
  for (let i = views.length - 2; i >= (first === 1 ? 0 : 1); i -= 1) {
    earlier.push(h("li", { "data-step": first + i }, h("strong", {}, `Step ${first + i}: `), stepLines(i).join(" ")));
  }
  return [
    h("h2", {}, `Step ${step}`),
    h("ul", {}, lines.map((line) => h("li", {}, line))),
    earlier.length ? h("details", { open: true }, h("summary", {}, "Just before"), h("ul", { class: "meta" }, earlier)) : null,
  ];
}
