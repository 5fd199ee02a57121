#!/usr/bin/env bash
# resolve.sh: how the mcptest Action finds its binary (action.yml runs it).
#
#   resolve.sh resolve   picks the release for MCPTEST_VERSION and the
#                        archive for the runner; writes repo, ref, tag,
#                        version, archive, dir and source=true|false to
#                        $GITHUB_OUTPUT
#   resolve.sh fetch     downloads that archive and checksums.txt, verifies
#                        the archive's SHA-256 (a mismatch exits 3) and
#                        unpacks the binary into MCPTEST_DIR
#
# MCPTEST_VERSION is the action's `version` input, else the ref the workflow
# uses the action at (action_ref, below): v1.2.3 (that release), v1 or v1.2
# (the newest release under it), latest, or anything else (a full 40-hex
# commit SHA, a branch, `uses: ./`), which is not a release: then
# source=true and action.yml builds from source. A release tag whose
# checksums.txt is not published (404) also falls back to the source build.
# MCPTEST_API_URL and MCPTEST_DOWNLOAD_URL default to GitHub's; the tests
# point them at a local server.
#
# A 40-hex commit SHA always builds from source at that commit, never a
# release: a tag is a name anyone with push rights can point at any commit,
# so the release a tag names now is not fixed by the SHA, and a SHA pin must
# run the code the SHA fixes. The source at the commit (the action's own
# checkout), its go.mod's Go version and go.sum's module digests fix the
# binary; no request is made to the API for a SHA.
set -euo pipefail

