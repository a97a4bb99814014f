# Sourced by the tools/ensure-*.sh scripts: `apt_install WHO PACKAGE...` installs Debian packages
# with apt-get, as root or through `sudo -n`; when that is impossible it prints one line naming
# WHO and the packages, and exits non-zero.
apt_install() {
  local who="$1"
  shift
  local sudo=()
  if [ "${EUID:-$(id -u)}" != "0" ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
      sudo=(sudo -n)
    else
      echo "$who: $* missing, and this user is not root and cannot sudo without a password (apt-get install $*)" >&2
      exit 1
    fi
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "$who: $* missing and apt-get is not available" >&2
    exit 1
  fi
  echo "$who: installing $* with apt-get" >&2
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq </dev/null >&2 || { echo "$who: apt-get update failed" >&2; exit 1; }
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "$@" </dev/null >&2 || { echo "$who: apt-get install $* failed" >&2; exit 1; }
}
