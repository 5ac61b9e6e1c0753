// Players among players in the web client: presence dots, the friends list, a player's
// menu (add as friend, block), and the notices a friend sends (requests, invitations).
// Choices:
//
// - presence: any element with data-presence-of="<player id>" is a dot; one observer
//   finds them wherever a page draws them (seats, the lobby's tables, the friends list)
//   and asks GET /v1/players/presence for the ids it has not seen lately (every 15 s);
//   friends' dots also follow the "presence" frames of my notice socket at once;
// - this tab's presence: my notice socket is open while I am signed in; the page says
//   "away" when it is hidden or nobody touched it for 5 minutes, "online" again on use;
// - a friend's request or invitation appears in a small live region at the top of the
//   page (role="status"), with its buttons: Accept / Decline, Open the table;
// - every name is a text node, never HTML.
//
// Test hooks: data-testid="friends" (the lobby's list), "friend-<id>", "presence-<id>"
// (a dot, with data-presence), "player-menu-<id>", "notices".

import { request, session } from "../lib/api.js";
import { h, replaceChildren } from "../lib/dom.js";

const IDLE_MS = 5 * 60 * 1000;
const REFRESH_MS = 15 * 1000;
const LABEL = { online: "online", away: "away", offline: "offline" };

const known = new Map(); // player id -> { state, at }
let socket = null;
let socketOf = null;
let idleTimer = null;
let mine = "online";

function paint(root = document) {
  for (const dot of root.querySelectorAll("[data-presence-of]")) {
    const found = known.get(dot.getAttribute("data-presence-of"));
    const state = found ? found.state : "offline";
    dot.setAttribute("data-presence", state);
    dot.className = `presence-dot ${state}`;
    dot.setAttribute("title", LABEL[state]);
    dot.setAttribute("aria-label", LABEL[state]);
  }
}

async function refreshPresence() {
  const now = Date.now();
  const ids = [...new Set([...document.querySelectorAll("[data-presence-of]")].map((d) => d.getAttribute("data-presence-of")))];
  const stale = ids.filter((id) => !known.has(id) || now - known.get(id).at > REFRESH_MS).slice(0, 100);
  if (stale.length && session()) {
    try {
      const answer = await request("GET", `/v1/players/presence?players=${stale.map(encodeURIComponent).join(",")}`);
      for (const line of answer.players) known.set(line.player_id, { state: line.presence, at: now });
    } catch {
      /* presence is a hint: the dots keep what they showed */
    }
  }
  paint();
}

// A dot for a player (role="img": its label says the state).
export function presenceDot(playerId) {
  const found = known.get(playerId);
  const state = found ? found.state : "offline";
  return h("span", {
    class: `presence-dot ${state}`,
    role: "img",
    "aria-label": LABEL[state],
    title: LABEL[state],
    "data-presence": state,
    "data-presence-of": playerId,
    "data-testid": `presence-${playerId}`,
  });
}

const noticeBox = h("div", { class: "social-notices", role: "status", "aria-live": "polite", "data-testid": "notices" });

function notice(text, ...actions) {
  const item = h("p", { class: "social-notice" }, h("span", { text }), " ", ...actions);
  const dismiss = h("button", { type: "button", class: "link", onclick: () => item.remove() }, "Dismiss");
  item.append(" ", dismiss);
  noticeBox.append(item);
  if (!noticeBox.isConnected) document.body.prepend(noticeBox);
}

function button(label, onclick, attrs = {}) {
  return h("button", { type: "button", class: "link", onclick, ...attrs }, label);
}

function onFrame(frame) {
  if (frame.type === "presence") {
    known.set(frame.player_id, { state: frame.presence, at: Date.now() });
    paint();
  } else if (frame.type === "friend_request") {
    notice(
      `${frame.name} asks to be your friend.`,
      button("Accept", async (event) => {
        event.target.closest("p").remove();
        await request("POST", `/v1/players/${encodeURIComponent(frame.player_id)}/friend`);
        window.dispatchEvent(new CustomEvent("orrery:friends-changed"));
      }),
      " ",
      button("Decline", async (event) => {
        event.target.closest("p").remove();
        await request("DELETE", `/v1/players/${encodeURIComponent(frame.player_id)}/friend`);
      }),
    );
  } else if (frame.type === "friend_accepted") {
    notice(`${frame.name} is now your friend.`);
    window.dispatchEvent(new CustomEvent("orrery:friends-changed"));
  } else if (frame.type === "table_invite") {
    notice(`${frame.name} invites you to a table.`, h("a", { href: `#/table/${frame.table_id}` }, "Open the table"));
  } else if (frame.type === "party_invite") {
    notice(
      `${frame.name} wants to play with you.`,
      button("Join the party", async (event) => {
        event.target.closest("p").remove();
        await request("POST", `/v1/queue/${encodeURIComponent(frame.ticket_id)}/accept`);
      }),
    );
  }
}

function say(state) {
  if (state === mine) return;
  mine = state;
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "presence", state }));
}

function touched() {
  clearTimeout(idleTimer);
  if (document.visibilityState === "visible") say("online");
  idleTimer = setTimeout(() => say("away"), IDLE_MS);
}

