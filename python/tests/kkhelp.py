# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Helpers of the Python tests: the backend under test and copies between NumPy and views of its default
space, so that the same tests run on host backends and on GPUs."""
import os

import numpy as np

import kk

DEVICE = os.environ.get("KK_TEST_DEVICE", "serial")


def on_host():
    """Does the default backend's memory live on the host (NumPy arrays are its views)?"""
    return kk.View(1, label="probe").host_accessible


def to_dev(a, label="dev"):
    """A view of the default space holding a copy of the NumPy array a (same layout)."""
    a = np.asarray(a)
    layout = "left" if a.ndim > 1 and a.flags.f_contiguous and not a.flags.c_contiguous else "right"
    v = kk.View(a.shape, a.dtype, layout=layout, label=label)
    m = kk.create_mirror_view(v)
    np.asarray(m)[...] = a
    if m is not v:
        kk.deep_copy(v, m)
    return v


def to_host(v):
    """A NumPy copy of view v (any space)."""
    kk.fence()
    m = kk.create_mirror_view(v)
    if m is not v:
        kk.deep_copy(m, v)
    return np.array(np.asarray(m))