repo=${MCPTEST_REPO:-mcptest/mcptest}
api=${MCPTEST_API_URL:-${GITHUB_API_URL:-https://api.github.com}}
download=${MCPTEST_DOWNLOAD_URL:-${GITHUB_SERVER_URL:-https://github.com}}
out=${GITHUB_OUTPUT:-/dev/stdout}

fail() { # fail CODE MESSAGE: an error annotation, then exit CODE
  echo "::error title=mcptest setup::$2"
  exit "$1"
}

# url_parts URL: sets u_origin (scheme://host:port, lower case, the port
# spelled out) and u_path (the path and query, "/" at least) of URL;
# returns 1 for a URL that is not scheme://authority..., or that carries
# user information (whose origin is not to be guessed).
url_parts() {
  local u=$1 scheme rest auth host port
  [[ $u =~ ^([A-Za-z][A-Za-z0-9+.-]*)://([^/?#]*)(.*)$ ]] || return 1
  scheme=$(lower "${BASH_REMATCH[1]}") auth=${BASH_REMATCH[2]} rest=${BASH_REMATCH[3]}
  case $auth in *@*) return 1 ;; esac
  if [[ $auth =~ ^(\[[^]]*\])(:([0-9]*))?$ ]] || [[ $auth =~ ^([^:]*)(:([0-9]*))?$ ]]; then
    host=$(lower "${BASH_REMATCH[1]}") port=${BASH_REMATCH[3]}
  else
    return 1
  fi
  [ -n "$host" ] || return 1
  if [ -z "$port" ]; then
    case $scheme in http) port=80 ;; https) port=443 ;; *) return 1 ;; esac
  fi
  u_origin="$scheme://$host:$((10#$port))" u_path=${rest%%#*}
  [ -n "$u_path" ] || u_path=/
}

# is_api URL: whether URL is the API's: the API URL's origin (scheme,
# host and port compared, not the strings: http://127.0.0.1:1850 is not
# the origin of http://127.0.0.1:18513) and a path at or under the API
# URL's path. Only such a URL is sent the token.
is_api() {
  local base_origin base_path
  url_parts "$api" || return 1
  base_origin=$u_origin base_path=${u_path%%\?*}
  base_path=${base_path%/}
  url_parts "$1" || return 1
  [ "$u_origin" = "$base_origin" ] || return 1
  case $u_path in "$base_path" | "$base_path"/* | "$base_path"\?*) return 0 ;; esac
  return 1
}

# fetch_url URL FILE: 0 on success, 4 on 404, 1 on any other failure. A
# request to the API (is_api) carries the media type and API version
# GitHub asks for, and the token when there is one; any other host gets
# neither. The token never is on curl's command line (which any process
# on the machine may read): the header is read from curl's standard input.
fetch_url() {
  local code auth=() header=""
  if is_api "$1"; then
    auth=(-H "Accept: application/vnd.github+json" -H "X-GitHub-Api-Version: 2022-11-28")
    if [ -n "${MCPTEST_TOKEN:-}" ]; then
      auth+=(-H @-)
      header="Authorization: Bearer $MCPTEST_TOKEN"
    fi
  fi
  code=$(printf '%s\n' "$header" | curl -sSL --retry 3 --retry-delay 1 --connect-timeout 10 --max-time 120 \
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

# action_ref sets ref and, unless MCPTEST_REPO names it, repo: the ref and
# repository this action was checked out at. The runner gives them as
# github.action_ref and github.action_repository (MCPTEST_ACTION_REF,
# MCPTEST_ACTION_REPOSITORY), but in a composite action nested inside
# another composite they are empty or the outer action's (a known runner
# limitation); the action's own path, .../_actions/OWNER/REPO/REF on a
# runner, is then the truth, and wins whenever the two do not name the same
# repository.
action_ref() {
  local path=${GITHUB_ACTION_PATH:-} own=${MCPTEST_ACTION_REPOSITORY:-}
  path=${path//\\//}
  path=${path%/}
  ref=${MCPTEST_ACTION_REF:-}
  if [[ $path =~ /_actions/([^/]+)/([^/]+)/([^/]+)$ ]]; then
    local prepo="${BASH_REMATCH[1]}/${BASH_REMATCH[2]}" pref=${BASH_REMATCH[3]}
    if [ -z "$ref" ] || [ "$(lower "$own")" != "$(lower "$prepo")" ]; then
      ref=$pref own=$prepo
    fi
  fi
  if [ -z "${MCPTEST_REPO:-}" ] && [ -n "$own" ]; then
    repo=$own
  fi
}

lower() { printf '%s' "$1" | tr '[:upper:]' '[:lower:]'; }

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
  local v tag="" ref=""
  action_ref
  v=${MCPTEST_VERSION:-$ref}
  local shown=$v
  case $v in *[!A-Za-z0-9._/-]*) shown="" ;; esac
  {
    echo "repo=$repo"
    echo "ref=$shown"
  } >>"$out"
  if [[ $v =~ ^[0-9a-f]{40}$ ]]; then
    # A pinned commit: its source, whatever tag points at it now or later.
    # The source built is the action's own checkout, so a SHA in the
    # version input must be the ref the action is used at.
    if [ "$v" != "$ref" ]; then
      fail 2 "version: $v is a commit SHA, and only the commit the action is used at can be built: write uses: $repo@$v (and leave version empty) to run the code of that commit"
    fi
    echo "mcptest: $v is a commit SHA: building mcptest from source at that commit (a SHA pin runs the code the SHA fixes, never a release a tag names)"
    echo "source=true" >>"$out"
    return
  fi
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
      unzip -o -q "$tmp/$MCPTEST_ARCHIVE" -d "$MCPTEST_DIR" || fail 3 "could not unpack $MCPTEST_ARCHIVE of $MCPTEST_TAG into $MCPTEST_DIR (unzip refused it)"
    else
      powershell -NoProfile -Command "Expand-Archive -Force -LiteralPath '$tmp/$MCPTEST_ARCHIVE' -DestinationPath '$MCPTEST_DIR'" ||
        fail 3 "could not unpack $MCPTEST_ARCHIVE of $MCPTEST_TAG into $MCPTEST_DIR (Expand-Archive refused it)"
    fi
    ;;
  *) tar -xzf "$tmp/$MCPTEST_ARCHIVE" -C "$MCPTEST_DIR" || fail 3 "could not unpack $MCPTEST_ARCHIVE of $MCPTEST_TAG into $MCPTEST_DIR (tar refused it)" ;;
  esac
  echo "source=false" >>"$out"
  echo "mcptest: $MCPTEST_ARCHIVE verified (sha256 $got)"
}

case ${1:-} in
resolve) resolve ;;
fetch) fetch ;;
*) echo "usage: resolve.sh resolve|fetch" >&2; exit 2 ;;
esac
