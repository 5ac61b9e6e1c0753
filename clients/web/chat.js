// The table's chat panel, beside the board: messages from seated players and spectators
// (marked), live over the table's WebSocket ({"type":"chat"} frames), the history from
// GET /v1/tables/{id}/chat, a form that says {"type":"say","text"} (HTTP when the socket
// is down). Choices:
//
// - text is only ever a text node (textContent), never HTML: a message is shown as typed;
// - the list is a live region (role="log"): a screen reader reads new messages as they
//   come; the form is a plain labelled input and button (Enter sends);
// - the panel is built once per table page and kept outside the page's re-rendered part,
//   so a view update never takes the focus or the half-typed text away;
// - muting is this browser's own: a muted author's messages are hidden here only (kept in
//   localStorage per table), and can be unmuted;
// - an operator's deletion replaces the message with a "message deleted" marker;
// - "Report" on another's message files a report for the operators (POST
//   …/chat/{id}/report: it carries the chat's last 20 messages); the button then says
//   "Reported". Messages of a player I blocked, or who blocked me, never arrive here.
//
// Test hooks: data-testid="chat" (the panel), "chat-log" (the list, items carry data-id,
// data-seat or data-spectator), "chat-input", "chat-send", "chat-error", "report-<id>".

import { request } from "./lib/api.js";
import { h, replaceChildren } from "./lib/dom.js";

const MAX_TEXT = 500;
const MUTED_KEY = "orrery.muted";

function authorKey(message) {
  return message.seat !== undefined && message.seat !== null
    ? `seat:${message.seat}`
    : `spectator:${message.name}`;
}

function loadMuted(tableId) {
  try {
    return new Set((JSON.parse(localStorage.getItem(MUTED_KEY) || "{}")[tableId]) || []);
  } catch {
    return new Set();
  }
}

function saveMuted(tableId, muted) {
  let all = {};
  try {
    all = JSON.parse(localStorage.getItem(MUTED_KEY) || "{}");
  } catch {
    all = {};
  }
  all[tableId] = [...muted];
  localStorage.setItem(MUTED_KEY, JSON.stringify(all));
}

export class TableChat {
  constructor(tableId) {
    this.tableId = tableId;
    this.messages = new Map(); // id -> message, shown in id order
    this.muted = loadMuted(tableId);
    this.reported = new Set(); // message ids I reported from this page
    this.viewer = null; // my seat (null: watching)
    this.live = null;
    this.log = h("ol", {
      class: "chat-log",
      role: "log",
      "aria-live": "polite",
      "aria-label": "Chat messages",
      "data-testid": "chat-log",
      tabindex: "0",
    });
    this.error = h("p", { class: "chat-error", role: "alert", "data-testid": "chat-error" });
    this.input = h("input", {
      id: `chat-input-${tableId}`,
      type: "text",
      maxlength: String(MAX_TEXT),
      autocomplete: "off",
      "data-testid": "chat-input",
      "data-key": "chat-input",
    });
    const form = h(
      "form",
      { class: "chat-form row", onsubmit: (event) => this.submit(event) },
      h("label", { for: `chat-input-${tableId}`, class: "chat-label" }, "Message"),
      this.input,
      h("button", { type: "submit", "data-testid": "chat-send" }, "Send"),
    );
    this.node = h(
      "aside",
      { class: "panel chat", "data-testid": "chat", "aria-labelledby": "chat-title" },
      h("h2", { id: "chat-title" }, "Table chat"),
      this.log,
      this.error,
      form,
    );
  }

  // Called by the page: the socket to say things through, and who I am at this table.
  attach(live) {
    this.live = live;
  }

  setViewer(seat) {
    if (seat !== this.viewer) {
      this.viewer = seat;
      this.draw();
    }
  }

  // The socket is (again) open: read the history, merged with what came live.
  async refresh() {
    try {
      const answer = await request("GET", `/v1/tables/${encodeURIComponent(this.tableId)}/chat?limit=1000`);
      for (const message of answer.messages || []) this.messages.set(message.id, message);
      this.draw();
    } catch {
      /* the history is a convenience: live messages still arrive */
    }
  }

  receive(message) {
    const { type, ...rest } = message;
    this.messages.set(rest.id, rest);
    this.draw();
  }

  refused(message) {
    this.error.textContent = message;
  }

  async submit(event) {
    event.preventDefault();
    const text = this.input.value.trim();
    if (!text) return;
    this.error.textContent = "";
    const socket = this.live && this.live.socket;
    if (socket && socket.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify({ type: "say", text }));
    } else {
      try {
        this.receive(await request("POST", `/v1/tables/${encodeURIComponent(this.tableId)}/chat`, { text }));
      } catch (error) {
        this.refused(error.message);
        return;
      }
    }
    this.input.value = "";
  }

  toggleMute(key) {
    if (this.muted.has(key)) this.muted.delete(key);
    else this.muted.add(key);
    saveMuted(this.tableId, this.muted);
    this.draw();
  }

  async report(message) {
    try {
      await request(
        "POST",
        `/v1/tables/${encodeURIComponent(this.tableId)}/chat/${encodeURIComponent(message.id)}/report`,
        {},
      );
      this.reported.add(message.id);
    } catch (error) {
      if (error.code === "already_reported") this.reported.add(message.id);
      else this.refused(error.message);
    }
    this.draw();
  }

  draw() {
    const ordered = [...this.messages.values()].sort(compareIds);
    const atBottom = this.log.scrollHeight - this.log.scrollTop - this.log.clientHeight < 40;
    replaceChildren(this.log, ordered.map((message) => this.item(message)));
    if (atBottom) this.log.scrollTop = this.log.scrollHeight;
  }

  item(message) {
    const attrs = { class: "chat-message", "data-id": message.id };
    if (message.deleted) {
      return h("li", { ...attrs, class: "chat-message deleted" }, "message deleted");
    }
    const spectator = !!message.spectator;
    if (spectator) attrs["data-spectator"] = "1";
    else attrs["data-seat"] = String(message.seat);
    const key = authorKey(message);
    const mine = !spectator && message.seat === this.viewer;
    const muted = this.muted.has(key);
    const who = h(
      "span",
      { class: "chat-author" + (spectator ? "" : ` seat-${message.seat}`) },
      message.name || (spectator ? "spectator" : `Seat ${message.seat + 1}`),
      spectator ? h("span", { class: "badge" }, "spectator") : null,
    );
    const mute =
      this.viewer !== null && !mine
        ? h(
            "button",
            {
              type: "button",
              class: "link chat-mute",
              "aria-pressed": muted ? "true" : "false",
              "data-key": `mute-${message.id}`,
              onclick: () => this.toggleMute(key),
            },
            muted ? "Unmute" : "Mute",
          )
        : null;
    const reported = this.reported.has(message.id);
    const report = !mine
      ? h(
          "button",
          {
            type: "button",
            class: "link chat-report",
            disabled: reported,
            "data-testid": `report-${message.id}`,
            "aria-label": `Report this message from ${message.name || "this player"}`,
            onclick: () => this.report(message),
          },
          reported ? "Reported" : "Report",
        )
      : null;
    const at = new Date(message.at || 0).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    return h(
      "li",
      attrs,
      h("span", { class: "chat-time meta" }, at),
      " ",
      who,
      ": ",
      muted ? h("em", { class: "meta" }, "(muted)") : h("span", { class: "chat-text", text: message.text }),
      mute,
      report,
    );
  }
}

function compareIds(a, b) {
  const [am, as] = a.id.split("-").map(Number);
  const [bm, bs] = b.id.split("-").map(Number);
  return am - bm || as - bs;
}
