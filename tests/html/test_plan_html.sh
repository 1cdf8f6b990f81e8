#!/usr/bin/env bash
# CTest: `plan --format html` is one self-contained page that xmllint accepts,
# whose time-against-cost chart has one point per GPU type and GPU count that
# fits, each carrying the exact figures of the JSON output, and that headless
# Chromium renders. Usage: test_plan_html.sh GPUADVISOR SOURCE_DIR
set -euo pipefail
bin=$1 src=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuadvisor-plan-html.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$src"

priced=(plan --model llama-3.1-70b --tokens 15T --gpu h100-sxm,h200-sxm --nodes 1-64)
unpriced=(plan --model llama-3.1-8b --tokens 2T --gpu a100-80gb-sxm --gpus 1-32)
"$bin" "${priced[@]}" --format html --output "$work/p.html"
"$bin" "${unpriced[@]}" --format html --output "$work/u.html"
# No layout fits: exit 1 and still a page that says so.
set +e
"$bin" plan --model llama-3.1-405b --gpu rtx-4090 --gpus 1 --format html --output "$work/n.html"
rc=$?
set -e
[[ $rc == 1 ]] || fail "no plan: exit $rc, expected 1"
grep -q '<h2 class="error">No plan</h2>' "$work/n.html" || fail "the no-plan page does not say so"

for page in "$work/p.html" "$work/u.html" "$work/n.html"; do
  xmllint --noout "$page" || fail "$page is not well-formed"
  errors=$(xmllint --html --noout "$page" 2>&1 | grep -E "error" |
           grep -vE "Tag (svg|line|text|rect|circle|polyline|title|footer) invalid" || true)
  [[ -z "$errors" ]] || fail "xmllint --html: $errors"
  if grep -qiE "<script|<link|<img| src=|url\(|@import" "$page"; then
    fail "$page refers to something outside itself"
  fi
done

# Every point against the JSON of the same search with every shape listed:
# the first plan of each GPU type and count is that count's best.
check_points() {  # PAGE AXIS ARGS...
  local page=$1 axis=$2
  shift 2
  "$bin" "$@" --top 0 --format json >"$work/all.json"
  "$bin" "$@" --format json >"$work/top.json"
  python3 - "$page" "$axis" "$work/all.json" "$work/top.json" <<'PY'
import json, re, sys
page, axis = open(sys.argv[1]).read(), sys.argv[2]
plans = json.load(open(sys.argv[3]))["plans"]
listed = json.load(open(sys.argv[4]))["plans"]
best = {}
for p in plans:
    best.setdefault((p["gpu"], p["gpus"]), p)
circles = re.findall(r'<circle class="count( ranked)?" ([^>]*)>', page)
def attrs(s):
    return dict(re.findall(r'([a-z-]+)="([^"]*)"', s))
got = {}
for ranked, a in circles:
    a = attrs(a)
    got[(a["data-gpu"], int(a["data-gpus"]))] = (bool(ranked), a)
assert set(got) == set(best), f"points {sorted(got)} != best per count {sorted(best)}"
m = re.search(r'id="chart" data-points="(\d+)"', page)
assert m and int(m.group(1)) == len(best), "data-points"
ranks = {(p["gpu"], p["gpus"]): i + 1 for i, p in reversed(list(enumerate(listed)))}
for key, p in best.items():
    ranked, a = got[key]
    assert float(a["data-hours"]) == p["hours"], (key, a["data-hours"], p["hours"])
    assert float(a["data-gpu-hours"]) == p["gpu_hours"], key
    assert float(a["data-mfu"]) == p["mfu"], key
    assert int(a["data-nodes"]) == p["nodes"], key
    cost = p["cost_usd"]
    assert (a["data-cost-usd"] == "") == (cost is None), key
    if cost is not None:
        assert float(a["data-cost-usd"]) == cost, key
    is_listed = any(l is p or (l["gpu"], l["gpus"], l["layout"]) == (p["gpu"], p["gpus"], p["layout"])
                    for l in listed)
    assert ranked == is_listed, f"{key}: ranked {ranked}, listed {is_listed}"
    if ranked:
        rank = next(i + 1 for i, l in enumerate(listed)
                    if (l["gpu"], l["gpus"], l["layout"]) == (p["gpu"], p["gpus"], p["layout"]))
        label = f"#{rank} {p['nodes']} nodes" if p["nodes"] > 1 else f"#{rank} {p['gpus']} GPU"
        assert f'data-gpus="{p["gpus"]}"' in page and label in page, f"label {label}"
want = {"usd": "cost at the cheapest catalog cloud price (USD)", "gpu-hours": ">GPU-hours"}[axis]
assert want in page, f"axis {axis}"
assert page.count('<tr><td class="n">') == len(listed), "table rows"
assert page.count('<polyline class="series"') == len({g for g, _ in best}), "one line per GPU"
print(f"{len(best)} points, {sum(r for r, _ in got.values())} ranked")
PY
}
check_points "$work/p.html" usd "${priced[@]}" || fail "priced chart"
check_points "$work/u.html" gpu-hours "${unpriced[@]}" || fail "GPU-hours chart"

# Text from a user's --catalog is escaped: a model named like markup stays text.
python3 - "$src/data/catalog.json" "$work/hostile.json" <<'PY'
import json, sys
cat = json.load(open(sys.argv[1]))
m = dict(next(m for m in cat["models"] if m["id"] == "llama-3.1-8b"))
m["id"], m["name"] = "hostile-8b", "<script>alert(\"x\")</script> & 'q' </svg>"
json.dump({"schema_version": 1, "models": [m]}, open(sys.argv[2], "w"))
PY
"$bin" --catalog "$work/hostile.json" plan --model hostile-8b --gpu h100-sxm --gpus 8 \
  --format html --output "$work/hostile.html"
if grep -q "<script" "$work/hostile.html"; then fail "markup from the catalog reached the page"; fi
grep -qF "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39; &lt;/svg&gt;" \
  "$work/hostile.html" || fail "the hostile name is not shown escaped"
xmllint --noout "$work/hostile.html" || fail "the page with a hostile name is not well-formed"

browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z "$browser" ]]; then
  echo "chromium is not installed (scripts/install-deps.sh --test): browser checks skipped"
  exit 0
fi
flags=(--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run
       --user-data-dir="$work/profile" --window-size=1200,1400)
timeout 120 "$browser" "${flags[@]}" --screenshot="$work/p.png" "file://$work/p.html" \
  >"$work/chromium.log" 2>&1 || fail "chromium: $(tail -n 5 "$work/chromium.log")"
read -r w h colours nonwhite < <(python3 "$src/tests/tools/png_stats.py" "$work/p.png")
echo "screenshot: ${w}x${h}, $colours colours, $nonwhite of the pixels not white"
[[ "$colours" -ge 16 ]] || fail "screenshot has $colours colours: blank?"
python3 -c "import sys; sys.exit(0 if float('$nonwhite') > 0.02 else 1)" ||
  fail "screenshot is almost all white ($nonwhite)"
timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$work/p.html" >"$work/dom.html" \
  2>>"$work/chromium.log" || fail "chromium --dump-dom"
points=$(grep -o 'data-points="[0-9]*"' "$work/p.html" | grep -o '[0-9]*')
dom=$(grep -o '<circle class="count' "$work/dom.html" | wc -l)
[[ "$dom" == "$points" ]] || fail "the browser's DOM has $dom points, expected $points"
echo "plan html: ok ($points points in the browser's DOM)"
