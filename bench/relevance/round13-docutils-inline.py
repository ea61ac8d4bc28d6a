#!/usr/bin/env python3
"""Check the rst reader's inline cases (indexer/markdown/rstread_test.go,
TestRSTInlineRules) against docutils: for each text, print the interpreted
text (with its role) and the hyperlink references docutils recognises.
Every role name is registered as a generic role, so Sphinx's roles parse.
Usage: python3 round13-docutils-inline.py  (docutils 0.19)."""
import re
import docutils.core
import docutils.nodes as n
from docutils.parsers.rst import roles

CASES = [
    ":ref:`the guide <guide>` and :func:`~os.path.join`",
    "`x`:ref: and `y <https://u>`_ and `z`__",
    "a:ref:`x` stays",
    ":ref:` x` stays",
    "'`' and \"`\" stay",
    "\\:ref:`x` and :ref:`y\\`",
    "``:ref:`lit``` stays",
    "``:ref:`lit` `` is read",
    "a:ref:`x`_ is a link",
    "*:ref:`em`* stays",
    "pip_ and a-b.c_, and_not_ref",
    "(:ref:`par <p>`)",
    ":ref:`open never closes",
    "`default` role",
    "See :ref:`broken\nover lines <zt>` here.",
]


def role(name, rawtext, text, lineno, inliner, options={}, content=[]):
    node = n.inline(rawtext, text)
    node["ctxrole"] = name
    return [node], []


for c in CASES:
    for name in re.findall(r":([\w:.+-]+):`", c) + re.findall(r"`:([\w:.+-]+):", c):
        roles.register_local_role(name, role)
    doc = docutils.core.publish_doctree(c, settings_overrides={"report_level": 5, "halt_level": 5})
    found = []
    for node in doc.traverse():
        if isinstance(node, n.inline) and "ctxrole" in node:
            found.append(("role", node["ctxrole"], node.astext()))
        elif isinstance(node, n.reference):
            found.append(("ref", node.astext(), node.get("refuri") or node.get("refname") or ""))
        elif isinstance(node, n.title_reference):
            found.append(("default", node.astext()))
        elif isinstance(node, n.problematic):
            found.append(("problematic", node.astext()))
    print(repr(c), "->", found)
