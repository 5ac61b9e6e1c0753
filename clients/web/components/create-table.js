// The lobby's "New table" form: the game, its seats and options (in the catalogue's
// words), private or not, and whether the creator sits down at once (as on Board Game
// Arena, ticked by default). Creating opens the new table's page.

import { api, rememberCreated } from "../lib/api.js";
import { h, replaceChildren } from "../lib/dom.js";

export function valueLabel(option, value) {
  return (option.value_labels && option.value_labels[value]) || value;
}

export function renderCreateTable(createBox, { games }) {
  const message = h("p", { class: "message", role: "alert" });
  const select = h(
    "select",
    { id: "create-game", "data-testid": "create-game" },
    games.map((g) => h("option", { value: g.name }, g.title)),
  );
  const seats = h("input", {
    id: "create-seats",
    type: "number",
    inputmode: "numeric",
    "data-testid": "create-seats",
  });
  const privateBox = h("input", { id: "create-private", type: "checkbox" });
  // As on Board Game Arena the creator sits down at once, unless told not to.
  const sitBox = h("input", { id: "create-sit", type: "checkbox", checked: true, "data-testid": "create-sit" });
  const optionsBox = h("div", { class: "options" });
  const blurb = h("p", { class: "hint" });

  function syncGame() {
    const game = games.find((g) => g.name === select.value) || games[0];
    if (!game) return;
    seats.min = String(game.min_seats);
    seats.max = String(game.max_seats);
    seats.value = String(game.default_seats);
    blurb.textContent = `${game.blurb} ${game.min_seats}–${game.max_seats} players.`;
    replaceChildren(
      optionsBox,
      game.options.map((option) =>
        h(
          "div",
          { class: "field" },
          h("label", { for: `create-option-${option.key}` }, option.label),
          h(
            "select",
            {
              id: `create-option-${option.key}`,
              "data-option": option.key,
              "data-testid": `create-option-${option.key}`,
            },
            option.values.map((value) =>
              h("option", { value, selected: value === option.default }, valueLabel(option, value)),
            ),
          ),
        ),
      ),
    );
  }
  select.addEventListener("change", syncGame);
  // an option only some player counts use (the opponents of 1-2 players) shows for those
  function syncSeats() {
    const game = games.find((g) => g.name === select.value) || games[0];
    if (!game) return;
    for (const option of game.options) {
      const field = optionsBox.querySelector(`[data-option="${option.key}"]`);
      if (field) field.closest(".field").hidden = Boolean(option.seats_up_to && Number(seats.value) > option.seats_up_to);
    }
  }
  seats.addEventListener("input", syncSeats);
  select.addEventListener("change", syncSeats);

  const form = h(
    "form",
    {
      onsubmit: async (event) => {
        event.preventDefault();
        message.textContent = "";
        const options = {};
        for (const field of optionsBox.querySelectorAll("select[data-option]")) {
          if (!field.closest(".field").hidden) options[field.dataset.option] = field.value;
        }
        const button = form.querySelector("button");
        button.disabled = true;
        try {
          const made = await api.create(
            select.value,
            Number(seats.value),
            options,
            privateBox.checked,
          );
          rememberCreated(made.table_id, made.invite);
          if (sitBox.checked) {
            const joined = await api.join(made.table_id, made.invite);
            if (joined && joined.outcome === "rejected") throw new Error(joined.message);
          }
          location.hash = `/table/${made.table_id}`;
        } catch (error) {
          message.textContent = error.message;
          button.disabled = false;
        }
      },
    },
    h("div", { class: "field" }, h("label", { for: "create-game" }, "Game"), select),
    blurb,
    h("div", { class: "field" }, h("label", { for: "create-seats" }, "Seats"), seats),
    optionsBox,
    h(
      "div",
      { class: "field check" },
      privateBox,
      h("label", { for: "create-private" }, "Private (only people with the invite link can join)"),
    ),
    h(
      "div",
      { class: "field check" },
      sitBox,
      h("label", { for: "create-sit" }, "Take a seat at it (untick to create it for others)"),
    ),
    h("button", { type: "submit", class: "primary", "data-testid": "create-submit" }, "Create table"),
    message,
  );
  replaceChildren(createBox, h("h2", { id: "create-title" }, "New table"), form);
  syncGame();
  syncSeats();
}
