#!/usr/bin/env bash
# Build the FMI compliance checker (fmuCheck) from local sources; about 15 s on 2 cores.
#   .ci/build_fmucheck.sh CHECKER_SRC FMIL_GIT_REPO [PREFIX]
# CHECKER_SRC: a checkout of modelica-tools/FMUComplianceChecker; FMIL_GIT_REPO: a git clone of
# modelon-community/fmi-library that has the tag 2.0.3 (the checker's CMake clones it; the clone is
# redirected to this local repository, so no network is needed). Nothing is downloaded and nothing is
# written into this repository. Then: export FMUCHECK=PREFIX/fmuCheck.linux64 and run pytest.
set -euo pipefail
src=$(realpath "$1"); fmil=$(realpath "$2"); prefix=$(realpath -m "${3:-/tmp/fmucheck}")
build=$(mktemp -d /tmp/fmucheck-build.XXXXXX)
export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0="url.$fmil.insteadOf" \
       GIT_CONFIG_VALUE_0=https://github.com/modelon-community/fmi-library.git
cmake -S "$src" -B "$build" -DFMUCHK_INSTALL_PREFIX="$prefix" -DCMAKE_BUILD_TYPE=Release > "$build/cmake.log" 2>&1 || { tail -20 "$build/cmake.log"; exit 1; }
cmake --build "$build" --target install -j "$(nproc)" > "$build/build.log" 2>&1 || { tail -20 "$build/build.log"; exit 1; }
echo "$prefix/fmuCheck.linux64"
