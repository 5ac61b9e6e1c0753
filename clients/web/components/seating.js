// Before the start: the seats still open, the invite link of a private table, and the
// buttons to take a seat, add a bot, start and give up a seat; the two-step "leave"
// (give up a seat, or concede while playing). Actions come from the page:
// actions.join / bot / start / leave() and actions.confirm(true|false).

import { h, plural } from "../lib/dom.js";

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
      open && (mine || createdHere)
        ? h(
            "button",
            { type: "button", "data-testid": "add-bot", "data-key": "add-bot", disabled: busy, onclick: actions.bot },
            "Add a bot",
          )
        : null,
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
