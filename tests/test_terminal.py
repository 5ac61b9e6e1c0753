"""``orrery play`` as a person uses it: a real terminal (a pty) against a live service.

Each test starts ``orrery play`` as a process whose controlling terminal is a pty, reads
its screen (ANSI codes stripped) and types lines, as a person would; Ctrl-C is the
terminal's own interrupt character. Every wait is for something to appear on the
screen, with a generous timeout. The driver answers each ``your choice>`` prompt with
``1`` and types nothing while the client waits, so play only goes on if the client
redraws by itself when the table changes.
"""

from __future__ import annotations

import codecs
import fcntl
import os
import re
import select
import shlex
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from orrery.cli import app
from tests.support.service import REPO, LiveService, live_service

pytestmark = pytest.mark.service

ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()=>][0-9A-Za-z]?"
)
PROMPT = re.compile(r"(your choice|type yes to confirm[^\n]*|waiting for [^\n]*)> ")
RESUME = re.compile(r"orrery play --table (\S+) --seat (\d+) --token (\S+)( --redis-url \S+)?")
ORRERY = (sys.executable, "-m", "orrery.cli")  # how a Terminal runs the command line
WAIT = 90.0  # seconds for anything to appear: generous on a shared 2-core machine


class Terminal:
    """One ``orrery play`` process on a pty of 140×50 (or ``columns`` wide)."""

    def __init__(self, *args: str, program: Sequence[str] = ORRERY, columns: int = 140) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
        self.process = subprocess.Popen(
            [*program, "play", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
            # the pty becomes the controlling terminal: Ctrl-C there is a SIGINT
            preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),
            # the pty's size, whatever the test runner's own COLUMNS/LINES say (Rich reads
            # those before the terminal: a parallel run's workers have their own)
            env={
                **os.environ,
                "PYTHONPATH": str(REPO),
                "TERM": "xterm-256color",
                "COLUMNS": str(columns),
                "LINES": "50",
            },
            cwd=REPO,
        )
        os.close(slave)
        self.fd = master
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.raw = ""
        self.cursor = 0  # in the stripped text: where the next expect() starts

    @property
    def text(self) -> str:
        return ANSI.sub("", self.raw).replace("\r", "")

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(self.fd, 1 << 16)
        except OSError:  # the process is gone (EIO)
            data = b""
        if not data:
            return False
        self.raw += self.decoder.decode(data)
        return True

    def expect(self, pattern: str | re.Pattern[str], timeout: float = WAIT) -> re.Match[str]:
        regex = re.compile(pattern) if isinstance(pattern, str) else pattern
        deadline = time.monotonic() + timeout
        while True:
            text = self.text
            match = regex.search(text, self.cursor)
            if match:
                self.cursor = match.end()
                return match
            left = deadline - time.monotonic()
            if left <= 0 or not self._read(min(left, 0.5)):
                tail = text[-4000:]
                raise AssertionError(f"{regex.pattern!r} did not appear; screen:\n{tail}")

    def send(self, line: str) -> None:
        os.write(self.fd, line.encode() + b"\r")

    def interrupt(self) -> None:
        os.write(self.fd, b"\x03")  # the terminal's INTR character

    def wait(self, timeout: float = WAIT) -> int:
        deadline = time.monotonic() + timeout
        while self.process.poll() is None and time.monotonic() < deadline:
            self._read(0.2)
        while self._read(0.05) and select.select([self.fd], [], [], 0)[0]:
            pass
        return self.process.wait(timeout=1)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self.fd)

    def moves(self) -> int:
        return max((int(n) for n in re.findall(r"✓ move (\d+):", self.text)), default=0)

    def rejections(self) -> set[str]:
        return set(re.findall(r"rejected [a-z_]+: [^\n]*", self.text))


def play_until(terminal: Terminal, moves: int) -> None:
    """Answer prompts with 1 (and confirmations with no) until ``moves`` were accepted."""
    while terminal.moves() < moves:
        prompt = terminal.expect(PROMPT).group(1)
        if prompt == "your choice":
            terminal.send("1")
        elif prompt.startswith("type yes"):
            terminal.send("no")
        # waiting for others: type nothing, the client redraws when the table changes


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveService]:
    with live_service(Path(tmp_path_factory.mktemp("terminal"))) as service:
        yield service


