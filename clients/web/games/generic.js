// Any game this client has no drawing for (the platform's tiny test game, a new game):
// the game view as a list of its fields, and every legal command labelled from its fields.

import { h } from "../lib/dom.js";
import { facts } from "./common.js";

export function render(ctx) {
  const game = ctx.game || {};
  return {
    details: h(
      "section",
      { class: "panel generic" },
      h("h3", {}, "Game state"),
      facts(Object.entries(game).map(([key, value]) => [key.replaceAll("_", " "), show(value)])),
    ),
  };
}

function show(value) {
  if (value === null || value === undefined) return "—";
  if (typeof value !== "object") return String(value);
  return JSON.stringify(value);
}

export function handles() {
  return false;
}

export function label(body) {
  const name = body.type.split(".").slice(1).join(" ").replaceAll("_", " ");
  const fields = Object.entries(body)
    .filter(([key]) => key !== "type")
    .map(([key, value]) => `${key.replaceAll("_", " ")} ${show(value)}`);
  const text = name.charAt(0).toUpperCase() + name.slice(1);
  return fields.length ? `${text}: ${fields.join(", ")}` : text;
}

export function describe() {
  return [];
}
