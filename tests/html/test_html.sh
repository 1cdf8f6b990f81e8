#!/usr/bin/env bash
# CTest: `--format html` of recommend and estimate is one self-contained page
# that xmllint accepts, whose charts have one mark per build (or GPU), and
# that headless Chromium renders: a screenshot that is not blank, and a DOM
# with the expected number of points. Usage: test_html.sh GPUADVISOR SOURCE_DIR
set -euo pipefail
bin=$1 src=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuadvisor-html.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$src"

query=(recommend --budget 20000 --model-size 7B)
"$bin" "${query[@]}" --format html --output "$work/r.html"
"$bin" estimate --model-size 7B --format html --output "$work/e.html"

for page in "$work/r.html" "$work/e.html"; do
  # Well-formed (the page is polyglot markup) and valid HTML to libxml2's
  # parser, which predates HTML5 and SVG: only those element names may be
  # unknown to it.
  xmllint --noout "$page" || fail "$page is not well-formed"
  errors=$(xmllint --html --noout "$page" 2>&1 | grep -E "error" |
           grep -vE "Tag (svg|line|text|rect|circle|polyline|title|footer) invalid" || true)
  [[ -z "$errors" ]] || fail "xmllint --html: $errors"
  # Self-contained: no script, nothing to fetch.
  if grep -qiE "<script|<link|<img| src=|url\(|@import" "$page"; then
    fail "$page refers to something outside itself"
  fi
done

# One circle per build considered; the ranked ones labelled.
builds=$(grep -o 'data-builds="[0-9]*"' "$work/r.html" | grep -o '[0-9]*')
circles=$(grep -c '<circle class="build' "$work/r.html")
[[ "$circles" == "$builds" ]] || fail "$circles circles for $builds builds"
ranked=$("$bin" "${query[@]}" --format json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["builds"]))')
[[ $(grep -c '<circle class="build[a-z ]*ranked' "$work/r.html") == "$ranked" ]] ||
  fail "the $ranked ranked builds are not all marked"
[[ $(grep -c '<text class="label"' "$work/r.html") == "$ranked" ]] || fail "labels"
grep -q '<polyline class="front-line"' "$work/r.html" || fail "no Pareto front"
# The considered builds are every GPU model and count within the budget:
# the JSON with the largest --top lists the same number when it is below 20.
all=$("$bin" "${query[@]}" --top 20 --format json |
      python3 -c 'import json,sys; print(len(json.load(sys.stdin)["builds"]))')
if [[ "$all" -lt 20 ]]; then [[ "$builds" == "$all" ]] || fail "$builds points, $all builds"; fi
[[ $(grep -c '<rect class="term"' "$work/r.html") -ge $((ranked * 3)) ]] || fail "memory bars"
gpus=$("$bin" estimate --model-size 7B --format json |
       python3 -c 'import json,sys; print(len(json.load(sys.stdin)["fit"]))')
[[ $(grep -c '<rect class="fit"' "$work/e.html") == "$gpus" ]] || fail "fit chart: not $gpus bars"

# Text from a user's --catalog is escaped: a GPU named like markup stays text.
python3 - "$src/data/catalog.json" "$work/hostile.json" <<'PY'
import json, sys
cat = json.load(open(sys.argv[1]))
gpu = next(g for g in cat["gpus"] if g["id"] == "rtx-4090")
gpu["name"] = "<script>alert(\"x\")</script> & 'q' </svg>"
json.dump({"schema_version": 1, "gpus": [gpu]}, open(sys.argv[2], "w"))
PY
"$bin" --catalog "$work/hostile.json" "${query[@]}" --format html --output "$work/hostile.html"
if grep -q "<script" "$work/hostile.html"; then fail "markup from the catalog reached the page"; fi
grep -qF "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39; &lt;/svg&gt;" \
  "$work/hostile.html" || fail "the hostile name is not shown escaped"
xmllint --noout "$work/hostile.html" || fail "the page with a hostile name is not well-formed"

# A cluster answer shows the cluster: its figures are the JSON's exactly,
# one table row per network part, the racks.
cluster=(recommend --budget 1M --model-size 70B --task pretrain)
"$bin" "${cluster[@]}" --format html --output "$work/c.html"
"$bin" "${cluster[@]}" --format json >"$work/c.json"
xmllint --noout "$work/c.html" || fail "the cluster page is not well-formed"
python3 - "$work/c.html" "$work/c.json" <<'PY' || fail "cluster section"
import json, re, sys
page = open(sys.argv[1]).read()
c = json.load(open(sys.argv[2]))["cluster"]
h = re.search(r'<h2 id="cluster" ([^>]*)>', page)
assert h, "no cluster heading"
a = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', h.group(1)))
assert int(a["nodes"]) == c["nodes"] and int(a["gpus"]) == c["gpus"], a
assert float(a["total-usd"]) == c["total_price_usd"], (a, c["total_price_usd"])
assert float(a["network-usd"]) == c["network_price_usd"], a
assert float(a["hours"]) == c["time_hours"], a
rows = page.count('<tr class="network">')
assert rows == len(c["network_bom"]) > 0, (rows, len(c["network_bom"]))
r = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', re.search(r'<p id="racks" ([^>]*)>', page).group(1)))
assert int(r["server-racks"]) == c["racks"]["server_racks"], r
assert int(r["network-racks"]) == c["racks"]["network_racks"], r
for part in c["network_bom"]:
    assert part["id"] in page, part["id"]
PY
if grep -q 'id="cluster"' "$work/r.html"; then fail "a single-server answer shows a cluster"; fi

# Headless Chromium: the page renders.
browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z "$browser" ]]; then
  echo "chromium is not installed (scripts/install-deps.sh --test): browser checks skipped"
  exit 0
fi
flags=(--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run
       --user-data-dir="$work/profile" --window-size=1200,1400)
timeout 120 "$browser" "${flags[@]}" --screenshot="$work/r.png" "file://$work/r.html" \
  >"$work/chromium.log" 2>&1 || fail "chromium: $(tail -n 5 "$work/chromium.log")"
read -r w h colours nonwhite < <(python3 "$src/tests/tools/png_stats.py" "$work/r.png")
echo "screenshot: ${w}x${h}, $colours colours, $nonwhite of the pixels not white"
[[ "$colours" -ge 16 ]] || fail "screenshot has $colours colours: blank?"
python3 -c "import sys; sys.exit(0 if float('$nonwhite') > 0.02 else 1)" ||
  fail "screenshot is almost all white ($nonwhite)"
timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$work/r.html" >"$work/dom.html" \
  2>>"$work/chromium.log" || fail "chromium --dump-dom"
dom=$(grep -o '<circle class="build' "$work/dom.html" | wc -l)
[[ "$dom" == "$builds" ]] || fail "the browser's DOM has $dom points, expected $builds"
echo "html: ok ($builds points in the browser's DOM)"
