/* plugins/hip/hip_error.h -- HIP runtime errors as kk statuses, in one place (names and messages come from the runtime). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_HIP_ERROR_H
#define KK_HIP_ERROR_H

#include <hip/hip_runtime_api.h>

/* {hipError_t, kk status}; every other error is KK_ERROR_BACKEND. */
#define HIP_STATUSES                                       \
  {hipErrorOutOfMemory, KK_ERROR_OUT_OF_MEMORY},           \
  {hipErrorInvalidValue, KK_ERROR_INVALID_ARGUMENT},       \
  {hipErrorInvalidHandle, KK_ERROR_INVALID_ARGUMENT},      \
  {hipErrorInvalidDevicePointer, KK_ERROR_INVALID_ARGUMENT}, \
  {hipErrorNoDevice, KK_ERROR_NO_DEVICE},                  \
  {hipErrorInvalidDevice, KK_ERROR_NO_DEVICE},             \
  {hipErrorNoBinaryForGpu, KK_ERROR_NOT_FOUND},            \
  {hipErrorNotFound, KK_ERROR_NOT_FOUND},                  \
  {hipErrorInvalidImage, KK_ERROR_NOT_FOUND},              \
  {hipErrorLaunchOutOfResources, KK_ERROR_LIMIT},          \
  {hipErrorNotSupported, KK_ERROR_UNSUPPORTED},            \
  {0, 0}

/* The errors a faulting kernel leaves behind (the device is unusable
 * afterwards), 0 last. */
#define HIP_LOST hipErrorIllegalAddress, hipErrorAssert, hipErrorLaunchFailure, 0

#endif