@pytest.fixture
def terminals() -> Iterator[list[Terminal]]:
    started: list[Terminal] = []
    yield started
    for terminal in started:
        terminal.close()


def test_spacecraft_plays_on_through_its_simultaneous_phase_and_resumes(
    live: LiveService, terminals: list[Terminal]
) -> None:
    me = Terminal("--game", "spacecraft", "--players", "3", "--seed", "4", "--redis-url", live.url)
    terminals.append(me)
    resume = me.expect(RESUME)
    table, seat, token = resume.group(1), resume.group(2), resume.group(3)
    me.expect("keep a personal goal")  # every seat chooses at once
    me.expect(PROMPT)
    # a command the table refuses now: the client shows why and the current view
    me.send('j {"type": "sc.leave"}')
    me.expect(r"rejected wrong_phase")
    play_until(me, 6)
    screen = me.text
    assert me.rejections() == {m for m in me.rejections() if "wrong_phase" in m}
    assert len(me.rejections()) == 1  # only the one sent on purpose
    # the board as a player reads it: names from the catalogue, the private panel
    assert "junkyard (top tile, pile height)" in screen and "workshop" in screen
    assert re.search(r"\b(screw|bulb|gear|battery|cable|propeller|tape) \d", screen)
    assert "only you see this" in screen and "my goal" in screen and "my rocket" in screen
    assert "bot1" in screen and "bot2" in screen
    assert "goal=" not in screen and "Pretty" not in screen
    me.send("q")
    me.expect(r"Come back with:\n\s*orrery play --table")
    assert me.wait() == 0

    # back to the same seat: the bots come back too, play goes on without a rejection
    again = Terminal("--table", table, "--seat", seat, "--token", token, "--redis-url", live.url)
    terminals.append(again)
    again.expect(PROMPT)
    play_until(again, 3)
    assert not again.rejections()
    again.interrupt()
    assert again.wait() == 130
    assert "interrupted: your seat stays at the table" in again.text
    assert f"--table {table} --seat {seat} --token {token}" in again.text

    stranger = Terminal("--table", table, "--seat", "1", "--token", token, "--redis-url", live.url)
    terminals.append(stranger)
    assert stranger.wait() == 2
    assert "does not take this token" in stranger.text


def test_dev_py_passes_ctrl_c_through_and_names_the_command_typed(
    live: LiveService, terminals: list[Terminal]
) -> None:
    """``python3 dev.py orrery play`` then Ctrl-C: the client's exit code and its "come
    back with" line, naming the way the user came in, whole on one line in a terminal
    narrower than it; no traceback from dev.py."""
    typed = ["python3", "dev.py", "orrery"]
    me = Terminal(
        "--game", "tiny", "--players", "2", "--redis-url", live.url, program=typed, columns=60
    )  # fmt: skip
    terminals.append(me)
    back = rf"{re.escape(shlex.join(typed))} play --table (\S+) --seat 0 --token (\S+)"
    table, token = me.expect(rf"Come back with:\n\s*{back}").groups()
    me.expect(PROMPT)
    me.interrupt()
    assert me.wait() == 130
    after = me.text[me.cursor :]
    assert "interrupted: your seat stays at the table; come back with:" in after
    assert re.search(back, after).groups() == (table, token)  # type: ignore[union-attr]
    assert "Traceback" not in me.text and "KeyboardInterrupt" not in me.text


