"""Old path of the build, kept for users' imports (README, docs, examples, benchmarks): the project's FMUs by name
are :mod:`models.build` (``build_fmu``, ``build_all``); the FMI layer's build, which takes the specs, is
:mod:`.packaging` with :mod:`.model_description`, :mod:`.reproducible` and :mod:`.fmu_binaries` (issue 22).
Nothing in the package imports this module (tests/test_architecture.py)."""
from ..models.build import build_all, build_fmu
from .fmu_binaries import (bundle_binaries, compiled_kernel, default_binaries, fmi2_runtime_binary, fmi3_runtime_binary,
                           install_runtime, model_binaries, runtime_binary, runtime_cache_dir, runtime_entries)
from .model_description import DISPLAY_UNITS, complete_fmi3_model_description, complete_model_description
from .packaging import (ROOT, build_inputs_sha256, builder_in_namespace, bundle_namespace, slave_script_name,
                        slave_source)
from .reproducible import TOKEN_ENTRY, ZIP_EPOCH, content_guid, make_reproducible

__all__ = ["build_all", "build_fmu", "bundle_binaries", "compiled_kernel", "default_binaries", "fmi2_runtime_binary",
           "fmi3_runtime_binary", "install_runtime", "model_binaries", "runtime_binary", "runtime_cache_dir",
           "runtime_entries", "DISPLAY_UNITS", "complete_fmi3_model_description", "complete_model_description", "ROOT",
           "build_inputs_sha256", "builder_in_namespace", "bundle_namespace", "slave_script_name", "slave_source", "TOKEN_ENTRY", "ZIP_EPOCH", "content_guid",
           "make_reproducible"]
