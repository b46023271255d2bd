# Shared by the smoke scripts (source it after setting SMOKE_NAME): timed progress lines, a loud failure, and the
# apt-get download that a fresh CI machine needs.

SMOKE_START_NS=$(date +%s%N)

ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }

say() {
  local ms
  ms=$(ms_since "$SMOKE_START_NS")
  printf '[%s %4d.%ds] %s\n' "$SMOKE_NAME" $((ms / 1000)) $((ms % 1000 / 100)) "$*"
}

fail() {
  printf '%s: FAILED: %s\n' "$SMOKE_NAME" "$*" >&2
  exit 1
}

# apt_download DIR LOG PACKAGE...: downloads the .deb files into DIR. A fresh machine may have no package lists yet,
# so on a first failure the lists are updated once and the download tried again; apt's output stays in LOG and is
# shown only when both tries fail.
apt_download() {
  local dir=$1 log=$2
  shift 2
  (cd "$dir" && apt-get download "$@" >"$log" 2>&1) ||
    (apt-get update -qq >>"$log" 2>&1 && cd "$dir" && apt-get download "$@" >>"$log" 2>&1) ||
    { cat "$log" >&2; fail "apt-get download $* failed (see above)"; }
}
