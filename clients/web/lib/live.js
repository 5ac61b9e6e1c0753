// One table's live connection: WS /v1/tables/{id}/live?after=SEQ, whose first frame is
// {"type":"auth","token"} (the session never goes in a URL: URLs end up in logs).
//
// The gateway pushes {"type":"view","seq","view"} frames (the newest view for my seat,
// or the spectator's; a slow client skips to the newest). Commands go out as
// {"type":"command","command_id","body"} and come back as {"type":"outcome",...} or
// {"type":"error","command_id",...}. On a dropped connection it reconnects with
// after=<last seq shown>, so nothing already shown is sent again and nothing is missed
// (the gateway sends the current view first). Close codes 4401/4404 are final.
// Chat: {"type":"chat"} frames go to onChat, a refused "say" (an error frame without a
// command id) to onChatError, and onOpen runs at each (re)connection (chat.js reads the
// history then).

import { api, newCommandId, session } from "./api.js";

const FINAL_CLOSES = new Map([
  [4401, "Your session has ended; sign in again."],
  [4404, "There is no such table."],
]);
const OUTCOME_TIMEOUT_MS = 30000;

export class LiveTable {
  constructor(tableId, { onView, onStatus, onFatal, onChat, onChatError, onOpen }) {
    this.tableId = tableId;
    this.onView = onView;
    this.onChat = onChat || (() => {});
    this.onChatError = onChatError || (() => {});
    this.onOpen = onOpen || (() => {});
    this.onStatus = onStatus || (() => {});
    this.onFatal = onFatal || (() => {});
    this.seq = -1;
    this.socket = null;
    this.pending = new Map();
    this.closed = false;
    this.attempt = 0;
    this.timer = null;
  }

  start() {
    this.connect();
  }

  connect() {
    if (this.closed) return;
    const current = session();
    if (!current) {
      this.onFatal("signed_out", "Sign in to see this table.");
      return;
    }
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const query = new URLSearchParams();
    if (this.seq >= 0) query.set("after", String(this.seq));
    const url = `${scheme}//${location.host}/v1/tables/${encodeURIComponent(this.tableId)}/live?${query}`;
    const socket = new WebSocket(url);
    this.socket = socket;
    this.onStatus(this.attempt ? "reconnecting" : "connecting");
    socket.onopen = () => {
      socket.send(JSON.stringify({ type: "auth", token: current.token }));
      this.attempt = 0;
      this.onStatus("live");
      this.onOpen();
      this.opened = true; // and again at the first frame: the chat is subscribed by then
    };
    socket.onmessage = (event) => this.receive(event.data);
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      for (const [id, waiter] of this.pending) {
        if (waiter.viaSocket) {
          // The answer may be lost with the socket: ask again over HTTP with the same id
          // (the service never applies one command id twice).
          this.pending.delete(id);
          this.sendHttp(id, waiter.body).then(waiter.resolve, waiter.reject);
        }
      }
      if (this.closed) return;
      if (FINAL_CLOSES.has(event.code)) {
        this.closed = true;
        this.onStatus("closed");
        this.onFatal(event.code === 4401 ? "signed_out" : "not_found", FINAL_CLOSES.get(event.code));
        return;
      }
      this.attempt += 1;
      this.onStatus("reconnecting");
      const delay = Math.min(5000, 250 * 2 ** Math.min(this.attempt, 5));
      this.timer = setTimeout(() => this.connect(), delay);
    };
  }

  receive(text) {
    let frame;
    try {
      frame = JSON.parse(text);
    } catch {
      return;
    }
    if (this.opened) {
      this.opened = false;
      this.onOpen();
    }
    if (frame.type === "view") {
      if (frame.seq > this.seq) {
        this.seq = frame.seq;
        this.onView(frame.view);
      }
    } else if (frame.type === "chat") {
      this.onChat(frame);
    } else if (frame.type === "error" && !frame.command_id) {
      this.onChatError(frame.message || frame.error);
    } else if (frame.type === "outcome" || (frame.type === "error" && frame.command_id)) {
      const waiter = this.pending.get(frame.command_id);
      if (waiter) {
        this.pending.delete(frame.command_id);
        clearTimeout(waiter.timeout);
        waiter.resolve(normalise(frame));
      }
    }
  }

  // Send a command body for my seat: resolves to an outcome
  // {outcome: "accepted"|"rejected"|"duplicate"|"error", code?, message?, last_seq?}.
  send(body) {
    const commandId = newCommandId();
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) return this.sendHttp(commandId, body);
    return new Promise((resolve, reject) => {
      const waiter = { body, resolve, reject, viaSocket: true };
      waiter.timeout = setTimeout(() => {
        if (this.pending.get(commandId) === waiter) {
          this.pending.delete(commandId);
          this.sendHttp(commandId, body).then(resolve, reject);
        }
      }, OUTCOME_TIMEOUT_MS);
      this.pending.set(commandId, waiter);
      socket.send(JSON.stringify({ type: "command", command_id: commandId, body }));
    });
  }

  async sendHttp(commandId, body) {
    try {
      return normalise(await api.command(this.tableId, commandId, body));
    } catch (error) {
      return { outcome: "error", code: error.code || "error", message: error.message };
    }
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    if (this.socket) {
      const socket = this.socket;
      this.socket = null;
      socket.close(1000);
    }
  }
}

function normalise(frame) {
  if (frame.type === "error") {
    return { outcome: "error", code: frame.error, message: frame.message };
  }
  if (frame.outcome === "duplicate" && frame.original) return { ...frame.original };
  if (frame.outcome === "rejected") {
    return { outcome: "rejected", code: frame.code || frame.error, message: frame.message };
  }
  return frame;
}
