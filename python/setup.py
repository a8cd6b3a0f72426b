# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# pip install --no-build-isolation python/   (from a tree or machine where kk is installed; docs/python.md)
# Pure Python (ctypes): nothing is compiled.  Records where libkk is: $KK_LIBDIR, else pkg-config's kk libdir.
import os
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildPy(build_py):
    def run(self):
        super().run()
        libdir = os.environ.get("KK_LIBDIR")
        if not libdir:
            try:
                libdir = subprocess.check_output(["pkg-config", "--variable=libdir", "kk"], text=True).strip()
            except (OSError, subprocess.CalledProcessError):
                libdir = None
        if libdir:
            with open(os.path.join(self.build_lib, "kk", "_paths.py"), "w") as f:
                f.write("# written by pip install: where libkk is\nLIBDIR = %r\n" % libdir)


setup(name="kk", version="0.1.0", description="kk from Python: views, DLPack, kernel modules (ctypes over libkk)",
      packages=["kk"], python_requires=">=3.9", cmdclass={"build_py": BuildPy})