def test_fractured_sky_shows_the_ai_groups_moves_and_confirms_a_concession(
    live: LiveService, terminals: list[Terminal]
) -> None:
    me = Terminal(
        "--game", "fractured_sky", "--players", "2", "--options", "difficulty=hard",
        "--name", "Solo", "--seed", "3", "--redis-url", live.url,
    )  # fmt: skip
    terminals.append(me)
    me.expect("choose your 4 starting resources")
    me.expect("your choice> ")
    screen = me.text
    assert "Black (AI)" in screen and "bot1" in screen and "AI difficulty hard" in screen
    me.send("1")
    me.expect(r"✓ move 1: choose your 4 starting resources")
    me.expect(r"place an airship  \((\d+) choices\)")  # grouped: an action, then a region
    me.expect("your choice> ")
    me.send("1")
    me.expect(r"your options › place an airship")
    region = me.expect(r"1\. ([A-Z][a-z]+ [A-Z][a-z]+) \(").group(1)
    me.expect("your choice> ")
    me.send("1")
    me.expect(r"\d+\. chip \d+")
    me.expect("your choice> ")
    me.send("1")
    me.expect(rf"✓ move 2: place an airship · {region}[^\n]* · chip \d+")
    me.expect(r"unused chips: ")
    number = me.expect(r"(\d+)\. concede: leave the game").group(1)
    me.expect("your choice> ")
    me.send(number)
    me.expect("really leave the game\\? type yes to confirm")
    me.send("no")
    me.expect("not sent: you stay in the game")
    number = me.expect(r"(\d+)\. concede: leave the game").group(1)
    me.expect("your choice> ")
    me.send(number)
    me.expect("type yes to confirm")
    me.send("yes")
    # a two-seat table ends as a seat concedes (on_abandon "end"), the leaver last
    me.expect("final standing")
    me.expect(r"rank\s+player\s+points")
    me.expect(r"\d+\s+Solo \(you\) \(conceded\)\s+\d+")
    me.expect("the game is over")
    assert me.wait() == 0
    final = me.text[me.text.rindex("Fractured Sky · table") :]
    assert "· finished" in final and "round 0" not in final
    assert "Black (AI)" in final and "conceded" in final
    assert not me.rejections()


def test_a_second_person_joins_an_open_seat_and_both_play_at_once(
    live: LiveService, terminals: list[Terminal]
) -> None:
    ann = Terminal(
        "--game", "spacecraft", "--players", "2", "--open-seats", "1", "--name", "Ann",
        "--redis-url", live.url,
    )  # fmt: skip
    terminals.append(ann)
    table = ann.expect(r"others join with: orrery play --table (\S+)").group(1)
    ann.expect(r"lobby, 1 open seat")
    bea = Terminal("--table", table, "--name", "Bea", "--redis-url", live.url)
    terminals.append(bea)
    bea.expect(rf"table {table} · you are seat 1")
    for person in (ann, bea):
        person.expect("keep a personal goal")
    # both choose their goals at once, then take turns: neither is ever refused
    while ann.moves() < 3 or bea.moves() < 3:
        for person in (ann, bea):
            try:
                prompt = person.expect(PROMPT, timeout=0.5).group(1)
            except AssertionError:
                continue
            if prompt == "your choice":
                person.send("1")
            elif prompt.startswith("type yes"):
                person.send("no")
    assert not ann.rejections() and not bea.rejections()
    assert "Bea" in ann.text and "Ann" in bea.text
    for person in (ann, bea):
        person.send("q")
        assert person.wait() == 0


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--game", "Spacecraft"], "unknown game 'Spacecraft'; did you mean --game spacecraft?"),
        (["--game", "space_craft"], "did you mean --game spacecraft?"),
        (["--game", "spacecraft", "--players", "7"], "spacecraft seats 2-4 players"),
        (["--game", "fractured_sky", "--options", "colour=red"], "has no option 'colour'"),
        (["--game", "spacecraft", "--options", "{bad"], "is not a JSON object"),
        (["--game", "spacecraft", "--seat", "5"], "choose 0 to 2"),
        (["--token", "x" * 30], "--token resumes a seat: give it with --table ID and --seat N"),
        (["--table", "t1", "--players", "3"], "leave them out to join table t1"),
        ([], "give --game G to start a table"),
    ],
)
def test_a_bad_argument_is_one_line_naming_the_fix(args: list[str], says: str) -> None:
    result = CliRunner().invoke(app, ["play", *args])
    assert result.exit_code == 2 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], result.stderr


def test_an_unknown_game_exits_non_zero_without_a_traceback() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "orrery.cli", "play", "--game", "chess"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=REPO,
    )
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("orrery play: unknown game 'chess'; choose --game ")
    assert len(result.stderr.strip().splitlines()) == 1


def test_help_lists_the_options_without_bool_metavars() -> None:
    result = CliRunner().invoke(app, ["play", "--help"], terminal_width=120)
    assert result.exit_code == 0
    for option in ("--game", "--players", "--options", "--table", "--seat", "--token"):
        assert option in result.stdout
    assert "<bool>" not in result.stdout
