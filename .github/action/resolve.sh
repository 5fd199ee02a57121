#!/usr/bin/env bash
# resolve.sh: how the mcptest Action finds its binary (action.yml runs it).
#
#   resolve.sh resolve   picks the release for MCPTEST_VERSION and the
#                        archive for the runner; writes tag, version,
#                        archive, dir and source=true|false to $GITHUB_OUTPUT
#   resolve.sh fetch     downloads that archive and checksums.txt, verifies
#                        the archive's SHA-256 (a mismatch exits 3) and
#                        unpacks the binary into MCPTEST_DIR
#
# MCPTEST_VERSION is the action's `version` input, else the ref the workflow
# uses the action at: v1.2.3 (that release), v1 or v1.2 (the newest release
# under it), latest, or anything else (a branch, a SHA, `uses: ./`), which
# is not a release: then source=true and action.yml builds from source.
# A release tag whose checksums.txt is not published (404) also falls back
# to the source build. MCPTEST_API_URL and MCPTEST_DOWNLOAD_URL default to
# GitHub's; the tests point them at a local server.
set -euo pipefail

repo=${MCPTEST_REPO:-mcptest/mcptest}
api=${MCPTEST_API_URL:-${GITHUB_API_URL:-https://api.github.com}}
download=${MCPTEST_DOWNLOAD_URL:-${GITHUB_SERVER_URL:-https://github.com}}
out=${GITHUB_OUTPUT:-/dev/stdout}

fail() { # fail CODE MESSAGE: an error annotation, then exit CODE
  echo "::error title=mcptest setup::$2"
  exit "$1"
}

# fetch_url URL FILE: 0 on success, 4 on 404, 1 on any other failure.
fetch_url() {
  local code auth=()
  if [ -n "${MCPTEST_TOKEN:-}" ] && [ "${1#"$api"}" != "$1" ]; then
    auth=(-H "Authorization: Bearer $MCPTEST_TOKEN")
  fi
  code=$(curl -sSL --retry 3 --retry-delay 1 --connect-timeout 10 --max-time 120 \
    ${auth[@]+"${auth[@]}"} -o "$2" -w '%{http_code}' "$1") || return 1
  case $code in
  2??) return 0 ;;
  404) return 4 ;;
  *) echo "GET $1: HTTP $code" >&2; return 1 ;;
  esac
}

# newest_tag PREFIX: the newest published release whose tag is PREFIX.x...
newest_tag() {
  local body
  body=$(mktemp)
  fetch_url "$api/repos/$repo/releases?per_page=100" "$body" || { rm -f "$body"; return 1; }
  # The list is newest first; drafts and prereleases carry no plain vX.Y.Z tag.
  grep -o '"tag_name": *"[^"]*"' "$body" | sed 's/.*"\([^"]*\)"$/\1/' |
    grep -E "^${1//./\\.}\.[0-9]+(\.[0-9]+)?$" | head -n 1 || true
  rm -f "$body"
}

platform() {
  case ${RUNNER_OS:-$(uname -s)} in
  Linux) os=linux ;;
  macOS | Darwin) os=darwin ;;
  Windows | MINGW* | MSYS*) os=windows ;;
  *) os="" ;;
  esac
  case ${RUNNER_ARCH:-$(uname -m)} in
  X64 | x86_64 | amd64) arch=amd64 ;;
  ARM64 | arm64 | aarch64) arch=arm64 ;;
  *) arch="" ;;
  esac
}

resolve() {
  local v=${MCPTEST_VERSION:-} tag=""
  case $v in
  latest) tag=$(newest_tag 'v[0-9]+') ;;
  v[0-9]* | [0-9]*)
    v=v${v#v}
    if [[ $v =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
      tag=$v
    elif [[ $v =~ ^v[0-9]+(\.[0-9]+)?$ ]]; then
      tag=$(newest_tag "$v")
    fi
    ;;
  esac
  platform
  if [ -z "$tag" ] || [ -z "$os" ] || [ -z "$arch" ]; then
    echo "mcptest: ${v:-this ref} is not a release (or ${RUNNER_OS:-?}/${RUNNER_ARCH:-?} has none): building from source"
    echo "source=true" >>"$out"
    return
  fi
  local ext=tar.gz
  [ "$os" = windows ] && ext=zip
  local version=${tag#v}
  {
    echo "source=false"
    echo "tag=$tag"
    echo "version=$version"
    echo "archive=mcptest_${version}_${os}_${arch}.$ext"
    echo "dir=${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-/tmp}}/mcptest/$version/${os}_$arch"
  } >>"$out"
}

sha256() {
  if command -v sha256sum >/dev/null; then sha256sum "$1"; else shasum -a 256 "$1"; fi | cut -d' ' -f1
}

fetch() {
  : "${MCPTEST_TAG:?}" "${MCPTEST_ARCHIVE:?}" "${MCPTEST_DIR:?}"
  local base="$download/$repo/releases/download/$MCPTEST_TAG" tmp rc=0
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  fetch_url "$base/checksums.txt" "$tmp/checksums.txt" || rc=$?
  if [ "$rc" -eq 4 ]; then
    echo "mcptest: release $MCPTEST_TAG has no checksums.txt: building from source"
    echo "source=true" >>"$out"
    return
  fi
  [ "$rc" -eq 0 ] || fail 3 "could not download $base/checksums.txt"
  local want
  want=$(awk -v f="$MCPTEST_ARCHIVE" '$2 == f || $2 == "*" f { print $1 }' "$tmp/checksums.txt")
  [ -n "$want" ] || fail 3 "checksums.txt of $MCPTEST_TAG lists no $MCPTEST_ARCHIVE"
  fetch_url "$base/$MCPTEST_ARCHIVE" "$tmp/$MCPTEST_ARCHIVE" || fail 3 "could not download $base/$MCPTEST_ARCHIVE"
  local got
  got=$(sha256 "$tmp/$MCPTEST_ARCHIVE")
  if [ "$got" != "$want" ]; then
    fail 3 "checksum mismatch for $MCPTEST_ARCHIVE of $MCPTEST_TAG: checksums.txt says $want, the download is $got; refusing to run it"
  fi
  mkdir -p "$MCPTEST_DIR"
  case $MCPTEST_ARCHIVE in
  *.zip)
    if command -v unzip >/dev/null; then
      unzip -o -q "$tmp/$MCPTEST_ARCHIVE" -d "$MCPTEST_DIR"
    else
      powershell -NoProfile -Command "Expand-Archive -Force -LiteralPath '$tmp/$MCPTEST_ARCHIVE' -DestinationPath '$MCPTEST_DIR'"
    fi
    ;;
  *) tar -xzf "$tmp/$MCPTEST_ARCHIVE" -C "$MCPTEST_DIR" ;;
  esac
  echo "source=false" >>"$out"
  echo "mcptest: $MCPTEST_ARCHIVE verified (sha256 $got)"
}

case ${1:-} in
resolve) resolve ;;
fetch) fetch ;;
*) echo "usage: resolve.sh resolve|fetch" >&2; exit 2 ;;
esac
