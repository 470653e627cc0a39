#!/usr/bin/env python3
"""publish.py RUN_DIR SRCDIR: publish one make bench run (make bench-publish).

RUN_DIR is where make bench wrote the run (BUILDDIR/build/bench: its report,
BENCHMARKS.md, plots/ and results/). This copies the report to
SRCDIR/BENCHMARKS.md, the dated snapshot (its first line after the title
names the commit, kernel and date), and only the files it links to (the
plots, and results/agree.txt if the run compared itself with an earlier one)
to SRCDIR/bench/published/, the links rewritten to point there. The raw
results stay in the build tree.

What the hand-written analysis (bench/analysis.md, included in the report)
cites by hand under bench/published/ (an earlier run kept for comparison, an
agree.py listing) is left alone; publish.py says which of those files are
missing and which the new BENCHMARKS.md no longer mentions (git rm them if
they are not wanted any more). Nothing is committed: review and commit.
"""
import os
import re
import shutil
import sys

PUBLISHED = "bench/published"
LINK = re.compile(r"(\]\()([^)\s]+)(\))")
MENTION = re.compile(re.escape(PUBLISHED) + r"/[A-Za-z0-9_.+\-/]*")


def run_files(text, run):
    """The relative links of TEXT that name a file in RUN, in order, once each."""
    out = []
    for _, target, _ in LINK.findall(text):
        if re.match(r"^([a-z]+:|/|#)", target):
            continue
        path = os.path.normpath(target)
        if path.startswith("..") or not os.path.isfile(os.path.join(run, path)):
            continue
        if path not in out:
            out.append(path)
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.splitlines()[0])
    run, src = sys.argv[1], sys.argv[2]
    report = os.path.join(run, "BENCHMARKS.md")
    if not os.path.isfile(report):
        sys.exit(f"bench-publish: no report in {run}: run make bench first "
                 "(or name a run: make bench-publish BENCH_RUN=DIR)")
    text = open(report).read()
    published = os.path.join(src, PUBLISHED)
    files = run_files(text, run)

    # the previous run's files of the same kind go: a directory the run's
    # links name (plots/, results/) holds only what this run published
    for top in sorted({f.split(os.sep)[0] for f in files if os.sep in f}):
        shutil.rmtree(os.path.join(published, top), ignore_errors=True)
    for f in files:
        os.makedirs(os.path.dirname(os.path.join(published, f)), exist_ok=True)
        shutil.copyfile(os.path.join(run, f), os.path.join(published, f))

    def relink(m):
        path = os.path.normpath(m.group(2))
        if path in files and not re.match(r"^([a-z]+:|/|#)", m.group(2)):
            return m.group(1) + f"{PUBLISHED}/{path}" + m.group(3)
        return m.group(0)

    text = LINK.sub(relink, text)
    with open(os.path.join(src, "BENCHMARKS.md"), "w") as f:
        f.write(text)

    # what the document names under bench/published/, and what is there
    named = {m.group(0).rstrip("./") for m in MENTION.finditer(text)} - {PUBLISHED}
    missing = sorted(n for n in named if not os.path.exists(os.path.join(src, n)))
    there = []
    for root, _, names in os.walk(published):
        there += [os.path.relpath(os.path.join(root, n), src) for n in names]
    unnamed = sorted(p for p in there
                     if not any(p == n or p.startswith(n + "/") for n in named))
    head = next((line for line in text.splitlines() if line.startswith("This run:")), "")
    print(f"bench-publish: {os.path.join(src, 'BENCHMARKS.md')} from {report}")
    print(f"bench-publish: {head or 'no This run: line in the report'}")
    print(f"bench-publish: {len(files)} file(s) it links to in {PUBLISHED}/: "
          + ", ".join(files))
    if "-dirty" in head or "commit ?" in head:
        print("bench-publish: warning: the run was not of a committed tree")
    for n in missing:
        print(f"bench-publish: warning: BENCHMARKS.md names {n}, which is not there")
    for p in unnamed:
        print(f"bench-publish: BENCHMARKS.md no longer names {p}: git rm it unless wanted")
    print(f"bench-publish: review, then: git add BENCHMARKS.md {PUBLISHED}")


if __name__ == "__main__":
    main()
