/* core/serial.h -- the built-in serial backend (core/serial.c). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_CORE_SERIAL_H
#define KK_CORE_SERIAL_H

#include "internal.h"

/* The serial backend's operations table (serial.c). */
const kk_plugin_ops_t *kk__serial_entry(uint32_t core_abi, const kk_host_services_t *hs);

#endif /* KK_CORE_SERIAL_H */
