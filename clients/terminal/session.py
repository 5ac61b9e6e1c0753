"""One person at one seat: the loop between the table's views and the keyboard.

Two sources feed one queue: the table's view updates (``OrreryClient.watch``) and the
person's lines. The screen is redrawn whenever a newer view arrives, also while the
person is typing (in place on a terminal; without one, only its changed lines), so a
prompt never offers moves of a table that has moved on. After a move is accepted the
session waits for the view that includes it (the outcome's ``last_seq``) before
offering the next one: in phases where every seat moves at once an update from another
seat can arrive first, and its view still lists the old choices. After a rejection it
reads the current view at once and shows that.

Keys: a number (or several, ``3 2``) walks the menu; ``b`` goes back, ``u`` takes back
your last move of this turn (``table.undo``: the answer says why not, when not), ``c
TEXT`` says TEXT in the table's chat (its last lines show under the board, as plain
text), ``r`` refreshes, ``v`` prints the raw view, ``j {json}`` sends any command body,
``h`` helps, ``q`` leaves the client (the seat stays at the table). Leaving the table
(conceding) asks first. A third source feeds the queue: the table's chat.
"""

from __future__ import annotations

import asyncio
import contextlib
import difflib
import json
from collections import deque
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from rich.console import Console
from rich.text import Text

from clients.terminal import frame, menu
from clients.terminal.renderers import Command, View, renderer_for, seat_name
from clients.terminal.watch import ChatWatch, ViewWatch
from orrery_client.sdk import OrreryClient, SeatCredentials
from orrery_contracts.chat import ChatMessage
from orrery_contracts.envelope import Rejection

HELP = (
    "keys: a number chooses (several, like '3 2', walk the menu at once) · b back · "
    "u undo your last move of this turn · c TEXT say TEXT in the table's chat · "
    "r refresh · v raw view · j {json} send a command body · q leave the client "
    "(your seat stays; come back with --table/--seat/--token) · Ctrl-C exits at once"
)
LEAVE = "table.leave"
UNDO = "table.undo"
CHAT_LINES = 5


class LineSource(Protocol):
    async def get(self) -> str | None:
        """The next line typed (without its newline), or None at the end of input."""
        ...


@dataclass(frozen=True)
class Result:
    reason: Literal["finished", "quit", "end_of_input"]
    view: View | None


def lifecycle_path(command: Command, tv: View) -> list[str] | None:
    kind = command.get("type")
    if kind == "table.start":
        return ["start the game"]
    if kind == UNDO:
        return ["take back your last move"]
    if kind == LEAVE:
        if tv.get("phase") == "lobby":
            return ["leave the table (your seat opens again)"]
        return ["concede: leave the game (a bot plays your seat, you rank last)"]
    return None


def redraw_in_place(lines: list[str]) -> str:
    """The screen written from the top over the one shown: each line cleared to its end,
    and what the old screen had below cleared too."""
    return "\x1b[H" + "".join(line + "\x1b[K\n" for line in lines) + "\x1b[J"


def changed_lines(before: list[str], after: list[str]) -> list[str]:
    """The lines of ``after`` that ``before`` did not show at their place (all of them
    the first time), the first line (where the table stands) always."""
    if not before:
        return after
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    changed = [
        index
        for tag, _, _, start, end in matcher.get_opcodes()
        if tag in ("replace", "insert")
        for index in range(start, end)
    ]
    return [after[index] for index in sorted({0, *changed}) if index < len(after)]


