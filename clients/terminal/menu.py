"""The move menu: a seat's legal commands grouped into a small tree a person can walk.

Each game's renderer gives every legal command a *path* of labels, most general first
(``["place an airship", "Creepy Cove", "chip 7"]``). The commands become the leaves of a
tree keyed by those labels, in the order the game lists them. A node is shown flat
(every leaf under it, numbered, under headings of the labels they share) when it holds
at most ``FLAT`` leaves (or up to twice that in a single group); otherwise its children
are listed and the person picks one to descend. Chains of single children collapse into
one line, so a choice with one option never costs a step.

Pure data and functions: no I/O, no rich; the screen draws what :func:`entries` returns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

FLAT = 15
SEPARATOR = " · "

Command = dict[str, Any]
PathOf = Callable[[Command], list[str]]


@dataclass
class Node:
    label: str
    children: dict[str, Node] = field(default_factory=dict)
    command: Command | None = None  # set on leaves only

    @property
    def is_leaf(self) -> bool:
        return self.command is not None

    def leaf_count(self) -> int:
        return 1 if self.is_leaf else sum(c.leaf_count() for c in self.children.values())

    def leaves(self, prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Node]]:
        if self.is_leaf:
            return [(prefix, self)]
        out: list[tuple[tuple[str, ...], Node]] = []
        for child in self.children.values():
            out.extend(child.leaves((*prefix, child.label)))
        return out


@dataclass(frozen=True)
class Entry:
    """One numbered line of a menu: a command (leaf) or a group to open."""

    label: str
    node: Node
    path: tuple[str, ...]  # the labels from the menu shown to ``node``
    group: str = ""  # a flat menu's heading above this entry (the labels it shares)

    @property
    def command(self) -> Command | None:
        return self.node.command


def build(commands: list[Command], path_of: PathOf) -> Node:
    """The menu tree of ``commands`` (each labelled by ``path_of``)."""
    root = Node(label="")
    for command in commands:
        labels = [label for label in path_of(command) if label] or [str(command.get("type"))]
        node = root
        for label in labels[:-1]:
            node = _child(node, label)
        leaf_label = labels[-1]
        if leaf_label in node.children:  # two commands with the same labels: tell them apart
            leaf_label = f"{leaf_label} [{describe(command)}]"
        node.children[leaf_label] = Node(label=leaf_label, command=command)
    return root


def _child(node: Node, label: str) -> Node:
    child = node.children.get(label)
    if child is None or child.is_leaf:
        if child is not None:  # a leaf already sits where a group is needed: keep both
            label = f"{label} …"
            child = node.children.get(label)
        if child is None:
            child = node.children[label] = Node(label=label)
    return child


def entries(node: Node, flat: int = FLAT) -> list[Entry]:
    """The numbered lines shown for ``node``: every leaf when there are at most ``flat``
    (or twice that, when they all but a few plain choices share one group), else one
    line per group."""
    groups = [c for c in node.children.values() if not c.is_leaf]
    total = node.leaf_count()
    if total <= flat or (len(groups) == 1 and total <= 2 * flat):
        return [
            Entry(path[-1], leaf, path, group=SEPARATOR.join(path[:-1]))
            for path, leaf in node.leaves()
        ]
    out = []
    for child in node.children.values():
        labels = [child.label]
        while not child.is_leaf and len(child.children) == 1:
            child = next(iter(child.children.values()))
            labels.append(child.label)
        label = SEPARATOR.join(labels)
        if not child.is_leaf:
            label = f"{label}  ({child.leaf_count()} choices)"
        out.append(Entry(label, child, tuple(labels)))
    return out


def find(root: Node, labels: list[str]) -> list[Node] | None:
    """The nodes along ``labels`` from ``root`` (to keep a person's place in the menu
    when the view changes), or None when that path no longer exists."""
    nodes = [root]
    for label in labels:
        child = nodes[-1].children.get(label)
        if child is None:
            return None
        nodes.append(child)
    return nodes


def describe(command: Command) -> str:
    """A command as its type and fields (the fallback label)."""
    fields = ", ".join(f"{k}={v}" for k, v in command.items() if k != "type")
    return f"{command.get('type')}({fields})" if fields else str(command.get("type"))
