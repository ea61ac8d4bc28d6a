"""set19-expand-podman.py MARKDOWN_DIR OUT_DIR: write podman's man pages as
its docs build does before pandoc or Sphinx reads them (a simplified
hack/markdown-preprocess): each podman-*.md.in becomes podman-*.md with
every '@@option NAME' line replaced by options/NAME.md (less its '####>'
comment lines), '<<a|b>>' by b on a pod command's page (podman-pod-*) and
a elsewhere, '<<subcommand>>' by the command's last word and
'<<fullsubcommand>>' by the command without 'podman '. The .md pages are
copied as they are. Called by set19-corpus.sh."""
import os
import re
import sys

src, dst = sys.argv[1], sys.argv[2]
os.makedirs(dst, exist_ok=True)
alt = re.compile(r"<<([^|>]*)\|([^>]*)>>")


def option(name):
    with open(os.path.join(src, "options", name + ".md"), encoding="utf-8") as f:
        return "".join(line for line in f if not line.startswith("####>"))


for name in sorted(os.listdir(src)):
    path = os.path.join(src, name)
    if not os.path.isfile(path):
        continue
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if name.endswith(".md.in"):
        base = name[: -len(".md.in")]  # podman-pod-create.1
        cmd = re.sub(r"\.\d$", "", base)  # podman-pod-create
        words = cmd.split("-")
        lines = []
        for line in text.splitlines(keepends=True):
            m = re.match(r"^@@option\s+(\S+)\s*$", line)
            lines.append(option(m.group(1)) if m else line)
        text = "".join(lines)
        pod = cmd.startswith("podman-pod-")
        text = alt.sub(lambda m: m.group(2) if pod else m.group(1), text)
        text = text.replace("<<subcommand>>", words[-1])
        text = text.replace("<<fullsubcommand>>", " ".join(words[1:]))
        name = base + ".md"
    elif not name.endswith(".md"):
        continue
    with open(os.path.join(dst, name), "w", encoding="utf-8") as f:
        f.write(text)
