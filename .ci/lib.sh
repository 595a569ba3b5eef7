# Shared by the .ci scripts (sourced): a Python, a virtual environment, Debian packages, GitHub annotations.
# Runs in bash on Linux, macOS and Windows (the runners' Git Bash).

# A Python >= 3.10: `python` where it is one (setup-python, Windows), else `python3`.
for candidate in python python3; do
    if command -v "$candidate" >/dev/null 2>&1 \
        && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
        PYTHON=$candidate
        break
    fi
done
: "${PYTHON:?no Python >= 3.10 found (python, python3)}"

# use_venv DIR SPEC...: keep an active virtual environment as it is; otherwise make DIR fresh, activate it and
# pip install SPEC (a fresh environment shows a missing install step that an old one would hide).
use_venv() {
    local dir=$1
    shift
    [ -n "${VIRTUAL_ENV:-}" ] && return 0
    "$PYTHON" -m venv "$dir"
    if [ -f "$dir/Scripts/activate" ]; then . "$dir/Scripts/activate"; else . "$dir/bin/activate"; fi
    python -m pip install --quiet --upgrade pip
    python -m pip install --quiet "$@"
}

# apt_install PACKAGE...: Debian packages, as root or through password-less sudo (CI runners); elsewhere a
# warning and the tests that need them skip, naming them.
apt_install() {
    local sudo=""
    if [ "$(id -u)" != 0 ]; then
        if sudo -n true 2>/dev/null; then sudo="sudo -n"; else
            echo "warning: not root, no sudo: could not install $*" >&2
            return 0
        fi
    fi
    command -v apt-get >/dev/null || { echo "warning: no apt-get: could not install $*" >&2; return 0; }
    { $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends "$@"; } >/dev/null 2>&1 || echo "warning: could not install $*" >&2
}

# skips_as_notices LOG: every test pytest skipped (its -rs lines) as a GitHub notice: what could not be checked.
skips_as_notices() {
    grep '^SKIPPED' "$1" | sed 's/^SKIPPED \[[0-9]*\] /::notice title=not checked here::/' || true
}
