"""Build configuration beyond pyproject.toml: the compiled kernel of the dynamics core.

``crane_models/_native/multibody.c`` is plain C (no Python API) that ``crane_models.kane_native`` loads
with ctypes. It is built as an *optional* extension: without a C compiler the install still succeeds
and the numpy implementation runs instead (slower, same results).
"""
from setuptools import Extension, setup

# -O3: the kernel's small dense loops gain ~15 % over -O2 (benchmarks/bench_flexible_crane.py); no -march, so
# the library inside an FMU runs on any x86-64; -fno-math-errno lets sqrt inline (errno is never read).
setup(ext_modules=[Extension("crane_models._native.multibody", ["crane_models/_native/multibody.c"],
                             extra_compile_args=["-O3", "-fno-math-errno"], optional=True)])
