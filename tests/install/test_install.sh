#!/usr/bin/env bash
# CTest: `cmake --install` into a fresh prefix puts every file where it
# belongs; the man page renders; the completions complete; the binary needs
# no libfmt.so (with GPUADVISOR_STATIC_FMT). Usage:
#   test_install.sh CMAKE BUILD_DIR STATIC_FMT(ON|OFF)
set -euo pipefail
cmake_bin=$1 build=$2 static_fmt=$3
prefix=$(mktemp -d "${TMPDIR:-/tmp}/gpuadvisor-install.XXXXXX")
trap 'rm -rf "$prefix"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$cmake_bin" --install "$build" --prefix "$prefix" >/dev/null

for f in bin/gpuadvisor \
         share/man/man1/gpuadvisor.1 \
         share/bash-completion/completions/gpuadvisor \
         share/zsh/site-functions/_gpuadvisor \
         share/fish/vendor_completions.d/gpuadvisor.fish \
         share/gpuadvisor/catalog.json share/gpuadvisor/rules.json \
         share/gpuadvisor/schema/spec.schema.json share/gpuadvisor/schema/recommend.schema.json \
         share/doc/gpuadvisor/LICENSE share/doc/gpuadvisor/README.md \
         share/doc/gpuadvisor/ARCHITECTURE.md share/doc/gpuadvisor/docs/estimation.md \
         share/doc/gpuadvisor/examples/4090-workstation.json; do
  [[ -s "$prefix/$f" ]] || fail "missing or empty: $f"
done
[[ -x "$prefix/bin/gpuadvisor" ]] || fail "bin/gpuadvisor is not executable"
bin="$prefix/bin/gpuadvisor"

# The installed files are what the installed binary prints.
"$bin" completion bash | cmp -s - "$prefix/share/bash-completion/completions/gpuadvisor" ||
  fail "installed bash completion differs from 'gpuadvisor completion bash'"
"$bin" completion zsh | cmp -s - "$prefix/share/zsh/site-functions/_gpuadvisor" ||
  fail "installed zsh completion differs"
"$bin" completion fish | cmp -s - "$prefix/share/fish/vendor_completions.d/gpuadvisor.fish" ||
  fail "installed fish completion differs"
"$bin" __man | cmp -s - "$prefix/share/man/man1/gpuadvisor.1" || fail "installed man page differs"

# --help points to the installed documents.
"$bin" --help | grep -qF "Docs: 'man gpuadvisor' and $prefix/share/doc/gpuadvisor (README.md, docs/)" ||
  fail "--help does not point to $prefix/share/doc/gpuadvisor"

# No libfmt.so: a copied binary runs without it.
if [[ "$static_fmt" == ON ]]; then
  if ldd "$bin" | grep -q libfmt; then fail "the binary links libfmt.so: $(ldd "$bin" | grep libfmt)"; fi
fi

# The man page renders without warnings, with every command and option.
if command -v man >/dev/null; then
  page=$(MANWIDTH=100 man --warnings -l "$prefix/share/man/man1/gpuadvisor.1" 2>"$prefix/man.err")
  [[ ! -s "$prefix/man.err" ]] || fail "man warnings: $(cat "$prefix/man.err")"
  for want in "GPUADVISOR(1)" "gpuadvisor recommend" "gpuadvisor catalog list" "--budget AMOUNT" \
              "--task TASK" "Values: pretrain, finetune, lora, qlora, inference." "EXIT STATUS" \
              "NO_COLOR" "gpuadvisor recommend --budget 20000 --model-size 7B"; do
    grep -qF -- "$want" <<<"$page" || fail "man page lacks: $want"
  done
else
  echo "man is not installed: rendering not checked"
fi

# bash completion: subcommands, options, option values, catalog ids.
complete_bash() {  # words... (the last one is being completed)
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _gpuadvisor
           echo "${COMPREPLY[*]}"' _ "$prefix/share/bash-completion/completions/gpuadvisor" "$@"
}
expect() {  # expected -- words...
  local want=$1; shift
  local got; got=$(complete_bash "$@")
  [[ "$got" == "$want" ]] || fail "completing '$*': got '$got', expected '$want'"
}
expect "recommend" gpuadvisor rec
expect "check catalog completion" gpuadvisor c
expect "list" gpuadvisor catalog l
expect "pretrain finetune lora qlora inference" gpuadvisor recommend --task ""
expect "qlora" gpuadvisor estimate --model-size 7B --task q
expect "--budget" gpuadvisor recommend --bu
expect "text json junit sarif html" gpuadvisor --format ""
expect "always" gpuadvisor check x.json --color al
expect "rtx-4070 rtx-4080 rtx-4090 rtx-4090-used rtx-4090d" gpuadvisor estimate --gpu rtx-40
expect "tower rack" gpuadvisor recommend --form-factor ""
expect "conservative guide standard" gpuadvisor rules --policy ""
expect "bash" gpuadvisor completion ba
expect "--model --model-size --model-config" gpuadvisor --catalog extra.json estimate --model
bash -n "$prefix/share/bash-completion/completions/gpuadvisor" || fail "bash syntax"
if command -v zsh >/dev/null; then zsh -n "$prefix/share/zsh/site-functions/_gpuadvisor" || fail "zsh syntax"; fi
if command -v fish >/dev/null; then
  fish_file="$prefix/share/fish/vendor_completions.d/gpuadvisor.fish"
  fish -n "$fish_file" || fail "fish syntax"
  got=$(fish -c "source '$fish_file'; complete -C 'gpuadvisor recommend --task q'" | cut -f1)
  [[ "$got" == "qlora" ]] || fail "fish: completing --task q gave '$got'"
  got=$(fish -c "source '$fish_file'; complete -C 'gpuadvisor catalog l'" | cut -f1)
  [[ "$got" == "list" ]] || fail "fish: completing 'catalog l' gave '$got'"
fi
echo "install: ok ($prefix)"
