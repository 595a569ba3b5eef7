"""Build configuration beyond pyproject.toml: the compiled kernel of the dynamics core.

``crane_models/_native/multibody.c`` is plain C (no Python API) that ``crane_models.kane_native`` loads
with ctypes. It is built as an *optional* extension: without a C compiler the install still succeeds
and the numpy implementation runs instead (slower, same results).
"""
from setuptools import Extension, setup

setup(ext_modules=[Extension("crane_models._native.multibody", ["crane_models/_native/multibody.c"],
                             extra_compile_args=["-O3", "-fno-math-errno"], optional=True)])
