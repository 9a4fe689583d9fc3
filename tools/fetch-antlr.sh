#!/usr/bin/env bash
# Fetch the pinned ANTLR tool jar into .cache/antlr/ (repo root) and verify its checksum.
#
# Expects: curl or wget, and sha256sum or shasum.  Guarantees: on success, prints the path of a jar
# whose sha256 matches the pin; an existing jar with the right checksum is reused, never downloaded
# again.  Exits non-zero (and leaves no partial jar behind) if the download or the check fails.
set -euo pipefail

ANTLR_VERSION=4.13.2
ANTLR_SHA256=eae2dfa119a64327444672aff63e9ec35a20180dc5b8090b7a6ab85125df4d76
ANTLR_URL="https://repo1.maven.org/maven2/org/antlr/antlr4/${ANTLR_VERSION}/antlr4-${ANTLR_VERSION}-complete.jar"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST_DIR="${ROOT}/.cache/antlr"
JAR="${DEST_DIR}/antlr4-${ANTLR_VERSION}-complete.jar"

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  else
    shasum -a 256 "$1" | cut -d' ' -f1
  fi
}

if [[ -f "${JAR}" ]]; then
  if [[ "$(sha256_of "${JAR}")" == "${ANTLR_SHA256}" ]]; then
    echo "${JAR}"
    exit 0
  fi
  echo "fetch-antlr: ${JAR} has the wrong checksum; downloading it again" >&2
  rm -f "${JAR}"
fi

mkdir -p "${DEST_DIR}"
TMP="$(mktemp "${DEST_DIR}/.antlr.XXXXXX")"
trap 'rm -f "${TMP}"' EXIT

echo "fetch-antlr: downloading ${ANTLR_URL}" >&2
if command -v curl >/dev/null 2>&1; then
  curl -fsSL --retry 3 -o "${TMP}" "${ANTLR_URL}"
elif command -v wget >/dev/null 2>&1; then
  wget -q -O "${TMP}" "${ANTLR_URL}"
else
  echo "fetch-antlr: error: neither curl nor wget is installed" >&2
  exit 1
fi

GOT="$(sha256_of "${TMP}")"
if [[ "${GOT}" != "${ANTLR_SHA256}" ]]; then
  echo "fetch-antlr: error: checksum mismatch for ${ANTLR_URL}" >&2
  echo "  expected ${ANTLR_SHA256}" >&2
  echo "  got      ${GOT}" >&2
  exit 1
fi

mv "${TMP}" "${JAR}"
trap - EXIT
echo "${JAR}"
