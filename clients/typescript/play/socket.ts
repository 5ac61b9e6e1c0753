// A table's WebSocket (`/v1/tables/{table_id}/live`), typed by the AsyncAPI document's
// frames (generated/asyncapi.d.ts): the auth frame first, then views pushed as they
// change, commands sent and their outcomes, chat said and heard.
import WebSocket from "ws";
import type { TableLiveClientFrame, TableLiveServerFrame } from "../generated/asyncapi.js";
import { type FrameCheck, failures } from "./frames.js";

type ServerFrame<T extends string> = Extract<TableLiveServerFrame, { type: T }>;
type ClientFrame<T extends string> = Extract<TableLiveClientFrame, { type: T }>;

export type ViewFrame = ServerFrame<"view">;
export type OutcomeFrame = ServerFrame<"outcome">;
export type ErrorFrame = ServerFrame<"error">;
export type ChatFrame = ServerFrame<"chat">;
/** A seat's view (or the spectator's) as a view frame carries it. */
export type WsView = ViewFrame["view"];
/** What a command frame carries: a legal move, sent back as the view listed it. */
export type WsCommand = ClientFrame<"command">["body"];

const WAIT_MS = 30_000;

function text(data: WebSocket.RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.from(data).toString("utf8");
}

interface Waiter<T> {
  resolve: (value: T) => void;
  reject: (error: Error) => void;
}

export class TableSocket {
  /** The newest view this socket has shown (views coalesce: seqs only grow). */
  latest: ViewFrame | null = null;
  /** Every chat frame heard since the socket opened. */
  readonly chat: ChatFrame[] = [];
  private readonly viewWaiters: { after: number; waiter: Waiter<WsView> }[] = [];
  private readonly chatWaiters: Waiter<void>[] = [];
  private pending: Waiter<OutcomeFrame | ErrorFrame> | null = null;
  private failure: Error | null = null;

  private constructor(
    private readonly socket: WebSocket,
    private readonly check: FrameCheck,
    readonly label: string,
  ) {
    socket.on("message", (data) => this.receive(text(data)));
    socket.on("close", (code, reason) => {
      this.fail(new Error(`${label}: the socket closed (${code} ${reason.toString()})`));
    });
    socket.on("error", (error) => this.fail(error));
  }

  /** Open the table's socket and send the session as its first frame. */
  static async open(
    baseUrl: string,
    tableId: string,
    token: string,
    check: FrameCheck,
    label: string,
  ): Promise<TableSocket> {
    const url = new URL(`/v1/tables/${encodeURIComponent(tableId)}/live`, baseUrl);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
    const live = new TableSocket(socket, check, label);
    const auth: ClientFrame<"auth"> = { type: "auth", token };
    live.send(auth);
    return live;
  }

  private send(frame: TableLiveClientFrame): void {
    this.socket.send(JSON.stringify(frame));
  }

  private receive(raw: string): void {
    let frame: unknown;
    try {
      frame = JSON.parse(raw);
    } catch {
      this.fail(new Error(`${this.label}: a frame that is not JSON: ${raw.slice(0, 300)}`));
      return;
    }
    if (!this.check(frame)) {
      this.fail(new Error(`${this.label}: a frame the AsyncAPI document does not describe ` +
        `(${failures(this.check)}): ${raw.slice(0, 300)}`));
      return;
    }
    switch (frame.type) {
      case "view":
        if (this.latest === null || frame.seq > this.latest.seq) {
          this.latest = frame;
          for (const entry of this.viewWaiters.filter((w) => frame.seq > w.after)) {
            this.viewWaiters.splice(this.viewWaiters.indexOf(entry), 1);
            entry.waiter.resolve(frame.view);
          }
        }
        return;
      case "outcome":
        this.settle(frame);
        return;
      case "error":
        if (frame.command_id !== undefined && this.pending !== null) {
          this.settle(frame);
        } else {
          this.fail(new Error(`${this.label}: ${frame.error}: ${frame.message}`));
        }
        return;
      case "chat":
        this.chat.push(frame);
        for (const waiter of this.chatWaiters.splice(0)) waiter.resolve();
        return;
    }
  }

  private settle(frame: OutcomeFrame | ErrorFrame): void {
    const pending = this.pending;
    this.pending = null;
    if (pending === null) {
      this.fail(new Error(`${this.label}: an answer to no command: ${JSON.stringify(frame)}`));
    } else {
      pending.resolve(frame);
    }
  }

  private fail(error: Error): void {
    if (this.failure !== null) return;
    this.failure = error;
    for (const entry of this.viewWaiters.splice(0)) entry.waiter.reject(error);
    for (const waiter of this.chatWaiters.splice(0)) waiter.reject(error);
    this.pending?.reject(error);
    this.pending = null;
  }

  private wait<T>(what: string, register: (waiter: Waiter<T>) => void): Promise<T> {
    if (this.failure !== null) return Promise.reject(this.failure);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${this.label}: no ${what} within ${WAIT_MS} ms`)),
        WAIT_MS,
      );
      register({
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
    });
  }

  /** The newest view once it is newer than `after` (a seq). */
  nextView(after: number): Promise<WsView> {
    if (this.latest !== null && this.latest.seq > after) return Promise.resolve(this.latest.view);
    return this.wait(`view after seq ${after}`, (waiter) => this.viewWaiters.push({ after, waiter }));
  }

  /** Send a command frame; its answer: an outcome frame, or an error frame. */
  command(commandId: string, body: WsCommand): Promise<OutcomeFrame | ErrorFrame> {
    if (this.pending !== null) throw new Error(`${this.label}: one command at a time`);
    const answer = this.wait<OutcomeFrame | ErrorFrame>(`outcome of ${commandId}`, (waiter) => {
      this.pending = waiter;
    });
    const frame: ClientFrame<"command"> = { type: "command", command_id: commandId, body };
    this.send(frame);
    return answer;
  }

  /** Say something at the table (a `say` frame: only a refusal is answered). */
  say(message: string): void {
    const frame: ClientFrame<"say"> = { type: "say", text: message };
    this.send(frame);
  }

  /** Until every one of `texts` was heard as a chat frame. */
  async heard(texts: string[]): Promise<void> {
    while (!texts.every((t) => this.chat.some((frame) => frame.text === t))) {
      await this.wait<void>("chat frame", (waiter) => this.chatWaiters.push(waiter));
    }
  }

  close(): void {
    this.failure ??= new Error(`${this.label}: closed`);
    this.socket.close(1000);
  }
}
