// Before the start: the seats still open, the invite link of a private table, and the
// buttons to take a seat, add a bot (of the level chosen beside it), start and give up a
// seat; the two-step "leave" (give up a seat, or concede while playing). Actions come from
// the page: actions.join / start / leave(), actions.bot(level) and actions.confirm(true|false).

import { h, plural } from "../lib/dom.js";

// The bots' levels (the gateway's), weakest first; the select keeps its choice between
// renders of the panel.
const BOT_LEVELS = [
  ["random", "Random (easy)"],
  ["greedy", "Greedy (medium)"],
  ["ismcts", "ISMCTS (hard)"],
];
let botLevel = "greedy";

function addBot(busy, actions) {
  const select = h(
    "select",
    {
      id: "bot-level",
      "data-testid": "bot-level",
      disabled: busy,
      onchange: (event) => {
        botLevel = event.target.value;
      },
    },
    ...BOT_LEVELS.map(([value, text]) => h("option", { value, selected: value === botLevel }, text)),
  );
  return h(
    "span",
    { class: "add-bot" },
    h("label", { for: "bot-level" }, "Bot level "),
    select,
    " ",
    h(
      "button",
      {
        type: "button",
        "data-testid": "add-bot",
        "data-key": "add-bot",
        disabled: busy,
        onclick: () => actions.bot(botLevel),
      },
      "Add a bot",
    ),
  );
}

export function lobbyPanel(view, { tableId, busy, createdHere, confirming, actions }) {
  const open = view.seats.filter((s) => !s.name).length;
  const mine = view.viewer !== null;
  const canStart = (view.legal || []).some((b) => b.type === "table.start");
  const canLeave = (view.legal || []).some((b) => b.type === "table.leave");
  const inviteLink =
    createdHere && createdHere.invite
      ? `${location.origin}${location.pathname}#/table/${tableId}?invite=${createdHere.invite}`
      : null;
  return h(
    "section",
    { class: "panel lobby-panel", "aria-labelledby": "lobby-title" },
    h("h2", { id: "lobby-title" }, "Before the start"),
    // Said here, before the start only: it never lingers over the game.
    mine
      ? h("p", { class: "ok", "data-testid": "seated-notice" }, `You have taken seat ${view.viewer + 1}.`)
      : null,
    h(
      "p",
      {},
      open
        ? `${plural(open, "seat")} still open. Invite friends, add bots, then start.`
        : "Every seat is taken: any seated player can start.",
    ),
    inviteLink
      ? h(
          "p",
          { class: "invite" },
          h("label", { for: "invite-link" }, "Invite link (private table): "),
          h("input", {
            id: "invite-link",
            readonly: true,
            value: inviteLink,
            "data-testid": "invite-link",
            onfocus: (event) => event.target.select(),
          }),
        )
      : null,
    h(
      "div",
      { class: "row" },
      !mine && open
        ? h(
            "button",
            {
              type: "button",
              class: "primary",
              "data-testid": "join",
              "data-key": "join",
              disabled: busy,
              onclick: actions.join,
            },
            "Take a seat",
          )
        : null,
      open && (mine || createdHere) ? addBot(busy, actions) : null,
      canStart
        ? h(
            "button",
            {
              type: "button",
              class: "primary",
              "data-testid": "start",
              "data-key": "start",
              "data-lifecycle": "table.start",
              disabled: busy,
              onclick: actions.start,
            },
            "Start the game",
          )
        : null,
      canLeave ? leaveButton(view, "Give up my seat", { busy, confirming, actions }) : null,
    ),
  );
}

export function leaveButton(view, text, { busy, confirming, actions }) {
  if (!confirming) {
    return h(
      "button",
      {
        type: "button",
        "data-testid": "leave",
        "data-key": "leave",
        "data-lifecycle": "table.leave",
        disabled: busy,
        onclick: () => actions.confirm(true),
      },
      text,
    );
  }
  return h(
    "span",
    { class: "confirm" },
    view.phase === "playing" ? "Leave and concede? A bot plays your seat. " : "Leave your seat? ",
    h(
      "button",
      {
        type: "button",
        class: "danger",
        "data-testid": "leave-confirm",
        "data-key": "leave-confirm",
        "data-lifecycle": "table.leave",
        onclick: actions.leave,
      },
      "Yes, leave",
    ),
    h("button", { type: "button", "data-key": "leave-cancel", onclick: () => actions.confirm(false) }, "Stay"),
  );
}
