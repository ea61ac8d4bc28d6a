# Compares each rst page's outline (written by TestParseAudit with
# CTX_PARSE_AUDIT_OUTLINES=/tmp/parse12-outlines.json) with docutils' section tree.
# Round 12, branch parse12: python3 round12-docutils-outlines.py [N samples].
import json, re, sys
from docutils.core import publish_doctree
from docutils import nodes
from docutils.parsers.rst import roles, directives, Directive
outl = json.load(open('/tmp/parse12-outlines.json'))
# unknown roles/directives: docutils reports and goes on; keep it quiet
settings = {'report_level': 5, 'halt_level': 5, 'file_insertion_enabled': False, 'raw_enabled': False,
            'doctitle_xform': False, 'sectsubtitle_xform': False, 'warning_stream': False}
def norm(s): return re.sub(r'[^0-9a-z]+', '', s.lower())
tot = diff_count = diff_level = diff_text = 0
samples = []
for path, ours in sorted(outl.items()):
    ours = ours or []
    try:
        src = open(path, encoding='utf-8', errors='replace').read()
        tree = publish_doctree(src, settings_overrides=settings)
    except Exception as e:
        print('ERR', path, e); continue
    theirs = []
    def walk(n, depth):
        for c in n.children:
            if isinstance(c, nodes.section):
                t = c.next_node(nodes.title)
                theirs.append((depth, t.astext() if t else ''))
                walk(c, depth + 1)
            elif isinstance(c, nodes.Element):
                walk(c, depth)
    walk(tree, 1)
    tot += 1
    o = [(l, norm(t)) for l, t in ours]
    th = [(min(l, 6), norm(t)) for l, t in theirs]
    if len(o) != len(th):
        diff_count += 1; samples.append(('count', path, len(o), len(th), [t for _, t in ours][:6], [t for _, t in theirs][:6]))
    elif [t for _, t in o] != [t for _, t in th]:
        diff_text += 1; samples.append(('text', path, [x for x in zip(o, th) if x[0][1] != x[1][1]][:3]))
    elif o != th:
        diff_level += 1; samples.append(('level', path, [x for x in zip(ours, theirs) if x[0][0] != min(x[1][0], 6)][:3]))
print('files', tot, 'count differs', diff_count, 'text differs', diff_text, 'level differs', diff_level)
for s in samples[:int(sys.argv[1]) if len(sys.argv) > 1 else 40]:
    print(s)