class Session:
    def __init__(
        self,
        client: OrreryClient,
        seat: SeatCredentials,
        console: Console,
        *,
        max_messages: int = 6,
    ) -> None:
        self.client = client
        self.seat = seat
        self.console = console
        self.view: View | None = None
        self.awaiting = 0  # the seq of our last accepted move: moves wait until it shows
        self.crumbs: list[str] = []  # the menu groups opened, from the top
        self.confirming: Command | None = None
        self.messages: deque[str] = deque(maxlen=max_messages)
        self.last_round = 0
        self.moves = 0  # accepted in this session
        self.chat: deque[ChatMessage] = deque(maxlen=CHAT_LINES)
        self._events: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self.shown: list[str] = []  # the screen's lines as last drawn

    # ------------------------------------------------------------ the loop

    async def run(self, lines: LineSource) -> Result:
        watch = ViewWatch(self.client, self.seat.table_id, self.seat.seat)
        watcher = asyncio.create_task(self._watch(watch))
        chat = ChatWatch(self.client, self.seat.table_id, CHAT_LINES)
        chatter = asyncio.create_task(self._listen(chat))
        reader = asyncio.create_task(self._read(lines))
        try:
            first = await self.client.view(self.seat.table_id, self.seat.seat)
            if first is not None:
                self._adopt(first)
            self.draw()
            while True:
                if self.view is not None and self.view["phase"] == "finished":
                    return Result("finished", self.view)
                kind, item = await self._events.get()
                if kind == "error":
                    raise item
                if kind == "chat":
                    self._hear(item)
                    self.draw(update=True)
                elif kind == "view":
                    pending_lines = self._coalesce(item)
                    self.draw(update=True)
                    for line in pending_lines:
                        result = await self._handle(line)
                        if result is not None:
                            return result
                else:
                    result = await self._handle(item)
                    if result is not None:
                        return result
        finally:
            watch.stop()  # the watcher ends at its next poll: never cancel it mid-read
            chat.stop()
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await reader
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await watcher
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await chatter

    async def _watch(self, watch: ViewWatch) -> None:
        try:
            async for view in watch.views():
                await self._events.put(("view", view))
        except Exception as error:  # the loop raises it: a dead watcher must not go unseen
            await self._events.put(("error", error))

    async def _listen(self, chat: ChatWatch) -> None:
        try:
            async for message in chat.messages():
                await self._events.put(("chat", message))
        except Exception as error:
            await self._events.put(("error", error))

    def _hear(self, message: ChatMessage) -> None:
        """A chat message (an operator's deletion replaces the line it deletes)."""
        for i, line in enumerate(self.chat):
            if line.id == message.id:
                self.chat[i] = message
                return
        self.chat.append(message)

    async def _read(self, lines: LineSource) -> None:
        while True:
            line = await lines.get()
            await self._events.put(("line", line))
            if line is None:
                return

    def _coalesce(self, view: View) -> list[str | None]:
        """Adopt the newest of the views queued now; keep the lines queued with them."""
        newest = view
        lines: list[str | None] = []
        while not self._events.empty():
            kind, item = self._events.get_nowait()
            if kind == "view":
                if item["seq"] > newest["seq"]:
                    newest = item
            elif kind == "error":
                raise item
            elif kind == "chat":
                self._hear(item)
            else:
                lines.append(item)
        self._adopt(newest)
        return lines

    def _adopt(self, view: View, *, again: bool = False) -> bool:
        """Take ``view`` if it is newer (``again``: or as new) than the one shown."""
        if self.view is not None and (
            view["seq"] < self.view["seq"] or (view["seq"] == self.view["seq"] and not again)
        ):
            return False
        if self.confirming is not None and (
            self.confirming not in view["legal"]
            or (self.view is not None and self.view["phase"] != view["phase"])
        ):
            self.confirming = None
            self.messages.append("the table moved on: nothing was sent")
        self.view = view
        if view.get("round"):
            self.last_round = int(view["round"])
        if self.crumbs and menu.find(self._menu_root(), self.crumbs) is None:
            self.crumbs = []
        return True

    # ------------------------------------------------------------ state

    @property
    def waiting_for_own_move(self) -> bool:
        return self.view is not None and self.view["seq"] < self.awaiting

    def may_choose(self) -> bool:
        """Whether the menu is live: our move (or the lobby), and our last move shown."""
        view = self.view
        if view is None or self.waiting_for_own_move or not view["legal"]:
            return False
        if view["phase"] == "lobby":
            return True
        return view["phase"] == "playing" and self.seat.seat in view["to_move"]

    def _menu_root(self) -> menu.Node:
        view = self.view
        assert view is not None
        renderer = renderer_for(view["game"])

        def path(command: Command) -> list[str]:
            return lifecycle_path(command, view) or renderer.path(command, view)

        moves = [c for c in view["legal"] if c.get("type") not in (LEAVE, UNDO)]
        leave = [c for c in view["legal"] if c.get("type") == LEAVE]
        return menu.build(moves + leave, path)

    def _menu(self) -> frame.Menu | None:
        if not self.may_choose():
            return None
        nodes = menu.find(self._menu_root(), self.crumbs)
        if nodes is None:
            self.crumbs = []
            nodes = [self._menu_root()]
        return frame.Menu(entries=menu.entries(nodes[-1]), crumbs=list(self.crumbs))

    def prompt(self) -> str:
        view = self.view
        if self.confirming is not None:
            return "really leave the game? type yes to confirm, anything else keeps playing> "
        if view is None:
            return "waiting for the table's view… (q quits)> "
        if view["phase"] == "finished":
            return ""
        if self.waiting_for_own_move:
            return "waiting for the table to show your move… (q quits, h help)> "
        if view["phase"] == "lobby":
            return "waiting for every seat to be taken… (a number chooses, q quits)> "
        if self.may_choose():
            return "your choice> "
        others = [seat_name(view, s) for s in view["to_move"] if s != self.seat.seat]
        waiting = ", ".join(others) if others else "the table"
        return f"waiting for {waiting}… (q quits, h help)> "

    # ------------------------------------------------------------ drawing

    def draw(self, *, update: bool = False) -> None:
        """Redraw the screen. On a terminal the new screen is written over the old one in
        place (nothing scrolls away); without one (input piped in, output to a file) only
        the lines that changed are printed, and an update that asks nothing of this seat
        is one line, not a whole board."""
        console = self.console
        view = self.view
        brief = update and not console.is_terminal and view is not None
        if brief and view is not None and view["phase"] != "finished" and not self.may_choose():
            console.print(Text(f"seq {view['seq']}: {frame.turn_line(view).plain}", style="dim"))
            console.file.flush()
            return
        with console.capture() as captured:
            if view is None:
                console.print(Text("no view of this table yet: waiting for the service…"))
            else:
                renderer = renderer_for(view["game"])
                console.print(
                    frame.screen(
                        view,
                        renderer,
                        menu=self._menu(),
                        messages=list(self.messages),
                        last_round=self.last_round,
                        chat=[frame.chat_line(m, view) for m in self.chat],
                    )
                )
        lines = captured.get().rstrip("\n").split("\n")
        if console.is_terminal:
            if not self.shown:
                console.clear()
            console.file.write(redraw_in_place(lines))
        else:
            console.file.write("".join(line + "\n" for line in changed_lines(self.shown, lines)))
        self.shown = lines
        prompt = self.prompt()
        if prompt:
            console.print(Text(prompt, style="bold"), end="")
        console.file.flush()

    # ------------------------------------------------------------ input

    async def _handle(self, line: str | None) -> Result | None:
        if line is None:
            return Result("end_of_input", self.view)
        text = line.strip()
        if self.confirming is not None:
            command, self.confirming = self.confirming, None
            if text.lower() in ("y", "yes"):
                await self._send(command)
            else:
                self.messages.append("not sent: you stay in the game")
            self.draw()
            return None
        if text == "q":
            return Result("quit", self.view)
        if text in ("h", "?", "help"):
            self.messages.append(HELP)
        elif text == "r":
            await self._refresh()
        elif text == "v":
            if self.view is not None:
                self.console.print_json(json.dumps(self.view))
            self.console.print(Text(self.prompt(), style="bold"), end="")
            self.console.file.flush()
            return None
        elif text == "b":
            if self.crumbs:
                self.crumbs.pop()
        elif text == "u":
            self.crumbs = []
            await self._send({"type": UNDO})
        elif text == "c" or text.startswith("c "):
            await self._say(text[2:])
        elif text.startswith("j "):
            body = self._body_from_json(text[2:])
            if body is not None and body["type"] == LEAVE:
                self.confirming = body
            elif body is not None:
                await self._send(body)
        elif text:
            await self._choose(text)
        self.draw()
        return None

    def _body_from_json(self, raw: str) -> Command | None:
        try:
            body = json.loads(raw)
        except json.JSONDecodeError as error:
            self.messages.append(f"not JSON: {error.msg} (j takes one command body)")
            return None
        if not isinstance(body, dict) or not isinstance(body.get("type"), str):
            self.messages.append('a command body is a JSON object with a "type"')
            return None
        return body

    async def _choose(self, text: str) -> None:
        numbers = text.split()
        if not all(n.isdigit() for n in numbers):
            self.messages.append(f"{text!r}: type a number from the list, or h for help")
            return
        if not self.may_choose():
            if self.waiting_for_own_move:
                self.messages.append("wait a moment: the table has not shown your last move yet")
            else:
                self.messages.append("it is not your move now")
            return
        root = self._menu_root()
        nodes = menu.find(root, self.crumbs)
        crumbs = list(self.crumbs) if nodes is not None else []
        node = nodes[-1] if nodes is not None else root
        for i, number in enumerate(numbers):
            options = menu.entries(node)
            if not 1 <= int(number) <= len(options):
                self.messages.append(f"{number}: choose 1 to {len(options)}")
                self.crumbs = crumbs
                return
            entry = options[int(number) - 1]
            if entry.command is not None:
                if i != len(numbers) - 1:
                    self.messages.append(f"{entry.label} needs no further number")
                    self.crumbs = crumbs
                    return
                self.crumbs = []
                if entry.command.get("type") == LEAVE:
                    self.confirming = entry.command
                    return
                await self._send(entry.command)
                return
            crumbs.extend(entry.path)
            node = entry.node
        self.crumbs = crumbs

    # ------------------------------------------------------------ the service

    async def _send(self, command: Command) -> None:
        label = self._label(command)
        try:
            outcome = await self.client.play(self.seat, command)
        except TimeoutError:
            self.messages.append(f"no answer from the service for: {label} (try again)")
            return
        if isinstance(outcome, Rejection):
            self.messages.append(f"rejected {outcome.code}: {outcome.message} ({label})")
            await self._refresh()
            return
        self.awaiting = max(self.awaiting, outcome.last_seq)
        self.moves += 1
        self.messages.append(f"✓ move {self.moves}: {label}")

    async def _say(self, text: str) -> None:
        if not text.strip():
            self.messages.append("c TEXT says TEXT in the table's chat")
            return
        try:
            outcome = await self.client.say(self.seat, text)
        except TimeoutError:
            self.messages.append("no answer from the service: nothing was said (try again)")
            return
        if isinstance(outcome, Rejection):
            self.messages.append(f"not said ({outcome.code}): {outcome.message}")

    async def _refresh(self) -> None:
        current = await self.client.view(self.seat.table_id, self.seat.seat)
        if current is not None:
            self._adopt(current, again=True)

    def _label(self, command: Command) -> str:
        view = self.view
        if view is None:
            return menu.describe(command)
        try:
            labels = lifecycle_path(command, view) or renderer_for(view["game"]).path(command, view)
        except (KeyError, IndexError, TypeError, ValueError):
            return menu.describe(command)
        return menu.SEPARATOR.join(labels)


async def play_terminal(
    client: OrreryClient, seat: SeatCredentials, lines: LineSource, console: Console
) -> Result:
    """Play ``seat`` until the table is finished, the person quits or input ends."""
    return await Session(client, seat, console).run(lines)
