// The replay's controls: first / previous / a slider with one step per command / next /
// last, and the step shown ("step 7 / 40"). The slider asks for a step after a short pause (a
// drag does not fetch every step it passes); the arrow keys move it one step.
//
// go(step) is called with the step wanted ("first" and "last" resolved by the caller
// through steps()); show(step, steps) updates what the controls say.

import { h } from "../lib/dom.js";

const DEBOUNCE_MS = 120;

export class ReplayControls {
  constructor({ go, current, steps }) {
    let timer = null;
    this.stop = () => clearTimeout(timer);
    this.slider = h("input", {
      id: "replay-step",
      type: "range",
      min: "1",
      step: "1",
      "data-testid": "replay-slider",
      "aria-label": "Step (one move each)",
      oninput: () => {
        this.seqOut.textContent = `step ${this.slider.value} / ${steps()}`;
        clearTimeout(timer);
        timer = setTimeout(() => go(Number(this.slider.value)), DEBOUNCE_MS);
      },
    });
    this.seqOut = h("output", { for: "replay-step", "data-testid": "replay-seq" });
    const button = (testid, text, label, target) =>
      h("button", { type: "button", "data-testid": testid, "aria-label": label, onclick: () => go(target()) }, text);
    this.element = h(
      "div",
      { class: "replay-controls row", role: "group", "aria-label": "Replay controls" },
      button("replay-first", "|◀", "First step", () => 1),
      button("replay-prev", "◀", "Previous move", () => current() - 1),
      h("label", { for: "replay-step" }, "Step "),
      this.slider,
      this.seqOut,
      button("replay-next", "▶", "Next move", () => current() + 1),
      button("replay-last", "▶|", "Last step", () => steps()),
    );
  }

  setSteps(steps) {
    this.slider.max = String(Math.max(1, steps));
  }

  show(step, steps) {
    this.slider.value = String(step);
    this.seqOut.textContent = `step ${step} / ${steps}`;
  }
}