function connect() {
  const current = session();
  if (!current) {
    if (socket) socket.close();
    socket = null;
    socketOf = null;
    return;
  }
  if (socket && socketOf === current.token) return;
  if (socket) socket.close();
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const opened = new WebSocket(`${scheme}//${location.host}/v1/players/me/live`);
  socket = opened;
  socketOf = current.token;
  opened.onopen = () => {
    opened.send(JSON.stringify({ type: "auth", token: current.token }));
    if (mine === "away") opened.send(JSON.stringify({ type: "presence", state: "away" }));
  };
  opened.onmessage = (event) => {
    try {
      onFrame(JSON.parse(event.data));
    } catch {
      /* not a frame for this module */
    }
  };
  opened.onclose = () => {
    if (socket === opened) {
      socket = null;
      setTimeout(connect, 3000);
    }
  };
}

// Started once by the app: my notice socket, my presence, the dots' refresher.
export function startSocial() {
  for (const event of ["pointerdown", "keydown", "scroll"]) {
    window.addEventListener(event, touched, { passive: true });
  }
  document.addEventListener("visibilitychange", () =>
    document.visibilityState === "visible" ? touched() : say("away"),
  );
  window.addEventListener("storage", connect);
  window.addEventListener("hashchange", connect);
  new MutationObserver(() => paint()).observe(document.body, { childList: true, subtree: true });
  setInterval(() => {
    connect();
    refreshPresence();
  }, REFRESH_MS / 3);
  connect();
  touched();
}

// ---------------------------------------------------------------- a player's menu

// Add as a friend / block, for another player (on a seat): reads where we stand first.
export function playerMenu(playerId, name) {
  const current = session();
  if (!current || !playerId || playerId === current.player_id) return null;
  const status = h("span", { class: "meta", role: "status" });
  const body = h("span", { class: "player-actions" });
  const menu = h(
    "details",
    {
      class: "player-menu",
      "data-testid": `player-menu-${playerId}`,
      ontoggle: (event) => {
        if (event.target.open) draw();
      },
    },
    h("summary", { "aria-label": `Actions for ${name}` }, "⋯"),
    body,
    status,
  );
  async function act(method, path, said) {
    try {
      await request(method, path);
      status.textContent = said;
      window.dispatchEvent(new CustomEvent("orrery:friends-changed"));
      await draw();
    } catch (error) {
      status.textContent = error.message;
    }
  }
  async function draw() {
    let card;
    try {
      card = await request("GET", `/v1/players/${encodeURIComponent(playerId)}`);
    } catch (error) {
      status.textContent = error.message;
      return;
    }
    const id = encodeURIComponent(playerId);
    const friend = {
      none: ["Add friend", "POST", "Friend request sent."],
      asked_me: ["Accept friend", "POST", "You are friends."],
      requested: ["Cancel request", "DELETE", "Request withdrawn."],
      friends: ["Remove friend", "DELETE", "No longer friends."],
    }[card.friend];
    replaceChildren(
      body,
      card.blocked
        ? null
        : button(friend[0], () => act(friend[1], `/v1/players/${id}/friend`, friend[2]), { "data-testid": "friend-action" }),
      " ",
      card.blocked
        ? button("Unblock", () => act("DELETE", `/v1/players/${id}/block`, "Unblocked."), { "data-testid": "unblock" })
        : button("Block", () => act("POST", `/v1/players/${id}/block`, `Blocked: you will not see each other's chat.`), {
            "data-testid": "block",
          }),
    );
  }
  return menu;
}

// ---------------------------------------------------------------- the friends list

// My friends with their presence, the requests waiting; with a table id (a table not
// started yet), an Invite button per friend.
export async function renderFriends(box, { tableId = null } = {}) {
  let friends;
  try {
    friends = await request("GET", "/v1/players/me/friends");
  } catch {
    return;
  }
  for (const friend of friends.friends) known.set(friend.player_id, { state: friend.presence, at: Date.now() });
  const invite = (friend) =>
    tableId
      ? button(
          "Invite",
          async (event) => {
            try {
              await request("POST", `/v1/tables/${encodeURIComponent(tableId)}/invite`, { player_id: friend.player_id });
              event.target.textContent = "Invited";
              event.target.disabled = true;
            } catch (error) {
              event.target.textContent = error.message;
            }
          },
          { "data-testid": `invite-${friend.player_id}` },
        )
      : null;
  const answer = (pending, accept) =>
    h(
      "li",
      { "data-testid": `request-${pending.player_id}` },
      h("span", { text: pending.name }),
      " ",
      accept
        ? button("Accept", async () => {
            await request("POST", `/v1/players/${encodeURIComponent(pending.player_id)}/friend`);
            renderFriends(box, { tableId });
          })
        : h("span", { class: "meta" }, "(asked)"),
      " ",
      button(accept ? "Decline" : "Cancel", async () => {
        await request("DELETE", `/v1/players/${encodeURIComponent(pending.player_id)}/friend`);
        renderFriends(box, { tableId });
      }),
    );
  replaceChildren(
    box,
    h("h2", { id: "friends-title" }, "Friends"),
    friends.friends.length
      ? h(
          "ul",
          { class: "friends", "data-testid": "friends" },
          friends.friends.map((friend) =>
            h(
              "li",
              { "data-testid": `friend-${friend.player_id}` },
              presenceDot(friend.player_id),
              " ",
              h("span", { text: friend.name }),
              " ",
              invite(friend),
              " ",
              playerMenu(friend.player_id, friend.name),
            ),
          ),
        )
      : h("p", { class: "meta", "data-testid": "friends" }, "No friends yet: add one from a seat's ⋯ menu."),
    friends.received.length ? [h("h3", {}, "Asking you"), h("ul", {}, friends.received.map((p) => answer(p, true)))] : null,
    friends.sent.length ? [h("h3", {}, "You asked"), h("ul", {}, friends.sent.map((p) => answer(p, false)))] : null,
  );
  paint(box);
}
