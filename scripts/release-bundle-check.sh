#!/usr/bin/env bash
# Builds the Maven Central bundle of every published artifact and checks it has what Central requires:
#
#   scripts/release-bundle-check.sh [bundle-dir]
#
# `mvn -Prelease deploy` writes every published module into a file repository (the bundle's layout):
# POM, jar, -sources.jar, -javadoc.jar, each with an OpenPGP signature (.asc) and .md5/.sha1. Then
# each artifact is checked: the files exist, every signature verifies, the POM (with its parent) has
# name, description, url, licenses, developers and scm, and exactly the expected artifacts are there.
#
# Signing key: BALLAST_SIGNING_KEY_FILE (an armored secret key) if set, as for a real release; else a
# throwaway TEST-ONLY key is generated for this run (gpg, RSA, no passphrase, expires in a day) and
# deleted with the run's temporary directory. Publishing is then a credentials step: the same command
# with the real key and a release version, and the bundle (zipped) uploaded to the Central Portal.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d "${TMPDIR:-/tmp}/ballast-release.XXXXXX")
trap 'rm -rf "$work"' EXIT
bundle=${1:-$work/bundle}
rm -rf "$bundle"
mkdir -p "$bundle"
bundle=$(cd "$bundle" && pwd)

command -v gpg >/dev/null || { echo "release-bundle-check: gpg is required (apt-get install gnupg)" >&2; exit 1; }
export GNUPGHOME="$work/gnupg"
mkdir -m 700 "$GNUPGHOME"
key=${BALLAST_SIGNING_KEY_FILE:-}
if [ -z "$key" ]; then
  gpg --batch --quiet --passphrase '' \
    --quick-gen-key "Ballast TEST-ONLY release check key <test-only@ballast.invalid>" rsa2048 sign 1d
  key="$work/test-only-signing-key.asc"
  gpg --batch --quiet --armor --export-secret-keys > "$key"
  echo "release-bundle-check: signing with a throwaway TEST-ONLY key"
else
  gpg --batch --quiet --import "$key"
fi

mvn -B -Prelease deploy \
  -DskipTests -Dinvoker.skip=true -Dspotless.check.skip=true \
  -Dgpg.keyFilePath="$key" \
  -DaltDeploymentRepository="bundle::file://$bundle"

expected="ballast-parent ballast-bom ballast-http-client ballast-micrometer ballast-opentelemetry ballast-storage-adapter ballast-test ballast-backup ballast-cli
ballast-spring-boot-autoconfigure ballast-spring-boot-starter"
base="$bundle/dev/ballast"
failures=0
fail() { echo "::error:: $*" >&2; failures=$((failures + 1)); }

found=$(cd "$base" && ls -d */ | tr -d / | sort | tr '\n' ' ')
want=$(echo $expected | tr ' ' '\n' | sort | tr '\n' ' ')
[ "$found" = "$want" ] || fail "bundle holds [$found], expected exactly [$want]"

# One element of a POM (namespaces stripped), e.g. pom_has FILE licenses/license/name
pom_value() {
  python3 - "$1" "$2" <<'PY'
import re, sys, xml.etree.ElementTree as ET
text = open(sys.argv[1], encoding='utf-8').read()
text = re.sub(r'\sxmlns(:\w+)?="[^"]*"', '', text)        # namespaces
text = re.sub(r'\s[\w.-]+:[\w.-]+="[^"]*"', '', text)     # prefixed attributes (xsi:schemaLocation)
root = ET.fromstring(text)
node = root.find(sys.argv[2])
print('' if node is None or node.text is None else node.text.strip())
PY
}

for artifact in $expected; do
  dir=$(ls -d "$base/$artifact"/*/ 2>/dev/null | head -1)
  [ -n "$dir" ] || { fail "$artifact: not in the bundle"; continue; }
  pom=$(ls "$dir"*.pom 2>/dev/null | sort | tail -1)
  [ -n "$pom" ] || { fail "$artifact: no POM"; continue; }
  stem=${pom%.pom}
  packaging=$(pom_value "$pom" packaging); packaging=${packaging:-jar}
  files=("$stem.pom")
  if [ "$packaging" = jar ]; then
    files+=("$stem.jar" "$stem-sources.jar" "$stem-javadoc.jar")
  fi
  for file in "${files[@]}"; do
    [ -s "$file" ] || { fail "$artifact: missing $(basename "$file")"; continue; }
    for suffix in .asc .md5 .sha1; do
      [ -s "$file$suffix" ] || fail "$artifact: missing $(basename "$file")$suffix"
    done
    if [ -s "$file.asc" ] && ! gpg --batch --quiet --verify "$file.asc" "$file" 2>/dev/null; then
      fail "$artifact: the signature of $(basename "$file") does not verify"
    fi
  done
  # Every attached file (test-jars too) is signed.
  for file in "$dir"*; do
    case "$file" in *.asc|*.md5|*.sha1|*.sha256|*.sha512|*maven-metadata*) continue ;; esac
    [ -s "$file.asc" ] || fail "$artifact: $(basename "$file") is not signed"
  done
  [ -n "$(pom_value "$pom" name)" ] || fail "$artifact: POM has no <name>"
  # description, url, licenses, developers and scm: in the POM or in ballast-parent's, which it inherits.
  parent_pom=$(ls "$base/ballast-parent"/*/*.pom 2>/dev/null | sort | tail -1)
  if [ -z "$(pom_value "$pom" description)" ]; then
    echo "release-bundle-check: WARN $artifact has no <description> of its own and inherits ballast-parent's"
    [ -n "$(pom_value "$parent_pom" description)" ] || fail "$artifact: POM has no <description>, nor its parent"
  fi
  for element in url licenses/license/name licenses/license/url developers/developer/name scm/url scm/connection; do
    value=$(pom_value "$pom" "$element")
    if [ -z "$value" ] && [ "$(pom_value "$pom" parent/artifactId)" = ballast-parent ] && [ -n "$parent_pom" ]; then
      value=$(pom_value "$parent_pom" "$element")
    fi
    [ -n "$value" ] || fail "$artifact: POM has no <$element>, nor its parent"
  done
  echo "release-bundle-check: $artifact ($packaging) complete"
done

# IDE completion of ballast.* properties: the configuration metadata is in the auto-configuration jar.
autoconfigure_jar=$(ls "$base"/ballast-spring-boot-autoconfigure/*/ballast-spring-boot-autoconfigure-*.jar 2>/dev/null \
  | grep -v -e '-sources.jar$' -e '-javadoc.jar$' | head -1)
# The listing is read whole (not `unzip -l | grep -q`): grep -q stops at the first match, unzip then
# dies of SIGPIPE, and under pipefail a jar that has the file would be reported as lacking it.
autoconfigure_files=$([ -z "$autoconfigure_jar" ] || unzip -Z1 "$autoconfigure_jar")
if ! grep -qx 'META-INF/spring-configuration-metadata.json' <<<"$autoconfigure_files"; then
  fail "ballast-spring-boot-autoconfigure: no META-INF/spring-configuration-metadata.json in the jar"
fi

if [ "$failures" -ne 0 ]; then
  echo "release-bundle-check: $failures problem(s) in the bundle at $bundle" >&2
  exit 1
fi
(cd "$bundle" && find . -type f | sort > "$work/files.txt")
echo "release-bundle-check: bundle complete, $(wc -l < "$work/files.txt") files, every signature verified"
